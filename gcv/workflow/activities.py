"""The loop's doors to the outside world, injected (Temporal calls these activities).

Everything the loop cannot decide by itself comes through an :class:`Activities`: which
engine runner runs a request, which agent providers answer, how a bot population is run,
and how the baseline registry takes a promoted candidate. The defaults are the product's
registries; ``gcv verify --replay`` passes activities that answer from a bundle instead
(``gcv.evidence.replay``), and tests pass scripted ones. Activities are called only inside
recorded steps, so a resumed workflow never calls one twice for the same step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import Field

from engine_runners.base import EngineRunner
from engine_runners import reference
from engine_runners.protocol import RunRequest
from engine_runners.registry import get_runner
from engine_runners.requests import build_request
from gcv.agents.base import RequirementProvider, ReviewProvider
from gcv.agents.requirement import get_requirement_provider
from gcv.agents.review import get_review_provider
from gcv.analysis import FairnessReport, analyze
from gcv.batch.population import PopulationSummary, run_population
from gcv.contract.models import BulletHellConfig
from gcv.contract.base import GcvModel
from gcv.store.catalog import Workspace
from gcv.workflow.state import Settings


class AgentFailure(GcvModel):
    """An agent step that failed: the reason it names (``Reason``), its status and message."""

    kind: str
    status: str
    message: str


def _unset(value: Any) -> bool:
    return value is None


class AgentActivity(GcvModel):
    """What an agent step recorded: every call made (retries included), and the failure if any."""

    calls: list[dict[str, Any]] = Field(default_factory=list)
    error: AgentFailure | None = Field(default=None, exclude_if=_unset)


class RequirementActivity(AgentActivity):
    """The Requirement Agent's step (``requirement``, ``requirement:N``): its decision, or a failure."""

    decision: dict[str, Any] | None = Field(default=None, exclude_if=_unset)


class ReviewActivity(AgentActivity):
    """The Quality Review Agent's step (``review:N``): its verdict, or a failure."""

    verdict: dict[str, Any] | None = Field(default=None, exclude_if=_unset)


class PopulationRunner(Protocol):
    """``on_fight(done, total)`` is called after each fight (the loop prints its progress)."""

    def __call__(self, config: BulletHellConfig, *, skills: list[str], seeds: int, engine: str,
                 on_fight: Callable[[int, int], None] | None = None) -> PopulationSummary:
        ...


class FairnessRunner(Protocol):
    def __call__(self, config: BulletHellConfig, *, seed: int, budget_seconds: float) -> FairnessReport:
        ...


class ReferenceRunner(Protocol):
    def __call__(self, request: RunRequest) -> dict[str, Any]:
        ...


class Promoter(Protocol):
    def __call__(self, ws: Workspace, config: dict[str, Any], *, config_hash: str, created_at: float, source: str,
                 workflow_id: str, actor: str, note: str) -> int:
        ...


def _population(config: BulletHellConfig, *, skills: list[str], seeds: int, engine: str,
                on_fight: Callable[[int, int], None] | None = None) -> PopulationSummary:
    return run_population(config, skills=skills, seeds=seeds, engine=engine, on_fight=on_fight)


def _fairness(config: BulletHellConfig, *, seed: int, budget_seconds: float) -> FairnessReport:
    # the witness replays on the native core where it is exact (engine_runners.reference)
    return analyze(config, seed=seed, budget_seconds=budget_seconds, simulate=reference.telemetry)


def reference_run(request: RunRequest) -> dict[str, Any]:
    """The reference simulator's telemetry of a request, in process, writing nothing: the
    pre-screens, the repair search's rungs and the trade-offs. On the native C++ core where this
    machine has it, else in Python (``engine_runners.reference``: the same telemetry either way).
    Deterministic: the wall-clock figure a run measures about itself is left out (pre-screens are
    recomputed by ``verify --replay`` and must come out the same)."""
    return reference.run_request(request)[0]


def python_reference_run(request: RunRequest) -> dict[str, Any]:
    """:func:`reference_run` in the Python simulator whatever the machine has (the specification:
    ``verify --replay``'s cross-check)."""
    return reference.run_request(request, python=True)[0]


def _promote(ws: Workspace, config: dict[str, Any], *, config_hash: str, created_at: float, source: str,
             workflow_id: str, actor: str, note: str) -> int:
    return ws.add_baseline(config, config_hash=config_hash, created_at=created_at, source=source,
                           workflow_id=workflow_id, actor=actor, note=note)


@dataclass
class Activities:
    runner: Callable[[str], EngineRunner]
    requirement_provider: Callable[[str], RequirementProvider]
    review_provider: Callable[[str], ReviewProvider]
    population: PopulationRunner
    promote: Promoter
    fairness: FairnessRunner
    reference: ReferenceRunner


def default_activities() -> Activities:
    """The product's registries (looked up when the loop is built)."""
    return Activities(runner=get_runner, requirement_provider=get_requirement_provider,
                      review_provider=get_review_provider, population=_population, promote=_promote,
                      fairness=_fairness, reference=reference_run)


def run_request(config: BulletHellConfig, *, settings: Settings, run_id: str, capture_ticks: tuple[int, ...]
                ) -> RunRequest:
    """The run request the loop records: ``output_dir`` relative to the workflow folder, so
    the recorded request (and its hash) is the same on every machine and in every bundle.
    The loop hands the runner a copy with the absolute folder."""
    return build_request(config, seed=settings.seed, player=settings.player, output_dir=f"runs/{run_id}",
                         run_id=run_id, capture_ticks=list(capture_ticks))


__all__ = ["Activities", "AgentActivity", "AgentFailure", "RequirementActivity", "ReviewActivity", "FairnessRunner", "PopulationRunner", "Promoter", "ReferenceRunner", "default_activities", "python_reference_run", "reference_run",
           "run_request"]
