"""What an evaluation says: the targets it used, every check it ran, and how far it missed.

Why these shapes: the loop, the policy gate, the reviewer agent and the evidence report all
read the same record. A check names the telemetry field (or candidate config path) its
``actual`` came from and the phase that caused the figure, so that a repair can act on the
phase that failed, and a reviewer can trace every verdict back to one number.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import ConfigDict, Field

from gcv.contract.base import GcvModel
from gcv.contract.canonical import content_hash

EVALUATION_ID: Final = "gcv.evaluation/1"
TargetSource = Literal["baseline.targets", "limits", "designer"]
CheckOp = Literal["<=", ">=", "==", "<", ">"]


class _Frozen(GcvModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EffectiveTargets(_Frozen):
    """The numbers a candidate is held to, derived from the baseline and the goal only."""

    max_alive_bullets: int
    max_player_hits: int
    min_low_fps: float
    min_survival_seconds: float
    min_survival_ticks: int
    require_all_phases: bool
    require_dodgeable: bool = Field(default=False, description="the candidate must be proven dodgeable")
    phase_count: int = Field(description="number of phases in the baseline")
    sources: dict[str, TargetSource] = Field(
        description="for each target, where its value came from")
    derivation: dict[str, str] = Field(
        default_factory=dict, description="for each target, the rule and the figures it used")


class Check(_Frozen):
    """One comparison: ``actual <op> expected``.

    ``field`` is the telemetry field ``actual`` came from (``phase_results[phase_2].bullets_spawned``
    style for per-phase figures) or, for intent checks on the config, the candidate's JSON
    path. ``phase_id`` is the culprit phase (see ``gcv.evaluation.evaluate``) or None when
    no phase is to blame. ``miss`` is this check's relative miss (0 when it passes).
    """

    name: str
    field: str
    op: CheckOp
    expected: Any = None
    actual: Any = None
    passed: bool
    hard: bool = True
    phase_id: str | None = None
    detail: str = ""
    miss: float = 0.0

    def short(self) -> str:
        """Trace form, e.g. ``peak_alive_bullets 420>350 FAIL``."""
        negated = {"<=": ">", ">=": "<", "==": "!=", "<": ">=", ">": "<="}[self.op]
        shown_op = self.op if self.passed else negated
        where = f"@{self.phase_id}" if self.phase_id and not self.passed else ""
        return (f"{self.name}{where} {_show(self.actual)}{shown_op}{_show(self.expected)} "
                f"{'ok' if self.passed else 'FAIL'}")


def check_label(check: Check | dict[str, Any]) -> str:
    """The name a person reads (CLI, report, console, ``label`` in JSON): an intent check is
    judged per target phase, so it carries its phase (``intent.spawn_rate[phase_2]``); a hard
    check's ``phase_id`` is only the culprit and its name is already unique."""
    data = check.model_dump() if isinstance(check, Check) else check
    name, phase = data["name"], data.get("phase_id")
    return f"{name}[{phase}]" if phase and name.startswith("intent.") else name


def labelled(evaluation: dict[str, Any] | None) -> dict[str, Any] | None:
    """An evaluation dict whose checks also carry their ``label`` (for output; stored files keep theirs)."""
    if evaluation is None:
        return None
    return {**evaluation, **{key: [{**c, "label": check_label(c)} for c in evaluation.get(key, [])]
                             for key in ("checks", "intent_checks")}}


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


class Evaluation(_Frozen):
    evaluation: Literal["gcv.evaluation/1"] = EVALUATION_ID
    passed: bool = Field(description="every hard check and every intent check passed")
    targets: EffectiveTargets
    checks: list[Check] = Field(description="hard checks on the candidate's telemetry")
    intent_checks: list[Check] = Field(default_factory=list,
                                       description="the goal's intent, checked on config and telemetry")
    miss_score: float = Field(ge=0, description="sum of relative misses; 0 when everything passes")
    fps_source: str | None = None

    @property
    def all_checks(self) -> list[Check]:
        return [*self.checks, *self.intent_checks]

    @property
    def failed(self) -> list[Check]:
        return [c for c in self.all_checks if not c.passed]

    def check(self, name: str, phase_id: str | None = None) -> Check | None:
        """The first check with this name (and phase, when given)."""
        return next((c for c in self.all_checks
                     if c.name == name and (phase_id is None or c.phase_id == phase_id)), None)

    def fingerprint(self) -> str:
        """Stable hash of what the evidence says: (name, phase, passed, actual) per check.

        Two rounds with the same fingerprint saw the same evidence; the spin guard uses it to
        refuse the same intent twice on identical evidence.
        """
        rows = [{"name": c.name, "phase_id": c.phase_id, "passed": c.passed, "actual": c.actual}
                for c in self.all_checks]
        return content_hash(rows)

    def summary(self) -> str:
        """One trace fragment: every failed check, or ``all checks ok``."""
        failed = self.failed
        return " | ".join(c.short() for c in failed) if failed else "all checks ok"
