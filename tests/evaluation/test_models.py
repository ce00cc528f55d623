"""The evaluation records (gcv.evaluation.models): a check's trace form and label, the
evaluation's views and its fingerprint."""

from __future__ import annotations

from gcv.evaluation.models import Check, check_label, labelled
from tests.support.evalutil import base_telemetry, evaluation, over_budget


def test_a_checks_trace_form() -> None:
    failed = Check(name="peak_alive_bullets", field="peak_alive_bullets", op="<=", expected=350, actual=420,
                   passed=False, phase_id="phase_2")
    assert failed.short() == "peak_alive_bullets@phase_2 420>350 FAIL"
    passed = Check(name="low_fps", field="low_fps", op=">=", expected=55.0, actual=60.5, passed=True)
    assert passed.short() == "low_fps 60.5>=55 ok"
    flag = Check(name="run_status", field="status", op="==", expected="completed", actual=True, passed=True)
    assert flag.short() == "run_status true==completed ok"


def test_labels_carry_the_phase_of_intent_checks_only() -> None:
    intent = Check(name="intent.spawn_rate", field="x", op=">=", passed=True, phase_id="phase_2")
    hard = Check(name="player_hits", field="player_hits", op="<=", passed=False, phase_id="phase_2")
    assert check_label(intent) == "intent.spawn_rate[phase_2]" and check_label(hard) == "player_hits"
    assert check_label(intent.model_dump()) == "intent.spawn_rate[phase_2]"
    out = labelled({"passed": True, "checks": [hard.model_dump()], "intent_checks": [intent.model_dump()]})
    assert out is not None and out["checks"][0]["label"] == "player_hits"
    assert out["intent_checks"][0]["label"] == "intent.spawn_rate[phase_2]"
    assert labelled(None) is None


def test_the_evaluation_views_and_fingerprint() -> None:
    ok, bad = evaluation(base_telemetry()), evaluation(over_budget(420))
    assert ok.failed == [] and [c.name for c in bad.failed] == ["peak_alive_bullets"]
    assert bad.check("peak_alive_bullets", "phase_2") is not None and bad.check("peak_alive_bullets", "phase_9") is None
    assert bad.all_checks == [*bad.checks, *bad.intent_checks]
    assert ok.fingerprint() == evaluation(base_telemetry()).fingerprint() != bad.fingerprint()
    assert evaluation(over_budget(421)).fingerprint() != bad.fingerprint()  # the actual figure counts
