"""Replay: re-run the loop itself on a bundle's recorded inputs, and compare.

A workflow's only inputs from outside are: the request and its baseline, the settings, the
agents' raw outputs, the engines' telemetry, the times the loop read its clock, and what
people did (authorize, answer, decide). Everything else is decided by
``gcv.workflow.loop.WorkflowLoop``. So replay builds a ``WorkflowLoop`` in a temporary
workspace and feeds it exactly those inputs from the bundle:

* the clock returns the recorded events' times, one per event, in order (the loop reads
  the clock once per event it writes, so the log holds every time it ever read);
* the agent providers are the replay providers (``gcv.agents.replay_provider``): every
  recorded raw output is parsed again by the parser that first read it, and the question
  the loop asks now must be the question that was recorded;
* the engine runner re-simulates every run in the reference simulator: a python-sim run must
  come out bit for bit (gameplay, modeled frame times and, with the same Pillow, the PNG
  frames); a Unity / UE5 run must come out equal in every gameplay figure (its measured
  frame times cannot be replayed and are reported as such). The loop then receives the
  recorded telemetry, so it judges what the engine measured;
* bot populations are re-run with python-sim and must give the recorded summary;
* the pre-screens and the repair search's rungs are recomputed by the loop itself;
* the human inputs are taken from the recorded events at the points where the loop waits.

The loop's state and events must then be the recorded ones; the first difference is named.
Because the replay *is* the loop, no decision rule exists twice: change a rule in the loop
and every older bundle that depended on it stops replaying, naming the decision.

Checks: ``replay.runs`` (re-simulated runs), ``replay.populations`` (re-run populations),
``replay.fairness`` (fair-fight witnesses replayed, impossibility proofs recomputed),
``replay.loop`` (the loop's state and events), ``replay.report`` (report.html re-rendered
byte for byte).

Everything is recomputed with the Python simulator, the specification, whatever the machine
has: the loop ran its reference work (pre-screens, repair search, trade-offs, witness replays)
and python-sim populations on the native C++ core where it could, and the replay runs inside
``engine_runners.native.python_only``, so it cross-checks those figures against python-sim.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engine_runners import native
from engine_runners.protocol import RunRequest, RunResult
from engine_runners.python_sim import RequestError, execute
from gcv.agents.errors import AgentError
from gcv.agents.replay_provider import (RecordingError, ReplayRequirementProvider, ReplayReviewProvider,
                                        recording_from_files)
from gcv.analysis import FairnessReport, analyze
from gcv.batch.population import PopulationSummary, run_population
from gcv.contract.canonical import canonical_json, content_hash
from gcv.contract.models import BulletHellConfig
from gcv.contract.status import Status
from gcv.evidence.checks import CheckResult, Outcome, Skip, first_difference, run_check
from gcv.evidence.collect import STATE_NAME, Evidence, run_label
from gcv.evidence.index import RunFiles
from gcv.evidence.manifest import tool_versions
from gcv.evidence.report import render_report
from gcv.sim.engine import Simulation
from gcv.sim.program import compile_program
from gcv.sim.telemetry import gameplay_view
from gcv.store.catalog import Workspace
from gcv.store.errors import StoreError
from gcv.workflow.activities import Activities, python_reference_run
from gcv.workflow.events import (CreatedEvent, Event, HistoryError, StepEvent, TraceEvent, TransitionEvent,
                                 parse_event)
from gcv.workflow.loop import WorkflowError, WorkflowLoop
from gcv.workflow.state import RunRecord, WorkflowState
from gcv.workflow.states import DECISION_TARGET, IllegalTransition

REPLAY_CHECKS = ("replay.runs", "replay.populations", "replay.fairness", "replay.loop", "replay.report")
PYTHON_SIM = "python-sim"
MODELED_FRAME_FIELDS = ("fps_source", "average_fps", "low_fps", "worst_frame_ms", "frame_model")
MEASURED_FIELDS = ("average_fps", "low_fps", "worst_frame_ms", "fps_source", "hardware", "wall_time_ms")
# Event fields the chain itself covers (integrity.event_chain checks them); replay compares content.
CHAIN_FIELDS = ("hash", "prev_hash")


class ReplayDiverged(Exception):
    """The replayed loop asked for something the recording does not hold."""


class RecordedClock:
    """Returns the recorded events' times, one per call, in order."""

    def __init__(self, times: list[float]) -> None:
        self.times = times
        self.reads = 0

    def __call__(self) -> float:
        if self.reads >= len(self.times):
            raise ReplayDiverged(f"the replayed loop writes more than the {len(self.times)} recorded events")
        value = self.times[self.reads]
        self.reads += 1
        return value


