"""The Requirement Agent (gcv.agents.requirement): a provider's decision held to the validation
layers and the calculator, and the provider registry (moved here from
tests/agents/test_offline_requirement.py, which keeps the offline reader's table)."""

from __future__ import annotations

from typing import Any

import pytest

from gcv.agents import requirement as requirement_module
from gcv.agents.base import AgentCall, RequirementDecision
from gcv.agents.goal_applier import apply_goal
from gcv.agents.offline_requirement import OfflineRequirementProvider
from gcv.agents.requirement import (RequirementAgent, UnknownProviderError, get_requirement_provider,
                                    register_requirement_provider, requirement_provider_names)
from gcv.contract.goal import Goal
from gcv.contract.loading import load_config
from gcv.contract.models import BulletHellConfig
from tests.conftest import BASELINE_PATH

BASE = load_config(BASELINE_PATH)


class _Scripted:
    """A provider that answers with a fixed decision (what a model provider might return)."""

    name = "scripted"

    def __init__(self, decision: RequirementDecision) -> None:
        self.decision = decision

    def propose(self, request_text: str, baseline: BulletHellConfig, *, follow_ups: Any = (),
                limits: Any = None) -> tuple[RequirementDecision, list[AgentCall]]:
        return self.decision, [AgentCall(agent="requirement", provider="scripted", model="m", prompt_id="p")]


def test_agent_turns_a_failing_validation_into_blocked_with_rule_ids() -> None:
    goal = Goal(target_phase_ids=["phase_2"], pressure="increase")
    bad = BASE.model_copy(deep=True)
    bad.limits.max_alive_bullets = 100  # a candidate that moves a limit
    decision, calls = RequirementAgent(_Scripted(RequirementDecision(decision="accepted", goal=goal, candidate=bad))
                                       ).propose("make phase 2 denser", BASE)
    assert decision.decision == "blocked"
    assert "safety.limits_changed" in [i.rule_id for i in decision.issues]
    assert len(calls) == 1


def test_agent_computes_a_missing_candidate_with_the_applier() -> None:
    goal = Goal(target_phase_ids=["phase_2"], pressure="increase")
    proposal = RequirementAgent(_Scripted(RequirementDecision(decision="accepted", goal=goal))
                                ).propose_with_report("x", BASE)
    assert proposal.decision.decision == "accepted"
    assert proposal.decision.candidate == apply_goal(BASE, goal)
    assert proposal.validation is not None and proposal.validation.ok


def test_agent_blocks_an_accepted_decision_without_a_goal() -> None:
    decision, _ = RequirementAgent(_Scripted(RequirementDecision(decision="accepted"))).propose("x", BASE)
    assert decision.decision == "blocked" and decision.issues[0].rule_id == "agent.missing_goal"


def test_agent_blocks_a_goal_the_applier_cannot_apply() -> None:
    goal = Goal(target_phase_ids=["phase_2"], edits=[{"field": "bullets_per_wave", "operation": "set", "value": 99}])
    decision, _ = RequirementAgent(_Scripted(RequirementDecision(decision="accepted", goal=goal))).propose("x", BASE)
    assert decision.decision == "blocked" and decision.issues[0].field == "$.phases[1].pattern.bullets_per_wave"


def test_agent_passes_other_decisions_through() -> None:
    ask = RequirementDecision(decision="needs_clarification", questions=["which phase?"])
    proposal = RequirementAgent(_Scripted(ask)).propose_with_report("x", BASE)
    assert proposal.decision == ask and proposal.validation is None


def test_provider_registry() -> None:
    assert "offline" in requirement_provider_names()
    assert isinstance(get_requirement_provider("offline"), OfflineRequirementProvider)
    with pytest.raises(UnknownProviderError):
        get_requirement_provider("nope")
    seen: list[str] = []

    def factory(arg: str) -> _Scripted:
        seen.append(arg)
        return _Scripted(RequirementDecision(decision="no_change"))

    register_requirement_provider("test-scripted", factory)
    try:
        provider = get_requirement_provider("test-scripted:some/path.json")
        assert isinstance(provider, _Scripted) and seen == ["some/path.json"]
    finally:
        requirement_module._REQUIREMENT_PROVIDERS.pop("test-scripted", None)
    with pytest.raises(ValueError):
        register_requirement_provider("bad:name", factory)
