"""The verification loop as an explicit, persisted state machine.

``WorkflowEngine.advance`` performs one transition at a time. Each transition's work (an
engine run, an agent call) is an *activity*: its result is recorded before the transition
is written, and a resumed workflow reuses recorded activities instead of redoing them,
so a process killed at any point reaches the same final state and the same telemetry.
The engine never reads the clock or the network itself: the clock is injected, engine
runs go through a runner, model calls through a provider.
"""

from __future__ import annotations

import getpass
import hashlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from gcv.agents.errors import AgentError, CallBudget
from gcv.contract.canonical import config_hash
from gcv.contract.goal import Goal
from gcv.contract.models import BulletHellConfig
from gcv.workflow import guardrails
from gcv.workflow.guardrails import Budgets, Stop
from gcv.workflow.states import FINAL, LOOP_END, WAITING, IllegalTransition, check_transition
from gcv.workflow.store import StoreError, WorkflowDir, Workspace

CAPTURE_TICKS = [600, 1200, 1800]  # 10, 20, 30 s: the report's before/after frames
WORKFLOW_ID = "gcv.workflow/1"


class WorkflowError(Exception):
    pass


@dataclass
class Settings:
    engine: str = "python-sim"
    provider: str = "offline"
    seed: int = 1
    player: dict[str, Any] = field(default_factory=lambda: {"kind": "scripted"})
    budgets: Budgets = field(default_factory=Budgets)
    population: dict[str, Any] | None = None  # gcv.evaluation.population.DEFAULT_POPULATION shape

    def as_dict(self) -> dict[str, Any]:
        return {"engine": self.engine, "provider": self.provider, "seed": self.seed,
                "player": self.player, "budgets": self.budgets.model_dump(), "population": self.population}


def new_workflow_id(request: str, now: float) -> str:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(now))
    digest = hashlib.sha256(f"{request}\0{now!r}".encode()).hexdigest()[:6]
    return f"wf-{stamp}-{digest}"


def _agent_failure(exc: AgentError) -> dict[str, Any]:
    return {"error": {"kind": exc.kind, "status": exc.status, "message": str(exc)},
            "calls": [c.model_dump(mode="json") for c in exc.calls]}


def _failure_stop(error: dict[str, Any]) -> Stop:
    return Stop(error["kind"], error["status"], error["message"])


def _failed_summary(evaluation: dict[str, Any]) -> str:
    parts = []
    for check in evaluation.get("checks", []) + evaluation.get("intent_checks", []):
        if not check["passed"]:
            sign = {"<=": ">", ">=": "<", "==": "!="}.get(check.get("op", ""), "vs")
            parts.append(f"{check['name']} {check['actual']}{sign}{check['expected']} FAIL")
    return ", ".join(parts) if parts else "all checks PASS"


