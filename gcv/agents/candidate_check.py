"""The model names the intent, the calculator does the arithmetic (issue 27): a model-written
candidate must equal what ``apply_goal`` builds from the same decision's goal.

One function for the two places that hold a candidate to it: the Claude provider, which feeds
a mismatch back to the model as an invalid answer (so it can correct it within its retries),
and its replay, which must reject the same recorded answers. ``RequirementAgent`` keeps the
last word (a mismatch that survives the retries is ``blocked``, ``agent.candidate_mismatch``).
"""

from __future__ import annotations

from typing import Any

from gcv.agents.base import RequirementDecision
from gcv.agents.goal_applier import GoalRangeError, apply_goal
from gcv.contract.models import BulletHellConfig
from gcv.validation.diff import diff_configs


def value_at(cfg: BulletHellConfig, path: str) -> Any:
    """The value at a diff path (``$.phases[1].pattern.bullet_speed``) of ``cfg``."""
    node: Any = cfg.model_dump(mode="json")
    for part in path.removeprefix("$.").replace("]", "").replace("[", ".").split("."):
        if isinstance(node, list):
            node = node[int(part)] if part.isdigit() and int(part) < len(node) else None
        elif isinstance(node, dict):
            node = node.get(part)
    return node


def candidate_mismatches(decision: RequirementDecision, baseline: BulletHellConfig) -> list[str]:
    """Each field where an accepted decision's own candidate differs from its goal's, in words
    the model can act on; ``[]`` when it matches, carries no candidate, or is not accepted (a
    goal out of range is the agent's ``blocked`` with the range, not a mismatch)."""
    if decision.decision != "accepted" or decision.goal is None or decision.candidate is None:
        return []
    try:
        calculated = apply_goal(baseline, decision.goal)
    except GoalRangeError:
        return []
    return [f"{c.path} is {c.after} in your candidate but {value_at(calculated, c.path)} from your goal"
            for c in diff_configs(calculated, decision.candidate)]


def mismatch_feedback(wrong: list[str]) -> str:
    """The invalid-answer text for a mismatch (what the model reads as the tool result)."""
    shown = "; ".join(wrong[:8]) + (f"; and {len(wrong) - 8} more" if len(wrong) > 8 else "")
    return ("the candidate is not what your own goal computes to (GCV's calculator applies the goal; send the "
            f"candidate the goal gives, or change the goal to what you meant): {shown}")


__all__ = ["candidate_mismatches", "mismatch_feedback", "value_at"]
