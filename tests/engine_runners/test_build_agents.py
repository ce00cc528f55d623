"""A workflow's engine runs on build agents: the workspace's build_agents.toml, and real
``dask scheduler`` / ``dask worker --resources`` processes on loopback with the C++ and C# harnesses
standing in for UE5 and Unity (the driving process has neither configured)."""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from engine_runners.build_agents import (AgentRunner, BuildAgentsConfig, BuildAgentsConfigError, agent_runner,
                                         dispatched, load_config, resources)
from engine_runners.requests import build_request
from engine_runners.registry import get_runner
from tests.support.dask_agents import Cluster, free_port, wait_for, write_wrapper
from tests.support.simutil import baseline_program
from tests.support.toolchains import require_cpp_harness, require_csharp_harness

REPO = Path(__file__).resolve().parents[2]
ENGINE_VARS = ("GCV_UE_HARNESS", "GCV_UE_EDITOR_CMD", "GCV_UE_GAME", "GCV_UE_MODE", "GCV_UE_PROJECT",
               "GCV_UNITY_HARNESS", "GCV_UNITY_PLAYER", "GCV_UNITY_EDITOR", "GCV_UNITY_PROJECT", "GCV_UNITY_MODE")


@pytest.fixture(autouse=True)
def no_engine_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """The driving host has no engine: only the agents do."""
    for var in ENGINE_VARS:
        monkeypatch.delenv(var, raising=False)


def _request(folder: Path, *, seed: int = 2, capture: list[int] | None = None, run_id: str = "agents-1"):
    return build_request(baseline_program(), seed=seed, player={"kind": "scripted"}, output_dir=folder,
                         run_id=run_id, capture_ticks=capture)


def _config(address: str, **extra: Any) -> BuildAgentsConfig:
    return BuildAgentsConfig.model_validate({"scheduler": address, "engines": ["ue5", "unity"], **extra})


# --------------------------------------------------------------------------- the workspace's file
def test_build_agents_toml_is_read_and_names_the_engines_that_go_there(tmp_path: Path) -> None:
    assert load_config(tmp_path) is None and dispatched(tmp_path, "ue5") is None
    (tmp_path / "build_agents.toml").write_text('scheduler = "tcp://10.1.2.3:8786"\nengines = ["ue5"]\n'
                                                'platform = "windows"\nrun_timeout_seconds = 900\n', encoding="utf-8")
    config = load_config(tmp_path)
    assert config is not None and config.scheduler == "tcp://10.1.2.3:8786" and config.run_timeout_seconds == 900
    assert dispatched(tmp_path, "ue5") == config and dispatched(tmp_path, "unity") is None
    assert resources("ue5", "windows") == {"ue5": 1.0, "windows": 1.0} and resources("unity", None) == {"unity": 1.0}


@pytest.mark.parametrize("text,words", [
    ('engines = ["ue5"]', "field scheduler: required"),
    ('scheduler = "10.1.2.3:8786"\nengines = ["ue5"]', "field scheduler: must be tcp://HOST:PORT or tls://HOST:PORT"),
    ('scheduler = "tcp://h:1"\nengines = ["ue6"]', "field engines: 'ue6' is not an engine; allowed: python-sim, "
                                                   "unity, ue5"),
    ('scheduler = "tcp://h:1"\nengines = []', "field engines: Tuple should have at least 1 item"),
    ('scheduler = "tcp://h:1"\nengines = ["ue5", "ue5"]', "an engine is named twice"),
    ('scheduler = "tcp://h:1"\nengines = ["ue5"]\nplatform = "amiga"',
     "field platform: Input should be 'linux', 'windows' or 'macos'"),
    ('scheduler = "tcp://h:1"\nengines = ["ue5"]\nconnect_timeout_seconds = 0',
     "field connect_timeout_seconds: Input should be greater than or equal to 0.5"),
    ('scheduler = "tcp://h:1"\nengines = ["ue5"]\nworkers = 3', "field workers: Extra inputs are not permitted; "
                                                                "fields: scheduler, engines, platform"),
    ('scheduler = "tcp://h:1"\nengines = [', "not valid TOML"),
])
def test_a_bad_build_agents_toml_is_refused_naming_the_file_and_field(tmp_path: Path, text: str, words: str) -> None:
    (tmp_path / "build_agents.toml").write_text(text, encoding="utf-8")
    with pytest.raises(BuildAgentsConfigError) as caught:
        load_config(tmp_path)
    assert str(caught.value).startswith(f"{tmp_path / 'build_agents.toml'}: ")
    assert words in str(caught.value)


