"""Engine runs only where they tell something new: a reference pre-screen before every engine run,
an in-loop desync check, and the repair search (issue 18)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gcv.repair.scope import whole_fight
from gcv.contract.status import Reason, Status
from gcv.evidence.bundle import export_bundle
from gcv.evidence.verify import verify_bundle
from gcv.store.catalog import Workspace
from gcv.workflow.activities import default_activities
from gcv.workflow.baselines import active_baseline
from gcv.workflow.loop import WorkflowLoop
from gcv.workflow.state import Settings
from tests.support.batchutil import FAKE, FakeRunner
from tests.support.evidenceutil import dump, load, read_zip, rehash_manifest, write_plain_zip
from tests.support.simutil import Clock
from tests.support.toolchains import require_cpp_harness, require_csharp_harness

REQUEST = ("make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive and keep the low FPS "
           "at 55 or above")
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GCV_SIGNING_KEY_HMAC", "GCV_SIGNING_KEY_ED25519", "GCV_VERIFY_KEY_ED25519"):
        monkeypatch.delenv(name, raising=False)


def _cli(args: list[str], env: dict[str, str]) -> dict:
    done = subprocess.run([sys.executable, "-c", "from gcv.cli.app import main; main()", *args, "--json"],
                          env=env, capture_output=True, text=True, timeout=600)
    return json.loads(done.stdout)


@pytest.mark.toolchain
@pytest.mark.slow
@pytest.mark.parametrize("engine", ["ue5", "unity"])
def test_a_candidate_that_fails_gameplay_in_the_reference_costs_no_engine_run(
        tmp_path: Path, engine: str, no_keys, monkeypatch: pytest.MonkeyPatch) -> None:
    exe = require_cpp_harness() if engine == "ue5" else require_csharp_harness()
    env = {k: v for k, v in __import__("os").environ.items() if not k.startswith(("GCV_UE", "GCV_UNITY"))}
    env.update({"GCV_UE_HARNESS" if engine == "ue5" else "GCV_UNITY_HARNESS": str(exe),
                "GCV_HOME": str(tmp_path / "ws"), "PYTHONPATH": str(REPO)})
    out = _cli(["run", REQUEST, "--engine", engine, "--yes", "--repair-scope", "fight"], env)
    assert out["status"] == "evidence_ready", out
    state = json.loads((tmp_path / "ws" / "workflows" / out["workflow_id"] / "state.json").read_text())
    first, second = state["rounds"]
    # round 1 died in the reference: reviewed and repaired without an engine run
    assert first["prescreen_failed"] and "run_status" in first["prescreen_failed"] and first["run"] is None
    assert second["prescreen_failed"] is None and second["run"]["engine"] == f"{engine}-harness"
    assert state["usage"]["candidate_runs"] == 1 and state["usage"]["prescreen_runs"] == 3  # baseline + 2
    assert "pre-screened, not run in the engine" in out["trace"][1]
    assert state["authorization"]["scope"]["prescreen_runs"] == 20
    # the evidence keeps both telemetries, and replay recomputes the pre-screens and the search
    report = verify_bundle(Path(out["evidence"]["bundle"]), replay=True)
    assert report.ok, (report.first_failure, report.failed())
    files = read_zip(Path(out["evidence"]["bundle"]))
    assert "runs/candidate_1_prescreen/telemetry.json" in files and "runs/candidate_2/telemetry.json" in files
    assert "runs/candidate_1/telemetry.json" not in files


class _Engine(FakeRunner):
    """tests/support/fakes/fake_engine.py in one mode, behind the real supervision."""

    def __init__(self, mode: str) -> None:
        super().__init__((mode,))
        self.mode = mode

    def command(self, request_path: Path, request: object) -> list[str]:
        return [sys.executable, str(FAKE), self.mode, str(request_path)]



def run_authorized(home: Path, mode: str) -> tuple[WorkflowLoop, str, Any]:
    """The README-like request through the loop on a fake engine (``mode``), authorized once:
    (loop, workflow id, the state where the loop stopped)."""
    activities = default_activities()
    activities.runner = lambda name: _Engine(mode)
    loop = WorkflowLoop(Workspace(home), clock=Clock(), activities=activities)
    baseline, source = active_baseline(loop.ws, 0.0)
    wf = loop.create(REQUEST, baseline, Settings(engine="fake"), baseline_source=source)
    loop.advance(wf)
    loop.authorize(wf, actor="tester", repair_scope=whole_fight(baseline))  # its repairs are what is tested
    return loop, wf, loop.advance(wf)


@pytest.mark.slow
def test_an_engine_out_of_step_ends_the_workflow_naming_the_field_and_the_window(tmp_path: Path) -> None:
    state = run_authorized(tmp_path, "desync")[2]
    assert state.status == Status.FAILED and state.terminal_reason == Reason.ENGINE_DESYNC
    message = state.terminal_message or ""
    assert "baseline run: fake differs from the reference simulator at grazes" in message
    assert "first differing 60-tick window: ticks 420..479" in message


@pytest.mark.slow
def test_replay_recomputes_the_pre_screens_and_the_repair_search(tmp_path: Path, no_keys) -> None:
    """A forged pre-screen figure (or search rung) in a re-hashed bundle is caught by replay."""
    loop, wf, state = run_authorized(tmp_path / "ws", "ok")  # an engine whose gameplay is the reference's
    assert state.status == Status.EVIDENCE_READY and state.rounds[0].prescreen_failed
    assert state.rounds[0].repair is not None and state.rounds[0].repair.search
    bundle = export_bundle(loop.ws, wf, tmp_path / "e.zip")
    assert verify_bundle(bundle, replay=True).ok
    files = read_zip(bundle)
    state_doc = load(files, "workflow/state.json")
    state_doc["rounds"][0]["repair"]["search"][0]["outcome"] = "passes"  # a rung that never passed
    files["workflow/state.json"] = dump(state_doc)
    report = verify_bundle(write_plain_zip(rehash_manifest(files), tmp_path / "forged.zip"), replay=True)
    assert "replay.loop" in report.failed() and "search[0].outcome" in report.check("replay.loop").message


@pytest.mark.slow
def test_resume_after_a_kill_redoes_no_pre_screen_and_no_engine_run(tmp_path: Path) -> None:
    """Killed right after each of the first durable writes, then resumed: every engine run started
    once, every pre-screen recorded once, and the result is the uninterrupted one."""
    import os

    fake_player = REPO / "tests" / "support" / "fakes" / "fake_player.sh"

    def env(home: Path, crash: int | None = None) -> dict[str, str]:
        e = {k: v for k, v in os.environ.items() if not k.startswith(("GCV_UNITY", "GCV_UE", "GCV_FAKE", "GCV_CRASH"))}
        e.update(GCV_UNITY_PLAYER=str(fake_player), GCV_FAKE_MODE="ok", GCV_FAKE_ENGINE="unity",
                 GCV_FAKE_PYTHON=sys.executable, PYTHONPATH=str(REPO), GCV_HOME=str(home),
                 GCV_FAKE_LOG=str(home / "engine-starts.log"))
        if crash is not None:
            e["GCV_CRASH_AFTER"] = str(crash)
        return e

    reference = _cli(["run", REQUEST, "--engine", "unity", "--yes", "--repair-scope", "fight"], env(tmp_path / "straight"))
    assert reference["status"] == "evidence_ready", reference
    for crash in (4, 7, 10, 13, 16, 19):
        home = tmp_path / f"crash-{crash}"
        home.mkdir()
        subprocess.run([sys.executable, "-c", "from gcv.cli.app import main; main()", "run", REQUEST, "--engine",
                        "unity", "--yes", "--repair-scope", "fight", "--json"], env=env(home, crash), capture_output=True, timeout=600)
        (wf,) = [p.name for p in (home / "workflows").iterdir()]
        resumed = _cli(["resume", wf], env(home))
        if resumed["status"] == "awaiting_authorization":  # killed before --yes could authorize
            _cli(["authorize", wf, "--actor", "tester", "--repair-scope", "fight"], env(home))
            resumed = _cli(["resume", wf], env(home))
        assert (resumed["status"], resumed["final_candidate_hash"]) == (
            reference["status"], reference["final_candidate_hash"]), (crash, resumed)
        starts = (home / "engine-starts.log").read_text().split()
        assert len(starts) == len(set(starts)), f"crash after write {crash}: an engine run started twice: {starts}"
        keys = [json.loads(line)["key"] for line in (home / "workflows" / wf / "activities.jsonl").read_text().splitlines()]
        assert len(keys) == len(set(keys)) and any(k.startswith("prescreen:") for k in keys), keys
