"""The verification loop as an explicit, persisted state machine.

``WorkflowLoop.advance`` performs one transition at a time until the workflow waits for a
person. Each transition's work is an *activity* (an engine run, an agent call, a bot
population): its result is recorded before the transition is written, and a resumed
workflow reuses recorded activities instead of redoing them, so a process killed at any
point reaches the same final state and the same telemetry.

The loop itself is deterministic. Its inputs from the outside world come through two
doors only, both injected:

* ``Activities``: the engine runner, the agent providers, the population runner and the
  baseline registry's promotion (``gcv.workflow.activities``);
* ``clock``: read exactly once per event written, and that reading *is* the event's ``at``.
  Guardrails that need the time (the deadline) use the time of the ``step`` event the loop
  writes before the work it guards. So the event log holds every time the loop ever read.

That is what makes ``gcv verify --replay`` a re-run of this very code: replay feeds the
recorded activities, the recorded times and the recorded human inputs (authorization,
answers, decision) back into a ``WorkflowLoop`` in a temporary workspace, and compares the
state and events it writes with the recorded ones (``gcv.evidence.replay``). No decision
rule of the loop exists anywhere else.

Every public method that writes holds the workflow's lock (``gcv.store.locks``) for its
whole duration; a second writer is refused with the holder's PID.
"""

from __future__ import annotations

import getpass
import hashlib
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from engine_runners.base import EngineRunner
from gcv.agents.base import CallBudget, CallLimits, RequirementDecision
from gcv.agents.errors import AgentError
from gcv.agents.requirement import RequirementAgent
from gcv.agents.review import ReviewAgent
from gcv.agents.review_evidence import RepairHistoryEntry, ReviewEvidence
from gcv.agents.second_reading import second_reading
from gcv.analysis import fairness_check
from gcv.batch.population import evaluate_population
from gcv.contract.activity_keys import (ActivityKey, fairness_key, population_key, prescreen_key, requirement_key,
                                       review_key, run_key)
from gcv.contract.canonical import config_hash
from gcv.contract.goal import Goal, with_targets
from gcv.contract.intents import NON_REPAIR_INTENTS
from gcv.contract.models import BulletHellConfig
from gcv.contract.policies import FairnessPolicy
from gcv.contract.request_intent import request_intent
from gcv.contract.status import FINAL, WAITING, Reason, Status, requirement_reason
from gcv.evaluation.evaluate import evaluate
from gcv.evaluation.fairness import with_fairness
from gcv.evaluation.gameplay import gameplay_only
from gcv.evaluation.models import Evaluation
from gcv.evaluation.population import with_population
from gcv.evaluation.targets import effective_targets
from gcv.repair.calculators import apply_repair
from gcv.repair.models import Choice, RepairScope, ReviewVerdict, TradeOff
from gcv.repair.policy import allowed_intents, gate
from gcv.repair.scope import default_scope, in_scope, offer_tradeoffs, option_figures, requested_pairs
from gcv.repair.search import search_repair
from gcv.sim.telemetry import desync
from gcv.store.catalog import Workspace
from gcv.store.errors import CorruptLog
from gcv.store.locks import WorkflowLock
from gcv.store.workflow_dir import WorkflowDir
from gcv.validation.diff import diff_configs
from gcv.validation.report import ValidationReport
from gcv.validation.validate import validate
from gcv.workflow import guardrails
from gcv.workflow.activities import (Activities, AgentFailure, RequirementActivity, ReviewActivity, default_activities,
                                     run_request)
from gcv.workflow.events import CreatedData, EventData, StepData, TraceData, TransitionData, parse_event
from gcv.workflow.guardrails import Stop
from gcv.workflow.reading import WorkflowError, read_workflow, workflow_dir
from gcv.workflow.state import (CAPTURE_TICKS, Answer, Authorization, Budgets, FairnessRecord, History,
                                HumanDecision, PopulationRecord,
                                RepairRecord, RequirementOutcome, Round, RunRecord, Scope, Settings, Usage,
                                WorkflowState)
from gcv.workflow.states import DECISION_TARGET, IllegalTransition, check_transition, decisions_allowed

PYTHON_SIM = "python-sim"  # the reference simulator, as an engine
FAIRNESS_BUDGET_SECONDS = 30.0  # per config; the analysis says "undetermined" when it runs out
TOKEN_FIELDS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def new_workflow_id(request: str, now: float) -> str:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(now))
    digest = hashlib.sha256(f"{request}\0{now!r}".encode()).hexdigest()[:6]
    return f"wf-{stamp}-{digest}"


R = TypeVar("R", bound=BaseModel)

# a recorded agent step that holds neither an answer nor a failure (written by hand or damaged)
_NO_ANSWER = AgentFailure(kind=Reason.AGENT_OUTPUT_INVALID, status=str(Reason.AGENT_OUTPUT_INVALID.status),
                          message="the recorded agent step holds neither an answer nor a failure")


def _agent_failure(exc: AgentError) -> tuple[AgentFailure, list[dict[str, Any]]]:
    return (AgentFailure(kind=str(exc.kind), status=str(exc.status), message=str(exc)),
            [c.model_dump(mode="json") for c in exc.calls])


def _failure_stop(error: AgentFailure) -> Stop:
    return Stop(Reason(error.kind), error.message)


def failed_summary(evaluation: Evaluation) -> str:
    """The trace's check fragment: every failed check (with its phase), or all PASS."""
    parts = []
    for check in evaluation.all_checks:
        if not check.passed:
            sign = {"<=": ">", ">=": "<", "==": "!="}.get(check.op, "vs")
            parts.append(f"{check.name} {check.actual}{sign}{check.expected} FAIL")
    return ", ".join(parts) if parts else "all checks PASS"




