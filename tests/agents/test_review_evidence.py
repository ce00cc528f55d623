"""What the reviewer is shown (gcv.agents.review_evidence): the change, the checks, the phases'
figures, the allowed intents and the repair history."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from gcv.agents.review_evidence import RepairHistoryEntry, ReviewEvidence
from gcv.repair.policy import allowed_intents
from gcv.validation.diff import FieldChange
from tests.support.evalutil import base, base_telemetry, evaluation, over_budget, variant


def test_build_assembles_the_evidence() -> None:
    b = base()
    candidate = variant(b, "phase_2", bullet_speed=2.0)
    ev = evaluation(over_budget(420), candidate=candidate)
    allowed = allowed_intents(evaluation=ev, goal=None, candidate=candidate, baseline=b)
    evidence = ReviewEvidence.build(request_text="x", goal=None, baseline=b, candidate=candidate, evaluation=ev,
                                    baseline_telemetry=base_telemetry(), candidate_telemetry=over_budget(420),
                                    allowed=allowed, round=2,
                                    repair_history=[{"round": 1, "intent": "REDUCE_BULLET_SPEED",
                                                     "phase_id": "phase_2", "miss_score": 0.5}])
    assert evidence.diff == [FieldChange(path="$.phases[1].pattern.bullet_speed", before=3.6, after=2.0)]
    assert evidence.allowed_intents == list(allowed.intents) and evidence.allowed_phases == dict(allowed.phases)
    assert "REDUCE_BULLET_SPEED" not in evidence.allowed_intents  # a load failure: slower bullets stay longer
    assert evidence.repair_history == [RepairHistoryEntry(round=1, intent="REDUCE_BULLET_SPEED", phase_id="phase_2",
                                                          miss_score=0.5, passed=False)]
    assert len(evidence.candidate_phase_results) == 3 and evidence.round == 2
    assert evidence.model_dump(mode="json")["evaluation"]["passed"] is False


def test_the_records_are_strict() -> None:
    with pytest.raises(ValidationError):
        RepairHistoryEntry(round=-1, miss_score=0)
    with pytest.raises(ValidationError):
        RepairHistoryEntry(round=1, miss_score=-0.5)
    with pytest.raises(ValidationError):
        ReviewEvidence(evaluation=evaluation(base_telemetry()), colour="red")  # type: ignore[call-arg]
