"""The offline reviewer: deterministic verdicts, preference order, history, and a full loop."""

from __future__ import annotations

import json

import pytest

from gcv.agents.base import ReviewVerdict
from gcv.agents.offline_review import OfflineReviewProvider, unhelpful_repairs
from gcv.agents.review import (
    RepairHistoryEntry, ReviewAgent, ReviewEvidence, get_review_provider, register_review_provider,
    review_provider_names,
)
from gcv.contract.goal import Goal
from gcv.repair.calculators import apply_repair
from gcv.repair.policy import allowed_intents, gate
from tests.support.evalutil import base, base_telemetry, edit, evaluation, over_budget, run, too_many_hits, variant


def evidence(telemetry, *, candidate=None, goal=None, history=(), allowed=None, phases=None):
    cand = candidate or base()
    ev = evaluation(telemetry, candidate=cand, goal=goal)
    a = allowed_intents(evaluation=ev, goal=goal, candidate=cand, baseline=base())
    out = ReviewEvidence.build(request_text="make it harder", goal=goal, baseline=base(), candidate=cand,
                               evaluation=ev, baseline_telemetry=base_telemetry(),
                               candidate_telemetry=telemetry, allowed=a, repair_history=history,
                               round=len(history) + 1)
    updates = {}
    if allowed is not None:
        updates["allowed_intents"] = allowed
    if phases is not None:
        updates["allowed_phases"] = phases
    return out.model_copy(update=updates)


def review(ev: ReviewEvidence) -> ReviewVerdict:
    verdict, calls = ReviewAgent(OfflineReviewProvider()).review(ev)
    assert len(calls) == 1
    return verdict


def test_a_passing_evaluation_is_accepted_and_the_call_recorded():
    verdict, calls = OfflineReviewProvider().review(evidence(base_telemetry()))
    assert verdict.verdict == "accept" and verdict.intent is None
    call = calls[0]
    assert (call.agent, call.provider, call.model, call.prompt_id) == (
        "review", "offline", "rules-v1", "review/offline-v1")
    assert ReviewVerdict.model_validate_json(call.raw_output) == verdict
    assert len(call.prompt_sha256) == 64 and call.request_bytes > 0


def test_alive_over_budget_reduces_bullets_on_the_failed_phase():
    v = review(evidence(over_budget(420, "phase_2")))
    assert (v.verdict, v.intent, v.target_phase_id) == ("repair", "REDUCE_BULLETS_PER_WAVE", "phase_2")
    assert "peak_alive_bullets@phase_2 420>350" in v.reason


def test_the_next_preference_when_the_first_is_not_allowed():
    ev = evidence(over_budget(420), allowed=["INCREASE_WAVE_INTERVAL", "REDUCE_BULLET_LIFETIME",
                                            "REQUEST_HUMAN", "STOP"])
    assert review(ev).intent == "INCREASE_WAVE_INTERVAL"


def test_hits_prefer_slower_bullets():
    v = review(evidence(too_many_hits(5, "phase_1")))
    assert (v.intent, v.target_phase_id) == ("REDUCE_BULLET_SPEED", "phase_1")
    ev = evidence(too_many_hits(5, "phase_1"), allowed=["REDUCE_BULLETS_PER_WAVE", "INCREASE_WAVE_INTERVAL",
                                                       "REQUEST_HUMAN", "STOP"])
    assert review(ev).intent == "INCREASE_WAVE_INTERVAL"


def test_load_failures_come_before_danger_failures():
    tel = edit(too_many_hits(5, "phase_1"), phases={"phase_2": {"peak_alive_bullets": 400}},
               peak_alive_bullets=400)
    v = review(evidence(tel))
    assert (v.intent, v.target_phase_id) == ("REDUCE_BULLETS_PER_WAVE", "phase_2")


def test_an_intent_that_did_not_help_on_that_phase_is_skipped():
    tel = over_budget(420)
    current = evidence(tel).evaluation.miss_score  # 0.2
    worse = [RepairHistoryEntry(round=1, intent="REDUCE_BULLETS_PER_WAVE", phase_id="phase_2",
                          miss_score=current - 0.05, passed=False)]
    v = review(evidence(tel, history=worse))
    assert v.intent == "INCREASE_WAVE_INTERVAL" and "did not lower" in v.reason
    better = [RepairHistoryEntry(round=1, intent="REDUCE_BULLETS_PER_WAVE", phase_id="phase_2",
                           miss_score=current + 0.5, passed=False)]
    assert review(evidence(tel, history=better)).intent == "REDUCE_BULLETS_PER_WAVE"
    elsewhere = [RepairHistoryEntry(round=1, intent="REDUCE_BULLETS_PER_WAVE", phase_id="phase_3",
                              miss_score=current, passed=False)]
    assert review(evidence(tel, history=elsewhere)).intent == "REDUCE_BULLETS_PER_WAVE"