class WorkflowLoop:
    def __init__(self, workspace: Workspace, *, clock: Callable[[], float] = time.time,
                 activities: Activities | None = None,
                 on_trace: Callable[[str], None] | None = None,
                 on_progress: Callable[[str], None] | None = None,
                 build_agents: Callable[[str, str | None], EngineRunner] | None = None) -> None:
        self.ws = workspace
        # (engine, platform) -> the runner of a workflow whose settings send its runs to build agents;
        # without it (replay, tests) such runs go to ``activities.runner`` like any other
        self.build_agents = build_agents
        self.clock = clock
        self.activities = activities or default_activities()
        self.on_trace = on_trace or (lambda line: None)
        self.on_progress = on_progress or (lambda text: None)

    # ------------------------------------------------------------------ creation
    def create(self, request: str, baseline: BulletHellConfig, settings: Settings, *,
               baseline_source: str, actor: str | None = None, wf_id: str | None = None,
               resubmitted_from: str | None = None) -> str:
        """A new workflow. ``actor`` (who submitted it) and ``resubmitted_from`` (the workflow it
        edits and resubmits) are recorded in the ``created`` event and the state when given."""
        now = self.clock()
        wf_id = wf_id or new_workflow_id(request, now)
        d = self.ws.workflow_dir(wf_id)
        if d.root.exists():
            raise WorkflowError(f"workflow {wf_id} already exists")
        d.root.mkdir(parents=True)
        with d.lock():
            state = WorkflowState(id=wf_id, request=request, settings=settings,
                                  baseline_hash=d.put(baseline.model_dump(mode="json")),
                                  baseline_source=baseline_source, created_at=now, submitted_by=actor,
                                  resubmitted_from=resubmitted_from)
            optional = {k: v for k, v in (("actor", actor), ("resubmitted_from", resubmitted_from)) if v is not None}
            data = CreatedData(request=request, settings=settings, baseline_hash=state.baseline_hash, **optional)
            event = self._event(d, "created", data, at=now, to=Status.PROPOSED)
            state.event_seq = event["seq"]
            state.history = History.model_validate(d.write_state(state.to_json()))
            self.ws.register(wf_id, created_at=now, request=request, engine=settings.engine,
                             provider=settings.provider, baseline_hash=state.baseline_hash, status=Status.PROPOSED,
                             actor=actor, resubmitted_from=resubmitted_from)
        return wf_id

    # ------------------------------------------------------------------ reading
    def _dir(self, wf_id: str) -> WorkflowDir:
        return workflow_dir(self.ws, wf_id)

    def lock(self, wf_id: str) -> WorkflowLock:
        """The workflow's writer lock, for a command that does several steps as one writer."""
        return self._dir(wf_id).lock()

    def load(self, wf_id: str) -> tuple[WorkflowDir, WorkflowState]:
        """The workflow's folder and typed state, read only (nothing is changed;
        ``gcv.workflow.reading.read_workflow``, which needs no loop)."""
        return read_workflow(self.ws, wf_id)

    def _load_for_writing(self, wf_id: str) -> tuple[WorkflowDir, WorkflowState]:
        """Load under the lock, refuse a corrupt log, and drop the events of a step that was
        interrupted before its state write (that step is redone from its activities)."""
        d, state = self.load(wf_id)
        try:
            d.truncate_events(state.event_seq + 1)
            d.activities()  # refuse a corrupt activities log before any work
        except CorruptLog as exc:
            raise WorkflowError(str(exc)) from None
        return d, state

    # ------------------------------------------------------------------ writing
    def _event(self, d: WorkflowDir, kind: str, data: EventData, *,
               at: float | None = None, **fields: Any) -> dict[str, Any]:
        """Append one event (its payload typed: gcv.workflow.events). The clock is read here and
        only here (or ``at`` is that reading). What is appended is read back as its type first,
        so the log never holds an event its readers would refuse."""
        now = self.clock() if at is None else at
        record = {"type": kind, "at": now, **fields, "data": data.record()}
        parse_event({**record, "seq": 0, "prev_hash": "", "hash": ""})
        return d.append_event(record)

    def _transition(self, d: WorkflowDir, state: WorkflowState, target: Status, *,
                    data: TransitionData | None = None, reason: Stop | None = None, at: float | None = None) -> None:
        check_transition(state.status, target)
        source = state.status
        state.status = target
        data = data.model_copy() if data is not None else TransitionData()
        if reason is not None:
            state.terminal_reason = reason.rule
            state.terminal_message = reason.message
            data.terminal_reason, data.message = str(reason.rule), reason.message
        event = self._event(d, "transition", data, at=at, **{"from": source, "to": target})
        state.event_seq = event["seq"]
        state.history = History.model_validate(d.write_state(state.to_json()))
        decided = state.human_decision
        self.ws.update_status(state.id, target, event["at"], engines_used=state.engines_used(),
                              terminal_reason=state.terminal_reason,
                              decision=(decided.decision, decided.actor) if decided is not None else None)

    def _trace(self, d: WorkflowDir, state: WorkflowState, line: str) -> float:
        state.trace.append(line)
        event = self._event(d, "trace", TraceData(line=line))
        self.on_trace(line)
        return float(event["at"])

    def _step(self, d: WorkflowDir, step: str) -> float:
        """Announce the work about to start; its time is the time the guardrails judge."""
        self.on_progress(step)
        return float(self._event(d, "step", StepData(step=step))["at"])

    def _stop(self, d: WorkflowDir, state: WorkflowState, stop: Stop) -> None:
        if stop.status == Status.BUDGET_EXHAUSTED or stop.rule in (Reason.STAGNATION, Reason.SPIN):
            self._choose_best(state)
        self._trace(d, state, f"[round {state.round}] stop: {stop.rule} | {stop.message}")
        self._transition(d, state, stop.status, reason=stop)

    @staticmethod
    def _choose_best(state: WorkflowState) -> None:
        """The best verified candidate so far: lowest miss score, earliest on ties."""
        evaluated = [r for r in state.rounds if r.evaluated]
        if evaluated:
            best = min(evaluated, key=lambda r: (r.miss_score, r.round))
            state.best_round = best.round
            state.final_candidate_hash = best.candidate_hash

    @staticmethod
    def _limits(state: WorkflowState, *, clarifying: bool = False) -> CallLimits:
        """What is left for one agent step, handed to the provider with the call so its own retries
        stay inside the budgets (a call that reads the designer's answers draws on the
        clarification budget, not on the model calls)."""
        budgets = state.settings.budgets
        left = (budgets.max_clarification_calls - state.usage.clarification_calls if clarifying
                else budgets.max_model_calls - state.usage.model_calls)
        budget = CallBudget(remaining_calls=left, remaining_tokens=budgets.max_tokens - state.usage.tokens)
        return CallLimits(budget=budget, max_retries=budgets.max_agent_retries)

    @staticmethod
    def _count_calls(d: WorkflowDir, state: WorkflowState, calls: list[dict[str, Any]], *,
                     clarifying: bool = False) -> None:
        for call in calls:
            state.agent_calls.append(d.put(call))
            if clarifying:
                state.usage.clarification_calls += 1
            else:
                state.usage.model_calls += 1
            usage = call.get("usage") or {}
            state.usage.tokens += sum(int(usage.get(k, 0)) for k in TOKEN_FIELDS)

    @staticmethod
    def _activity(d: WorkflowDir, key: ActivityKey, model: type[R], work: Callable[[], R]) -> R:
        """The activity's result: the recorded one (a resumed or replayed workflow never does the
        work twice), else ``work()``'s, recorded first. One result model per kind of activity."""
        recorded = d.activities()
        if key in recorded:
            return model.model_validate(recorded[key])
        result = work()
        d.record_activity(key, result.model_dump(mode="json"))
        return result

    @staticmethod
    def _config(d: WorkflowDir, digest: str) -> BulletHellConfig:
        return BulletHellConfig.model_validate(d.get(digest))

    @staticmethod
    def _scope(state: WorkflowState) -> RepairScope | None:
        """The authorized repair scope, widened by every trade-off a person chose (None for
        workflows authorized before scopes existed)."""
        auth = state.authorization
        if auth is None or auth.repair_scope is None:
            return None
        widened = [{"actor": r.choice.actor, "at": r.choice.at, "option": r.choice.number, **w}
                   for r in state.rounds if r.choice is not None and r.tradeoffs
                   for t in r.tradeoffs if t.number == r.choice.number for w in t.widens]
        return auth.repair_scope.model_copy(update={"widened": [*auth.repair_scope.widened, *widened]})

    def _requested(self, d: WorkflowDir, state: WorkflowState) -> BulletHellConfig | None:
        """The candidate the request itself asked for: round 1's, which is what the calculator
        builds from the goal (issue 27); the reference for what a repair may not undo."""
        first = state.rounds[0] if state.rounds else None
        return self._config(d, first.candidate_hash) if first is not None and first.origin == "requirement" else None

    @staticmethod
    def _goal(d: WorkflowDir, state: WorkflowState) -> Goal | None:
        """The goal, with every target the designer raised by a choice stated as theirs."""
        goal = Goal.model_validate(d.get(state.goal_hash)) if state.goal_hash else None
        return with_targets(goal, state.chosen_targets()) if goal is not None else None

    # ------------------------------------------------------------------ the loop
    def advance(self, wf_id: str) -> WorkflowState:
        """Run the loop until the workflow waits for a person (or is final)."""
        d = self._dir(wf_id)
        with d.lock():
            d, state = self._load_for_writing(wf_id)
            while state.status not in WAITING and state.status not in FINAL:
                STEPS[state.status](self, d, state)
            return state

    def _guard_agent_call(self, state: WorkflowState, now: float, estimate: int) -> Stop | None:
        budgets = state.settings.budgets
        return (guardrails.deadline(now, state.deadline_at)
                or guardrails.model_call_budget(state.usage, budgets)
                or guardrails.token_budget(state.usage, budgets, estimate))

    def _on_proposed(self, d: WorkflowDir, state: WorkflowState) -> None:
        baseline = self._config(d, state.baseline_hash)
        attempt = len(state.answers) + 1
        self._step(d, requirement_key(attempt))
        clarifying = attempt > 1  # reading the designer's answers: the clarification budget pays
        stop = (guardrails.clarification_budget(state.usage, state.settings.budgets) if clarifying
                else guardrails.model_call_budget(state.usage, state.settings.budgets))
        if stop:
            return self._stop(d, state, stop)
        follow_ups = [a.text for a in state.answers]

        checked: list[ValidationReport] = []  # the agent's own validation of its candidate, when it ran now

        def work() -> RequirementActivity:
            provider = self.activities.requirement_provider(state.settings.provider)
            try:
                proposal = RequirementAgent(provider).propose_with_report(
                    state.request, baseline, follow_ups=follow_ups, limits=self._limits(state, clarifying=clarifying))
            except AgentError as exc:
                error, made = _agent_failure(exc)
                return RequirementActivity(error=error, calls=made)
            if proposal.validation is not None:
                checked.append(proposal.validation)
            return RequirementActivity(decision=proposal.decision.model_dump(mode="json"),
                                       calls=[c.model_dump(mode="json") for c in proposal.calls])

        result = self._activity(d, requirement_key(attempt), RequirementActivity, work)
        self._count_calls(d, state, result.calls, clarifying=clarifying)
        if result.error is not None or result.decision is None:
            return self._stop(d, state, _failure_stop(result.error or _NO_ANSWER))
        decision = RequirementDecision.model_validate(result.decision)
        state.requirement = RequirementOutcome(decision=decision.decision, hash=d.put(result.decision),
                                               questions=decision.questions,
                                               issues=[i.model_dump(mode="json") for i in decision.issues])
        stop = guardrails.token_budget(state.usage, state.settings.budgets)
        if stop:
            return self._stop(d, state, stop)
        if decision.decision != "accepted":
            reason = requirement_reason(decision.decision)
            self._trace(d, state, f"[round 0] proposed -> {reason.status} | requirement {decision.decision}")
            self._transition(d, state, reason.status, reason=Stop(reason, decision.rationale or decision.decision))
            return
        assert decision.candidate is not None and decision.goal is not None  # the agent guarantees both
        candidate, goal = decision.candidate, decision.goal
        state.goal_hash = d.put(goal.model_dump(mode="json"))
        if state.settings.record_intent:  # each thing asked for (issue 26.1), whichever provider read it
            state.requirement.intent_hash = d.put(request_intent(goal).model_dump(mode="json"))
        # validated once: by the agent when it answered now, here when the answer was recorded
        report = checked[0] if checked else validate(baseline, candidate, goal)
        diff = [c.model_dump(mode="json") for c in diff_configs(baseline, candidate)]
        state.rounds = [Round(round=1, origin="requirement", candidate_hash=d.put(candidate.model_dump(mode="json")),
                              validation_hash=d.put(report.model_dump(mode="json")), diff_hash=d.put(diff))]
        self._trace(d, state, f"[round 0] proposed -> awaiting_authorization | {len(diff)} field(s) changed, "
                              f"validation {'PASS' if report.ok else 'FAIL'}")
        self._transition(d, state, Status.AWAITING_AUTHORIZATION,
                         data=TransitionData(candidate_hash=state.rounds[0].candidate_hash))

    def _on_authorized(self, d: WorkflowDir, state: WorkflowState) -> None:
        self._transition(d, state, Status.RUNNING_BASELINE)

    def _run(self, d: WorkflowDir, state: WorkflowState, key: ActivityKey, run_id: str, config: BulletHellConfig,
             now: float) -> RunRecord:
        def work() -> RunRecord:
            request = run_request(config, settings=state.settings, run_id=run_id, capture_ticks=CAPTURE_TICKS)
            agents = state.settings.build_agents
            runner = (self.build_agents(state.settings.engine, agents.platform)
                      if agents is not None and self.build_agents is not None
                      else self.activities.runner(state.settings.engine))
            # The deadline bounds the engine run too: what is left of it (in the loop's time) becomes
            # a wall-clock deadline for the runner, which ends the engine when it passes.
            deadline = None if state.deadline_at is None else time.time() + max(0.0, state.deadline_at - now)
            result = runner.run(request.model_copy(update={"output_dir": str(d.root / request.output_dir)}),
                                deadline=deadline)
            return RunRecord(
                run_id=run_id, engine=result.engine, ok=result.ok, error=result.error, error_kind=result.error_kind,
                exit_code=result.exit_code, duration_ms=result.duration_ms,
                request_hash=d.put(request.model_dump(mode="json")),
                frames=[Path(f).resolve().relative_to(d.root.resolve()).as_posix() for f in result.frames],
                telemetry_hash=d.put(result.telemetry) if result.ok and result.telemetry else None)

        return self._activity(d, key, RunRecord, work)

    def _prescreen(self, d: WorkflowDir, state: WorkflowState, key: ActivityKey, run_id: str,
                   config: BulletHellConfig) -> RunRecord:
        """The same request in the reference simulator (recorded; counted as a pre-screen, never
        as an engine run)."""
        def work() -> RunRecord:
            request = run_request(config, settings=state.settings, run_id=run_id, capture_ticks=())
            telemetry = self.activities.reference(request)
            return RunRecord(run_id=run_id, engine="python-sim", ok=True, request_hash=d.put(request.model_dump(mode="json")),
                             telemetry_hash=d.put(telemetry))

        record = self._activity(d, key, RunRecord, work)
        state.usage.prescreen_runs += 1
        return record

    def _prescreens(self, state: WorkflowState) -> bool:
        return state.settings.prescreen and state.settings.engine != PYTHON_SIM

    @staticmethod
    def _desync(d: WorkflowDir, what: str, prescreen: RunRecord, record: RunRecord) -> Stop | None:
        """The engine's gameplay must equal the reference's for the same request (a parity check)."""
        assert prescreen.telemetry_hash is not None and record.telemetry_hash is not None
        found = desync(d.get(prescreen.telemetry_hash), d.get(record.telemetry_hash))
        if found is None:
            return None
        window = (f"; first differing 60-tick window: ticks {found['window'][0]}..{found['window'][1]}"
                  if found["window"] else "")
        return Stop(Reason.ENGINE_DESYNC,
                    f"{what}: {record.engine} differs from the reference simulator at {found['field']} "
                    f"(reference {found['reference']!r}, engine {found['engine']!r}){window}")

    @staticmethod
    def _run_failed(what: str, record: RunRecord) -> Stop:
        if record.error_kind == "deadline":  # the runner ended the engine when the deadline passed
            return Stop(Reason.DEADLINE, f"the wall-clock deadline passed during the {what}; the engine was ended "
                                         f"({record.error})")
        return Stop(Reason.ENGINE_FAILED, f"{what} failed: {record.error}")

    def _population(self, d: WorkflowDir, state: WorkflowState, key: ActivityKey, config: BulletHellConfig) -> PopulationRecord:
        """Seeded bot population of one config (a recorded activity, like an engine run)."""
        spec = state.settings.population
        assert spec is not None
        self.on_progress(f"{key} ({spec['seeds']} seeds x {len(spec['skills'])} skill(s))")

        def fights(done: int, total: int) -> None:  # counts, about ten lines per population
            if done * 10 // total != (done - 1) * 10 // total:  # each tenth, and the last
                self.on_progress(f"{key}: {done}/{total} fights")

        def work() -> PopulationRecord:
            summary = self.activities.population(config, skills=spec["skills"], seeds=spec["seeds"],
                                                 engine=state.settings.engine, on_fight=fights)
            targets = [dict(t, basis=spec.get("basis", "point")) for t in spec["targets"]]
            return PopulationRecord(summary_hash=d.put(summary.model_dump(mode="json")),
                                    checks=evaluate_population(summary, targets))

        result = self._activity(d, key, PopulationRecord, work)
        state.usage.population_runs += spec["seeds"] * len(spec["skills"])
        return result

    def _fairness(self, d: WorkflowDir, state: WorkflowState, key: ActivityKey, config: BulletHellConfig
                  ) -> FairnessRecord:
        """The fair-fight analysis of one config (a recorded activity: its budget is wall-clock
        time, so a resumed or replayed workflow reads the recorded report)."""
        self.on_progress(f"{key} (fair-fight analysis)")

        def work() -> FairnessRecord:
            report = self.activities.fairness(config, seed=state.settings.seed,
                                              budget_seconds=FAIRNESS_BUDGET_SECONDS)
            check = fairness_check(report, policy=state.settings.fairness_policy)
            return FairnessRecord(report_hash=d.put(report.model_dump(mode="json")), verdict=report.verdict,
                                  check=check.model_dump(mode="json"))

        return self._activity(d, key, FairnessRecord, work)

    def _on_running_baseline(self, d: WorkflowDir, state: WorkflowState) -> None:
        now = self._step(d, run_key(None))
        stop = guardrails.deadline(now, state.deadline_at)
        if stop:
            return self._stop(d, state, stop)
        baseline = self._config(d, state.baseline_hash)
        if self._prescreens(state):  # the reference run the engine's gameplay must equal
            state.baseline_prescreen = self._prescreen(d, state, prescreen_key(None), f"{state.id}-baseline-ref",
                                                       baseline)
        record = self._run(d, state, run_key(None), f"{state.id}-baseline", baseline, now)
        state.usage.baseline_runs += 1
        state.baseline_run = record
        if not record.ok:
            return self._stop(d, state, self._run_failed("baseline run", record))
        if state.baseline_prescreen is not None:
            stop = self._desync(d, "baseline run", state.baseline_prescreen, record)
            if stop:
                return self._stop(d, state, stop)
        if state.settings.population:
            state.baseline_population = self._population(d, state, population_key(None), baseline)
        if effective_targets(baseline, self._goal(d, state)).require_dodgeable:
            state.baseline_fairness = self._fairness(d, state, fairness_key(None), baseline)
        state.round = 1
        self._transition(d, state, Status.RUNNING_CANDIDATE, data=TransitionData(baseline_telemetry=record.telemetry_hash))

    def _on_running_candidate(self, d: WorkflowDir, state: WorkflowState) -> None:
        rnd = state.current
        n = rnd.round
        now = self._step(d, run_key(n))
        stop = guardrails.deadline(now, state.deadline_at)
        if stop:
            return self._stop(d, state, stop)
        assert state.baseline_run is not None and state.baseline_run.telemetry_hash is not None
        candidate = self._config(d, rnd.candidate_hash)
        baseline = self._config(d, state.baseline_hash)
        baseline_telemetry = d.get(state.baseline_run.telemetry_hash)
        goal = self._goal(d, state)
        if self._prescreens(state):
            # gameplay first, in the reference (it is the engine for every gameplay figure): a candidate
            # that fails there is reviewed and repaired without spending an engine run
            stop = guardrails.prescreen_budget(state.usage, state.settings.budgets)
            if stop:
                return self._stop(d, state, stop)
            rnd.prescreen = self._prescreen(d, state, prescreen_key(n), f"{state.id}-c{n}-ref", candidate)
            assert rnd.prescreen.telemetry_hash is not None
            judged = gameplay_only(evaluate(baseline=baseline, goal=goal, baseline_telemetry=baseline_telemetry,
                                            candidate=candidate, candidate_telemetry=d.get(rnd.prescreen.telemetry_hash)))
            if not judged.passed:
                rnd.prescreen_failed = [c.name for c in judged.failed]
                return self._evaluated(d, state, rnd, judged)
        stop = guardrails.engine_run_budget(state.usage, state.settings.budgets)
        if stop:
            return self._stop(d, state, stop)
        record = self._run(d, state, run_key(n), f"{state.id}-c{n}", candidate, now)
        state.usage.candidate_runs += 1
        rnd.run = record
        if not record.ok or record.telemetry_hash is None:
            return self._stop(d, state, self._run_failed(f"candidate run {n}", record))
        if rnd.prescreen is not None:
            stop = self._desync(d, f"candidate run {n}", rnd.prescreen, record)
            if stop:
                return self._stop(d, state, stop)
        evaluation = evaluate(baseline=baseline, goal=goal, baseline_telemetry=baseline_telemetry,
                              candidate=candidate, candidate_telemetry=d.get(record.telemetry_hash))
        if state.settings.population:
            rnd.population = self._population(d, state, population_key(n), candidate)
            evaluation = with_population(evaluation, rnd.population.checks, goal)
        if evaluation.targets.require_dodgeable:
            rnd.fairness = self._fairness(d, state, fairness_key(n), candidate)
            evaluation = with_fairness(evaluation, rnd.fairness.check)
        self._evaluated(d, state, rnd, evaluation)

    def _evaluated(self, d: WorkflowDir, state: WorkflowState, rnd: Round, evaluation: Evaluation) -> None:
        rnd.evaluation_hash = d.put(evaluation.model_dump(mode="json"))
        rnd.miss_score = float(evaluation.miss_score)
        rnd.passed = bool(evaluation.passed)
        rnd.fingerprint = evaluation.fingerprint()
        data = TransitionData(round=rnd.round, evaluation_hash=rnd.evaluation_hash, passed=rnd.passed)
        if rnd.prescreen_failed is not None:
            data.prescreen_failed = rnd.prescreen_failed
        self._transition(d, state, Status.REVIEWING, data=data)

    def _round_context(self, d: WorkflowDir, state: WorkflowState
                       ) -> tuple[Round, BulletHellConfig, BulletHellConfig, Goal | None, Evaluation]:
        """The current round and what its review or repair works on, read back from artifacts."""
        rnd = state.current
        assert rnd.evaluation_hash is not None
        return (rnd, self._config(d, state.baseline_hash), self._config(d, rnd.candidate_hash),
                self._goal(d, state), Evaluation.model_validate(d.get(rnd.evaluation_hash)))

    def _on_reviewing(self, d: WorkflowDir, state: WorkflowState) -> None:
        rnd, baseline, candidate, goal, evaluation = self._round_context(d, state)
        n = rnd.round
        scoped = state.authorization is not None and state.authorization.repair_scope is not None
        requested = self._requested(d, state) if scoped else None
        allowed = allowed_intents(evaluation=evaluation, goal=goal, candidate=candidate, baseline=baseline,
                                  protected=requested_pairs(baseline, requested) if requested is not None else None)
        rnd.allowed = allowed
        assert state.baseline_run is not None and state.baseline_run.telemetry_hash is not None
        judged_run = rnd.run if rnd.run is not None else rnd.prescreen
        assert judged_run is not None and judged_run.telemetry_hash is not None
        evidence = ReviewEvidence.build(
            request_text=state.request, goal=goal, baseline=baseline, candidate=candidate,
            evaluation=evaluation, baseline_telemetry=d.get(state.baseline_run.telemetry_hash),
            candidate_telemetry=d.get(judged_run.telemetry_hash), allowed=allowed,
            repair_history=[RepairHistoryEntry(round=r.round, intent=r.gate.intent if r.gate else None,
                                               phase_id=r.gate.phase_id if r.gate else None,
                                               miss_score=r.miss_score, passed=bool(r.passed))
                            for r in state.rounds[:-1] if r.miss_score is not None],
            round=n)
        now = self._step(d, review_key(n))
        stop = self._guard_agent_call(state, now, estimate=len(evidence.model_dump_json()) // 3)
        if stop:
            return self._stop(d, state, stop)

        def work() -> ReviewActivity:
            provider = self.activities.review_provider(state.settings.provider)
            try:
                verdict, calls = ReviewAgent(provider).review(evidence, limits=self._limits(state))
            except AgentError as exc:
                error, made = _agent_failure(exc)
                return ReviewActivity(error=error, calls=made)
            return ReviewActivity(verdict=verdict.model_dump(mode="json"), calls=[c.model_dump(mode="json") for c in calls])

        result = self._activity(d, review_key(n), ReviewActivity, work)
        self._count_calls(d, state, result.calls)
        if result.error is not None or result.verdict is None:
            self._choose_best(state)
            return self._stop(d, state, _failure_stop(result.error or _NO_ANSWER))
        verdict = ReviewVerdict.model_validate(result.verdict)
        gate_result = gate(verdict, allowed)
        rnd.verdict = verdict
        rnd.gate = gate_result
        summary = failed_summary(evaluation)
        head = f"[round {n}] running_candidate -> reviewing | {summary}"
        if rnd.prescreen_failed is not None:
            head += " | pre-screened, not run in the engine"
        stop = guardrails.token_budget(state.usage, state.settings.budgets)
        if stop:
            self._trace(d, state, f"{head} | verdict {verdict.verdict}")
            return self._stop(d, state, stop)
        intent_text = f"intent {gate_result.intent}" if gate_result.intent else f"verdict {verdict.verdict}"
        if gate_result.outcome == "accept":
            if self._misses_what_was_asked(d, state, rnd, baseline, candidate, evaluation, head):
                return
            state.final_candidate_hash = rnd.candidate_hash
            state.best_round = n
            self._trace(d, state, f"{head} | accept")
            self._transition(d, state, Status.EVIDENCE_READY,
                             reason=Stop(Reason.ACCEPTED_BY_REVIEW, gate_result.reason or "all checks pass"))
            return
        if gate_result.outcome in ("human_review", "stop"):
            self._trace(d, state, f"{head} | {intent_text}")
            rule = Reason.HUMAN_REVIEW if gate_result.outcome == "human_review" else Reason.REVIEW_STOP
            if not evaluation.passed and all(i in NON_REPAIR_INTENTS for i in allowed.intents):
                rule = Reason.INTENT_UNREPAIRABLE
            return self._stop(d, state, Stop(rule, gate_result.reason or "a person must decide"))
        intent = gate_result.intent or ""
        scope = self._scope(state)
        if scope is not None and not in_scope(scope, intent, gate_result.phase_id):
            # the repair would move what the designer did not ask about: ask instead (issue 26)
            return self._offer_choice(d, state, rnd, head, intent_text, baseline, candidate, goal, evaluation)
        history = [(r.gate.intent, r.fingerprint or "") for r in state.rounds[:-1] if r.gate and r.gate.intent]
        scores = [r.miss_score for r in state.rounds if r.miss_score is not None]
        stop = (guardrails.spin(history, intent, rnd.fingerprint or "")
                or guardrails.stagnation(scores, state.settings.budgets)
                or guardrails.engine_run_budget(state.usage, state.settings.budgets))
        at = self._trace(d, state, f"{head} | {intent_text}")
        stop = stop or guardrails.deadline(at, state.deadline_at)
        if stop:
            return self._stop(d, state, stop)
        self._transition(d, state, Status.REPAIRING, data=TransitionData(round=n, intent=intent,
                                                                     phase_id=gate_result.phase_id))

    def _on_repairing(self, d: WorkflowDir, state: WorkflowState) -> None:
        rnd, baseline, candidate, goal, evaluation = self._round_context(d, state)
        assert rnd.gate is not None and rnd.gate.intent is not None
        n = rnd.round
        rungs = None
        if state.settings.repair_search and state.baseline_run is not None and state.baseline_run.telemetry_hash:
            self.on_progress(f"repair search for {rnd.gate.intent} on {rnd.gate.phase_id}")
            settings = state.settings

            def simulate(config: BulletHellConfig) -> dict[str, Any]:
                return self.activities.reference(run_request(config, settings=settings, run_id=f"{state.id}-search",
                                                             capture_ticks=()))

            outcome, rungs = search_repair(candidate=candidate, intent=rnd.gate.intent, phase_id=rnd.gate.phase_id,
                                           evaluation=evaluation, goal=goal, baseline=baseline,
                                           baseline_telemetry=d.get(state.baseline_run.telemetry_hash),
                                           simulate=simulate, frame_times_measured=settings.engine != PYTHON_SIM)
        else:
            outcome = apply_repair(candidate=candidate, intent=rnd.gate.intent, phase_id=rnd.gate.phase_id,
                                   evaluation=evaluation, goal=goal, baseline=baseline)
        rnd.repair = RepairRecord(ok=outcome.ok, explanation=outcome.explanation, error=outcome.error,
                                  changes=list(outcome.changes), search=rungs)
        if not outcome.ok or outcome.candidate is None:
            return self._stop(d, state, Stop(Reason.INTENT_UNREPAIRABLE,
                                             outcome.error or "no repair keeps the designer's intent"))
        new = outcome.candidate
        report = validate(baseline, new, goal)
        if not report.ok:
            return self._stop(d, state, Stop(Reason.REPAIR_INVALID,
                                             "the repaired candidate failed validation; a person must look"))
        diff = [c.model_dump(mode="json") for c in diff_configs(baseline, new)]
        state.rounds.append(Round(round=n + 1, origin=f"repair:{rnd.gate.intent}",
                                  candidate_hash=d.put(new.model_dump(mode="json")),
                                  validation_hash=d.put(report.model_dump(mode="json")), diff_hash=d.put(diff)))
        state.round = n + 1
        self._transition(d, state, Status.RUNNING_CANDIDATE,
                         data=TransitionData(round=n + 1, candidate_hash=state.current.candidate_hash,
                                             intent=rnd.gate.intent))

    def _misses_what_was_asked(self, d: WorkflowDir, state: WorkflowState, rnd: Round, baseline: BulletHellConfig,
                               candidate: BulletHellConfig, evaluation: Evaluation, head: str) -> bool:
        """The second reading (``gcv.agents.second_reading``) before a round is shown as ready:
        the designer's words alone, read afresh, against this candidate; recorded on the round.
        A miss is never evidence_ready: a chosen trade-off that misses goes back to the choice
        among the other options of that round that the second reading passes; otherwise the loop
        stops for a person (``second_reading_miss``, blocked). Workflows authorized before it
        existed are not read again (their replays stay as they were)."""
        if state.authorization is None or not state.authorization.second_reading:
            return False
        words = [a.text for a in state.answers]
        rnd.second_reading = second_reading(state.request, words, baseline, candidate, evaluation.targets)
        if rnd.second_reading.verdict != "misses":
            return False
        self._trace(d, state, f"{head} | accept | {rnd.second_reading.headline()}")
        chose = state.round_no(rnd.round - 1)
        left = [t for t in ((chose.tradeoffs or []) if chose is not None and chose.choice is not None else [])
                if t.number != chose.choice.number  # type: ignore[union-attr]
                and second_reading(state.request, words, baseline, self._config(d, t.candidate_hash),
                                   Evaluation.model_validate(d.get(t.evaluation_hash)).targets).verdict == "holds"]
        if left:
            rnd.tradeoffs = [t.model_copy(update={"number": i}) for i, t in enumerate(left, start=1)]
            self._trace(d, state, f"[round {rnd.round}] the chosen trade-off does not do what was asked; awaiting the "
                        f"designer's choice again: {len(left)} trade-off(s) that do: "
                        + "; ".join(f"{t.number}. {t.title}" for t in rnd.tradeoffs))
            self._transition(d, state, Status.AWAITING_CHOICE,
                             data=TransitionData(round=rnd.round, tradeoffs=rnd.tradeoffs))
            return True
        self._stop(d, state, Stop(Reason.SECOND_READING_MISS,
                                  "the result does not do what was asked: "
                                  + "; ".join(f"{i.asked} (expected {i.expected}, found {i.found})"
                                              for i in rnd.second_reading.misses)))
        return True

    def _offer_choice(self, d: WorkflowDir, state: WorkflowState, rnd: Round, head: str, intent_text: str,
                      baseline: BulletHellConfig, candidate: BulletHellConfig, goal: Goal | None,
                      evaluation: Evaluation) -> None:
        """No repair inside the authorized scope: compute the trade-offs in the reference
        simulator and wait for the designer (``awaiting_choice``), or stop for a person when no
        option passes there either."""
        assert rnd.allowed is not None and state.baseline_run is not None and state.baseline_run.telemetry_hash is not None
        scope = self._scope(state)
        assert scope is not None
        settings = state.settings
        n = rnd.round
        baseline_telemetry = d.get(state.baseline_run.telemetry_hash)
        self.on_progress(f"trade-offs for round {n} (reference simulator)")

        def simulate(config: BulletHellConfig) -> dict[str, Any]:
            return self.activities.reference(run_request(config, settings=settings, run_id=f"{state.id}-trade",
                                                         capture_ticks=()))

        options = offer_tradeoffs(candidate=candidate, evaluation=evaluation, allowed=rnd.allowed, goal=goal,
                                  baseline=baseline, baseline_telemetry=baseline_telemetry, scope=scope,
                                  simulate=simulate, frame_times_measured=settings.engine != PYTHON_SIM,
                                  requested=self._requested(d, state))
        offered = [TradeOff(number=i, kind=o["kind"], title=o["title"], intent=o["intent"], phase_id=o["phase_id"],
                            widens=o["widens"], changes=o["changes"],
                            candidate_hash=d.put(o["candidate"].model_dump(mode="json")),
                            telemetry_hash=d.put(o["telemetry"]),
                            evaluation_hash=d.put(o["evaluation"].model_dump(mode="json")),
                            passes=bool(o["evaluation"].passed), predicted=option_figures(o),
                            targets=o.get("targets") or {})
                   for i, o in enumerate((o for o in options if o["evaluation"].passed), start=1)]
        self._trace(d, state, f"{head} | {intent_text} | outside the authorized scope")
        if not offered:
            return self._stop(d, state, Stop(Reason.HUMAN_REVIEW,
                                             "no repair inside the authorized scope, and no trade-off passes in the "
                                             "reference simulator; a person must decide"))
        rnd.tradeoffs = offered
        self._trace(d, state, f"[round {n}] awaiting the designer's choice: {len(offered)} trade-off(s): "
                    + "; ".join(f"{t.number}. {t.title}" for t in offered))
        self._transition(d, state, Status.AWAITING_CHOICE,
                         data=TransitionData(round=n, tradeoffs=offered))

    # ------------------------------------------------------------------ people
    def choose(self, wf_id: str, *, number: int, actor: str) -> WorkflowState:
        """The designer picks trade-off ``number`` of the current round: its candidate becomes
        the next round (it runs in the engine next); an option that moves something outside
        the authorized scope widens it, recorded with ``actor``."""
        d = self._dir(wf_id)
        with d.lock():
            d, state = self._load_for_writing(wf_id)
            if state.status != Status.AWAITING_CHOICE:
                raise IllegalTransition(state.status, Status.RUNNING_CANDIDATE)
            if not actor.strip():
                raise WorkflowError("a choice needs an actor name (--actor)")
            rnd = state.current
            options = rnd.tradeoffs or []
            option = next((t for t in options if t.number == number), None)
            if option is None:
                raise WorkflowError(f"no trade-off {number} in round {rnd.round}; offered: "
                                    + (", ".join(str(t.number) for t in options) or "none"))
            now = self.clock()
            # the widening lives with the choice (the authorization stays what was authorized)
            rnd.choice = Choice(number=number, actor=actor, at=now, widened=bool(option.widens))
            baseline = self._config(d, state.baseline_hash)
            new = self._config(d, option.candidate_hash)
            goal = self._goal(d, state)
            report = validate(baseline, new, goal)
            diff = [c.model_dump(mode="json") for c in diff_configs(baseline, new)]
            state.rounds.append(Round(round=rnd.round + 1, origin=f"choice:{number}:{option.kind}"
                                      + (f":{option.intent}" if option.intent else ""),
                                      candidate_hash=option.candidate_hash,
                                      validation_hash=d.put(report.model_dump(mode="json")), diff_hash=d.put(diff)))
            state.round = rnd.round + 1
            self._transition(d, state, Status.RUNNING_CANDIDATE, at=now,
                             data=TransitionData(round=rnd.round + 1, candidate_hash=option.candidate_hash,
                                                 choice=rnd.choice))
            return state

    def authorize(self, wf_id: str, *, actor: str, via: str = "gcv authorize",
                  budgets: Budgets | None = None, fairness_policy: FairnessPolicy | None = None,
                  repair_scope: RepairScope | None = None, second_reading_check: bool = True) -> WorkflowState:
        """Allow the engine runs (nothing runs before this), within ``budgets`` and under the
        fair-fight ``fairness_policy`` (the workflow's setting if not given; recorded either way).
        ``second_reading_check``: False only to replay an authorization recorded before it."""
        d = self._dir(wf_id)
        with d.lock():
            d, state = self._load_for_writing(wf_id)
            if state.status != Status.AWAITING_AUTHORIZATION:
                raise IllegalTransition(state.status, Status.AUTHORIZED)
            if not actor.strip():
                raise WorkflowError("authorization needs an actor name (--actor)")
            if budgets is not None:
                state.settings.budgets = budgets
            if fairness_policy is not None:
                state.settings.fairness_policy = fairness_policy
            now = self.clock()
            b = state.settings.budgets
            s = state.settings
            state.authorization = Authorization(
                actor=actor, at=now, via=via, engine=s.engine, budgets=b,
                repair_scope=repair_scope or default_scope(self._goal(d, state),
                                                           self._config(d, state.baseline_hash),
                                                           self._requested(d, state)),
                second_reading=second_reading_check,
                scope=Scope(baseline_runs=1, candidate_runs=b.max_candidate_runs,
                            prescreen_runs=b.max_prescreen_runs if self._prescreens(state) else 0,
                            engine=s.engine, player=s.player, seed=s.seed, fairness_policy=s.fairness_policy))
            state.deadline_at = now + b.deadline_seconds
            self._transition(d, state, Status.AUTHORIZED, at=now,
                             data=TransitionData(authorization=state.authorization))
            return state

    def answer(self, wf_id: str, *, text: str, actor: str) -> WorkflowState:
        """The designer answers the requirement agent's questions; the same request (with every
        answer so far) goes back to the requirement agent on the next ``advance``."""
        d = self._dir(wf_id)
        with d.lock():
            d, state = self._load_for_writing(wf_id)
            if state.status != Status.NEEDS_CLARIFICATION:
                raise WorkflowError(f"{wf_id} is {state.status}; only a workflow that needs clarification takes "
                                    "answers")
            if not text.strip():
                raise WorkflowError("the answer is empty; answer the questions in plain language")
            if not actor.strip():
                raise WorkflowError("an answer needs an actor name (--actor)")
            now = self.clock()
            answer = Answer(text=text, actor=actor, at=now)
            state.answers.append(answer)
            state.terminal_reason = None
            state.terminal_message = None
            self._transition(d, state, Status.PROPOSED, at=now, data=TransitionData(answer=answer))
            return state

    def decide(self, wf_id: str, *, decision: str, actor: str, note: str, promote: bool = False) -> WorkflowState:
        d = self._dir(wf_id)
        with d.lock():
            d, state = self._load_for_writing(wf_id)
            target = DECISION_TARGET.get(decision)
            if target is None:
                raise WorkflowError(f"unknown decision {decision!r}; use accept, revise or rollback")
            if not actor.strip():
                raise WorkflowError("a decision needs an actor name (--actor)")
            if state.human_decision:
                raise WorkflowError(f"workflow {wf_id} was already decided ({state.human_decision.decision}); "
                                    "a final decision cannot be overwritten")
            allowed = decisions_allowed(state.status)  # the one rule the report and the console offer
            if decision not in allowed:
                where = ", ".join(str(st) for st in Status if decision in decisions_allowed(st))
                raise WorkflowError(f"{decision} is not allowed: {wf_id} is {state.status}, which allows "
                                    f"{' or '.join(allowed) or 'no decision'}; {decision} is allowed from {where}")
            if promote and target != Status.ACCEPTED:
                raise WorkflowError("--promote only goes with accept")
            check_transition(state.status, target)
            now = self.clock()
            record = HumanDecision(decision=decision, actor=actor, note=note, at=now)  # type: ignore[arg-type]
            if promote:
                assert state.final_candidate_hash is not None
                cfg = d.get(state.final_candidate_hash)
                record.promoted_version = self.activities.promote(
                    self.ws, cfg, config_hash=config_hash(BulletHellConfig.model_validate(cfg)), created_at=now,
                    source=f"promoted from {wf_id}", workflow_id=wf_id, actor=actor, note=note)
            state.human_decision = record
            self._transition(d, state, target, at=now, data=TransitionData(decision=record))
            return state


Step = Callable[[WorkflowLoop, WorkflowDir, WorkflowState], None]

# The loop's steps: what ``advance`` does in each status it does not wait in. Each step records
# its work and moves the workflow on (to a later status, or to one it waits in).
STEPS: dict[Status, Step] = {
    Status.PROPOSED: WorkflowLoop._on_proposed,
    Status.AUTHORIZED: WorkflowLoop._on_authorized,
    Status.RUNNING_BASELINE: WorkflowLoop._on_running_baseline,
    Status.RUNNING_CANDIDATE: WorkflowLoop._on_running_candidate,
    Status.REVIEWING: WorkflowLoop._on_reviewing,
    Status.REPAIRING: WorkflowLoop._on_repairing,
}


def default_actor() -> str:
    """The invoking user's login name (recorded as the actor of ``--yes``)."""
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no login name in some containers
        return "unknown"


__all__ = ["WorkflowLoop", "STEPS", "default_actor", "WorkflowError", "IllegalTransition", "Settings", "Usage", "new_workflow_id",
           "failed_summary"]
