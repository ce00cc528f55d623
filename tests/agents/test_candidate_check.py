"""Issue 27 item 6 (the accepting side): a provider's candidate must equal what the calculator
builds from the provider's own goal; one that differs is never accepted."""

from __future__ import annotations

from gcv.agents.base import AgentCall, RequirementDecision
from gcv.agents.goal_applier import apply_goal
from gcv.agents.requirement import RequirementAgent
from gcv.contract.goal import Goal, ParameterEdit
from gcv.contract.loading import load_config
from tests.conftest import BASELINE_PATH

BASE = load_config(BASELINE_PATH)
GOAL = Goal(target_phase_ids=["phase_2"],
            edits=[ParameterEdit(field="bullet_speed", operation="scale", value=0.8)])


class _Fixed:
    """A provider that writes its own candidate (as a model does)."""

    name = "fixed"

    def __init__(self, candidate) -> None:  # type: ignore[no-untyped-def]
        self.candidate = candidate

    def propose(self, text: str, baseline, *, follow_ups=(), limits=None):  # type: ignore[no-untyped-def]
        decision = RequirementDecision(decision="accepted", goal=GOAL, candidate=self.candidate, rationale="x0.8")
        return decision, [AgentCall(agent="requirement", provider="fixed", model="m", prompt_id="p")]


def _with(phase: int, **pattern: float):  # type: ignore[no-untyped-def]
    data = BASE.model_dump(mode="json")
    data["phases"][phase]["pattern"].update(pattern)
    return type(BASE).model_validate(data)


def test_the_calculators_candidate_is_accepted() -> None:
    d, _ = RequirementAgent(_Fixed(apply_goal(BASE, GOAL))).propose("slow phase 2 by 20%", BASE)
    assert d.decision == "accepted"


def test_a_candidate_off_its_own_goal_is_blocked_naming_the_field() -> None:
    """Goal 'bullet_speed x0.8' with a candidate at -67 %: it passes every validation layer, and
    before this check it was accepted."""
    d, _ = RequirementAgent(_Fixed(_with(1, bullet_speed=1.2))).propose("slow phase 2 by 20%", BASE)
    assert d.decision == "blocked"
    mismatch = [i for i in d.issues if i.rule_id == "agent.candidate_mismatch"]
    assert [i.field for i in mismatch] == ["$.phases[1].pattern.bullet_speed"]
    assert "2.88" in mismatch[0].allowed


def test_a_candidate_that_also_changes_a_phase_nobody_named_is_blocked() -> None:
    candidate = apply_goal(BASE, GOAL).model_dump(mode="json")
    candidate["phases"][2]["pattern"]["bullets_per_wave"] = 10
    d, _ = RequirementAgent(_Fixed(type(BASE).model_validate(candidate))).propose("slow phase 2 by 20%", BASE)
    assert d.decision == "blocked"
    assert [i.field for i in d.issues if i.rule_id == "agent.candidate_mismatch"] == [
        "$.phases[2].pattern.bullets_per_wave"]
