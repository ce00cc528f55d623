"""``gcv batch`` end to end: the table, equality with single runs, retries of a misbehaving
engine, resume, interruption and exit codes."""

from __future__ import annotations

import _thread
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from typer.testing import CliRunner

from engine_runners.python_sim import PythonSimRunner
from engine_runners.requests import build_request
from gcv.batch import results as res
from gcv.batch.job import run_job
from gcv.batch.matrix import expand_batch
from gcv.batch.spec import load_batch
from tests.support.procutil import wait_gone
from tests.support.batchutil import REPO, batch_app, register_fake, write_configs, write_spec


def cli(*args: Any) -> Any:
    result = CliRunner().invoke(batch_app(), ["batch", *[str(a) for a in args]])
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def cli_json(*args: Any) -> tuple[int, dict[str, Any]]:
    result = cli(*args, "--json")
    assert result.stdout.startswith("{"), result.output
    return result.exit_code, json.loads(result.stdout)


@pytest.fixture(autouse=True)
def _plain(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "160")
    monkeypatch.setenv("GCV_HOME", str(tmp_path / "ws"))


SMALL = """
configs = ["configs/shrine.json", "configs/dense.json"]
seeds = { start = 3, count = 4 }
players = ["scripted", "bot:average"]
output = "out"
"""


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """2 configs x 4 seeds x 2 players on python-sim, run once through the CLI."""
    root = tmp_path_factory.mktemp("small")
    write_configs(root / "configs")
    spec = write_spec(root, SMALL)
    result = CliRunner().invoke(batch_app(), ["batch", str(spec), "--workers", "1", "--json"],
                                env={"NO_COLOR": "1", "GCV_HOME": str(root / "ws")})
    return {"spec": spec, "code": result.exit_code, "doc": json.loads(result.stdout), "stderr": result.stderr,
            "out": root / "out"}


@pytest.mark.slow
def test_small_batch_exit_code_and_json(small: dict[str, Any]) -> None:
    assert small["code"] == 0, small["doc"]
    doc = small["doc"]
    assert {"summary", "paths", "counts", "gate", "exit_code"} <= set(doc)
    assert doc["counts"] == {"cells": 16, "skipped_finished": 0, "runs_this_time": 16, "retried": 0,
                             "completed": 12, "died": 4, "error": 0, "pending": 0, "rows": 16}
    groups = {(g["config_label"], g["player"]): g["metrics"] for g in doc["summary"]}
    assert groups[("dense", "scripted")]["survival_rate"] == 0.0
    assert groups[("shrine", "bot:average")]["survival_rate"] == 1.0
    assert doc["gate"] == {"passed": True, "rules": [], "evaluated_groups": 0, "failures": []}
    assert "runs/s" in small["stderr"] and "16/16" in small["stderr"]


def test_small_batch_table_columns_and_order(small: dict[str, Any]) -> None:
    out = small["out"]
    table = pd.read_parquet(out / "results.parquet")
    csv = pd.read_csv(out / "results.csv")
    assert len(table) == len(csv) == 16
    assert list(table.columns) == list(csv.columns)
    assert list(table.columns[:12]) == list(res.TABLE_COLUMNS_FIRST)
    for column in ("peak_alive_bullets", "player_hits", "survival_ticks", "state_hash", "engine.name",
                   "phase_results.0.peak_alive_bullets", "phase_results.2.mean_alive_bullets", "low_fps"):
        assert column in table.columns
    assert not {"hit_ticks", "alive_per_second", "state_hashes", "wall_time_ms"} & set(table.columns)
    resolved = load_batch(small["spec"])
    assert list(table["cell_id"]) == [c.cell_id for c in expand_batch(resolved).cells]
    assert set(table["status"]) == {"completed", "died"}
    assert table["final"].all() and (table["attempt"] == 1).all()
    assert table["error_kind"].isna().all()
    assert str(table["seed"].dtype) == "int64[pyarrow]"
    assert len((out / "results.jsonl").read_text().splitlines()) == 16
    manifest = json.loads((out / "batch.json").read_text())
    assert manifest["cells"] == 16 and manifest["matrix_hash"] == expand_batch(resolved).digest()


