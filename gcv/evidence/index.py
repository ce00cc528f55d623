"""``index.json``, typed: the map from a workflow's baseline and rounds to a bundle's files.

``collect`` builds it from the workflow and writes it (``model_dump``, keys sorted, so the
bytes are those of the dict it replaced); ``verify``, ``replay`` and the report read it.
Every file name is a path inside the bundle, or None when the workflow never got that far.
Bundles written before a field existed carry none: such fields default to None (or empty).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from gcv.contract.base import GcvModel

INDEX_ID = "gcv.evidence_index/1"


def run_label(round_no: int | None) -> str:
    """A run's name in the bundle: ``baseline`` or ``candidate_N``."""
    return "baseline" if round_no is None else f"candidate_{round_no}"


class _Files(GcvModel):
    model_config = ConfigDict(extra="forbid")


class RunFiles(_Files):
    """One engine run's files: its request, telemetry, frames and (scrubbed, capped) log."""

    run_id: str
    request: str | None = None
    telemetry: str | None = None
    frames: list[str] = Field(default_factory=list)
    log: str | None = None


class BaselineFiles(_Files):
    config: str
    run: RunFiles | None = None
    prescreen: RunFiles | None = None
    population: str | None = None
    fairness: str | None = None


class RoundFiles(_Files):
    """One round's files: its config, diff and validation, its runs, evaluation, population and
    fair-fight analysis, the review agent's record and the review's and repair's records."""

    round: int
    origin: str | None = None
    config: str
    diff: str | None = None
    validation: str | None = None
    prescreen: RunFiles | None = None
    run: RunFiles | None = None
    evaluation: str | None = None
    population: str | None = None
    fairness: str | None = None
    agent: str | None = None
    review: str | None = None
    repair: str | None = None

    def named(self) -> list[tuple[str, str | None]]:
        """Every single file of the round by what it is (runs apart: see ``runs``)."""
        return [(key, getattr(self, key)) for key in ("config", "diff", "validation", "evaluation", "population",
                                                      "fairness", "agent", "review", "repair")]


class RequirementFiles(_Files):
    """The Requirement Agent's records: ``agent`` the decision the workflow went on with,
    ``attempts`` every one in order (one more per answer)."""

    agent: str
    attempts: list[str] = Field(default_factory=list)

    def all(self) -> list[str]:
        return self.attempts or [self.agent]


class Redactions(_Files):
    files: list[dict[str, str]] = Field(default_factory=list)
    events: list[int] = Field(default_factory=list)
    kinds: list[str] = Field(default_factory=list)


class BundleIndex(_Files):
    index: Literal["gcv.evidence_index/1"] = "gcv.evidence_index/1"
    bundle_format: str
    workflow_id: str
    request: str
    state: str
    events: str
    report: str
    goal: str | None = None
    # the accepted request's intent (gcv.contract.request_intent); absent in bundles made before it
    intent: str | None = Field(default=None, exclude_if=lambda v: v is None)
    requirement: RequirementFiles | None = None
    baseline: BaselineFiles
    rounds: list[RoundFiles] = Field(default_factory=list)
    rehashed: dict[str, str] = Field(default_factory=dict, description="workspace hash -> bundle hash")
    redactions: Redactions = Field(default_factory=Redactions)

    def round_files(self, n: int) -> RoundFiles | None:
        return next((e for e in self.rounds if e.round == n), None)

    def run_files(self, n: int | None) -> RunFiles | None:
        """The engine run of the baseline (None) or of round ``n``."""
        if n is None:
            return self.baseline.run
        entry = self.round_files(n)
        return entry.run if entry else None

    def runs(self) -> list[tuple[str, RunFiles | None]]:
        """Every run (engine and pre-screen) by its label: baseline, baseline_prescreen, candidate_N, ..."""
        out = [("baseline", self.baseline.run), ("baseline_prescreen", self.baseline.prescreen)]
        for e in self.rounds:
            out += [(run_label(e.round), e.run), (run_label(e.round) + "_prescreen", e.prescreen)]
        return out

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


__all__ = ["BundleIndex", "RoundFiles", "RunFiles", "BaselineFiles", "RequirementFiles", "Redactions", "INDEX_ID",
           "run_label"]
