"""The batch gate (gcv.batch.gate): the --fail-if grammar, parsed and never eval-ed, and its
evaluation per group (moved here from tests/batch/test_stats.py)."""

from __future__ import annotations

import pytest

from gcv.batch.gate import GateRule, GateSyntaxError, evaluate_gate, parse_condition


@pytest.mark.parametrize("text,canonical", [
    ("survival_rate < 0.9", "survival_rate < 0.9"),
    ("survival_rate<0.9", "survival_rate < 0.9"),
    ("survival_rate < 90%", "survival_rate < 0.9"),
    ("hits_p90 > 3 or survival_low < 0.8 and errors >= 1",
     "hits_p90 > 3 or survival_low < 0.8 and errors >= 1"),
    ("peak_alive_p99_high != -1", "peak_alive_p99_high != -1"),
])
def test_gate_accepts_the_grammar(text: str, canonical: str) -> None:
    assert parse_condition(text).canonical() == canonical


@pytest.mark.parametrize("text,reason", [
    ("", "empty condition"),
    ("survival < 0.9", "unknown metric 'survival'"),
    ("survival_rate 0.9", "expected a comparison"),
    ("survival_rate <", "expected a number"),
    ("survival_rate < x", "expected a number"),
    ("survival_rate <> 1", "expected a number"),
    ("survival_rate < 0.9 and", "expected a metric name"),
    ("survival_rate < 0.9 hits_p90 > 3", "expected 'and', 'or'"),
    ("(survival_rate < 0.9)", "expected a metric name"),
    ("__import__('os').system('x') < 1", "unknown metric '__import__'"),
    ("survival_rate < 1e3", "expected 'and', 'or'"),
    ("survival_rate = 1", "expected a comparison"),
])
def test_gate_rejects_everything_else(text: str, reason: str) -> None:
    with pytest.raises(GateSyntaxError) as info:
        parse_condition(text)
    assert reason in info.value.reason
    assert "^" in str(info.value)


def _group(player: str, **metrics: float | None) -> dict:
    return {"config_label": "c", "config_hash": "h" * 64, "player": player, "engine": "python-sim",
            "metrics": metrics}


def test_gate_evaluation_per_group_and_unknown_values_fail() -> None:
    groups = [_group("bot:average", survival_rate=0.95, hits_p90=2),
              _group("bot:novice", survival_rate=0.5, hits_p90=6),
              _group("scripted", survival_rate=None, hits_p90=None)]
    result = evaluate_gate([GateRule(parse_condition("survival_rate < 0.9"))], groups)
    assert not result.passed and result.evaluated == 3
    assert [f["player"] for f in result.failures] == ["bot:novice", "scripted"]
    assert result.failures[0]["values"] == {"survival_rate": 0.5}
    scoped = GateRule(parse_condition("survival_rate < 0.9 and hits_p90 > 3"), players=("bot:average",))
    assert evaluate_gate([scoped], groups).passed
    # "and" binds tighter than "or"
    assert parse_condition("hits_p90 > 5 or survival_rate < 0.6 and hits_p90 < 1").holds(
        {"hits_p90": 6, "survival_rate": 0.9})
    assert not parse_condition("hits_p90 > 5 or survival_rate < 0.6 and hits_p90 < 1").holds(
        {"hits_p90": 4, "survival_rate": 0.5})
