"""Policy: which intents the evidence allows (and why others are refused); the gate's outcomes."""

from __future__ import annotations

import pytest

from gcv.agents.base import REPAIR_INTENTS, ReviewVerdict
from gcv.contract.goal import Goal, ParameterEdit
from gcv.repair.models import AllowedIntents
from gcv.repair.policy import allowed_intents, gate
from tests.support.evalutil import base, base_telemetry, edit, evaluation, over_budget, run, too_many_hits, variant

LOAD = ["REDUCE_BULLETS_PER_WAVE", "INCREASE_WAVE_INTERVAL", "REDUCE_BULLET_LIFETIME"]
DANGER = ["REDUCE_BULLETS_PER_WAVE", "INCREASE_WAVE_INTERVAL", "REDUCE_BULLET_SPEED"]


def allowed(telemetry, *, candidate=None, goal=None):
    cand = candidate or base()
    ev = evaluation(telemetry, candidate=cand, goal=goal)
    return allowed_intents(evaluation=ev, goal=goal, candidate=cand, baseline=base())


def repairs(a: AllowedIntents) -> list[str]:
    return [i for i in a.intents if i in REPAIR_INTENTS]


def assert_complete(a: AllowedIntents) -> None:
    """Every repair intent is either allowed (with a reason) or refused (with a reason)."""
    for intent in REPAIR_INTENTS:
        assert (intent in a.intents) != (intent in a.refused), intent
        assert (a.reasons if intent in a.intents else a.refused)[intent]
    assert a.intents[-2:] == ["REQUEST_HUMAN", "STOP"]


# --- allowed intents ------------------------------------------------------------------------

def test_a_passing_evaluation_allows_accept_and_no_repair():
    a = allowed(base_telemetry())
    assert a.can_accept and a.intents == ["REQUEST_HUMAN", "STOP"]
    assert all("nothing to repair" in a.refused[i] for i in REPAIR_INTENTS)
    assert_complete(a)


def test_alive_over_budget_allows_the_load_intents():
    a = allowed(over_budget(420, "phase_2"))
    assert not a.can_accept
    assert sorted(repairs(a)) == sorted(LOAD)
    assert a.phases == {i: ["phase_2"] for i in LOAD}
    assert "peak_alive_bullets@phase_2 420>350" in a.reasons["REDUCE_BULLETS_PER_WAVE"]
    assert "1 layer" in a.refused["REDUCE_PATTERN_LAYERS"]  # phase_2 has one layer
    assert a.refused["REDUCE_BULLET_SPEED"] == "no failed check calls for it"
    assert_complete(a)


def test_low_fps_allows_the_load_intents():
    cand = variant(base(), "phase_3", type="spiral")  # a spiral may lose a layer; a petal at 2 may not
    a = allowed(edit(base_telemetry(), low_fps=50), candidate=cand)
    assert sorted(repairs(a)) == sorted([*LOAD, "REDUCE_PATTERN_LAYERS"])
    assert a.phases["REDUCE_PATTERN_LAYERS"] == ["phase_3"]
    assert_complete(a)


def test_hits_allow_the_danger_intents():
    a = allowed(too_many_hits(5, "phase_2"))
    assert sorted(repairs(a)) == sorted(DANGER)
    assert a.refused["REDUCE_BULLET_LIFETIME"] == "no failed check calls for it"
    assert_complete(a)


def test_a_death_allows_the_danger_intents():
    cand = variant(base(), "phase_2", bullets_per_wave=20)  # dies in phase_3
    tel = run(cand)
    assert tel["status"] == "died"
    a = allowed(tel, candidate=cand)
    assert set(DANGER) <= set(repairs(a))
    assert a.phases["REDUCE_BULLET_SPEED"][0] == "phase_3"
    assert "REDUCE_BULLET_LIFETIME" not in a.intents
    assert_complete(a)