def test_unhelpful_repairs_read_the_next_rounds_score():
    history = [RepairHistoryEntry(round=2, intent="B", phase_id="p", miss_score=0.5),
               RepairHistoryEntry(round=1, intent="A", phase_id="p", miss_score=1.0),
               RepairHistoryEntry(round=3, intent=None, miss_score=0.4)]
    # A: 1.0 -> 0.5 helped; B: 0.5 -> 0.4 helped; current 0.6 after round 3 (no repair chosen)
    assert unhelpful_repairs(history, 0.6) == set()
    history[2] = RepairHistoryEntry(round=3, intent="C", phase_id="p", miss_score=0.4)
    assert unhelpful_repairs(history, 0.4) == {("C", "p")}


def test_nothing_left_asks_a_human():
    ev = evidence(over_budget(420), allowed=["REQUEST_HUMAN", "STOP"])
    v = review(ev)
    assert (v.verdict, v.intent) == ("human_review", "REQUEST_HUMAN")
    assert "peak_alive_bullets@phase_2 420>350 FAIL" in v.reason
    g = evidence(over_budget(420), goal=Goal(target_phase_ids=["phase_2"], pattern_type="ring"))
    assert review(g).verdict == "human_review"  # a failed intent check: no repair allowed


def test_allowed_phases_are_respected():
    ev = evidence(over_budget(420), phases={"REDUCE_BULLETS_PER_WAVE": ["phase_3"],
                                            "INCREASE_WAVE_INTERVAL": ["phase_2"]})
    assert review(ev).intent == "INCREASE_WAVE_INTERVAL"


def test_verdicts_carry_no_numbers_and_are_deterministic():
    numeric = {n for n, f in ReviewVerdict.model_fields.items() if f.annotation in (int, float)}
    assert numeric == set()
    ev = evidence(over_budget(420))
    a = OfflineReviewProvider().review(ev.model_dump(mode="json"), list(ev.allowed_intents))
    b = OfflineReviewProvider().review(ev)
    assert a[0] == b[0] and a[1][0].raw_output == b[1][0].raw_output
    assert json.loads(a[1][0].raw_output)["intent"] == "REDUCE_BULLETS_PER_WAVE"


def test_provider_registry():
    provider = get_review_provider("offline")
    assert provider.name == "offline" and "offline" in review_provider_names()
    with pytest.raises(ValueError, match="unknown review provider 'nope'; available: offline"):
        get_review_provider("nope")
    register_review_provider("offline-copy", OfflineReviewProvider)
    try:
        assert get_review_provider("offline-copy").name == "offline"
    finally:
        from gcv.agents import review as review_module
        review_module._PROVIDERS.pop("offline-copy")


def test_evidence_round_trips_as_json():
    ev = evidence(over_budget(420), goal=Goal(target_phase_ids=["phase_2"]))
    again = ReviewEvidence.model_validate_json(ev.model_dump_json())
    assert again == ev
    assert again.evaluation.fingerprint() == ev.evaluation.fingerprint()


@pytest.mark.slow
def test_the_offline_loop_repairs_a_dense_candidate_until_it_passes():
    """Evaluate -> review -> gate -> repair, bounded; every repair keeps the designer's intent."""
    goal = Goal(target_phase_ids=["phase_2"], pattern_type="spiral", bidirectional=True, pressure="increase")
    cand = variant(base(), "phase_2", bullets_per_wave=40, bidirectional=True, layer_count=2)
    agent = ReviewAgent(get_review_provider("offline"))
    history: list[RepairHistoryEntry] = []
    outcomes = []
    for rnd in range(1, 11):
        tel = run(cand)
        ev = evaluation(tel, candidate=cand, goal=goal)
        a = allowed_intents(evaluation=ev, goal=goal, candidate=cand, baseline=base())
        evd = ReviewEvidence.build(request_text="denser bidirectional spiral", goal=goal, baseline=base(),
                                   candidate=cand, evaluation=ev, baseline_telemetry=base_telemetry(),
                                   candidate_telemetry=tel, allowed=a, repair_history=history, round=rnd)
        verdict, _ = agent.review(evd)
        result = gate(verdict, a)
        outcomes.append(result.outcome)
        if result.outcome != "repair":
            break
        out = apply_repair(candidate=cand, intent=result.intent, phase_id=result.phase_id,
                           evaluation=ev, goal=goal, baseline=base())
        assert out.ok and all(".pattern." in c.path for c in out.changes)
        history.append(RepairHistoryEntry(round=rnd, intent=result.intent, phase_id=result.phase_id,
                                    miss_score=ev.miss_score, passed=ev.passed))
        cand = out.candidate
    assert outcomes[-1] == "accept" and ev.passed
    pattern = cand.phase("phase_2").pattern
    assert pattern.type == "spiral" and pattern.bidirectional
    assert all(c.passed for c in ev.intent_checks) and ev.intent_checks
