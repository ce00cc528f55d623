"""The Requirement Agent node: a provider proposes, deterministic code disposes.

``RequirementAgent(provider).propose(text, baseline)`` asks the provider for a decision and
then holds an ``accepted`` decision to the contract: the candidate goes through the four
validation layers (``gcv.validation.validate``) with the goal, and any failing layer turns
the decision into ``blocked`` with that layer's errors as :class:`BlockIssue` (``rule_id``
set). The goal and candidate stay on the blocked decision so a designer can see what was
tried. A provider that says ``accepted`` with a goal but no candidate gets its candidate
from the deterministic applier; a provider never gets a number applied that a calculator
did not compute or a validator did not check.

Providers are looked up by name in a small registry. ``"offline"`` is built in; others
register a factory with :func:`register_requirement_provider`. A name may carry an
argument after a colon (``"replay:path/to/recording.json"``): the factory receives the
text after the first colon (``""`` when there is none).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Callable

from gcv.agents.anthropic_provider import AnthropicRequirementProvider
from gcv.agents.base import AgentCall, BlockIssue, CallLimits, RequirementDecision, RequirementProvider
from gcv.agents.candidate_check import value_at
from gcv.agents.goal_applier import GoalRangeError, apply_goal
from gcv.agents.offline_requirement import OfflineRequirementProvider
from gcv.agents.replay_provider import ReplayRequirementProvider
from gcv.contract.models import BulletHellConfig
from gcv.validation.diff import diff_configs
from gcv.validation.report import ValidationReport
from gcv.validation.validate import validate

ProviderFactory = Callable[[str], RequirementProvider]


class UnknownProviderError(ValueError):
    """No provider is registered under that name."""

    def __init__(self, name: str, known: list[str]) -> None:
        self.name = name
        self.known = known
        super().__init__(f"unknown requirement provider {name!r}; known: {', '.join(known)}")


def _offline(arg: str) -> RequirementProvider:
    if arg:
        raise ValueError("the offline provider takes no argument (use 'offline')")
    return OfflineRequirementProvider()


def _anthropic(arg: str) -> RequirementProvider:
    if arg:
        raise ValueError("the anthropic provider takes no argument (configure it with GCV_ANTHROPIC_* variables)")
    return AnthropicRequirementProvider()


def _replay(arg: str) -> RequirementProvider:
    return ReplayRequirementProvider(arg)


_REQUIREMENT_PROVIDERS: dict[str, ProviderFactory] = {"offline": _offline, "anthropic": _anthropic,
                                                      "replay": _replay}


def register_requirement_provider(name: str, factory: ProviderFactory) -> None:
    """Make ``get_requirement_provider(name)`` (or ``name:arg``) build a provider with ``factory``."""
    if not name or ":" in name:
        raise ValueError(f"provider names are non-empty and have no ':' (got {name!r})")
    _REQUIREMENT_PROVIDERS[name] = factory


def requirement_provider_names() -> list[str]:
    return sorted(_REQUIREMENT_PROVIDERS)


def get_requirement_provider(name: str) -> RequirementProvider:
    """The provider registered as ``name`` (``"offline"``, or ``"kind:argument"``)."""
    kind, _, arg = name.partition(":")
    factory = _REQUIREMENT_PROVIDERS.get(kind)
    if factory is None:
        raise UnknownProviderError(name, requirement_provider_names())
    return factory(arg)


@dataclass
class Proposal:
    """One proposal with its evidence: the final decision, the provider calls, the report."""

    decision: RequirementDecision
    calls: list[AgentCall] = field(default_factory=list)
    validation: ValidationReport | None = None


def _validation_issues(report: ValidationReport) -> list[BlockIssue]:
    issues: list[BlockIssue] = []
    for layer in report.layers:
        if layer.status != "failed":
            continue
        for error in layer.errors:
            issues.append(BlockIssue(field=error.path, asked=error.actual,
                                     allowed=error.allowed if isinstance(error.allowed, str) else str(error.allowed),
                                     message=error.message, rule_id=error.rule_id))
    return issues


def _mismatch_issues(candidate: BulletHellConfig, calculated: BulletHellConfig) -> list[BlockIssue]:
    wrong = {c.path: c.after for c in diff_configs(calculated, candidate)}
    return [BlockIssue(field=path, asked=value,
                       allowed=f"{value_at(calculated, path)} (what apply_goal builds from the goal)",
                       message=f"{path} is {value} in the candidate but {value_at(calculated, path)} in the calculator's "
                               "candidate for the same goal", rule_id="agent.candidate_mismatch")
            for path, value in sorted(wrong.items())]


class RequirementAgent:
    """Runs one provider and checks an accepted decision against the contract."""

    def __init__(self, provider: RequirementProvider) -> None:
        self.provider = provider

    def propose(self, text: str, baseline: BulletHellConfig, *, follow_ups: Sequence[str] = (),
                limits: CallLimits | None = None) -> tuple[RequirementDecision, list[AgentCall]]:
        proposal = self.propose_with_report(text, baseline, follow_ups=follow_ups, limits=limits)
        return proposal.decision, proposal.calls

    def propose_with_report(self, text: str, baseline: BulletHellConfig, *, follow_ups: Sequence[str] = (),
                            limits: CallLimits | None = None) -> Proposal:
        """``follow_ups``: the designer's answers to earlier questions, in order (answer in place);
        ``limits``: what the workflow allows this step (the provider gets them with the call)."""
        decision, calls = self.provider.propose(text, baseline, follow_ups=list(follow_ups), limits=limits)
        if decision.decision != "accepted":
            return Proposal(decision, list(calls))
        if decision.goal is None:
            blocked = decision.model_copy(update={
                "decision": "blocked",
                "issues": [BlockIssue(field="goal", asked=None, allowed="an accepted decision carries a goal",
                                      message="the provider accepted the request without a structured goal",
                                      rule_id="agent.missing_goal")]})
            return Proposal(blocked, list(calls))
        candidate = decision.candidate
        try:
            calculated = apply_goal(baseline, decision.goal)
        except GoalRangeError as exc:
            blocked = decision.model_copy(update={"decision": "blocked", "issues": exc.issues})
            return Proposal(blocked, list(calls))
        if candidate is None:
            candidate = calculated
            decision = decision.model_copy(update={"candidate": candidate})
        elif candidate != calculated:
            # the model names the intent, the calculator does the arithmetic (issue 27): a candidate
            # that is not what the goal computes to is never accepted, whatever else it passes
            report = validate(baseline, candidate, decision.goal)
            return Proposal(decision.model_copy(update={
                "decision": "blocked",
                "issues": [*decision.issues, *_validation_issues(report), *_mismatch_issues(candidate, calculated)],
                "rationale": (decision.rationale + "; " if decision.rationale else "")
                             + "the candidate differs from what the calculator builds from the agent's own goal"}),
                list(calls), report)
        report = validate(baseline, candidate, decision.goal)
        if not report.ok:
            failed = ", ".join(layer.layer for layer in report.layers if layer.status == "failed")
            decision = decision.model_copy(update={
                "decision": "blocked",
                "issues": [*decision.issues, *_validation_issues(report)],
                "rationale": (decision.rationale + "; " if decision.rationale else "")
                             + f"the candidate fails validation ({failed})",
            })
        return Proposal(decision, list(calls), report)


__all__ = ["RequirementAgent", "Proposal", "get_requirement_provider", "register_requirement_provider",
           "requirement_provider_names", "UnknownProviderError", "ProviderFactory"]
