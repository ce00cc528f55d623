"""Batch statistics (Wilson, order-statistic and bootstrap intervals) and the metrics the gate
reads (the gate grammar is tests/batch/test_gate.py, the population API test_population.py)."""

from __future__ import annotations

import math

import pytest

from gcv.batch.gate import METRICS
from gcv.batch.stats import (Z95, bootstrap_mean_interval, describe, group_metrics, quantile,
                             quantile_interval, quantile_ranks, wilson_interval)

# --- Wilson -------------------------------------------------------------------------------


def test_z_is_the_two_sided_95_percent_normal_quantile() -> None:
    assert Z95 == pytest.approx(1.959963984540054, abs=1e-12)


@pytest.mark.parametrize("k,n,low,high", [
    # reference values computed with 50-digit decimal arithmetic from the Wilson formula
    (9, 10, 0.595849973204762, 0.982123786904927),
    (1, 2, 0.094531205734231, 0.905468794265769),
    (57, 64, 0.791013586731039, 0.945998866555832),
    (0, 10, 0.0, 0.277532799862889),
    (10, 10, 0.722467200137111, 1.0),
    (64, 64, 0.943375940207195, 1.0),
])
def test_wilson_interval_exact_values(k: int, n: int, low: float, high: float) -> None:
    lo, hi = wilson_interval(k, n)
    assert lo == pytest.approx(low, abs=1e-9)
    assert hi == pytest.approx(high, abs=1e-9)


def test_wilson_interval_edges() -> None:
    assert wilson_interval(0, 0) == (None, None)
    assert wilson_interval(0, 5)[0] == 0.0 and wilson_interval(5, 5)[1] == 1.0
    with pytest.raises(ValueError):
        wilson_interval(6, 5)


# --- quantiles ----------------------------------------------------------------------------


def test_quantile_is_the_inverted_cdf_order_statistic() -> None:
    data = list(range(1, 11))  # 1..10
    assert quantile(data, 0.5) == 5
    assert quantile(data, 0.9) == 9
    assert quantile(data, 0.99) == 10
    assert quantile([3], 0.5) == 3
    assert quantile([], 0.5) is None


def _binom_tail_coverage(n: int, q: float, low: int, high: int) -> float:
    """P(low <= B <= high - 1) for B ~ Binomial(n, q): the interval's coverage."""
    return sum(math.comb(n, k) * q ** k * (1 - q) ** (n - k) for k in range(low, high))


def test_order_statistic_ranks_known_table_value() -> None:
    # the classic table: n = 10, median -> 2nd and 9th order statistics (97.9%)
    assert quantile_ranks(10, 0.5) == (2, 9)
    assert _binom_tail_coverage(10, 0.5, 2, 9) == pytest.approx(0.978515625)


@pytest.mark.parametrize("n", [6, 10, 25, 64, 100, 400])
@pytest.mark.parametrize("q", [0.5, 0.9, 0.99])
def test_order_statistic_intervals_cover_at_least_95_percent(n: int, q: float) -> None:
    low, high = quantile_ranks(n, q)
    lo_rank = low if low is not None else 0          # unbounded below
    hi_rank = high if high is not None else n + 1    # unbounded above
    assert _binom_tail_coverage(n, q, lo_rank, hi_rank) >= 0.95 - 1e-12
    if low is not None:  # and each bound is as tight as allowed: one rank further breaks a tail
        assert sum(math.comb(n, k) * q ** k * (1 - q) ** (n - k) for k in range(low + 1)) > 0.025
    if high is not None:
        assert sum(math.comb(n, k) * q ** k * (1 - q) ** (n - k) for k in range(high - 1)) < 0.975


def test_small_samples_have_no_upper_bound_for_high_quantiles() -> None:
    assert quantile_ranks(35, 0.9)[1] is None and quantile_ranks(36, 0.9)[1] is not None
    assert quantile_ranks(367, 0.99)[1] is None and quantile_ranks(368, 0.99)[1] is not None
    assert quantile_interval([1, 2, 3], 0.5) == (None, None)


def test_bootstrap_mean_interval_is_deterministic_and_sensible() -> None:
    data = [0] * 50 + [1] * 30 + [3] * 20
    a = bootstrap_mean_interval(data)
    assert a == bootstrap_mean_interval(list(reversed(data)))
    assert a[0] < 0.9 < a[1]
    assert 0.6 < a[0] and a[1] < 1.2
    assert bootstrap_mean_interval([4, 4, 4]) == (4.0, 4.0)
    assert bootstrap_mean_interval([]) == (None, None)


def test_describe_and_group_metrics() -> None:
    rows = ([{"status": "completed", "player_hits": h, "peak_alive_bullets": 100 + h} for h in range(9)]
            + [{"status": "died", "player_hits": 5, "peak_alive_bullets": 200}])
    m = group_metrics(rows, cells=11)
    assert m["runs"] == 10 and m["errors"] == 1 and m["error_rate"] == pytest.approx(1 / 11)
    assert m["survival_rate"] == 0.9
    assert (m["survival_low"], m["survival_high"]) == pytest.approx((0.595849973204762, 0.982123786904927))
    assert m["hits_p50"] == 4 and m["hits_p90"] == 7 and m["hits_p99"] == 8  # 0..8 and 5
    assert m["peak_alive_p99"] == 200 and m["hits_mean"] == pytest.approx(4.1)
    d = describe([])
    assert d["mean"] is None and d["p50"] is None and d["p50_low"] is None


def test_every_metric_the_gate_knows_is_computed() -> None:
    rows = [{"status": "completed", "player_hits": 1, "peak_alive_bullets": 10}]
    assert set(METRICS) == set(group_metrics(rows, 1))


def _row(seed: int, *, player: str = "scripted", label: str = "shrine", hits: int = 2, peak: int = 64) -> dict:
    return {"cell_id": f"{label}.{player}.{seed}", "config_label": label, "player": player, "engine": "python-sim",
            "seed": seed, "status": "completed", "end_reason": "boss_defeated", "player_hits": hits,
            "peak_alive_bullets": peak, "survival_ticks": 2160, "grazes": 10, "low_fps": 94.0}


def test_seeds_that_change_nothing_are_said_once_per_group() -> None:
    from gcv.batch.stats import telling_apart_notes

    rows = {r["cell_id"]: r for r in [_row(0), _row(1), _row(2), _row(0, player="bot:expert", hits=1),
                                       _row(1, player="bot:expert", hits=3)]}
    (note,) = telling_apart_notes(rows)
    assert note.startswith("scripted on shrine (python-sim): its 3 seeds gave identical figures")
    assert "does not depend on the seed" in note


def test_a_bot_without_hits_anywhere_cannot_tell_configs_apart() -> None:
    from gcv.batch.stats import telling_apart_notes

    rows = {r["cell_id"]: r for r in [_row(s, player="bot:average", label=label, hits=0, peak=peak)
                                       for s in (0, 1) for label, peak in (("a", 60), ("b", 300))]}
    (note,) = telling_apart_notes(rows)
    assert "bot:average (python-sim) took 0 hits in every one of its 4 runs on 2 config(s)" in note


def test_seeds_that_differ_say_nothing() -> None:
    from gcv.batch.stats import telling_apart_notes

    assert telling_apart_notes({r["cell_id"]: r for r in [_row(0, hits=1), _row(1, hits=2)]}) == []