def _map_hashes(value: Any, rehash: dict[str, str]) -> Any:
    if isinstance(value, str):
        return rehash.get(value, value)
    if isinstance(value, dict):
        return {k: _map_hashes(v, rehash) for k, v in value.items()}
    if isinstance(value, list):
        return [_map_hashes(v, rehash) for v in value]
    return value


@dataclass
class _Problems:
    runs: list[str] = field(default_factory=list)
    runs_done: list[str] = field(default_factory=list)
    frames_checked: int = 0
    frames_other_pillow: int = 0
    populations: list[str] = field(default_factory=list)
    populations_done: int = 0
    population_runs: int = 0
    fairness: list[str] = field(default_factory=list)
    fairness_notes: list[str] = field(default_factory=list)
    fairness_done: int = 0


class _ReplayRunner:
    """An engine runner that re-simulates and answers with the recorded result."""

    def __init__(self, session: LoopReplay, engine: str) -> None:
        self.session = session
        self.name = engine

    def run(self, request: RunRequest, *, timeout: float | None = None, deadline: float | None = None) -> RunResult:
        return self.session.replay_run(request)


class LoopReplay:
    def __init__(self, ev: Evidence, manifest: dict[str, Any] | None) -> None:
        self.ev = ev
        self.manifest = manifest or {}
        self.state = ev.state
        self.events = ev.events()  # as written: the replayed loop must write the same records
        self.bad_history: str | None = None
        try:
            self.history: list[Event] = ev.history()
        except HistoryError as exc:  # consistency.events names it; the loop cannot be re-run on it
            self.history, self.bad_history = [], str(exc)
        else:
            self.bad_history = None
        self.rehash: dict[str, str] = dict(ev.index.rehashed)
        self.redacted_events = set(ev.index.redactions.events)
        self.problems = _Problems()
        self.same_pillow = (self.manifest.get("predicate", {}).get("tool", {}).get("pillow")
                            == tool_versions()["pillow"])
        self.replayed_state: dict[str, Any] | None = None
        self.replayed_events: list[dict[str, Any]] = []
        self.stopped: str | None = None

    # ------------------------------------------------------------------ the recording
    def _run_entry(self, run_id: str) -> tuple[int | None, RunRecord, RunFiles]:
        """(round or None for the baseline, the state's run record, the bundle's run entry)."""
        if self.state.baseline_run is not None and self.state.baseline_run.run_id == run_id:
            return None, self.state.baseline_run, self.ev.run_entry(None) or RunFiles(run_id=run_id)
        for r in self.state.rounds:
            if r.run is not None and r.run.run_id == run_id:
                return r.round, r.run, self.ev.run_entry(r.round) or RunFiles(run_id=run_id)
        raise ReplayDiverged(f"the replayed loop runs {run_id!r}, which the recording does not hold")

    def replay_run(self, request: RunRequest) -> RunResult:
        n, record, entry = self._run_entry(request.run_id)
        label = run_label(n)
        workflow_root = Path(request.output_dir).parents[1]
        recorded_request = request.model_copy(update={"output_dir": f"runs/{request.run_id}"})
        if content_hash(recorded_request.model_dump(mode="json")) != record.request_hash:
            again = recorded_request.model_dump(mode="json")
            diff = first_difference(self.ev.json(entry.request), again) or "its hash"
            raise ReplayDiverged(f"{label}: the replayed loop asks for a different run than recorded ({diff})")
        telemetry = self.ev.json(entry.telemetry) if record.ok else None
        if telemetry is not None:
            self._resimulate(label, request, telemetry, entry)
        return RunResult(run_id=record.run_id, engine=record.engine or "", ok=record.ok, exit_code=record.exit_code,
                         error=record.error, error_kind=record.error_kind, telemetry=telemetry,
                         frames=[str(workflow_root / rel) for rel in record.frames], duration_ms=record.duration_ms or 0)

    def _resimulate(self, label: str, request: RunRequest, recorded: dict[str, Any], entry: RunFiles) -> None:
        engine = recorded.get("engine", {}).get("name")
        with tempfile.TemporaryDirectory(prefix="gcv-replay-run-") as tmp:
            try:
                again, frame_paths = execute(request.model_copy(update={"output_dir": tmp}),
                                             write_outputs=engine == PYTHON_SIM)
            except RequestError as exc:
                self.problems.runs.append(f"{label}: the reference simulator refuses the recorded request: {exc}")
                return
            replayed_frames = {Path(p).name: Path(p).read_bytes() for p in frame_paths}
        diff = first_difference(gameplay_view(recorded), gameplay_view(again))
        if diff:
            self.problems.runs.append(f"{label} ({engine}): re-simulated telemetry differs at {diff}")
            return
        if engine != PYTHON_SIM:
            self.problems.runs_done.append(f"{label} by {engine}: gameplay identical")
            return
        diff = first_difference({k: recorded.get(k) for k in MODELED_FRAME_FIELDS},
                                {k: again.get(k) for k in MODELED_FRAME_FIELDS})
        if diff:
            self.problems.runs.append(f"{label}: modeled frame-time figures differ at {diff}")
        bundled = {Path(f).name: self.ev.files[f] for f in entry.frames}
        if sorted(bundled) != sorted(replayed_frames):
            self.problems.runs.append(f"{label}: frames {sorted(bundled)} but the replay captures "
                                      f"{sorted(replayed_frames)}")
            return
        for name, data in sorted(bundled.items()):
            if data == replayed_frames[name]:
                self.problems.frames_checked += 1
            elif self.same_pillow:
                self.problems.runs.append(f"{label}: frame {name} differs from the re-rendered frame")
            else:
                self.problems.frames_other_pillow += 1
        self.problems.runs_done.append(f"{label}: bit for bit")

    def replay_population(self, config: BulletHellConfig, *, skills: list[str], seeds: int,
                          engine: str, on_fight: Any = None) -> PopulationSummary:
        digest = content_hash(config.model_dump(mode="json"))
        if digest == self.state.baseline_hash:
            label, name = "baseline", self.ev.index.baseline.population
        else:
            n = next((r.round for r in self.state.rounds if r.candidate_hash == digest), None)
            if n is None:
                raise ReplayDiverged("the replayed loop runs a population of a config the recording does not hold")
            label = run_label(n)
            name = next(e for e in self.ev.rounds() if e.round == n).population
        recorded = self.ev.json(name)
        if recorded is None:
            raise ReplayDiverged(f"the replayed loop runs a population of {label}, which the recording does not hold")
        again = run_population(config, skills=skills, seeds=seeds,
                               seed_start=recorded.get("seed_start", 0)).model_dump(mode="json")
        again["engine"] = recorded.get("engine")  # gameplay is engine-independent; the name is not
        self.problems.populations_done += 1
        self.problems.population_runs += seeds * len(skills)
        diff = first_difference(recorded, again)
        if diff:
            self.problems.populations.append(f"the population of {label} re-run with python-sim differs at {diff}")
        return PopulationSummary.model_validate(recorded)

    def replay_fairness(self, config: BulletHellConfig, *, seed: int, budget_seconds: float) -> FairnessReport:
        """The recorded fair-fight report, re-proved: a witness is replayed through the reference
        simulator (it must take no hit), an impossibility proof is recomputed (its bound is
        deterministic); an undetermined verdict depends on the time budget and is taken as is."""
        digest = content_hash(config.model_dump(mode="json"))
        n = None if digest == self.state.baseline_hash else next(
            (r.round for r in self.state.rounds if r.candidate_hash == digest), -1)
        label = run_label(n) if n != -1 else "an unknown config"
        recorded = self.ev.fairness(n) if n != -1 else None
        if recorded is None:
            raise ReplayDiverged(f"the replayed loop analyses {label}, whose fair-fight report the recording "
                                 "does not hold")
        report = FairnessReport.model_validate(recorded)
        self.problems.fairness_done += 1
        if report.verdict == "fair" and report.witness is not None:
            program = compile_program(config)
            telemetry = Simulation(program, {"kind": "inputs", "trace": report.witness.trace}).run(seed=seed).telemetry
            if telemetry["player_hits"] != 0 or telemetry["state_hash"] != report.witness.replay.state_hash:
                self.problems.fairness.append(
                    f"{label}: the witness trace replays with {telemetry['player_hits']} hit(s) and state hash "
                    f"{telemetry['state_hash'][:12]}, the report claims 0 and {report.witness.replay.state_hash[:12]}")
            else:
                self.problems.fairness_notes.append(f"{label}: witness replayed hit-free")
        elif report.verdict == "unfair" and report.unfair is not None:
            again = analyze(config, seed=seed, budget_seconds=max(budget_seconds, 120.0))
            if again.verdict != "unfair" or again.unfair is None or again.unfair.tick != report.unfair.tick:
                self.problems.fairness.append(f"{label}: the impossibility proof does not recompute (recorded "
                                              f"unfair at tick {report.unfair.tick}, now {again.verdict})")
            else:
                self.problems.fairness_notes.append(f"{label}: unfair at tick {report.unfair.tick}, recomputed")
        else:
            self.problems.fairness_notes.append(f"{label}: undetermined within its time budget (not re-run)")
        return report

    def _promote(self, ws: Workspace, config: dict[str, Any], **_: Any) -> int:
        decision = self.state.human_decision
        if decision is None or decision.promoted_version is None:
            raise ReplayDiverged("the replayed decision promotes a baseline, the recorded one does not")
        return decision.promoted_version

    # ------------------------------------------------------------------ the re-run
    def _human_input(self, loop: WorkflowLoop, wf_id: str, event: Event) -> bool:
        """Apply the recorded human input the next recorded event holds; False when there is none."""
        if not isinstance(event, TransitionEvent):
            return False
        data, target = event.data, event.target
        if target == Status.AUTHORIZED and data.authorization is not None:
            auth = data.authorization
            loop.authorize(wf_id, actor=auth.actor, via=auth.via, budgets=auth.budgets,
                           fairness_policy=auth.scope.fairness_policy, repair_scope=auth.repair_scope,
                           second_reading_check=bool(auth.second_reading))
            return True
        if target == Status.RUNNING_CANDIDATE and data.choice is not None:
            loop.choose(wf_id, number=data.choice.number, actor=data.choice.actor)
            return True
        if target == Status.PROPOSED and data.answer is not None:
            loop.answer(wf_id, text=data.answer.text, actor=data.answer.actor)
            return True
        if target in DECISION_TARGET.values() and data.decision is not None:
            decision = data.decision
            loop.decide(wf_id, decision=decision.decision, actor=decision.actor, note=decision.note,
                        promote=decision.promoted_version is not None)
            return True
        return False

    def run(self) -> None:
        """Re-run the loop on the recorded inputs, with the Python simulator only."""
        with native.python_only():
            self._run()

    def _run(self) -> None:
        recording = recording_from_files(self.ev.files, source="this bundle")
        if self.bad_history is not None:
            raise ReplayDiverged(f"the event log holds an event GCV does not write: {self.bad_history}")
        created = self.history[0] if self.history else None
        if not isinstance(created, CreatedEvent):
            raise ReplayDiverged("the event log does not start with a 'created' event")
        clock = RecordedClock([e.at for e in self.history])
        activities = Activities(runner=lambda engine: _ReplayRunner(self, engine),  # type: ignore[arg-type,return-value]
                                requirement_provider=lambda name: ReplayRequirementProvider(recording),
                                review_provider=lambda name: ReplayReviewProvider(recording),
                                population=self.replay_population, promote=self._promote,  # type: ignore[arg-type]
                                fairness=self.replay_fairness,
                                reference=python_reference_run)  # pre-screens and the search, recomputed
        with tempfile.TemporaryDirectory(prefix="gcv-replay-") as tmp:
            ws = Workspace(Path(tmp))
            loop = WorkflowLoop(ws, clock=clock, activities=activities)
            wf_id = self.state.id
            baseline = BulletHellConfig.model_validate(self.ev.baseline_config())
            settings = created.data.settings
            try:
                loop.create(created.data.request, baseline, settings,
                            baseline_source=self.state.baseline_source, wf_id=wf_id, actor=created.data.actor,
                            resubmitted_from=created.data.resubmitted_from)
                while True:
                    loop.advance(wf_id)
                    done = len(ws.workflow_dir(wf_id).events())
                    if done >= len(self.events) or not self._human_input(loop, wf_id, self.history[done]):
                        break
            except (ReplayDiverged, WorkflowError, IllegalTransition, AgentError, RecordingError, StoreError,
                    ValidationError, KeyError, ValueError) as exc:
                self.stopped = f"{type(exc).__name__}: {exc}"
            d = ws.workflow_dir(wf_id)
            if d.state_path.is_file():
                self.replayed_state = d.read_state()
                self.replayed_events = d.events()

    # ------------------------------------------------------------------ outcomes
    def runs_outcome(self) -> Outcome:
        p = self.problems
        if not p.runs and not p.runs_done:
            raise Skip("no engine run in this bundle")
        other = (f"; {p.frames_other_pillow} frame(s) not compared byte for byte (rendered by another Pillow "
                 "version)") if p.frames_other_pillow else ""
        measured = ""
        if any(" by " in r for r in p.runs_done):
            measured = f"; not replayable (measured by the engine): {', '.join(sorted(MEASURED_FIELDS))}"
        return (f"{len(p.runs_done)} run(s) re-simulated ({'; '.join(p.runs_done)}), {p.frames_checked} frame(s) "
                f"identical{other}{measured}", p.runs)

    def populations_outcome(self) -> Outcome:
        p = self.problems
        if not p.populations_done:
            raise Skip("no bot population in this workflow")
        return (f"{p.populations_done} population(s) re-run ({p.population_runs} seeded bot runs), summaries "
                "identical", p.populations)

    def fairness_outcome(self) -> Outcome:
        p = self.problems
        if not p.fairness_done:
            raise Skip("no fair-fight analysis in this workflow")
        return f"{p.fairness_done} fair-fight report(s) re-proved: {'; '.join(p.fairness_notes)}", p.fairness

    def loop_outcome(self) -> Outcome:
        problems: list[str] = []
        recorded = self.events
        replayed = self.replayed_events
        for i, (want, got) in enumerate(zip(recorded, replayed)):
            if i in self.redacted_events:
                want = {k: want.get(k) for k in ("type", "from", "to", "seq")}
                got = {k: got.get(k) for k in ("type", "from", "to", "seq")}
            else:
                want = _map_hashes({k: v for k, v in want.items() if k not in CHAIN_FIELDS}, self.rehash)
                got = {k: v for k, v in got.items() if k not in CHAIN_FIELDS}
            diff = first_difference(want, got)
            if diff:
                problems.append(f"event {i} ({_describe(recorded[i])}): the loop writes something else: {diff}")
                break
        if not problems and len(replayed) != len(recorded):
            where = (f"after event {len(replayed) - 1} ({_describe(replayed[-1])})" if replayed else "at the start")
            problems.append(f"the loop stops {where}, {len(replayed)} events where {len(recorded)} were recorded")
        if self.stopped:
            problems.append(f"the replayed loop stopped: {self.stopped}")
        if not problems and self.replayed_state is not None:
            diff = first_difference(_without_history(self.ev.raw_state), _without_history(self.replayed_state))
            if diff:
                problems.append(f"{STATE_NAME}: the loop's state differs at {diff}")
        s = self.state
        done = f"{s.status} ({s.terminal_reason})" if s.terminal_reason else str(s.status)
        return (f"the loop re-ran on the recorded inputs: {len(replayed)} events and the state identical, "
                f"ending {done}", problems)

    def report_outcome(self) -> Outcome:
        recorded = self.ev.files.get("report.html")
        info = self.manifest.get("predicate", {}).get("report") or {}
        if recorded is None or not info.get("bundle_name"):
            raise Skip("no report.html, or the manifest does not say how it was rendered")
        tools = self.manifest.get("predicate", {}).get("tool", {})
        mine = tool_versions()
        if tools.get("version") != mine["version"]:
            raise Skip(f"rendered by gcv {tools.get('version')}; this is gcv {mine['version']}, so the bytes are "
                       "not comparable")
        again = render_report(self.ev, bundle_name=info["bundle_name"]).encode("utf-8")
        if again != recorded:
            i = next((k for k, (a, b) in enumerate(zip(recorded, again)) if a != b), min(len(recorded), len(again)))
            context = recorded[max(0, i - 60):i + 60].decode("utf-8", "replace")
            return "", [f"report.html is not the report of this evidence (first difference at byte {i}: "
                        f"...{context}...)"]
        return "report.html re-rendered from the bundle's evidence, byte for byte", []