def test_batch_rows_equal_single_runs(small: dict[str, Any]) -> None:
    rows = {r["cell_id"]: r for r in res.read_log(small["out"] / "results.jsonl")}
    resolved = load_batch(small["spec"])
    matrix = expand_batch(resolved)
    picked = [c for c in matrix.cells if (c.config_label, c.player, c.seed) in
              {("dense", "scripted", 3), ("shrine", "bot:average", 6)}]
    assert len(picked) == 2
    for cell in picked:
        request = build_request(matrix.programs[cell.config_hash], seed=cell.seed,
                                player=matrix.players[cell.player], output_dir=small["out"] / "single" / cell.cell_id,
                                run_id=cell.cell_id)
        single = PythonSimRunner("inprocess").run(request)
        assert single.ok, single.error
        expected = res.make_row({**cell.as_dict()}, attempt=1, telemetry=single.telemetry, duration_ms=0)
        assert res.figures(rows[cell.cell_id]) == res.figures(expected)


def test_resume_of_a_finished_batch_runs_nothing_and_the_gate_fails(small: dict[str, Any]) -> None:
    before = (small["out"] / "results.jsonl").read_text()
    code, doc = cli_json(small["spec"], "--resume", "--fail-if", "survival_rate < 0.9")
    assert code == 8
    assert doc["counts"]["runs_this_time"] == 0 and doc["counts"]["skipped_finished"] == 16
    assert [(f["config_label"], f["player"]) for f in doc["gate"]["failures"]] == [("dense", "scripted")]
    assert doc["gate"]["failures"][0]["values"] == {"survival_rate": 0.0}
    assert (small["out"] / "results.jsonl").read_text() == before
    human = cli(small["spec"], "--resume", "--fail-if", "hits_p90 > 4")
    assert human.exit_code == 8
    assert "gate failed: dense scripted python-sim: hits_p90 > 4 (hits_p90=5)" in human.stdout
    assert "batch gate failed (exit 8)" in human.stdout
    assert cli(small["spec"], "--resume").exit_code == 0


def test_usage_errors_exit_2(small: dict[str, Any], tmp_path: Path) -> None:
    code, doc = cli_json(small["spec"], "--workers", "1")
    assert code == 2 and "already holds 16 result rows" in doc["error"]
    code, doc = cli_json(small["spec"], "--resume", "--fail-if", "survival_rate <> 0.9")
    assert code == 2 and "expected a number" in doc["error"]
    code, doc = cli_json(tmp_path / "none.toml")
    assert code == 2 and doc["error"] == "batch spec: file not found"
    code, doc = cli_json(small["spec"], "--executor", "spark")
    assert code == 2 and "use local or dask" in doc["error"]
    code, doc = cli_json(small["spec"], "--resume", "--overwrite")
    assert code == 2
    bad = cli(tmp_path / "none.toml")
    assert bad.exit_code == 2 and "file not found" in bad.stderr


