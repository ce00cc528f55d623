"""The fair-fight gate's policies: one vocabulary for the analysis, the workflow's settings and
authorization, the CLI and the console (docs/analysis.md, "the gate")."""

from __future__ import annotations

from typing import Literal

FairnessPolicy = Literal["undetermined_allowed", "fair_required"]
DEFAULT_FAIRNESS_POLICY: FairnessPolicy = "undetermined_allowed"
#: each policy in the words every reader sees (the check's detail, the authorization, the report)
POLICY_WORDS: dict[str, str] = {"undetermined_allowed": "fair or undetermined passes, only a proof of unfairness fails",
                                "fair_required": "only a replayed witness (fair) passes"}

__all__ = ["FairnessPolicy", "DEFAULT_FAIRNESS_POLICY", "POLICY_WORDS"]