def _without_history(state: dict[str, Any]) -> dict[str, Any]:
    """The state without ``history``: where the workspace's log files reached (the recorded
    activities and, after scrubbing, event hashes are the workspace's, not the replay's).
    ``consistency.events`` holds the bundle's event log to it."""
    return {k: v for k, v in state.items() if k != "history"}


def _describe(record: dict[str, Any]) -> str:
    """A recorded or replayed event in a few words (a record that is no event: its type)."""
    try:
        event = parse_event(record)
    except HistoryError:
        return str(record.get("type"))
    if isinstance(event, TransitionEvent):
        return f"{event.source} -> {event.target}"
    if isinstance(event, TraceEvent):
        return f"trace {canonical_json(event.data.line)[:60]}"
    if isinstance(event, StepEvent):
        return f"step {event.data.step}"
    return event.type


def replay_checks(ev: Evidence, *, manifest: dict[str, Any] | None = None) -> list[CheckResult]:
    try:
        session = LoopReplay(ev, manifest)
        session.run()
    except Exception as exc:  # noqa: BLE001 - an untrusted bundle may break anything
        return [CheckResult(name, "failed", f"could not be replayed: {type(exc).__name__}: {exc}")
                for name in REPLAY_CHECKS]
    return [run_check("replay.runs", session.runs_outcome),
            run_check("replay.populations", session.populations_outcome),
            run_check("replay.fairness", session.fairness_outcome),
            run_check("replay.loop", session.loop_outcome),
            run_check("replay.report", session.report_outcome)]


__all__ = ["replay_checks", "REPLAY_CHECKS", "LoopReplay", "RecordedClock", "ReplayDiverged"]
