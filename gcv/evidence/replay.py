"""Replay: re-derive everything deterministic in a bundle from its recorded inputs.

The loop's only non-deterministic inputs are the agents' raw outputs and (for Unity and
UE5) measured frame times. Everything else follows from them and must come out the same:

replay.requirement  the requirement decision re-parsed from the raw model output and put
                    through the Requirement Agent's checks gives the recorded decision, goal
                    and first candidate
replay.runs         every python-sim run re-simulated from its run request matches its
                    telemetry bit for bit: gameplay figures (``gameplay_view``), the modeled
                    frame-time figures, and the PNG frames (when Pillow is the version that
                    rendered them)
replay.engine_runs  runs by another engine (telemetry engine.name not python-sim) are
                    re-simulated in Python; their gameplay figures must match exactly, their
                    frame-time figures are reported as not replayable (measured, not modeled)
replay.populations  every bot population (seeded bots per skill) re-run with python-sim gives
                    the recorded summary (engine-run populations: their gameplay summary)
replay.evaluations  each evaluation recomputed from the recorded configs, goal and telemetry
                    (and the recorded population checks, joined the way the loop joins them)
replay.reviews      allowed intents recomputed from the evidence, the verdict re-parsed from
                    the raw model output, and the policy gate's decision re-derived from both
replay.repairs      each repair recomputed by its calculator gives the recorded changes and
                    the next round's candidate
replay.final_status the workflow's final status, terminal reason and final candidate follow
                    from the rounds (and, for guardrail stops, the guardrail's condition holds)
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

from gcv.contract.canonical import content_hash
from gcv.evidence.collect import Evidence, run_label
from gcv.evidence.verify import CheckResult, Outcome, Skip, first_difference, run_check

REPLAY_CHECKS = ("replay.requirement", "replay.runs", "replay.engine_runs", "replay.populations",
                 "replay.evaluations", "replay.reviews", "replay.repairs", "replay.final_status", "replay.report")
PYTHON_SIM = "python-sim"
MODELED_FRAME_FIELDS = ("fps_source", "average_fps", "low_fps", "worst_frame_ms", "frame_model")
GUARD_STATUS = {"engine_run_budget": "budget_exhausted", "model_call_budget": "budget_exhausted",
                "token_budget": "budget_exhausted", "deadline": "budget_exhausted",
                "stagnation": "blocked", "spin": "blocked"}
HUMAN = {"accept": "accepted", "revise": "revision_requested", "rollback": "rolled_back"}


def parse_json_output(raw: str) -> Any:
    """The JSON object in a model's raw output (bare, or inside a ```json fence / prose)."""
    text = raw.strip()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    fence = re.search(r"```(?:json)?\s*(\{.*\})\s*```", text, re.S)
    if fence:
        return json.loads(fence.group(1))
    start, end = text.find("{"), text.rfind("}")
    if start >= 0 and end > start:
        return json.loads(text[start:end + 1])
    raise ValueError("no JSON object in the raw output")


def decode_call(agent: str, call: dict[str, Any]) -> Any:
    """The decision / verdict in a recorded call's raw output, parsed as its provider parsed it.

    ``offline`` and ``anthropic`` outputs go through the agents' own decoder
    (``gcv.agents.replay_provider.decode_recorded_output``: an Anthropic output is the
    response's content blocks, the answer is the tool call's input); any other provider's
    output is read as the answer's JSON, bare or fenced.
    """
    from gcv.agents.base import RequirementDecision, ReviewVerdict

    if call.get("provider") in ("offline", "anthropic"):
        try:
            from gcv.agents.replay_provider import decode_recorded_output
        except ImportError:  # pragma: no cover - an older tree without the replay provider
            pass
        else:
            return decode_recorded_output(agent, call["provider"], call["raw_output"])
    model = RequirementDecision if agent == "requirement" else ReviewVerdict
    return model.model_validate(parse_json_output(call["raw_output"]))


def _last_good_call(record: dict[str, Any] | None) -> dict[str, Any] | None:
    calls = [c for c in (record or {}).get("calls", []) if not c.get("error_type") and c.get("raw_output")]
    return calls[-1] if calls else None


