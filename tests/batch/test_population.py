"""The population API (gcv.batch.population): seeded bots judged with intervals (moved here from
tests/batch/test_stats.py)."""

from __future__ import annotations

import pytest

from gcv.batch.stats import wilson_interval


def test_population_summary_and_evaluation(baseline) -> None:
    from gcv.batch.population import evaluate_population, run_population

    summary = run_population(baseline, skills=["average"], seeds=3)
    skill = summary.skill("average")
    assert skill.runs == 3 and skill.errors == 0 and summary.seeds == 3
    assert skill.survival_rate == 1.0
    assert skill.survival_interval == pytest.approx(wilson_interval(3, 3))
    checks = evaluate_population(summary)  # the documented default targets
    assert [c["name"] for c in checks] == ["population_survival_rate", "population_hits_p90"]
    assert all(c["passed"] for c in checks)
    assert set(checks[0]) == {"name", "skill", "field", "op", "expected", "actual", "passed", "interval",
                              "basis"}
    strict = evaluate_population(summary, [{"skill": "average", "field": "survival_rate", "op": ">=",
                                            "value": 0.9, "basis": "interval"}])
    # 3/3 survive, but the Wilson low bound (0.44) is below 0.9: not enough seeds to prove it
    assert strict[0]["actual"] == pytest.approx(wilson_interval(3, 3)[0]) and not strict[0]["passed"]
    with pytest.raises(ValueError):
        run_population(baseline, skills=["pro"], seeds=3)
