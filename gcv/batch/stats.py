"""Per-group statistics of a batch: survival with a Wilson interval, hits and peak alive
bullets with their distribution and 95% intervals. Deterministic: same rows, same summary.

A *group* is one config, player and engine (engines must agree bit for bit, so a second
engine is a parity check, not more samples). Only a cell's final row counts (its latest
attempt; see ``gcv.batch.results.final_rows``); cells whose final row is an error are
counted as ``errors`` and are not samples.

Choices, and why:

* **Survival rate** = completed runs / runs, with the **Wilson score interval** at 95%
  (z = 1.959963984540054). Unlike the normal (Wald) interval it stays inside [0, 1] and
  is sensible at 0 or n successes, which is where gates live (0/64 deaths).
* **Quantiles** (p50, p90, p99) use the *inverted CDF* definition: the ``ceil(q n)``-th
  smallest value. They are always an observed value (hits are integers; "p90 hits <= 3"
  means what it says), with no interpolation.
* **Quantile intervals** are **exact distribution-free order-statistic intervals**:
  ``[x(l), x(u)]`` with ``l`` the largest and ``u`` the smallest rank such that each tail
  has probability at most 2.5% under Binomial(n, q). No resampling, no seed, coverage at
  least 95% for any distribution (conservative with ties). When the sample is too small
  for a bound (``(1 - q)^n > 0.025`` for the lower one, ``q^n > 0.025`` for the upper one,
  e.g. p99 needs n >= 368 for an upper bound) the bound is ``None``: unknown, and a gate
  that asks for it fails rather than pass on evidence it does not have.
* **Mean intervals** are **bootstrap percentile intervals** (2,000 resamples) from a numpy
  generator with a fixed seed. Resampling n values with replacement is drawing category
  counts from Multinomial(n, empirical frequencies), which is what we do over the distinct
  values: the same distribution as index resampling, at a cost independent of n.
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Any, Iterable, Sequence

import numpy as np

Z95 = NormalDist().inv_cdf(0.975)  # 1.959963984540054
LEVEL = 0.95
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20_260_101
QUANTILES = {"p50": 0.5, "p90": 0.9, "p99": 0.99}
DISTRIBUTIONS = {"hits": "player_hits", "peak_alive": "peak_alive_bullets"}


def wilson_interval(successes: int, n: int, *, z: float = Z95) -> tuple[float | None, float | None]:
    """Wilson score interval of a binomial proportion; (None, None) when n == 0."""
    if n <= 0:
        return None, None
    if not 0 <= successes <= n:
        raise ValueError(f"successes {successes} outside 0..{n}")
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    low, high = centre - half, centre + half
    # exact at the edges (rounding must not put 0/n above 0 or n/n below 1)
    return (0.0 if successes == 0 else max(0.0, low)), (1.0 if successes == n else min(1.0, high))


def quantile(sorted_values: Sequence[Any], q: float) -> Any:
    """Inverted-CDF quantile: the ceil(q n)-th smallest value (1-based); None if empty."""
    n = len(sorted_values)
    if n == 0:
        return None
    rank = min(n, max(1, math.ceil(q * n - 1e-12)))
    return sorted_values[rank - 1]


def _binomial_cdf(n: int, q: float) -> np.ndarray:
    """F(k) = P(B <= k), k = 0..n, for B ~ Binomial(n, q), 0 < q < 1 (log-space recurrence)."""
    k = np.arange(n, dtype=np.float64)
    steps = np.log(n - k) - np.log(k + 1) + math.log(q) - math.log1p(-q)
    logpmf = np.concatenate(([n * math.log1p(-q)], n * math.log1p(-q) + np.cumsum(steps)))
    return np.minimum(np.cumsum(np.exp(logpmf)), 1.0)


def quantile_ranks(n: int, q: float, *, level: float = LEVEL) -> tuple[int | None, int | None]:
    """1-based ranks (l, u) of the exact order-statistic interval for the q-quantile."""
    if n <= 0:
        return None, None
    alpha = (1 - level) / 2
    cdf = _binomial_cdf(n, q)
    # lower: the largest l >= 1 with P(B <= l - 1) <= alpha
    lows = np.nonzero(cdf[:n] <= alpha)[0]
    low = int(lows[-1]) + 1 if lows.size else None
    # upper: the smallest u <= n with P(B <= u - 1) >= 1 - alpha
    highs = np.nonzero(cdf[:n] >= 1 - alpha)[0]
    high = int(highs[0]) + 1 if highs.size else None
    return low, high


def quantile_interval(sorted_values: Sequence[Any], q: float, *, level: float = LEVEL) -> tuple[Any, Any]:
    low, high = quantile_ranks(len(sorted_values), q, level=level)
    return (sorted_values[low - 1] if low else None), (sorted_values[high - 1] if high else None)


def bootstrap_mean_interval(values: Sequence[float], *, level: float = LEVEL,
                            resamples: int = BOOTSTRAP_RESAMPLES,
                            seed: int = BOOTSTRAP_SEED) -> tuple[float | None, float | None]:
    """Percentile bootstrap interval of the mean (seeded, so repeatable)."""
    n = len(values)
    if n == 0:
        return None, None
    distinct, counts = np.unique(np.asarray(values, dtype=np.float64), return_counts=True)
    if distinct.size == 1:
        return float(distinct[0]), float(distinct[0])
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(n, counts / n, size=resamples)
    means = draws @ distinct / n
    alpha = (1 - level) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return float(low), float(high)


def describe(values: Iterable[Any]) -> dict[str, Any]:
    """mean, p50, p90, p99 of ``values`` with ``_low`` / ``_high`` 95% bounds."""
    data = sorted(values)
    out: dict[str, Any] = {}
    mean = float(np.mean(data)) if data else None
    out["mean"] = mean
    out["mean_low"], out["mean_high"] = bootstrap_mean_interval(data)
    for name, q in QUANTILES.items():
        out[name] = quantile(data, q)
        out[f"{name}_low"], out[f"{name}_high"] = quantile_interval(data, q)
    return out


def group_metrics(rows: list[dict[str, Any]], cells: int) -> dict[str, Any]:
    """The gate metrics of one group from its final rows (``cells`` = cells in the group)."""
    runs = [r for r in rows if r["status"] in ("completed", "died")]
    errors = cells - len(runs)
    completed = sum(1 for r in runs if r["status"] == "completed")
    low, high = wilson_interval(completed, len(runs))
    metrics: dict[str, Any] = {
        "runs": len(runs), "errors": errors, "error_rate": errors / cells if cells else 0.0,
        "survival_rate": completed / len(runs) if runs else None,
        "survival_low": low, "survival_high": high,
    }
    for short, column in DISTRIBUTIONS.items():
        for key, value in describe(int(r[column]) for r in runs).items():
            metrics[f"{short}_{key}"] = value
    return metrics


def summarize(final: dict[str, dict[str, Any]], cells: Iterable[Any]) -> list[dict[str, Any]]:
    """One summary per (config, player, engine) group, in matrix order.

    ``final`` maps cell id -> final row; ``cells`` is the matrix (cells without a row, for
    example after an interruption, count as ``pending``)."""
    groups: dict[tuple[str, str, str], dict[str, Any]] = {}
    for cell in cells:
        key = (cell.config_hash, cell.player, cell.engine)
        group = groups.setdefault(key, {"config_label": cell.config_label, "config_hash": cell.config_hash,
                                        "player": cell.player, "engine": cell.engine,
                                        "cells": 0, "pending": 0, "rows": []})
        group["cells"] += 1
        row = final.get(cell.cell_id)
        if row is None:
            group["pending"] += 1
        else:
            group["rows"].append(row)
    out = []
    for group in groups.values():
        rows = group.pop("rows")
        done = group["cells"] - group["pending"]
        group["completed"] = sum(1 for r in rows if r["status"] == "completed")
        group["died"] = sum(1 for r in rows if r["status"] == "died")
        group["metrics"] = group_metrics(rows, done)
        out.append(group)
    return out


# the figures a dashboard compares across seeds (timing and hashes left out: they vary anyway)
SEED_FIGURES = ("status", "end_reason", "player_hits", "peak_alive_bullets", "survival_ticks", "grazes", "low_fps")


def telling_apart_notes(final: dict[str, dict[str, Any]]) -> list[str]:
    """What the numbers cannot say, in words a dashboard reader needs.

    - A group whose seeds all gave the same figures: the seed varies the fight's random
      parts, but this player's path (the scripted Lissajous path, a recorded trace) does not
      depend on it, so N seeds are one measurement, not N (a wide "interval" of zero would
      otherwise read as a mistake or as certainty).
    - A bot skill that took 0 hits on every run of every config: the batch cannot tell the
      configs apart for that skill; a harder skill or more pressure would.
    """
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for row in final.values():
        if row.get("status") in ("completed", "died"):
            groups.setdefault((row["config_label"], row["player"], row["engine"]), []).append(row)
    notes = []
    for (label, player, engine), rows in groups.items():
        seeds = {r["seed"] for r in rows}
        if len(seeds) < 2 or len({tuple(r.get(k) for k in SEED_FIGURES) for r in rows}) != 1:
            continue
        same = (f"{player} on {label} ({engine}): its {len(seeds)} seeds gave identical figures "
                f"({rows[0].get('player_hits')} hits, peak {rows[0].get('peak_alive_bullets')} alive)")
        if not player.startswith("bot:"):
            notes.append(f"{same}; this player's path does not depend on the seed, so they count as one "
                         "measurement (use bot:SKILL players for a population)")
        elif rows[0].get("player_hits"):  # a bot without hits gets the note below
            notes.append(f"{same}; the seeds did not change the outcome, so the interval says little")
    by_player: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for (label, player, engine), rows in groups.items():
        if player.startswith("bot:"):
            by_player.setdefault((player, engine), []).extend(rows)
    for (player, engine), rows in by_player.items():
        configs = {r["config_label"] for r in rows}
        if len(rows) > 1 and all((r.get("player_hits") or 0) == 0 for r in rows):
            notes.append(f"{player} ({engine}) took 0 hits in every one of its {len(rows)} runs on "
                         f"{len(configs)} config(s): the batch cannot tell {'them' if len(configs) > 1 else 'its seeds'} "
                         "apart for this skill; a weaker bot (bot:novice) or more pressure would")
    return notes