def test_a_run_whose_workspace_lost_its_agents_fails_naming_the_file(tmp_path: Path) -> None:
    result = agent_runner(tmp_path, "ue5", None).run(_request(tmp_path / "out"))
    assert not result.ok and result.error_kind == "agents_misconfigured"
    assert "build_agents.toml does not exist" in (result.error or "")
    (tmp_path / "build_agents.toml").write_text("engines = 3\nscheduler = \"tcp://h:1\"", encoding="utf-8")
    result = agent_runner(tmp_path, "ue5", None).run(_request(tmp_path / "out"))
    assert result.error_kind == "agents_misconfigured" and "field engines" in (result.error or "")


@pytest.mark.slow
def test_an_unreachable_scheduler_is_a_clear_error_within_the_connect_timeout(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    started = time.monotonic()
    runner = AgentRunner("ue5", _config(f"tcp://127.0.0.1:{free_port()}", connect_timeout_seconds=1))
    result = runner.run(_request(tmp_path / "out"))
    assert time.monotonic() - started < 10
    assert not result.ok and result.error_kind == "agent_unreachable"
    assert "cannot reach the build agents' scheduler tcp://127.0.0.1:" in (result.error or "")


# --------------------------------------------------------------------------- a cluster on loopback
@pytest.fixture(scope="module")
def harnesses() -> dict[str, Path]:
    return {"ue5": require_cpp_harness(), "unity": require_csharp_harness()}


@pytest.fixture(scope="module")
def agents(tmp_path_factory: pytest.TempPathFactory, harnesses: dict[str, Path]):
    """A scheduler and two agents: one declares ue5 (and linux), the other unity."""
    pytest.importorskip("distributed")
    cluster = Cluster(tmp_path_factory.mktemp("agents"))
    try:
        cluster.start_scheduler()
        cluster.start_worker("agent-ue5", "ue5=1,linux=1", {"GCV_UE_HARNESS": str(harnesses["ue5"])})
        cluster.start_worker("agent-unity", "unity=1", {"GCV_UNITY_HARNESS": str(harnesses["unity"])})
        yield cluster
    finally:
        cluster.close()


@pytest.fixture
def cluster(tmp_path: Path):
    """A cluster of the test's own (its workers are killed)."""
    pytest.importorskip("distributed")
    made = Cluster(tmp_path / "cluster")
    try:
        made.start_scheduler()
        yield made
    finally:
        made.close()


@pytest.fixture(params=["3", "0"], ids=["scheduler-retries", "driver-retries"])
def any_cluster(request: pytest.FixtureRequest, tmp_path: Path):
    """The scheduler's own retries (allowed-failures 3, its default: it reschedules the run) or none
    (allowed-failures 0: the run errs KilledWorker at the first lost worker and the driver resubmits it)."""
    pytest.importorskip("distributed")
    made = Cluster(tmp_path / "cluster")
    try:
        made.start_scheduler(DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES=request.param)
        yield made, int(request.param)
    finally:
        made.close()


def _log(result) -> str:
    return Path(result.log_path).read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.toolchain
def test_runs_go_to_the_agent_that_declares_the_engine(tmp_path: Path, agents: Cluster) -> None:
    assert get_runner("ue5").check().status == "not_installed"  # nothing here: the agents have the engines
    ue5 = AgentRunner("ue5", _config(agents.address)).run(_request(tmp_path / "ue5", capture=[600]))
    assert ue5.ok, (ue5.error, agents.logs())
    assert ue5.engine == "ue5-harness" and ue5.telemetry["engine"]["implementation"] == "cpp"
    assert "ran on worker agent-ue5 at tcp://127.0.0.1:" in _log(ue5) and "each sha256 checked" in _log(ue5)
    assert ue5.frames == [str(tmp_path / "ue5" / "frames" / "tick_000600.png")] and ue5.frames_source == "reference"
    assert json.loads((tmp_path / "ue5" / "telemetry.json").read_text()) == ue5.telemetry
    unity = AgentRunner("unity", _config(agents.address)).run(_request(tmp_path / "unity"))
    assert unity.ok and unity.engine == "unity-harness" and "ran on worker agent-unity" in _log(unity)
    # the platform is a resource too: the ue5 agent declares linux
    linux = AgentRunner("ue5", _config(agents.address), platform="linux").run(_request(tmp_path / "linux"))
    assert linux.ok and "resources linux=1,ue5=1" in _log(linux)


@pytest.mark.slow
@pytest.mark.toolchain
def test_no_agent_with_the_resources_is_an_error_at_dispatch_not_a_hang(tmp_path: Path, agents: Cluster) -> None:
    started = time.monotonic()
    windows = AgentRunner("ue5", _config(agents.address), platform="windows").run(_request(tmp_path / "w"))
    py = AgentRunner("python-sim", _config(agents.address, engines=["python-sim"])).run(_request(tmp_path / "p"))
    assert time.monotonic() - started < 15
    for result, wanted in ((windows, "ue5=1,windows=1"), (py, "python-sim=1")):
        assert not result.ok and result.error_kind == "no_agent" and result.phase == "launch"
        assert f"no build agent offers {wanted}" in (result.error or "")
        assert "agent-ue5 (tcp://127.0.0.1:" in (result.error or "") and "linux=1,ue5=1" in (result.error or "")


WALL = re.compile(rb'"wall_time_ms": ?[0-9]+')


@pytest.mark.slow
@pytest.mark.toolchain
@pytest.mark.parametrize("engine,var", [("ue5", "GCV_UE_HARNESS"), ("unity", "GCV_UNITY_HARNESS")])
def test_an_agent_s_run_equals_a_local_run_bit_for_bit(tmp_path: Path, agents: Cluster, harnesses: dict[str, Path],
                                                       monkeypatch: pytest.MonkeyPatch, engine: str, var: str) -> None:
    """The same request, the same harness: the agent's telemetry.json and frames are the local run's bytes
    (but the engine's own wall-clock measurement, wall_time_ms, which differs between any two runs)."""
    remote = AgentRunner(engine, _config(agents.address)).run(_request(tmp_path / "remote", seed=9,
                                                                       capture=[60, 600, 1200]))
    monkeypatch.setenv(var, str(harnesses[engine]))
    local = get_runner(engine).run(_request(tmp_path / "local", seed=9, capture=[60, 600, 1200]))
    assert remote.ok and local.ok, (remote.error, local.error)
    remote_bytes = (tmp_path / "remote" / "telemetry.json").read_bytes()
    local_bytes = (tmp_path / "local" / "telemetry.json").read_bytes()
    assert WALL.search(local_bytes) is not None
    assert WALL.sub(b"", remote_bytes) == WALL.sub(b"", local_bytes)
    assert [Path(f).name for f in remote.frames] == [Path(f).name for f in local.frames] != []
    for mine, theirs in zip(remote.frames, local.frames):
        assert Path(mine).read_bytes() == Path(theirs).read_bytes()
    same = ("ok", "engine", "exit_code", "frames_source", "handshake", "phase", "error_kind")
    assert {k: getattr(remote, k) for k in same} == {k: getattr(local, k) for k in same}


def _in_thread(work: Any) -> tuple[threading.Thread, list[Any]]:
    box: list[Any] = []
    thread = threading.Thread(target=lambda: box.append(work()), daemon=True)
    thread.start()
    return thread, box


def _slow_agent(cluster: Cluster, name: str, harness: Path, folder: Path, sleep: str) -> Path:
    launches = folder / f"{name}.launches"
    cluster.start_worker(name, "ue5=1", {"GCV_UE_HARNESS": str(write_wrapper(folder)), "GCV_TEST_HARNESS": str(harness),
                                         "GCV_TEST_LAUNCHES": str(launches), "GCV_TEST_SLEEP": sleep})
    return launches


@pytest.mark.slow
@pytest.mark.toolchain
def test_an_agent_killed_mid_run_costs_one_retry_on_another(tmp_path: Path, any_cluster: tuple[Cluster, int],
                                                           harnesses: dict[str, Path]) -> None:
    cluster, allowed_failures = any_cluster
    first = _slow_agent(cluster, "agent-a", harnesses["ue5"], tmp_path, "30")
    thread, box = _in_thread(lambda: AgentRunner("ue5", _config(cluster.address)).run(_request(tmp_path / "out")))
    wait_for(lambda: first.is_file(), 30, "the run started on agent-a")
    second = _slow_agent(cluster, "agent-b", harnesses["ue5"], tmp_path, "0")
    started = time.monotonic()
    cluster.kill_worker("agent-a")  # with its engine: SIGKILL, as a machine that loses power
    thread.join(60)
    result = box[0]
    assert result.ok, (result.error, cluster.logs())
    assert time.monotonic() - started < 30  # not the 30 s agent-a's engine would have slept
    assert second.read_text().count("\n") == 1  # agent-b ran it once
    log = _log(result)
    assert "was lost while it ran the request" in log and "ran on worker agent-b" in log
    assert ("sent the request again (attempt 2)" in log) == (allowed_failures == 0)  # who retried it


@pytest.mark.slow
@pytest.mark.toolchain
@pytest.mark.parametrize("pause", [True, False], ids=["seen", "at-once"])
def test_a_second_lost_agent_ends_the_run_with_a_clear_reason(tmp_path: Path, cluster: Cluster,
                                                             harnesses: dict[str, Path], pause: bool,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    """``at-once``: agent-b dies before the driver may have looked; the scheduler's own count of the
    workers that died running it still ends the run at once (not after agent_wait_seconds)."""
    caplog.set_level(logging.INFO, logger="engine_runners.build_agents")  # the driver's progress: who has it
    first = _slow_agent(cluster, "agent-a", harnesses["ue5"], tmp_path, "30")
    thread, box = _in_thread(lambda: AgentRunner("ue5", _config(cluster.address)).run(_request(tmp_path / "out")))
    wait_for(lambda: first.is_file(), 30, "the run started on agent-a")
    second = _slow_agent(cluster, "agent-b", harnesses["ue5"], tmp_path, "30")
    cluster.kill_worker("agent-a")
    wait_for(lambda: second.is_file(), 30, "the retry started on agent-b")
    addresses = [a for a, w in cluster.info()["workers"].items() if w["name"] == "agent-b"]
    if pause:  # the driver looks every 0.5 s: wait until it has said it saw agent-b run it (however loaded)
        wait_for(lambda: any(addresses[0] in r.getMessage() for r in list(caplog.records)), 30,
                 "the driver saw agent-b run it")
    cluster.kill_worker("agent-b")
    thread.join(20)
    result = box[0]
    assert not result.ok and result.error_kind == "agent_lost", result.error
    assert "2 build agents died while running it" in result.error and "1 retry on another worker" in result.error
    log = _log(result)  # and the run's log (in the bundle) says what the driver saw
    assert "agent_lost: 2 build agents died" in log
    if pause:  # the lost agents are named
        assert addresses[0] in result.error and log.count("was lost while it ran the request") == 2


@pytest.mark.slow
@pytest.mark.toolchain
def test_a_run_whose_only_agent_died_ends_no_agent_after_the_wait(tmp_path: Path, cluster: Cluster,
                                                                 harnesses: dict[str, Path]) -> None:
    first = _slow_agent(cluster, "agent-a", harnesses["ue5"], tmp_path, "30")
    config = _config(cluster.address, agent_wait_seconds=2)
    thread, box = _in_thread(lambda: AgentRunner("ue5", config).run(_request(tmp_path / "out")))
    wait_for(lambda: first.is_file(), 30, "the run started on agent-a")
    cluster.kill_worker("agent-a")
    thread.join(30)
    result = box[0]
    assert not result.ok and result.error_kind == "no_agent", result.error
    assert "no connected build agent offers ue5=1 any more (the scheduler has no workers); waited 2 s" in result.error


# --------------------------------------------------------------------------- gcv run / resume / engines
REQUEST = "make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive and keep the low FPS at 55 or above"


def _gcv(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gcv.cli.entry", *args], capture_output=True, text=True, env=env,
                          timeout=180)


def _driver_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ENGINE_VARS}
    env.update(GCV_HOME=str(home), PYTHONPATH=str(REPO), COLUMNS="200")
    return env


@pytest.mark.slow
@pytest.mark.toolchain
def test_a_killed_gcv_run_resumes_and_collects_the_agent_s_run(tmp_path: Path, cluster: Cluster,
                                                              harnesses: dict[str, Path]) -> None:
    """`gcv run` is SIGKILLed while the baseline runs on an agent; `gcv resume` collects that very run
    (the engine is launched once per recorded run), finishes the workflow, and its bundle verifies."""
    launches = tmp_path / "launches"
    cluster.start_worker("agent-ue5", "ue5=1", {
        "GCV_UE_HARNESS": str(write_wrapper(tmp_path)), "GCV_TEST_HARNESS": str(harnesses["ue5"]),
        "GCV_TEST_LAUNCHES": str(launches), "GCV_TEST_SLEEP_ONCE": str(tmp_path / "slept")})
    home = tmp_path / "ws"
    home.mkdir()
    (home / "build_agents.toml").write_text(f'scheduler = "{cluster.address}"\nengines = ["ue5"]\n', encoding="utf-8")
    env = _driver_env(home)
    driver = subprocess.Popen([sys.executable, "-m", "gcv.cli.entry", "run", REQUEST, "--yes", "--engine", "ue5",
                               "--repair-scope", "fight", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env=env, start_new_session=True)
    try:
        wait_for(lambda: launches.is_file() or driver.poll() is not None, 90, "the baseline started on the agent")
        assert driver.poll() is None, driver.communicate()
        driver.send_signal(signal.SIGKILL)  # the driving process dies; the agent's run goes on
    finally:
        driver.kill()
        driver.communicate()
    (wf,) = [p.name for p in (home / "workflows").iterdir()]
    state = json.loads((home / "workflows" / wf / "state.json").read_text())
    assert state["status"] == "running_baseline" and state["baseline_run"] is None
    resumed = _gcv("resume", wf, "--json", env=env)
    summary = json.loads(resumed.stdout)
    assert resumed.returncode == 0, (resumed.stdout[-2000:], resumed.stderr[-3000:], cluster.logs())
    assert summary["status"] == "evidence_ready" and summary["engines_used"] == ["ue5-harness"]
    assert summary["build_agents"] == {"platform": None}
    state = json.loads((home / "workflows" / wf / "state.json").read_text())
    assert state["settings"]["build_agents"] == {"platform": None}  # the evidence says where the runs went
    runs = state["usage"]["baseline_runs"] + state["usage"]["candidate_runs"]
    assert launches.read_text().count("\n") == runs  # the baseline was not run a second time
    baseline_log = (home / "workflows" / wf / "runs" / state["baseline_run"]["run_id"] / "run.log").read_text()
    assert "ran on worker agent-ue5" in baseline_log and "it was not sent again" in baseline_log
    verified = _gcv("verify", summary["evidence"]["bundle"], "--replay", "--json", env=env)
    assert verified.returncode == 0, verified.stdout[-3000:]


@pytest.mark.slow
@pytest.mark.toolchain
def test_gcv_engines_shows_the_agents_and_their_resources(tmp_path: Path, agents: Cluster) -> None:
    home = tmp_path / "ws"
    home.mkdir()
    env = _driver_env(home)
    none = json.loads(_gcv("engines", "--json", env=env).stdout)["build_agents"]
    assert none["configured"] is False
    (home / "build_agents.toml").write_text(f'scheduler = "{agents.address}"\nengines = ["ue5", "unity"]\n'
                                            'platform = "linux"\n', encoding="utf-8")
    shown = json.loads(_gcv("engines", "--json", env=env).stdout)
    found = shown["build_agents"]
    assert found["reachable"] is True and found["scheduler"] == agents.address
    assert found["uncollected_runs"] == 0  # every run the other tests sent was collected
    assert {w["name"]: w["resources"] for w in found["workers"]} == {"agent-ue5": {"ue5": 1.0, "linux": 1.0},
                                                                      "agent-unity": {"unity": 1.0}}
    assert found["offered"] == {"ue5": ["agent-ue5"], "unity": []}  # the unity agent does not declare linux
    assert {r["engine"]: r.get("runs_on") for r in shown["engines"]} == {"python-sim": None, "unity": "build agents",
                                                                         "ue5": "build agents"}
    text = _gcv("engines", env=env).stdout
    assert f"build agents: scheduler {agents.address} reachable" in text and "agent-ue5" in text
    assert "unity: no worker offers it" in text