def test_unreached_phase_while_the_player_survived_needs_a_human():
    tel = edit(base_telemetry(), phases={"phase_3": {"reached": False, "ticks": 0}}, phases_reached=2)
    a = allowed(tel)
    assert a.intents == ["REQUEST_HUMAN", "STOP"] and not a.can_accept
    assert all("a human must look" in a.refused[i] for i in REPAIR_INTENTS)
    assert_complete(a)


def test_a_failed_intent_check_refuses_every_repair():
    g = Goal(target_phase_ids=["phase_2"], pattern_type="petal")
    a = allowed(over_budget(420), goal=g)
    assert a.intents == ["REQUEST_HUMAN", "STOP"]
    assert all("intent.pattern_type on phase_2" in a.refused[i] for i in REPAIR_INTENTS)
    assert_complete(a)


def test_an_intent_touching_an_explicit_edit_is_refused():
    g = Goal(target_phase_ids=["phase_2"],
             edits=[ParameterEdit(field="bullets_per_wave", operation="set", value=12)])
    a = allowed(over_budget(420), goal=g)
    assert "REDUCE_BULLETS_PER_WAVE" not in a.intents
    assert "explicitly edits bullets_per_wave" in a.refused["REDUCE_BULLETS_PER_WAVE"]
    assert "INCREASE_WAVE_INTERVAL" in a.intents
    assert_complete(a)


def test_explicitly_requested_layers_are_never_reduced():
    cand = variant(base(), "phase_2", layer_count=3)
    g = Goal(target_phase_ids=["phase_2"], edits=[ParameterEdit(field="layer_count", operation="set", value=3)])
    assert "REDUCE_PATTERN_LAYERS" in allowed(over_budget(420), candidate=cand).intents
    a = allowed(over_budget(420), candidate=cand, goal=g)
    assert "explicitly edits layer_count" in a.refused["REDUCE_PATTERN_LAYERS"]


def test_a_petal_at_two_layers_keeps_them():
    a = allowed(over_budget(420, "phase_3"))
    assert "petal" in a.refused["REDUCE_PATTERN_LAYERS"]


def test_an_intent_at_its_range_bound_is_refused():
    cand = variant(base(), "phase_2", wave_interval_ms=5000)
    a = allowed(over_budget(420), candidate=cand)
    assert "already at its bound" in a.refused["INCREASE_WAVE_INTERVAL"]
    assert "REDUCE_BULLETS_PER_WAVE" in a.intents


def test_pressure_increase_refuses_repairs_that_would_undo_it():
    # 24 slots per 42 ticks vs the baseline's 12; alive capacity 24 * 157 > 12 * 312, barely
    cand = variant(base(), "phase_2", bidirectional=True, bullets_per_wave=6, layer_count=2,
                   bullet_lifetime_seconds=2.62)
    g = Goal(target_phase_ids=["phase_2"], bidirectional=True, pressure="increase")
    tel = edit(over_budget(420), phases={"phase_2": {"bullets_spawned": 999, "alive_tick_sum": 99999}})
    ev = evaluation(tel, candidate=cand, goal=g)
    assert [c.passed for c in ev.intent_checks] == [True, True, True]
    a = allowed_intents(evaluation=ev, goal=g, candidate=cand, baseline=base())
    assert repairs(a) == []
    for intent in LOAD + ["REDUCE_PATTERN_LAYERS"]:
        assert "more pressure on phase_2" in a.refused[intent], intent
    assert "alive capacity" in a.refused["REDUCE_BULLETS_PER_WAVE"]  # 20 slots keep the rate only
    assert "spawn rate" in a.refused["REDUCE_PATTERN_LAYERS"]  # 12 slots: equal, not above
    assert_complete(a)
    # the same candidate without the pressure intent may be repaired
    assert sorted(repairs(allowed(tel, candidate=cand))) == sorted([*LOAD, "REDUCE_PATTERN_LAYERS"])


