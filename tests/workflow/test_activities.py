"""gcv.workflow.activities: the product's defaults, the recorded run request, the reference run
that pre-screens a candidate (on the native core where it is exact: a workflow records the same
bytes with GCV_NATIVE=off and with the core, and replay recomputes it in Python); one result
model per kind of recorded activity, and a resumed loop reads the recorded result instead of
doing the work again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from engine_runners import native, reference
from engine_runners.protocol import RunRequest, RunResult
from engine_runners.python_sim import PythonSimRunner, execute
from gcv.analysis import run_analysis
from gcv.contract.models import BulletHellConfig
from gcv.evidence.bundle import export_bundle
from gcv.evidence.verify import verify_bundle
from gcv.repair.scope import whole_fight
from gcv.sim.engine import Simulation
from gcv.sim.program import compile_program
from gcv.store.catalog import Workspace
from gcv.workflow.activities import (AgentFailure, RequirementActivity, ReviewActivity, default_activities,
                                     python_reference_run, reference_run, run_request)
from gcv.workflow.baselines import active_baseline
from gcv.workflow.loop import WorkflowLoop
from gcv.workflow.state import FairnessRecord, PopulationRecord, RunRecord, Settings, WorkflowState
from tests.support.evalutil import base
from tests.support.evidenceutil import run_workflow
from tests.support.simutil import Clock
from tests.support.toolchains import require_native_core

MODELS: dict[str, type[BaseModel]] = {"requirement": RequirementActivity, "review": ReviewActivity,
                                      "run": RunRecord, "prescreen": RunRecord, "population": PopulationRecord,
                                      "analysis": FairnessRecord}


def test_the_recorded_request_is_relative_to_the_workflow_folder() -> None:
    config = base()
    request = run_request(config, settings=Settings(seed=5), run_id="wf-1-baseline", capture_ticks=(30, 10, 30))
    assert request.output_dir == "runs/wf-1-baseline" and request.run_id == "wf-1-baseline"
    assert request.seed == 5 and request.player.kind == "scripted" and request.capture_ticks == [10, 30]
    assert request.program == compile_program(config)


def test_the_reference_run_is_the_simulators_telemetry_without_the_wall_clock() -> None:
    config = base()
    request = run_request(config, settings=Settings(seed=3), run_id="r1", capture_ticks=())
    telemetry = reference_run(request)
    assert "wall_time_ms" not in telemetry
    assert telemetry["state_hash"] == Simulation(compile_program(config), {"kind": "scripted"}).run(
        seed=3).telemetry["state_hash"]
    assert reference_run(request) == telemetry  # deterministic: verify --replay recomputes it
    assert python_reference_run(request) == telemetry  # whichever path reference_run took


def test_the_defaults_are_the_products_registries() -> None:
    activities = default_activities()
    assert isinstance(activities.runner("python-sim"), PythonSimRunner)
    assert activities.requirement_provider("offline").name.startswith("offline")
    assert activities.review_provider("offline").name.startswith("offline")



def test_every_recorded_activity_is_its_model_and_dumps_to_the_same_record(tmp_path: Path) -> None:
    ws, wf_id = run_workflow(tmp_path / "ws")
    records = ws.workflow_dir(wf_id)._read_activities().records
    kinds = {r["key"].split(":")[0] for r in records}
    assert {"requirement", "run", "review"} <= kinds, kinds
    for record in records:
        model = MODELS[record["key"].split(":")[0]]
        typed = model.model_validate(record["result"])
        assert typed.model_dump(mode="json") == record["result"], record["key"]


def test_an_agent_failure_records_the_error_and_no_answer() -> None:
    failed = RequirementActivity(error=AgentFailure(kind="agent_unavailable", status="blocked", message="down"),
                                 calls=[])
    assert failed.model_dump(mode="json") == {"calls": [], "error": {"kind": "agent_unavailable",
                                                                      "status": "blocked", "message": "down"}}
    answered = ReviewActivity(verdict={"verdict": "accept"}, calls=[{"agent": "review"}])
    assert answered.model_dump(mode="json") == {"calls": [{"agent": "review"}], "verdict": {"verdict": "accept"}}


def test_a_recorded_activity_is_read_back_not_done_again(tmp_path: Path) -> None:
    ws, wf_id = run_workflow(tmp_path / "ws", authorize=False)
    d = ws.workflow_dir(wf_id)
    calls: list[int] = []

    def work() -> RequirementActivity:
        calls.append(1)
        return RequirementActivity(decision={"decision": "blocked"}, calls=[])

    again = WorkflowLoop._activity(d, "requirement", RequirementActivity, work)  # type: ignore[arg-type]
    assert calls == [] and again.decision is not None and again.decision["decision"] == "accepted"
    fresh = WorkflowLoop._activity(d, "requirement:9", RequirementActivity, work)  # type: ignore[arg-type]
    assert calls == [1] and fresh.decision == {"decision": "blocked"}
    assert d.activities()["requirement:9"] == {"calls": [], "decision": {"decision": "blocked"}}


# ---------------------------------------------------------------------------- native or Python: the same records
DODGE = "make phase 2 a denser bidirectional spiral, but keep it dodgeable"


class _Engine:
    """An engine in this process whose gameplay is the reference's and whose run measures no
    time, so two runs of a workflow write the same bytes; beside it the loop pre-screens,
    searches repairs, offers trade-offs and analyses fairness in the reference."""

    def run(self, request: RunRequest, *, timeout: float | None = None, deadline: float | None = None) -> RunResult:
        Path(request.output_dir).mkdir(parents=True, exist_ok=True)
        with native.python_only():  # the engine's own run, not the loop's reference work
            telemetry, frames = execute(request)
        telemetry["wall_time_ms"] = 0
        return RunResult(run_id=request.run_id, engine="in-process", ok=True, exit_code=0, telemetry=telemetry,
                         frames=frames, frames_source="engine", duration_ms=0)


def _fairness(config: BulletHellConfig, *, seed: int, budget_seconds: float) -> Any:
    """The product's analysis (witnesses replayed through engine_runners.reference) on a clock
    that does not move: its report records seconds, which two runs would not share."""
    return run_analysis(config, seed=seed, budget_seconds=budget_seconds, clock=lambda: 0.0,
                        simulate=reference.telemetry).report


def _workflow(root: Path, request: str, scoped: bool) -> tuple[WorkflowLoop, str]:
    activities = default_activities()
    activities.runner = lambda name: _Engine()  # type: ignore[assignment,return-value]
    activities.fairness = _fairness
    loop = WorkflowLoop(Workspace(root), clock=Clock(), activities=activities)
    baseline, source = active_baseline(loop.ws, 0.0)
    wf = loop.create(request, baseline, Settings(engine="in-process"), baseline_source=source)
    loop.advance(wf)
    loop.authorize(wf, actor="tester", repair_scope=None if scoped else whole_fight(baseline))
    state = loop.advance(wf)
    if state.status == "awaiting_choice":
        loop.choose(wf, number=1, actor="designer")
        loop.advance(wf)
    return loop, wf


@pytest.mark.slow
@pytest.mark.toolchain
@pytest.mark.parametrize(("request_text", "scoped"), [(DODGE, False), (DODGE, True)],
                         ids=["search-and-fairness", "trade-offs"])
def test_a_workflow_records_the_same_bytes_with_the_native_core_and_without(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request_text: str, scoped: bool) -> None:
    """GCV_NATIVE=off runs the loop's reference work in Python, the default on the native core:
    the workflow folder's records and the evidence bundle are the same bytes, and replay
    recomputes the bundle with the Python simulator alone."""
    require_native_core()
    for name in ("GCV_SIGNING_KEY_HMAC", "GCV_SIGNING_KEY_ED25519", "GCV_VERIFY_KEY_ED25519"):
        monkeypatch.delenv(name, raising=False)
    fights: list[int] = []
    real = native.NativeProgram.run_bytes

    def counted(self: native.NativeProgram, *a: Any, **k: Any) -> bytes:
        fights.append(1)
        return real(self, *a, **k)

    monkeypatch.setattr(native.NativeProgram, "run_bytes", counted)
    done = {}
    for mode in ("off", "auto"):
        monkeypatch.setenv(native.MODE_ENV, mode)
        before = len(fights)
        loop, wf = _workflow(tmp_path / mode, request_text, scoped)
        ran = len(fights) - before
        assert (ran == 0) if mode == "off" else (ran > 0), (mode, ran)
        d = loop.ws.workflow_dir(wf)
        state = WorkflowState.model_validate(d.read_state())
        done[mode] = {"state": d.state_path.read_bytes(), "events": (d.root / "events.jsonl").read_bytes(),
                      "activities": (d.root / "activities.jsonl").read_bytes(),
                      "bundle": export_bundle(loop.ws, wf, tmp_path / mode / "e.zip", signer=False).read_bytes()}
    assert state.status == "evidence_ready" and state.usage.prescreen_runs >= 2
    assert state.rounds[0].prescreen_failed  # round 1 judged (and repaired) in the reference alone
    if scoped:
        assert state.rounds[0].tradeoffs
    else:
        assert state.rounds[0].repair is not None and state.rounds[0].repair.search
        assert state.baseline_fairness is not None and state.rounds[-1].fairness is not None
    for name in ("state", "events", "activities", "bundle"):
        assert done["off"][name] == done["auto"][name], f"{name} differs between GCV_NATIVE=off and the native core"
    monkeypatch.setenv(native.MODE_ENV, "auto")
    before = len(fights)
    report = verify_bundle(tmp_path / "auto" / "e.zip", replay=True)
    assert report.ok, (report.first_failure, report.failed())
    assert len(fights) == before, "verify --replay reached the native core; its cross-check is the Python simulator"


@pytest.mark.toolchain
def test_the_products_fairness_replays_its_witnesses_on_the_native_core(monkeypatch: pytest.MonkeyPatch) -> None:
    require_native_core()
    monkeypatch.delenv(native.MODE_ENV, raising=False)
    fights: list[int] = []
    real = native.NativeProgram.run_bytes
    monkeypatch.setattr(native.NativeProgram, "run_bytes",
                        lambda self, *a, **k: fights.append(1) or real(self, *a, **k))
    report = default_activities().fairness(base(), seed=1, budget_seconds=60.0)
    assert report.verdict == "fair" and report.witness is not None and fights
    replayed = Simulation(compile_program(base()), {"kind": "inputs", "trace": report.witness.trace}).run(seed=1)
    assert replayed.telemetry["player_hits"] == 0