class _Replay:
    def __init__(self, ev: Evidence, manifest: dict[str, Any] | None) -> None:
        from gcv.contract.goal import Goal
        from gcv.contract.models import BulletHellConfig

        self.ev = ev
        self.state = ev.state
        self.manifest = manifest or {}
        self.baseline = BulletHellConfig.model_validate(ev.baseline_config())
        self.goal = Goal.model_validate(ev.goal()) if ev.goal() is not None else None
        self.rounds = self.state.get("rounds", [])

    def config(self, n: int) -> Any:
        from gcv.contract.models import BulletHellConfig

        entry = next(e for e in self.ev.rounds() if e["round"] == n)
        return BulletHellConfig.model_validate(self.ev.json(entry["config"]))

    # ------------------------------------------------------------------ requirement
    def requirement(self) -> Outcome:
        from gcv.agents.requirement import RequirementAgent

        record = self.ev.json((self.ev.index.get("requirement") or {}).get("agent"))
        if record is None:
            raise Skip("no requirement agent run in this bundle")
        if record.get("error"):
            failure = record["error"]
            return (f"the requirement agent's recorded outcome is a failure ({failure['kind']}): there is no "
                    f"decision to re-derive", [])
        call = _last_good_call(record)
        if call is None:
            return "", ["the requirement agent has no successful call whose raw output could be replayed"]
        decision = decode_call("requirement", call)

        class Recorded:
            name = "recorded"

            def propose(self, text: str, baseline: Any) -> Any:
                return decision, []

        again = RequirementAgent(Recorded()).propose(self.state["request"], self.baseline)[0].model_dump(mode="json")
        problems = []
        diff = first_difference(record["decision"], again)
        if diff:
            problems.append(f"the requirement decision re-derived from the raw output differs: {diff}")
        if again["decision"] == "accepted" and self.rounds:
            if content_hash(again["candidate"]) != self.rounds[0]["candidate_hash"]:
                problems.append("the re-derived candidate is not round 1's candidate")
            if content_hash(again["goal"]) != self.state.get("goal_hash"):
                problems.append("the re-derived goal is not goal.json")
        return (f"decision '{again['decision']}' re-derived from {call['provider']}/{call['model']} raw output",
                problems)

    # ------------------------------------------------------------------ runs
    def _runs(self) -> list[tuple[int | None, dict[str, Any], dict[str, Any]]]:
        out = []
        for n in [None, *[r["round"] for r in self.rounds]]:
            tel = self.ev.telemetry(n)
            entry = self.ev.run_entry(n)
            if tel and entry and entry.get("request"):
                out.append((n, entry, tel))
        return out

    def _simulate(self, entry: dict[str, Any], tmp: Path | None) -> tuple[dict[str, Any], list[str]]:
        from engine_runners.protocol import RunRequest
        from engine_runners.python_sim import execute

        request = RunRequest.model_validate(self.ev.json(entry["request"]))
        if tmp is not None:
            request = request.model_copy(update={"output_dir": str(tmp)})
        return execute(request, write_outputs=tmp is not None)

    def runs(self) -> Outcome:
        from gcv.evidence.manifest import tool_versions
        from gcv.sim.telemetry import gameplay_view

        runs = [r for r in self._runs() if r[2]["engine"]["name"] == PYTHON_SIM]
        if not runs:
            raise Skip("no python-sim run in this bundle")
        same_pillow = (self.manifest.get("predicate", {}).get("tool", {}).get("pillow") == tool_versions()["pillow"])
        problems: list[str] = []
        notes: list[str] = []
        frames_checked = 0
        for n, entry, recorded in runs:
            label = run_label(n)
            with tempfile.TemporaryDirectory(prefix="gcv-replay-") as tmp:
                again, frame_paths = self._simulate(entry, Path(tmp))
                replayed_frames = {Path(p).name: Path(p).read_bytes() for p in frame_paths}
            diff = first_difference(gameplay_view(recorded), gameplay_view(again))
            if diff:
                problems.append(f"{label}: re-simulated telemetry differs at {diff}")
                continue
            diff = first_difference({k: recorded.get(k) for k in MODELED_FRAME_FIELDS},
                                    {k: again.get(k) for k in MODELED_FRAME_FIELDS})
            if diff:
                problems.append(f"{label}: modeled frame-time figures differ at {diff}")
            bundled = {Path(f).name: self.ev.files[f] for f in entry.get("frames", [])}
            if sorted(bundled) != sorted(replayed_frames):
                problems.append(f"{label}: frames {sorted(bundled)} but the replay captures {sorted(replayed_frames)}")
                continue
            for name, data in sorted(bundled.items()):
                if data != replayed_frames[name]:
                    if same_pillow:
                        problems.append(f"{label}: frame {name} differs from the re-rendered frame")
                    else:
                        notes.append(f"{label} {name}")
                else:
                    frames_checked += 1
        extra = (f"; {len(notes)} frame(s) not compared byte for byte (rendered by another Pillow version)"
                 if notes else "")
        return (f"{len(runs)} python-sim run(s) re-simulated: gameplay and modeled frame times bit for bit, "
                f"{frames_checked} frame(s) identical{extra}", problems)

    def engine_runs(self) -> Outcome:
        from gcv.sim.telemetry import NON_GAMEPLAY_FIELDS, gameplay_view

        runs = [r for r in self._runs() if r[2]["engine"]["name"] != PYTHON_SIM]
        if not runs:
            raise Skip("no Unity / UE5 / other engine run in this bundle")
        problems = []
        engines = sorted({f"{r[2]['engine']['name']} {r[2]['engine'].get('version', '')}".strip() for r in runs})
        for n, entry, recorded in runs:
            again, _ = self._simulate(entry, None)
            diff = first_difference(gameplay_view(recorded), gameplay_view(again))
            if diff:
                problems.append(f"{run_label(n)} ({recorded['engine']['name']}): the Python re-simulation of its "
                                f"gameplay differs at {diff}")
        not_replayable = sorted(k for k in NON_GAMEPLAY_FIELDS if k in ("average_fps", "low_fps", "worst_frame_ms",
                                                                        "fps_source", "hardware", "wall_time_ms"))
        return (f"{len(runs)} run(s) by {', '.join(engines)}: gameplay re-simulated in Python and identical; "
                f"not replayable (measured by the engine): {', '.join(not_replayable)}", problems)

    # ------------------------------------------------------------------ evaluation, review, repair
    def populations(self) -> Outcome:
        from gcv.batch.population import run_population

        spec = self.state["settings"].get("population")
        records = [(None, self.state.get("baseline_population"), self.ev.index["baseline"].get("population"))]
        records += [(r["round"], r.get("population"), next(e for e in self.ev.rounds() if e["round"] == r["round"])
                     .get("population")) for r in self.rounds]
        records = [r for r in records if r[1] and r[2]]
        if not records or not spec:
            raise Skip("no bot population in this workflow")
        problems = []
        runs = 0
        for n, record, name in records:
            recorded = self.ev.json(name)
            config = self.baseline if n is None else self.config(n)
            again = run_population(config, skills=spec["skills"], seeds=spec["seeds"],
                                   seed_start=recorded.get("seed_start", 0)).model_dump(mode="json")
            again["engine"] = recorded.get("engine")  # gameplay is engine-independent; the name is not
            runs += spec["seeds"] * len(spec["skills"])
            diff = first_difference(recorded, again)
            if diff:
                problems.append(f"the population of {run_label(n)} re-run with python-sim differs at {diff}")
        return f"{len(records)} population(s) re-run ({runs} seeded bot runs), summaries identical", problems

    def _evaluate(self, n: int) -> Any:
        """The round's evaluation, composed as the loop composes it (gcv.workflow.engine)."""
        from gcv.evaluation.evaluate import evaluate

        evaluation = evaluate(baseline=self.baseline, goal=self.goal, baseline_telemetry=self.ev.telemetry(None),
                              candidate=self.config(n), candidate_telemetry=self.ev.telemetry(n))
        pop = (self.ev.state_round(n) or {}).get("population")
        if self.state["settings"].get("population") and pop:
            from gcv.evaluation.population import with_population

            evaluation = with_population(evaluation, pop["checks"], self.goal)
        return evaluation

    def evaluations(self) -> Outcome:
        problems = []
        count = 0
        for r in self.rounds:
            recorded = self.ev.evaluation(r["round"])
            if recorded is None:
                continue
            count += 1
            again = self._evaluate(r["round"]).model_dump(mode="json")
            diff = first_difference(recorded, again)
            if diff:
                problems.append(f"candidate {r['round']}: the evaluation recomputed from telemetry differs at {diff}")
        if not count:
            raise Skip("no evaluation in this bundle")
        return f"{count} evaluation(s) recomputed from the recorded telemetry", problems

    def reviews(self) -> Outcome:
        from gcv.evaluation.models import Evaluation
        from gcv.repair.policy import allowed_intents, gate

        problems = []
        count = 0
        for r in self.rounds:
            if "gate" not in r and "allowed" not in r:
                continue
            n = r["round"]
            count += 1
            evaluation = Evaluation.model_validate(self.ev.evaluation(n))
            allowed = allowed_intents(evaluation=evaluation, goal=self.goal, candidate=self.config(n),
                                      baseline=self.baseline)
            diff = first_difference(r.get("allowed"), allowed.model_dump(mode="json"))
            if diff:
                problems.append(f"round {n}: the allowed intents recomputed from the evidence differ at {diff}")
                continue
            if "gate" not in r:
                continue
            entry = next(e for e in self.ev.rounds() if e["round"] == n)
            call = _last_good_call(self.ev.json(entry.get("agent")))
            if call is None:
                problems.append(f"round {n}: no successful review call whose raw output could be replayed")
                continue
            verdict = decode_call("review", call)
            diff = first_difference(r.get("verdict"), verdict.model_dump(mode="json"))
            if diff:
                problems.append(f"round {n}: the verdict parsed from the raw model output differs at {diff}")
                continue
            diff = first_difference(r["gate"], gate(verdict, allowed).model_dump(mode="json"))
            if diff:
                problems.append(f"round {n}: the policy gate's decision re-derived from verdict and evidence "
                                f"differs at {diff}")
        if not count:
            raise Skip("no review in this bundle")
        return f"{count} review(s): allowed intents, verdicts from raw output and gate decisions re-derived", problems

    def repairs(self) -> Outcome:
        from gcv.evaluation.models import Evaluation
        from gcv.repair.calculators import apply_repair

        problems = []
        count = 0
        for i, r in enumerate(self.rounds):
            if "repair" not in r:
                continue
            n = r["round"]
            count += 1
            gate = r.get("gate") or {}
            outcome = apply_repair(candidate=self.config(n), intent=gate.get("intent"), phase_id=gate.get("phase_id"),
                                   evaluation=Evaluation.model_validate(self.ev.evaluation(n)), goal=self.goal,
                                   baseline=self.baseline)
            again = {"ok": outcome.ok, "explanation": outcome.explanation, "error": outcome.error,
                     "changes": [c.model_dump(mode="json") for c in outcome.changes]}
            diff = first_difference(r["repair"], again)
            if diff:
                problems.append(f"round {n}: the {gate.get('intent')} calculator gives a different repair at {diff}")
                continue
            if outcome.ok and outcome.candidate is not None and i + 1 < len(self.rounds):
                if content_hash(outcome.candidate) != self.rounds[i + 1]["candidate_hash"]:
                    problems.append(f"round {n}: the repaired config is not round {n + 1}'s candidate")
        if not count:
            raise Skip("no repair in this bundle")
        return f"{count} repair(s) recomputed by their calculators give the recorded candidates", problems

    # ------------------------------------------------------------------ the end
    def _guard_holds(self, rule: str, stop_at: float | None) -> str | None:
        """None when the guardrail ``rule`` really applies to the recorded figures; else why not."""
        from gcv.workflow import guardrails
        from gcv.workflow.guardrails import Budgets

        budgets = Budgets.model_validate(self.state["settings"]["budgets"])
        usage = self.state["usage"]
        if rule == "engine_run_budget":
            return None if guardrails.engine_run_budget(usage, budgets) else "candidate runs are within the budget"
        if rule == "model_call_budget":
            return None if guardrails.model_call_budget(usage, budgets) else "model calls are within the budget"
        if rule == "token_budget":
            return None  # the pre-call check adds an estimate of the next call: not recorded, accepted
        if rule == "deadline":
            deadline = self.state.get("deadline_at")
            if deadline is None or stop_at is None or stop_at < deadline:
                return "the stop was recorded before the deadline"
            return None
        scores = [r["miss_score"] for r in self.rounds if "miss_score" in r]
        if rule == "stagnation":
            return None if guardrails.stagnation(scores, budgets) else "the miss scores do not stagnate"
        if rule == "spin":
            last = self.rounds[-1]
            history = [(r["gate"]["intent"], r["fingerprint"]) for r in self.rounds[:-1]
                       if r.get("gate") and r["gate"].get("intent")]
            intent = (last.get("gate") or {}).get("intent") or ""
            return None if guardrails.spin(history, intent, last.get("fingerprint", "")) else \
                "the intent was not repeated on identical evidence"
        return f"unknown guardrail {rule!r}"

    def _best(self) -> tuple[Any, Any]:
        """The engine's choice on a guardrail stop: lowest miss score, earliest on ties."""
        evaluated = [r for r in self.rounds if r.get("evaluation_hash")]
        if not evaluated:
            return None, None
        best = min(evaluated, key=lambda r: (r["miss_score"], r["round"]))
        return best["candidate_hash"], best["round"]

    def _natural_end(self, problems: list[str]) -> tuple[str, str | None, tuple[Any, Any]] | None:
        """Where the recorded rounds end the loop, or None where only a guardrail (or an
        interrupted process) can have stopped it."""
        state = self.state
        req = state.get("requirement")
        if req is None:
            failure = (self.ev.json((self.ev.index.get("requirement") or {}).get("agent")) or {}).get("error")
            if failure:  # the agent failed (refused, invalid output, unavailable, ...): a recorded outcome
                return failure["status"], failure["kind"], (None, None)
            return None
        if req["decision"] != "accepted":
            kind = req["decision"]
            status = kind if kind in ("needs_clarification", "out_of_scope", "no_change") else "blocked"
            return status, f"requirement_{kind}", (None, None)
        if not state.get("authorization"):
            return "awaiting_authorization", None, (None, None)
        baseline_run = state.get("baseline_run")
        if baseline_run is None:
            return None
        if not baseline_run.get("ok"):
            return "failed", "engine_failed", (None, None)
        for r in self.rounds[:-1]:
            if (r.get("gate") or {}).get("outcome") != "repair" or not (r.get("repair") or {}).get("ok"):
                problems.append(f"round {r['round']} was followed by another round without a successful repair")
        last = self.rounds[-1]
        if last.get("run") is None:
            return None
        if not last["run"].get("ok"):
            return "failed", "engine_failed", (None, None)
        gate = last.get("gate")
        if gate is None:
            entry = next((e for e in self.ev.rounds() if e["round"] == last["round"]), {})
            failure = (self.ev.json(entry.get("agent")) or {}).get("error")
            if failure:  # the review agent failed: the loop ends on the best verified candidate
                return failure["status"], failure["kind"], self._best()
            return None
        if gate["outcome"] == "accept":
            return "evidence_ready", "accepted_by_review", (last["candidate_hash"], last["round"])
        if gate["outcome"] in ("human_review", "stop"):
            rule = "human_review" if gate["outcome"] == "human_review" else "review_stop"
            intents = (last.get("allowed") or {}).get("intents", [])
            if not intents or all(i in ("REQUEST_HUMAN", "STOP") for i in intents):
                rule = "intent_unrepairable" if not last.get("passed") else rule
            return "blocked", rule, (None, None)
        if "repair" not in last:
            return None
        if not last["repair"].get("ok"):
            return "blocked", "intent_unrepairable", (None, None)
        return "blocked", "repair_invalid", (None, None)

    def final_status(self) -> Outcome:
        from gcv.workflow.states import LOOP_END

        state = self.state
        reason = state.get("terminal_reason")
        stop_at = next((e["at"] for e in reversed(self.ev.events())
                        if e.get("type") == "transition" and "terminal_reason" in (e.get("data") or {})), None)
        problems: list[str] = []
        natural = self._natural_end(problems)
        human = state.get("human_decision")
        if reason in GUARD_STATUS:
            why = self._guard_holds(reason, stop_at)
            if why:
                problems.append(f"the workflow stopped on the {reason} guardrail, but {why}")
            loop_status, loop_reason, final = GUARD_STATUS[reason], reason, self._best()
        elif natural is None:
            if state["status"] in LOOP_END or human:
                problems.append(f"the workflow ended {state['status']!r} ({reason}) where the rounds show no "
                                f"reason to stop")
            loop_status, loop_reason = state["status"], reason
            final = (state.get("final_candidate_hash"), state.get("best_round"))
        else:
            loop_status, loop_reason, final = natural
        want_status = HUMAN[human["decision"]] if human else loop_status
        if state["status"] != want_status:
            problems.append(f"the rounds lead to {want_status!r} ({loop_reason}), the workflow says "
                            f"{state['status']!r}")
        if reason != loop_reason:
            problems.append(f"terminal reason {reason!r}, the rounds lead to {loop_reason!r}")
        if (state.get("final_candidate_hash"), state.get("best_round")) != final:
            problems.append(f"the final candidate should be round {final[1]}'s, the workflow names round "
                            f"{state.get('best_round')}")
        done = f"{state['status']} ({reason})" if reason else state["status"]
        return (f"status {done} follows from the recorded rounds"
                + (f" and the decision '{human['decision']}' by {human['actor']}" if human else ""), problems)


    def report(self) -> Outcome:
        from gcv.evidence.manifest import tool_versions
        from gcv.evidence.report import render_report

        recorded = self.ev.files.get("report.html")
        info = self.manifest.get("predicate", {}).get("report") or {}
        if recorded is None or not info.get("bundle_name"):
            raise Skip("no report.html, or the manifest does not say how it was rendered")
        tools = self.manifest.get("predicate", {}).get("tool", {})
        mine = tool_versions()
        if (tools.get("version"), tools.get("matplotlib")) != (mine["version"], mine["matplotlib"]):
            raise Skip(f"rendered by gcv {tools.get('version')} / matplotlib {tools.get('matplotlib')}; this is "
                       f"gcv {mine['version']} / matplotlib {mine['matplotlib']}, so the bytes are not comparable")
        again = render_report(self.ev, bundle_name=info["bundle_name"]).encode("utf-8")
        if again != recorded:
            i = next((k for k, (a, b) in enumerate(zip(recorded, again)) if a != b), min(len(recorded), len(again)))
            context = recorded[max(0, i - 60):i + 60].decode("utf-8", "replace")
            return "", [f"report.html is not the report of this evidence (first difference at byte {i}: "
                        f"...{context}...)"]
        return "report.html re-rendered from the bundle's evidence, byte for byte", []


def replay_checks(ev: Evidence, *, manifest: dict[str, Any] | None = None) -> list[CheckResult]:
    try:
        r = _Replay(ev, manifest)
    except Exception as exc:  # noqa: BLE001 - an untrusted bundle may break anything
        return [CheckResult(name, "failed", f"could not be replayed: {type(exc).__name__}: {exc}")
                for name in REPLAY_CHECKS]
    return [run_check("replay.requirement", r.requirement),
            run_check("replay.runs", r.runs),
            run_check("replay.engine_runs", r.engine_runs),
            run_check("replay.populations", r.populations),
            run_check("replay.evaluations", r.evaluations),
            run_check("replay.reviews", r.reviews),
            run_check("replay.repairs", r.repairs),
            run_check("replay.final_status", r.final_status),
            run_check("replay.report", r.report)]


__all__ = ["replay_checks", "REPLAY_CHECKS", "parse_json_output", "decode_call"]