@pytest.mark.slow
def test_retries_turn_a_crash_into_an_error_row_then_a_result(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    register_fake(monkeypatch, "crash", "ok")
    write_configs(tmp_path / "configs")
    spec = write_spec(tmp_path, 'configs = ["configs/shrine.json"]\nseeds = [1, 2]\nengines = ["fake"]\n'
                                'retries = 1\noutput = "out"\n')
    code, doc = cli_json(spec, "--workers", "2")  # engine units run in the thread pool
    assert code == 0, doc
    assert doc["counts"]["retried"] == 2 and doc["counts"]["completed"] == 2
    table = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert list(zip(table["seed"], table["attempt"], table["status"], table["final"])) == [
        (1, 1, "error", False), (1, 2, "completed", True), (2, 1, "error", False), (2, 2, "completed", True)]
    assert set(table["error_kind"].dropna()) == {"crashed"}
    assert "exit code 139" in table["error_message"].dropna().iloc[0]
    # each attempt keeps its own request, log and telemetry
    cell = table["cell_id"].iloc[0]
    assert (tmp_path / "out" / "runs" / cell / "a1" / "run.log").is_file()
    assert (tmp_path / "out" / "runs" / cell / "a2" / "telemetry.json").is_file()


@pytest.mark.slow
def test_bad_telemetry_exhausts_retries_and_exits_9(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    register_fake(monkeypatch, "garbage")
    write_configs(tmp_path / "configs")
    spec = write_spec(tmp_path, 'configs = ["configs/shrine.json"]\nseeds = [1]\nengines = ["fake"]\n'
                                'retries = 1\noutput = "out"\n')
    code, doc = cli_json(spec, "--workers", "1")
    assert code == 9
    assert doc["counts"]["error"] == 1 and doc["counts"]["rows"] == 2
    rows = res.read_log(tmp_path / "out" / "results.jsonl")
    assert [(r["attempt"], r["status"], r["error_kind"]) for r in rows] == [
        (1, "error", "bad_telemetry"), (2, "error", "bad_telemetry")]
    assert doc["summary"][0]["metrics"]["errors"] == 1 and doc["summary"][0]["metrics"]["survival_rate"] is None
    # a failing gate does not hide the errors: 9 wins
    code, doc = cli_json(spec, "--resume", "--workers", "1", "--fail-if", "runs < 1")
    assert code == 9 and not doc["gate"]["passed"] and doc["counts"]["rows"] == 4
    # the engine is fixed: --resume re-runs the errored cell, attempt numbers continue
    register_fake(monkeypatch, "ok")
    code, doc = cli_json(spec, "--resume", "--workers", "1")
    assert code == 0 and doc["counts"]["runs_this_time"] == 1
    table = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert list(zip(table["attempt"], table["status"], table["final"])) == [
        (1, "error", False), (2, "error", False), (3, "error", False), (4, "error", False), (5, "completed", True)]


@pytest.mark.slow
def test_a_hung_engine_times_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    register_fake(monkeypatch, "hang")
    write_configs(tmp_path / "configs")
    spec = write_spec(tmp_path, 'configs = ["configs/shrine.json"]\nengines = ["fake"]\nretries = 0\n'
                                'timeout_seconds = 1.5\noutput = "out"\n')
    code, doc = cli_json(spec, "--workers", "1")
    assert code == 9
    rows = res.read_log(tmp_path / "out" / "results.jsonl")
    assert [r["error_kind"] for r in rows] == ["timeout"]


def _interrupt_after(monkeypatch: pytest.MonkeyPatch, n: int) -> None:
    """Ctrl-C right after the n-th row reached the log."""
    original = res.ResultsLog.append
    count = {"rows": 0}

    def append(self: res.ResultsLog, row: dict[str, Any]) -> None:
        original(self, row)
        count["rows"] += 1
        if count["rows"] == n:
            raise KeyboardInterrupt

    monkeypatch.setattr(res.ResultsLog, "append", append)


def test_interruption_keeps_rows_and_resume_finishes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_configs(tmp_path / "configs")
    spec = write_spec(tmp_path, 'configs = ["configs/shrine.json"]\nseeds = {count = 5}\n'
                                'players = ["bot:average"]\noutput = "out"\n')
    with monkeypatch.context() as m:
        _interrupt_after(m, 2)
        code, doc = cli_json(spec, "--workers", "1")
    assert code == 130 and doc["interrupted"] is True
    assert doc["counts"]["rows"] == 2 and doc["counts"]["pending"] == 3
    table = pd.read_parquet(tmp_path / "out" / "results.parquet")
    log = res.read_log(tmp_path / "out" / "results.jsonl")
    assert list(table["cell_id"]) == [r["cell_id"] for r in log] and len(log) == 2
    first = table.to_dict("records")
    code, doc = cli_json(spec, "--resume", "--workers", "1")
    assert code == 0
    assert doc["counts"]["skipped_finished"] == 2 and doc["counts"]["runs_this_time"] == 3
    table = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert len(table) == 5 and list(table["seed"]) == [0, 1, 2, 3, 4]
    assert table.to_dict("records")[:2] == first  # kept, not re-run (durations included)


@pytest.mark.slow
def test_ctrl_c_ends_running_engine_processes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real interrupt of the main thread while two engines hang in the thread pool."""
    register_fake(monkeypatch, "hang")
    write_configs(tmp_path / "configs")
    spec = write_spec(tmp_path, 'configs = ["configs/shrine.json"]\nseeds = [1, 2]\nengines = ["fake"]\n'
                                'timeout_seconds = 120\noutput = "out"\n')
    runs = tmp_path / "out" / "runs"

    def interrupt_when_started() -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and len(list(runs.glob("*/a1/child.pid"))) < 2:
            time.sleep(0.05)
        _thread.interrupt_main()

    threading.Thread(target=interrupt_when_started, daemon=True).start()
    started = time.monotonic()
    resolved = load_batch(spec)
    outcome = run_job(resolved, workers=2)
    assert outcome.exit_code == 130 and outcome.interrupted
    assert time.monotonic() - started < 60
    pid_files = list(runs.glob("*/a1/child.pid"))
    assert len(pid_files) == 2
    for pid_file in pid_files:
        pid = int(pid_file.read_text())
        assert wait_gone(pid), "an engine process of the interrupted batch survived"
    assert outcome.counts["rows"] == 0 and (tmp_path / "out" / "results.parquet").is_file()




@pytest.mark.slow
def test_ctrl_c_cancels_queued_cells_before_ending_engines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two workers, six hanging cells: after Ctrl-C no queued cell starts, the two running
    engines are ended, and the batch returns 130 within seconds."""
    register_fake(monkeypatch, "hang")
    write_configs(tmp_path / "configs")
    spec = write_spec(tmp_path, 'configs = ["configs/shrine.json"]\nseeds = [1, 2, 3, 4, 5, 6]\nengines = ["fake"]\n'
                                'timeout_seconds = 300\noutput = "out"\n')
    runs = tmp_path / "out" / "runs"
    interrupted_at = {}

    def interrupt_when_started() -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and len(list(runs.glob("*/a1/child.pid"))) < 2:
            time.sleep(0.05)
        interrupted_at["t"] = time.monotonic()
        _thread.interrupt_main()

    threading.Thread(target=interrupt_when_started, daemon=True).start()
    outcome = run_job(load_batch(spec), workers=2)
    assert outcome.exit_code == 130 and outcome.interrupted
    assert time.monotonic() - interrupted_at["t"] < 8, "the interrupt took too long"
    time.sleep(1.0)  # a queued cell started late would show up now
    started = sorted(p.parent.parent.name for p in runs.glob("*/a1/request.json"))
    assert len(started) == 2, f"queued cells started after the interrupt: {started}"
    for pid_file in runs.glob("*/a1/child.pid"):
        assert wait_gone(int(pid_file.read_text()))
    assert outcome.counts["pending"] == 6


@pytest.mark.slow
def test_sigterm_to_gcv_batch_ends_every_engine_and_exits_130(tmp_path: Path) -> None:
    """The real CLI in a subprocess, engines whose children start their own session."""
    import signal
    import subprocess
    import sys

    write_configs(tmp_path / "configs")
    spec = write_spec(tmp_path, 'configs = ["configs/shrine.json"]\nseeds = [1, 2, 3]\nengines = ["unity"]\n'
                                'timeout_seconds = 300\noutput = "out"\n')
    fake = REPO / "tests" / "support" / "fakes" / "fake_player.sh"
    env = dict(os.environ, GCV_UNITY_PLAYER=str(fake), GCV_FAKE_MODE="setsid_child", GCV_FAKE_ENGINE="unity",
               GCV_FAKE_PYTHON=sys.executable, PYTHONPATH=str(REPO), GCV_HOME=str(tmp_path / "ws"))
    proc = subprocess.Popen([sys.executable, "-c", "from gcv.cli.app import main; main()", "batch", str(spec),
                             "--workers", "2", "--json"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=tmp_path)
    runs = tmp_path / "out" / "runs"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(list(runs.glob("*/a1/child.pid"))) < 2:
        time.sleep(0.05)
    pids = [int(p.read_text()) for p in runs.glob("*/a1/child.pid")]
    assert len(pids) == 2
    sent = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err.decode()[-2000:]
    assert time.monotonic() - sent < 10
    assert json.loads(out)["interrupted"] is True
    for pid in pids:
        assert wait_gone(pid), "a grandchild in its own session survived SIGTERM"
    assert len(list(runs.glob("*/a1/request.json"))) == 2


@pytest.mark.slow
def test_two_local_workers_give_the_same_rows(tmp_path: Path) -> None:
    write_configs(tmp_path / "configs")
    text = 'configs = ["configs/shrine.json"]\nseeds = {count = 4}\nplayers = ["bot:novice"]\noutput = "{out}"\n'
    one = run_job(load_batch(write_spec(tmp_path, text.replace("{out}", "one"), "one.toml")), workers=1)
    two = run_job(load_batch(write_spec(tmp_path, text.replace("{out}", "two"), "two.toml")), workers=2)
    assert one.exit_code == two.exit_code == 0
    assert [res.figures(r) for r in one.rows] == [res.figures(r) for r in two.rows]
    assert one.summary == two.summary


@pytest.mark.slow
def test_resume_keeps_every_valid_row_around_a_garbage_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_configs(tmp_path / "configs")
    spec = write_spec(tmp_path, 'configs = ["configs/shrine.json"]\nseeds = {count = 4}\n'
                                'players = ["bot:average"]\noutput = "out"\n')
    with monkeypatch.context() as m:
        _interrupt_after(m, 3)
        code, _ = cli_json(spec, "--workers", "1")
    assert code == 130
    log_path = tmp_path / "out" / "results.jsonl"
    lines = log_path.read_bytes().splitlines(keepends=True)
    assert len(lines) == 3
    damaged = lines[0] + b'{"not a row": tru\n' + lines[1] + lines[2]  # garbage in the middle
    log_path.write_bytes(damaged)
    skipped: list[int] = []
    assert [r["seed"] for r in res.read_log(log_path, skipped=skipped)] == [0, 1, 2] and skipped == [2]
    assert log_path.read_bytes() == damaged  # reading never deletes anything
    code, doc = cli_json(spec, "--resume", "--workers", "1")
    assert code == 0 and doc["counts"]["skipped_finished"] == 3 and doc["counts"]["runs_this_time"] == 1
    assert [r["seed"] for r in res.read_log(log_path)] == [0, 1, 2, 3]


@pytest.mark.slow
def test_the_batch_reports_the_minimum_safe_area_per_config(tmp_path: Path) -> None:
    write_configs(tmp_path / "configs")
    spec = write_spec(tmp_path, 'configs = ["configs/shrine.json"]\nseeds = [3]\nfair_fight = true\noutput = "out"\n')
    code, doc = cli_json(spec, "--workers", "1")
    assert code == 0, doc
    (fair,) = doc["fair_fight"]
    assert fair["verdict"] == "fair" and fair["seed"] == 3
    assert 0 < fair["min_safe_area_percent"] <= 100 and fair["tightest_phase_id"].startswith("phase_")
    assert [p["phase_id"] for p in fair["phases"]] == ["phase_1", "phase_2", "phase_3"]
    human = cli(spec, "--workers", "1", "--resume")
    assert "fair fight shrine: fair; min safe area" in human.output