def test_intents_list_every_failed_phase_in_check_order():
    tel = edit(over_budget(420, "phase_2"), low_fps=50)  # both blamed on phase_2
    tel = edit(tel, phases={"phase_1": {"player_hits": 5}, "phase_2": {"player_hits": 0},
                            "phase_3": {"player_hits": 0}}, player_hits=5)
    a = allowed(tel)
    assert a.phases["REDUCE_BULLETS_PER_WAVE"] == ["phase_2", "phase_1"]
    assert a.phases["REDUCE_BULLET_SPEED"] == ["phase_1"]


# --- the gate ----------------------------------------------------------------------------------

def verdict(kind, intent=None, phase=None):
    return ReviewVerdict(verdict=kind, intent=intent, target_phase_id=phase, reason="agent says so")


def test_accept_only_when_everything_passes():
    ok = gate(verdict("accept"), allowed(base_telemetry()))
    assert (ok.outcome, ok.accepted_as_proposed) == ("accept", True)
    refused = gate(verdict("accept"), allowed(over_budget(420)))
    assert (refused.outcome, refused.accepted_as_proposed) == ("human_review", False)
    assert "never accepted" in refused.reason


def test_repair_with_an_allowed_intent():
    a = allowed(over_budget(420))
    g = gate(verdict("repair", "INCREASE_WAVE_INTERVAL", "phase_2"), a)
    assert (g.outcome, g.intent, g.phase_id, g.accepted_as_proposed) == (
        "repair", "INCREASE_WAVE_INTERVAL", "phase_2", True)
    g = gate(verdict("repair", "INCREASE_WAVE_INTERVAL"), a)  # no phase: the failed one
    assert (g.outcome, g.phase_id) == ("repair", "phase_2")


def test_a_disallowed_intent_goes_to_a_human_and_names_the_refusal():
    a = allowed(over_budget(420))
    g = gate(verdict("repair", "REDUCE_PATTERN_LAYERS", "phase_2"), a)
    assert (g.outcome, g.accepted_as_proposed) == ("human_review", False)
    assert "REDUCE_PATTERN_LAYERS is not allowed" in g.reason and "1 layer" in g.reason


def test_a_repair_on_a_phase_that_did_not_fail_goes_to_a_human():
    g = gate(verdict("repair", "REDUCE_BULLETS_PER_WAVE", "phase_1"), allowed(over_budget(420)))
    assert g.outcome == "human_review" and "not allowed on phase_1" in g.reason


def test_a_repair_without_an_intent_goes_to_a_human():
    g = gate(verdict("repair"), allowed(over_budget(420)))
    assert g.outcome == "human_review" and "names no intent" in g.reason


@pytest.mark.parametrize("kind", ["repair", "human_review"])
def test_stop_and_request_human(kind):
    a = allowed(over_budget(420))
    assert gate(verdict(kind, "STOP"), a).outcome == "stop"
    g = gate(verdict(kind, "REQUEST_HUMAN"), a)
    assert (g.outcome, g.accepted_as_proposed) == ("human_review", True)


def test_human_review_verdict_without_intent():
    g = gate(verdict("human_review"), allowed(too_many_hits(5)))
    assert g.outcome == "human_review" and g.reason == "agent says so"


def test_a_repair_that_would_fail_validation_is_refused(monkeypatch):
    from gcv.repair import policy
    from gcv.validation.report import LayerResult, ValidationIssue
    from gcv.validation.validate import validate as real_validate

    def fake_validate(baseline, candidate, goal=None):
        report = real_validate(baseline, candidate, goal)
        if candidate.phase("phase_2").pattern.bullets_per_wave == 12:
            return report  # the current candidate: clean
        issue = ValidationIssue.make("rules.duplicate_bullets", "$.phases[1].pattern", None, "distinct",
                                     "two bullets of one wave share angle and speed")
        return report.model_copy(update={"ok": False, "layers": [
            LayerResult(layer="rules", status="failed", errors=[issue])]})

    monkeypatch.setattr(policy, "validate", fake_validate)
    a = allowed(over_budget(420))
    assert "REDUCE_BULLETS_PER_WAVE" not in a.intents
    assert "would fail validation (rules.duplicate_bullets" in a.refused["REDUCE_BULLETS_PER_WAVE"]
    assert_complete(a)
