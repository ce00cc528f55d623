"""The repair records (gcv.repair.models): the scope's rule, and records that refuse what they
do not know."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from gcv.repair.models import AllowedIntents, GateResult, RepairScope, ReviewVerdict, SearchRung, TradeOff


def test_a_scope_allows_its_pairs_and_its_widenings_only() -> None:
    scope = RepairScope(phases=["phase_2"], fields=["bullet_speed"],
                        widened=[{"actor": "ann", "phase_id": "phase_3", "field": "layer_count"}])
    assert scope.allows("phase_2", "bullet_speed")
    assert not scope.allows("phase_2", "layer_count") and not scope.allows("phase_1", "bullet_speed")
    assert scope.allows("phase_3", "layer_count") and not scope.allows("phase_3", "bullet_speed")
    assert not scope.allows(None, "bullet_speed") and not scope.allows("phase_2", None)
    assert not RepairScope().allows("phase_1", "bullet_speed")


def test_a_verdict_names_a_known_intent() -> None:
    assert ReviewVerdict(verdict="repair", intent="REDUCE_BULLET_SPEED").intent == "REDUCE_BULLET_SPEED"
    with pytest.raises(ValidationError):
        ReviewVerdict(verdict="repair", intent="MAKE_IT_EASIER")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        ReviewVerdict(verdict="maybe")  # type: ignore[arg-type]


def test_the_gates_records_are_frozen_and_strict() -> None:
    gate = GateResult(outcome="accept", accepted_as_proposed=True, reason="all pass")
    with pytest.raises(ValidationError):
        gate.reason = "changed"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        AllowedIntents(intents=[], can_accept=True, colour="red")  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        TradeOff(number=0, kind="repair", title="t", candidate_hash="a", telemetry_hash="b", evaluation_hash="c",
                 passes=True)  # options are numbered from 1
    assert SearchRung(ratio="9/10", outcome="fails").failed_checks == []
