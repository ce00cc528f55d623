"""The workflow's state as types: what ``state.json`` holds, field by field.

One ``WorkflowState`` per workflow, written after every transition (``gcv.store``) and
shipped in every evidence bundle (its JSON Schema is ``schemas/workflow_state.schema.json``,
exported like the others and drift-tested; ``gcv verify`` checks a bundle's state against
it). Everything the loop decides is recorded here or in the artifacts it names by hash;
everything a person reads (CLI, report, console) is derived from it.

Hashes name canonical-JSON artifacts in the workflow folder (``artifacts/<sha256>.json``).
"""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import ConfigDict, Field

from gcv.contract.second_reading import SecondReading
from gcv.contract.base import GcvModel
from gcv.contract.policies import DEFAULT_FAIRNESS_POLICY, FairnessPolicy
from gcv.contract.schema_form import model_schema
from gcv.contract.status import Reason, Status
from gcv.repair.models import AllowedIntents, Choice, GateResult, RepairScope, ReviewVerdict, SearchRung, TradeOff
from gcv.validation.diff import FieldChange

STATE_ID: Final = "gcv.workflow/1"
STATE_SCHEMA_FILE = "workflow_state.schema.json"
# Frames every workflow run captures (ticks at 60 Hz): the report's before/after pairs.
CAPTURE_TICKS: tuple[int, ...] = (600, 1200, 1800)