class WorkflowEngine:
    def __init__(self, workspace: Workspace, *, clock: Callable[[], float] = time.time,
                 on_trace: Callable[[str], None] | None = None,
                 on_progress: Callable[[str], None] | None = None) -> None:
        self.ws = workspace
        self.clock = clock
        self.on_trace = on_trace or (lambda line: None)
        self.on_progress = on_progress or (lambda text: None)

    # ------------------------------------------------------------------ creation
    def create(self, request: str, baseline: BulletHellConfig, settings: Settings, *,
               baseline_source: str) -> str:
        now = self.clock()
        wf_id = new_workflow_id(request, now)
        d = self.ws.workflow_dir(wf_id)
        if d.root.exists():
            raise WorkflowError(f"workflow {wf_id} already exists")
        d.root.mkdir(parents=True)
        baseline_hash = d.put(baseline.model_dump(mode="json"))
        state = {
            "workflow": WORKFLOW_ID, "id": wf_id, "status": "proposed", "terminal_reason": None,
            "terminal_message": None, "request": request, "settings": settings.as_dict(),
            "baseline_hash": baseline_hash, "baseline_source": baseline_source, "created_at": now,
            "authorization": None, "deadline_at": None, "requirement": None, "goal_hash": None,
            "baseline_run": None, "rounds": [], "round": 0,
            "usage": {"candidate_runs": 0, "baseline_runs": 0, "model_calls": 0, "tokens": 0},
            "agent_calls": [], "trace": [], "final_candidate_hash": None, "best_round": None,
            "human_decision": None,
        }
        self.ws.register(wf_id, created_at=now, request=request, engine=settings.engine,
                         provider=settings.provider, baseline_hash=baseline_hash, status="proposed")
        event = d.append_event({"type": "created", "at": now, "to": "proposed",
                                "data": {"request": request, "settings": state["settings"],
                                         "baseline_hash": baseline_hash}})
        state["event_seq"] = event["seq"]
        d.write_state(state)
        return wf_id

    # ------------------------------------------------------------------ helpers
    def load(self, wf_id: str) -> tuple[WorkflowDir, dict[str, Any]]:
        if not self.ws.exists(wf_id):
            raise WorkflowError(f"no workflow {wf_id!r} in {self.ws.root}; see `gcv list`")
        d = self.ws.workflow_dir(wf_id)
        try:
            state = d.read_state()
        except StoreError as exc:
            raise WorkflowError(str(exc)) from None
        # Events after the last committed state belong to a step that was interrupted
        # before its state write; that step is redone (from recorded activities) on resume.
        d.truncate_events(state.get("event_seq", -1) + 1)
        return d, state

    def _transition(self, d: WorkflowDir, state: dict[str, Any], target: str, *,
                    data: dict[str, Any] | None = None, reason: Stop | None = None) -> None:
        check_transition(state["status"], target)
        now = self.clock()
        source = state["status"]
        state["status"] = target
        if reason is not None:
            state["terminal_reason"] = reason.rule
            state["terminal_message"] = reason.message
        event = {"type": "transition", "at": now, "from": source, "to": target, "data": data or {}}
        if reason is not None:
            event["data"] = {**event["data"], "terminal_reason": reason.rule, "message": reason.message}
        state["event_seq"] = d.append_event(event)["seq"]
        d.write_state(state)
        self.ws.update_status(state["id"], target, now)

    def _trace(self, d: WorkflowDir, state: dict[str, Any], line: str) -> None:
        state["trace"].append(line)
        d.append_event({"type": "trace", "at": self.clock(), "data": {"line": line}})
        self.on_trace(line)

    def _stop(self, d: WorkflowDir, state: dict[str, Any], stop: Stop) -> None:
        if stop.status == "budget_exhausted" or stop.rule in ("stagnation", "spin"):
            self._choose_best(state)
        self._trace(d, state, f"[round {state['round']}] stop: {stop.rule} | {stop.message}")
        self._transition(d, state, stop.status, reason=stop)

    @staticmethod
    def _choose_best(state: dict[str, Any]) -> None:
        """The best verified candidate so far: lowest miss score, earliest on ties."""
        evaluated = [r for r in state["rounds"] if r.get("evaluation_hash")]
        if evaluated:
            best = min(evaluated, key=lambda r: (r["miss_score"], r["round"]))
            state["best_round"] = best["round"]
            state["final_candidate_hash"] = best["candidate_hash"]

    @staticmethod
    def _with_budget(provider: Any, state: dict[str, Any]) -> Any:
        """Tell the provider what is left, so its own retries stay inside the budgets."""
        budgets = Budgets.model_validate(state["settings"]["budgets"])
        try:
            provider.budget = CallBudget(remaining_calls=budgets.max_model_calls - state["usage"]["model_calls"],
                                         remaining_tokens=budgets.max_tokens - state["usage"]["tokens"])
        except AttributeError:  # a provider without a budget slot makes exactly one call
            pass
        if hasattr(provider, "max_agent_retries"):
            provider.max_agent_retries = budgets.max_agent_retries
        return provider

    def _count_calls(self, d: WorkflowDir, state: dict[str, Any], calls: list[dict[str, Any]]) -> None:
        for call in calls:
            state["agent_calls"].append(d.put(call))
            state["usage"]["model_calls"] += 1
            usage = call.get("usage") or {}
            state["usage"]["tokens"] += sum(int(usage.get(k, 0)) for k in (
                "input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))

    def _activity(self, d: WorkflowDir, key: str, work: Callable[[], Any]) -> Any:
        recorded = d.activities()
        if key in recorded:
            return recorded[key]
        result = work()
        d.record_activity(key, result)
        return result

    def _config(self, d: WorkflowDir, digest: str) -> BulletHellConfig:
        return BulletHellConfig.model_validate(d.get(digest))

    def _goal(self, d: WorkflowDir, state: dict[str, Any]) -> Goal | None:
        return Goal.model_validate(d.get(state["goal_hash"])) if state.get("goal_hash") else None

    # ------------------------------------------------------------------ the loop
    def advance(self, wf_id: str, *, until_wait: bool = True) -> dict[str, Any]:
        d, state = self.load(wf_id)
        while True:
            status = state["status"]
            if status in WAITING or status in FINAL:
                return state
            handler = getattr(self, f"_on_{status}")
            handler(d, state)
            if not until_wait:
                return state

    def _guard_agent_call(self, state: dict[str, Any], estimate: int) -> Stop | None:
        budgets = Budgets.model_validate(state["settings"]["budgets"])
        return (guardrails.deadline(self.clock(), state["deadline_at"])
                or guardrails.model_call_budget(state["usage"], budgets)
                or guardrails.token_budget(state["usage"], budgets, estimate))

    def _after_call(self, state: dict[str, Any]) -> Stop | None:
        budgets = Budgets.model_validate(state["settings"]["budgets"])
        return guardrails.token_budget(state["usage"], budgets)

    def _on_proposed(self, d: WorkflowDir, state: dict[str, Any]) -> None:
        from gcv.agents.requirement import RequirementAgent, get_requirement_provider
        from gcv.validation.diff import diff_configs

        baseline = self._config(d, state["baseline_hash"])
        budgets = Budgets.model_validate(state["settings"]["budgets"])
        stop = guardrails.model_call_budget(state["usage"], budgets)
        if stop:
            return self._stop(d, state, stop)
        self.on_progress("requirement agent")

        def work() -> dict[str, Any]:
            provider = self._with_budget(get_requirement_provider(state["settings"]["provider"]), state)
            try:
                decision, calls = RequirementAgent(provider).propose(state["request"], baseline)
            except AgentError as exc:
                return _agent_failure(exc)
            return {"decision": decision.model_dump(mode="json"),
                    "calls": [c.model_dump(mode="json") for c in calls]}

        result = self._activity(d, "requirement", work)
        self._count_calls(d, state, result["calls"])
        if result.get("error"):
            return self._stop(d, state, _failure_stop(result["error"]))
        decision = result["decision"]
        state["requirement"] = {"decision": decision["decision"], "hash": d.put(decision),
                                "questions": decision.get("questions", []), "issues": decision.get("issues", [])}
        stop = self._after_call(state)
        if stop:
            return self._stop(d, state, stop)
        kind = decision["decision"]
        if kind != "accepted":
            target = kind if kind in ("needs_clarification", "out_of_scope", "no_change") else "blocked"
            reason = Stop(f"requirement_{kind}", target, decision.get("rationale") or kind)
            self._trace(d, state, f"[round 0] proposed -> {target} | requirement {kind}")
            self._transition(d, state, target, reason=reason)
            return
        from gcv.validation.validate import validate

        candidate = BulletHellConfig.model_validate(decision["candidate"])
        goal = Goal.model_validate(decision["goal"])
        state["goal_hash"] = d.put(goal.model_dump(mode="json"))
        report = validate(baseline, candidate, goal)
        diff = [c.model_dump(mode="json") if hasattr(c, "model_dump") else c for c in diff_configs(baseline, candidate)]
        state["rounds"] = [{
            "round": 1, "candidate_hash": d.put(candidate.model_dump(mode="json")),
            "validation_hash": d.put(report.model_dump(mode="json")), "diff_hash": d.put(diff),
            "origin": "requirement",
        }]
        self._trace(d, state, f"[round 0] proposed -> awaiting_authorization | {len(diff)} field(s) changed, "
                              f"validation {'PASS' if report.ok else 'FAIL'}")
        self._transition(d, state, "awaiting_authorization",
                         data={"candidate_hash": state["rounds"][0]["candidate_hash"]})

    # --- authorization (called from the CLI, not by the loop) -------------------------
    def authorize(self, wf_id: str, *, actor: str, via: str = "gcv authorize",
                  budgets: Budgets | None = None) -> dict[str, Any]:
        d, state = self.load(wf_id)
        if state["status"] != "awaiting_authorization":
            raise IllegalTransition(state["status"], "authorized")
        if not actor.strip():
            raise WorkflowError("authorization needs an actor name (--actor)")
        if budgets is not None:
            state["settings"]["budgets"] = budgets.model_dump()
        now = self.clock()
        b = Budgets.model_validate(state["settings"]["budgets"])
        state["authorization"] = {
            "actor": actor, "at": now, "via": via, "engine": state["settings"]["engine"],
            "scope": {"baseline_runs": 1, "candidate_runs": b.max_candidate_runs,
                      "engine": state["settings"]["engine"], "player": state["settings"]["player"],
                      "seed": state["settings"]["seed"]},
            "budgets": b.model_dump(),
        }
        state["deadline_at"] = now + b.deadline_seconds
        self._transition(d, state, "authorized", data={"authorization": state["authorization"]})
        return state

    def _on_authorized(self, d: WorkflowDir, state: dict[str, Any]) -> None:
        self._transition(d, state, "running_baseline")

    def _run(self, d: WorkflowDir, state: dict[str, Any], key: str, run_id: str,
             config: BulletHellConfig) -> dict[str, Any]:
        from engine_runners.registry import get_runner
        from engine_runners.requests import build_request

        settings = state["settings"]

        def work() -> dict[str, Any]:
            runner = get_runner(settings["engine"])
            request = build_request(config, seed=settings["seed"], player=settings["player"],
                                    output_dir=d.runs / run_id, run_id=run_id, capture_ticks=CAPTURE_TICKS)
            result = runner.run(request)
            record = {"run_id": run_id, "engine": result.engine, "ok": result.ok, "error": result.error,
                      "error_kind": result.error_kind, "exit_code": result.exit_code,
                      "duration_ms": result.duration_ms, "request_hash": d.put(request.model_dump(mode="json")),
                      "frames": [str(Path(f).relative_to(d.root)) for f in result.frames],
                      "telemetry_hash": d.put(result.telemetry) if result.ok and result.telemetry else None}
            return record

        return self._activity(d, key, work)

    def _on_running_baseline(self, d: WorkflowDir, state: dict[str, Any]) -> None:
        stop = guardrails.deadline(self.clock(), state["deadline_at"])
        if stop:
            return self._stop(d, state, stop)
        self.on_progress("baseline run")
        record = self._run(d, state, "run:baseline", f"{state['id']}-baseline",
                           self._config(d, state["baseline_hash"]))
        state["usage"]["baseline_runs"] += 1
        state["baseline_run"] = record
        if not record["ok"]:
            return self._stop(d, state, Stop("engine_failed", "failed",
                                             f"baseline run failed: {record['error']}"))
        if state["settings"].get("population"):
            state["baseline_population"] = self._population(d, state, "population:baseline",
                                                            self._config(d, state["baseline_hash"]))
        state["round"] = 1
        self._transition(d, state, "running_candidate", data={"baseline_telemetry": record["telemetry_hash"]})

    def _population(self, d: WorkflowDir, state: dict[str, Any], key: str, config: BulletHellConfig) -> dict[str, Any]:
        """Seeded bot population of one config (a recorded activity, like an engine run)."""
        from gcv.batch.population import evaluate_population, run_population

        spec = state["settings"]["population"]
        self.on_progress(f"{key} ({spec['seeds']} seeds x {len(spec['skills'])} skill(s))")

        def work() -> dict[str, Any]:
            summary = run_population(config, skills=spec["skills"], seeds=spec["seeds"],
                                     engine=state["settings"]["engine"])
            targets = [dict(t, basis=spec.get("basis", "point")) for t in spec["targets"]]
            return {"summary_hash": d.put(summary.model_dump(mode="json")),
                    "checks": evaluate_population(summary, targets)}

        result = self._activity(d, key, work)
        state["usage"]["population_runs"] = state["usage"].get("population_runs", 0) + spec["seeds"] * len(spec["skills"])
        return result

    def _on_running_candidate(self, d: WorkflowDir, state: dict[str, Any]) -> None:
        from gcv.evaluation.evaluate import evaluate

        budgets = Budgets.model_validate(state["settings"]["budgets"])
        stop = (guardrails.deadline(self.clock(), state["deadline_at"])
                or guardrails.engine_run_budget(state["usage"], budgets))
        if stop:
            return self._stop(d, state, stop)
        rnd = state["rounds"][-1]
        n = rnd["round"]
        self.on_progress(f"candidate run {n}")
        record = self._run(d, state, f"run:candidate:{n}", f"{state['id']}-c{n}",
                           self._config(d, rnd["candidate_hash"]))
        state["usage"]["candidate_runs"] += 1
        rnd["run"] = record
        if not record["ok"]:
            return self._stop(d, state, Stop("engine_failed", "failed",
                                             f"candidate run {n} failed: {record['error']}"))
        evaluation = evaluate(baseline=self._config(d, state["baseline_hash"]), goal=self._goal(d, state),
                              baseline_telemetry=d.get(state["baseline_run"]["telemetry_hash"]),
                              candidate=self._config(d, rnd["candidate_hash"]),
                              candidate_telemetry=d.get(record["telemetry_hash"]))
        if state["settings"].get("population"):
            from gcv.evaluation.population import with_population

            pop = self._population(d, state, f"population:candidate:{n}", self._config(d, rnd["candidate_hash"]))
            rnd["population"] = pop
            evaluation = with_population(evaluation, pop["checks"], self._goal(d, state))
        ev = evaluation.model_dump(mode="json")
        rnd["evaluation_hash"] = d.put(ev)
        rnd["miss_score"] = float(evaluation.miss_score)
        rnd["passed"] = bool(evaluation.passed)
        rnd["fingerprint"] = evaluation.fingerprint()
        self._transition(d, state, "reviewing", data={"round": n, "evaluation_hash": rnd["evaluation_hash"],
                                                      "passed": rnd["passed"]})

    def _round_context(self, d: WorkflowDir, state: dict[str, Any]) -> tuple[Any, ...]:
        """The current round and what its review or repair works on, read back from artifacts."""
        from gcv.evaluation.models import Evaluation

        rnd = state["rounds"][-1]
        return (rnd, self._config(d, state["baseline_hash"]), self._config(d, rnd["candidate_hash"]),
                self._goal(d, state), Evaluation.model_validate(d.get(rnd["evaluation_hash"])))

    def _on_reviewing(self, d: WorkflowDir, state: dict[str, Any]) -> None:
        from gcv.agents.review import ReviewAgent, ReviewEvidence, get_review_provider
        from gcv.repair.policy import allowed_intents, gate

        rnd, baseline, candidate, goal, evaluation = self._round_context(d, state)
        n = rnd["round"]
        allowed = allowed_intents(evaluation=evaluation, goal=goal, candidate=candidate, baseline=baseline)
        rnd["allowed"] = allowed.model_dump(mode="json")
        evidence = ReviewEvidence.build(
            request_text=state["request"], goal=goal, baseline=baseline, candidate=candidate,
            evaluation=evaluation, baseline_telemetry=d.get(state["baseline_run"]["telemetry_hash"]),
            candidate_telemetry=d.get(rnd["run"]["telemetry_hash"]), allowed=allowed,
            repair_history=[{"round": r["round"], "intent": (r.get("gate") or {}).get("intent"),
                             "phase_id": (r.get("gate") or {}).get("phase_id"), "miss_score": r["miss_score"],
                             "passed": r["passed"]} for r in state["rounds"][:-1] if "miss_score" in r],
            round=n)
        budgets = Budgets.model_validate(state["settings"]["budgets"])
        stop = self._guard_agent_call(state, estimate=len(evidence.model_dump_json()) // 3)
        if stop:
            return self._stop(d, state, stop)
        self.on_progress(f"quality review {n}")

        def work() -> dict[str, Any]:
            provider = self._with_budget(get_review_provider(state["settings"]["provider"]), state)
            try:
                verdict, calls = ReviewAgent(provider).review(evidence)
            except AgentError as exc:
                return _agent_failure(exc)
            return {"verdict": verdict.model_dump(mode="json"), "calls": [c.model_dump(mode="json") for c in calls]}

        result = self._activity(d, f"review:{n}", work)
        self._count_calls(d, state, result["calls"])
        if result.get("error"):
            self._choose_best(state)
            return self._stop(d, state, _failure_stop(result["error"]))
        from gcv.agents.base import ReviewVerdict

        verdict = ReviewVerdict.model_validate(result["verdict"])
        gate_result = gate(verdict, allowed)
        rnd["verdict"] = result["verdict"]
        rnd["gate"] = gate_result.model_dump(mode="json")
        summary = _failed_summary(d.get(rnd["evaluation_hash"]))
        stop = self._after_call(state)
        if stop:
            self._trace(d, state, f"[round {n}] running_candidate -> reviewing | {summary} | verdict {verdict.verdict}")
            return self._stop(d, state, stop)
        outcome = gate_result.outcome
        intent_text = f"intent {gate_result.intent}" if gate_result.intent else f"verdict {verdict.verdict}"
        if outcome == "accept":
            state["final_candidate_hash"] = rnd["candidate_hash"]
            state["best_round"] = n
            self._trace(d, state, f"[round {n}] running_candidate -> reviewing | {summary} | accept")
            self._transition(d, state, "evidence_ready", reason=Stop("accepted_by_review", "evidence_ready",
                                                                     gate_result.reason or "all checks pass"))
            return
        if outcome in ("human_review", "stop"):
            self._trace(d, state, f"[round {n}] running_candidate -> reviewing | {summary} | {intent_text}")
            rule = "human_review" if outcome == "human_review" else "review_stop"
            if not allowed.intents or all(i in ("REQUEST_HUMAN", "STOP") for i in allowed.intents):
                rule = "intent_unrepairable" if not evaluation.passed else rule
            return self._stop(d, state, Stop(rule, "blocked", gate_result.reason or "a person must decide"))
        intent = gate_result.intent or ""
        history = [(r["gate"]["intent"], r["fingerprint"]) for r in state["rounds"][:-1]
                   if r.get("gate") and r["gate"].get("intent")]
        scores = [r["miss_score"] for r in state["rounds"] if "miss_score" in r]
        stop = (guardrails.spin(history, intent, rnd["fingerprint"])
                or guardrails.stagnation(scores, budgets)
                or guardrails.engine_run_budget(state["usage"], budgets)
                or guardrails.deadline(self.clock(), state["deadline_at"]))
        self._trace(d, state, f"[round {n}] running_candidate -> reviewing | {summary} | {intent_text}")
        if stop:
            return self._stop(d, state, stop)
        self._transition(d, state, "repairing", data={"round": n, "intent": intent, "phase_id": gate_result.phase_id})

    def _on_repairing(self, d: WorkflowDir, state: dict[str, Any]) -> None:
        from gcv.repair.calculators import apply_repair
        from gcv.validation.diff import diff_configs
        from gcv.validation.validate import validate

        rnd, baseline, candidate, goal, evaluation = self._round_context(d, state)
        n = rnd["round"]
        outcome = apply_repair(candidate=candidate, intent=rnd["gate"]["intent"], phase_id=rnd["gate"]["phase_id"],
                               evaluation=evaluation, goal=goal, baseline=baseline)
        rnd["repair"] = {"ok": outcome.ok, "explanation": outcome.explanation, "error": outcome.error,
                         "changes": [c if isinstance(c, dict) else c.model_dump(mode="json") for c in outcome.changes]}
        if not outcome.ok or outcome.candidate is None:
            return self._stop(d, state, Stop("intent_unrepairable", "blocked",
                                             outcome.error or "no repair keeps the designer's intent"))
        new = outcome.candidate
        report = validate(baseline, new, goal)
        if not report.ok:
            return self._stop(d, state, Stop("repair_invalid", "blocked",
                                             "the repaired candidate failed validation; a person must look"))
        diff = [c.model_dump(mode="json") if hasattr(c, "model_dump") else c for c in diff_configs(baseline, new)]
        state["rounds"].append({"round": n + 1, "candidate_hash": d.put(new.model_dump(mode="json")),
                                "validation_hash": d.put(report.model_dump(mode="json")),
                                "diff_hash": d.put(diff), "origin": f"repair:{rnd['gate']['intent']}"})
        state["round"] = n + 1
        self._transition(d, state, "running_candidate",
                         data={"round": n + 1, "candidate_hash": state["rounds"][-1]["candidate_hash"],
                               "intent": rnd["gate"]["intent"]})

    # ------------------------------------------------------------------ human decision
    def decide(self, wf_id: str, *, decision: str, actor: str, note: str, promote: bool = False) -> dict[str, Any]:
        d, state = self.load(wf_id)
        target = {"accept": "accepted", "revise": "revision_requested", "rollback": "rolled_back"}.get(decision)
        if target is None:
            raise WorkflowError(f"unknown decision {decision!r}; use accept, revise or rollback")
        if not actor.strip():
            raise WorkflowError("a decision needs an actor name (--actor)")
        if state.get("human_decision"):
            raise WorkflowError(f"workflow {wf_id} was already decided ({state['human_decision']['decision']}); "
                                "a final decision cannot be overwritten")
        if target == "accepted" and state["status"] != "evidence_ready":
            raise WorkflowError(f"accept is only allowed from evidence_ready; {wf_id} is {state['status']}")
        if promote and target != "accepted":
            raise WorkflowError("--promote only goes with accept")
        check_transition(state["status"], target)
        now = self.clock()
        record = {"decision": decision, "actor": actor, "note": note, "at": now, "promoted_version": None}
        if promote:
            cfg = d.get(state["final_candidate_hash"])
            record["promoted_version"] = self.ws.add_baseline(
                cfg, config_hash=config_hash(BulletHellConfig.model_validate(cfg)), created_at=now,
                source=f"promoted from {wf_id}", workflow_id=wf_id, actor=actor, note=note)
        state["human_decision"] = record
        self._transition(d, state, target, data={"decision": record})
        return state


def default_actor() -> str:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no login name in some containers
        return "unknown"


__all__ = ["WorkflowEngine", "Settings", "WorkflowError", "IllegalTransition", "default_actor", "LOOP_END"]