class _Model(GcvModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class Budgets(GcvModel):
    """What the operator authorizes; each budget is a guardrail (gcv.workflow.guardrails)."""

    model_config = ConfigDict(extra="forbid")

    max_candidate_runs: int = Field(default=3, ge=1, le=50, description="candidate engine runs")
    max_model_calls: int = Field(default=4, ge=1, le=100, description="agent calls, retries included")
    max_tokens: int = Field(default=200_000, ge=0, le=50_000_000, description="cumulative provider tokens")
    deadline_seconds: float = Field(default=600.0, gt=0, le=86_400, description="wall clock from authorization")
    stagnation_rounds: int = Field(default=2, ge=1, le=20, description="rounds without improvement")
    max_agent_retries: int = Field(default=1, ge=0, le=5, description="retries of malformed agent output")
    max_prescreen_runs: int = Field(default=20, ge=0, le=500,
                                    description="reference-simulator pre-screens of candidates (not engine runs)")
    # its own small budget: answers never spend the model calls the review rounds need
    max_clarification_calls: int = Field(default=4, ge=0, le=20,
                                         description="requirement-agent calls after the designer's answers, retries "
                                                     "included (apart from max_model_calls)")


class BuildAgents(_Model):
    """The workflow's engine runs go to build agents (``engine_runners.build_agents``): the workspace's
    ``build_agents.toml`` named its engine when the workflow was submitted. The scheduler's address is
    read from that file at each run (it is the workspace's, not the evidence's); which agent ran each
    run is in the run's ``run.log`` (``[gcv-agent]`` lines)."""

    platform: Literal["linux", "windows", "macos"] | None = Field(
        default=None, description="only agents that declare this platform ran the runs")


class Settings(_Model):
    """What the designer (or the command line) chose before anything ran."""

    engine: str = "python-sim"
    provider: str = "offline"
    seed: int = Field(default=1, ge=0, le=(1 << 63) - 1)
    player: dict[str, Any] = Field(default_factory=lambda: {"kind": "scripted"})
    budgets: Budgets = Field(default_factory=Budgets)
    population: dict[str, Any] | None = Field(
        default=None, description="bot population judged with every run (gcv.batch.population spec)")
    prescreen: bool = Field(default=True, description="with an engine other than python-sim, judge each candidate's "
                                                      "gameplay in the reference simulator before an engine run")
    repair_search: bool = Field(default=True, description="search each repair's magnitude on its ladder in the "
                                                          "reference simulator (docs/repair.md)")
    build_agents: BuildAgents | None = Field(
        default=None, exclude_if=lambda v: v is None,
        description="set when the engine runs went to build agents through a Dask scheduler (docs/engines.md)")
    # left out of the JSON at its default, so states written before it keep their form
    fairness_policy: FairnessPolicy = Field(
        default=DEFAULT_FAIRNESS_POLICY, exclude_if=lambda v: v == DEFAULT_FAIRNESS_POLICY,
        description="the fair-fight gate when the targets require a dodgeable fight: undetermined_allowed (only a "
                    "proof of unfairness fails) or fair_required (only a replayed witness passes)")
    # the request's intent is recorded when it is accepted (gcv.contract.request_intent); left out
    # of the JSON while false, so workflows created before it replay as they were
    record_intent: bool = Field(default=False, exclude_if=lambda v: not v,
                                description="record the accepted request's intent (each thing asked for)")


class Usage(_Model):
    """What has been spent, for the guardrails and for the reviewer."""

    candidate_runs: int = 0
    baseline_runs: int = 0
    model_calls: int = 0
    tokens: int = 0
    population_runs: int = 0
    prescreen_runs: int = 0
    # requirement calls after an answer (not in model_calls); left out of the JSON while 0, so a
    # workflow without answers keeps the bytes it had before the clarification budget existed
    clarification_calls: int = Field(default=0, exclude_if=lambda v: v == 0)

    @property
    def engine_runs(self) -> int:
        return self.candidate_runs + self.baseline_runs


class Scope(_Model):
    baseline_runs: int
    candidate_runs: int
    prescreen_runs: int = 0
    engine: str
    player: dict[str, Any]
    seed: int
    # the fair-fight policy the person authorized (None in authorizations recorded before it)
    fairness_policy: FairnessPolicy | None = Field(default=None, exclude_if=lambda v: v is None)


class Authorization(_Model):
    """Who allowed the engine runs, through what, and within which budgets."""

    actor: str
    at: float
    via: str
    engine: str
    scope: Scope
    budgets: Budgets
    # what a repair may move without asking (None in authorizations recorded before issue 26:
    # their repairs were not held to a scope, and their replays stay as they were)
    repair_scope: RepairScope | None = Field(default=None, exclude_if=lambda v: v is None)
    # the request is read again against the final diff before evidence_ready (issue 26 item 6);
    # left out of the JSON while false, so authorizations recorded before it replay as they were
    second_reading: bool = Field(default=False, exclude_if=lambda v: not v)


class Answer(_Model):
    """A designer's answer to the requirement agent's questions (``gcv answer``)."""

    text: str
    actor: str
    at: float


class RequirementOutcome(_Model):
    """The requirement agent's latest decision (the full decision is the artifact ``hash``)."""

    decision: str
    hash: str
    questions: list[str] = Field(default_factory=list)
    issues: list[dict[str, Any]] = Field(default_factory=list)
    intent_hash: str | None = Field(default=None, exclude_if=lambda v: v is None,
                                    description="the accepted request's intent (gcv.contract.request_intent), "
                                                "each thing asked for, recomputed by replay")


class RunRecord(_Model):
    """One engine run: what was asked (``request_hash``) and what came back."""

    run_id: str
    engine: str | None = Field(description="what actually ran, as the runner was configured (e.g. ue5-harness)")
    ok: bool
    error: str | None = None
    error_kind: str | None = None
    exit_code: int | None = None
    duration_ms: int | None = None
    request_hash: str
    frames: list[str] = Field(default_factory=list, description="paths relative to the workflow folder")
    telemetry_hash: str | None = None


class PopulationRecord(_Model):
    summary_hash: str
    checks: list[dict[str, Any]]


class FairnessRecord(_Model):
    """The fair-fight analysis of one config (``gcv.analysis``), when the targets require it."""

    report_hash: str = Field(description="the FairnessReport (witness trace, safe-area curve, proof)")
    verdict: Literal["fair", "unfair", "undetermined"]
    check: dict[str, Any] = Field(description="the hard check it adds to the evaluation (fair_fight)")


class RepairRecord(_Model):
    """What the calculator did with the gate's intent (``changes`` empty when it refused)."""

    ok: bool
    explanation: str = ""
    error: str | None = None
    changes: list[FieldChange] = Field(default_factory=list)
    search: list[SearchRung] | None = Field(default=None, description="the ladder rungs the repair search tried")


class Round(_Model):
    """One candidate: how it was made, how it ran, what the review and the gate made of it."""

    round: int = Field(ge=1)
    origin: str = Field(description="'requirement' for round 1, 'repair:INTENT' after a repair")
    candidate_hash: str
    validation_hash: str
    diff_hash: str
    prescreen: RunRecord | None = Field(default=None, description="the reference simulator's run of this candidate "
                                                                   "(engines other than python-sim)")
    prescreen_failed: list[str] | None = Field(
        default=None, description="gameplay or intent checks the pre-screen failed: the engine was not used")
    run: RunRecord | None = None
    population: PopulationRecord | None = None
    fairness: FairnessRecord | None = None
    evaluation_hash: str | None = None
    miss_score: float | None = None
    passed: bool | None = None
    fingerprint: str | None = None
    allowed: AllowedIntents | None = None
    verdict: ReviewVerdict | None = None
    gate: GateResult | None = None
    repair: RepairRecord | None = None
    tradeoffs: list[TradeOff] | None = Field(
        default=None, exclude_if=lambda v: v is None, description="the options offered when no repair inside the scope passes (awaiting_choice)")
    choice: Choice | None = Field(default=None, exclude_if=lambda v: v is None, description="the designer's pick among this round's trade-offs")
    second_reading: SecondReading | None = Field(
        default=None, exclude_if=lambda v: v is None,
        description="the request read again from scratch against this round's candidate, before it is shown as "
                    "ready (gcv.agents.second_reading)")

    @property
    def evaluated(self) -> bool:
        return self.evaluation_hash is not None and self.miss_score is not None


class HumanDecision(_Model):
    decision: Literal["accept", "revise", "rollback"]
    actor: str
    note: str
    at: float
    promoted_version: int | None = None


class LogMark(_Model):
    """How far one append-only log of the workflow folder reached when the state was written."""

    count: int = Field(ge=0, description="complete records in the log")
    hash: str | None = Field(description="events: the last event's chain hash (it covers every event before it); "
                                         "activities: sha256 of the bytes of those records' lines")


class History(_Model):
    """How far the history reaches (``gcv.store.workflow_dir``): a log that holds less, or other
    records, was truncated, emptied, deleted or replaced, and every reader refuses it."""

    events: LogMark
    activities: LogMark


class WorkflowState(_Model):
    workflow: Literal["gcv.workflow/1"] = STATE_ID
    id: str
    status: Status = Status.PROPOSED
    terminal_reason: Reason | None = None
    terminal_message: str | None = None
    request: str
    answers: list[Answer] = Field(default_factory=list)
    settings: Settings
    baseline_hash: str
    baseline_source: str
    created_at: float
    # who submitted the request (None in workflows created before it was recorded: their catalog
    # row names the authorizer); left out of the JSON when unset, so older states keep their form
    submitted_by: str | None = Field(default=None, exclude_if=lambda v: v is None,
                                     description="who submitted the request (gcv run --actor, the console's user)")
    resubmitted_from: str | None = Field(
        default=None, exclude_if=lambda v: v is None,
        description="the workflow this one edits and resubmits (gcv resubmit; it ended revise, blocked or budget "
                    "exhausted); the old one is found superseded through the catalog")
    authorization: Authorization | None = None
    deadline_at: float | None = None
    requirement: RequirementOutcome | None = None
    goal_hash: str | None = None
    baseline_prescreen: RunRecord | None = None
    baseline_run: RunRecord | None = None
    baseline_population: PopulationRecord | None = None
    baseline_fairness: FairnessRecord | None = None
    rounds: list[Round] = Field(default_factory=list)
    round: int = 0
    usage: Usage = Field(default_factory=Usage)
    agent_calls: list[str] = Field(default_factory=list, description="hashes of every recorded agent call")
    trace: list[str] = Field(default_factory=list)
    final_candidate_hash: str | None = None
    best_round: int | None = None
    human_decision: HumanDecision | None = None
    event_seq: int = Field(default=-1, description="the last event this state includes")
    history: History | None = Field(
        default=None, description="how far events.jsonl and activities.jsonl reached when this state was written "
                                  "(absent in workflows written before it was recorded)")

    # ------------------------------------------------------------------ reading helpers
    def round_no(self, n: int) -> Round | None:
        return next((r for r in self.rounds if r.round == n), None)

    @property
    def current(self) -> Round:
        return self.rounds[-1]

    def chosen_targets(self, before_round: int | None = None) -> dict[str, int | float]:
        """The targets the designer raised by choosing a ``raise_target`` trade-off in a round
        before ``before_round`` (every round when None), later choices over earlier ones."""
        out: dict[str, int | float] = {}
        for r in self.rounds:
            if r.choice is None or (before_round is not None and r.round >= before_round):
                continue
            for t in r.tradeoffs or []:
                if t.number == r.choice.number:
                    out.update(t.targets)
        return out

    def final_round(self) -> Round | None:
        """The round the workflow ended on: the chosen one, else the last evaluated one."""
        if self.best_round is not None:
            return self.round_no(self.best_round)
        evaluated = [r for r in self.rounds if r.evaluated]
        return evaluated[-1] if evaluated else None

    def engines_used(self) -> list[str]:
        runs = [self.baseline_run, *[r.run for r in self.rounds]]
        return sorted({r.engine for r in runs if r is not None and r.engine})

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def load_state(data: dict[str, Any]) -> WorkflowState:
    return WorkflowState.model_validate(data)


def state_json_schema() -> dict[str, Any]:
    """The JSON Schema of ``state.json`` (committed as ``schemas/workflow_state.schema.json``)."""
    return model_schema(WorkflowState, STATE_SCHEMA_FILE, mode="serialization")


__all__ = ["WorkflowState", "Budgets", "BuildAgents", "Settings", "Usage", "Authorization", "Scope", "Answer", "RequirementOutcome",
           "RunRecord", "PopulationRecord", "FairnessRecord", "RepairRecord", "Round", "HumanDecision", "History",
           "LogMark", "STATE_ID", "CAPTURE_TICKS",
           "STATE_SCHEMA_FILE", "load_state", "state_json_schema"]
