"""A broken environment or workspace is one line and a documented exit code; corruption is
refused (never repaired by truncation); one writer per workflow (docs/reliability.md)."""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import sqlite3
from pathlib import Path
from typing import Callable

import pytest

from gcv.store.locks import WorkflowLock
from tests.hostile.conftest import BASELINE, Ran, run_gcv

REQUEST = "make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A workspace holding one finished workflow, made by the real CLI."""
    root = tmp_path_factory.mktemp("template")
    ran = run_gcv(["run", REQUEST, "--yes", "--repair-scope", "fight", "--json"], home=root / "ws", cwd=root, timeout=120).clean(0)
    return root / "ws", ran.json()["workflow_id"]


@pytest.fixture
def ws(template: tuple[Path, str], tmp_path: Path) -> tuple[Path, str]:
    home = tmp_path / "ws"
    shutil.copytree(template[0], home)
    return home, template[1]


def _one_error_line(ran: Ran, code: int, *needles: str) -> str:
    ran.clean(code)
    lines = [line for line in ran.stderr.splitlines() if line.startswith("error:")]
    assert lines, ran.stderr
    text = " ".join(ran.stderr.split())
    for needle in needles:
        assert needle in text, text
    return text


@pytest.mark.parametrize("kind", ["a file", "under a file", "on a read-only file system"])
def test_an_unusable_gcv_home_is_one_line_and_exit_70(kind: str, gcv: Callable[..., Ran], tmp_path: Path) -> None:
    if kind == "a file":
        home = tmp_path / "home"
        home.write_text("not a folder")
    elif kind == "under a file":
        home = Path("/dev/null/gcv")
    else:
        home = Path("/proc/gcv-home")  # procfs refuses new folders, even to root
    for args in (["list"], ["run", REQUEST, "--yes", "--repair-scope", "fight"]):
        _one_error_line(gcv(*args, home=home), 70, str(home))  # main: a StoreError traceback, exit 1
    # sim names the output folder it cannot prepare (exit 2, like fair's unusable --out)
    _one_error_line(gcv("sim", str(BASELINE), home=home), 2, str(home))
    ran = gcv("list", "--json", home=home).clean(70)
    assert ran.json()["exit_code"] == 70 and str(home) in ran.json()["error"]


@pytest.mark.parametrize("damage", ["garbage", "a directory"])
def test_a_corrupt_catalog_is_one_line_that_names_reindex(damage: str, gcv: Callable[..., Ran],
                                                          ws: tuple[Path, str]) -> None:
    home, wf = ws
    catalog = home / "catalog.sqlite"
    catalog.unlink()
    if damage == "garbage":
        catalog.write_bytes(b"this is not an SQLite database" * 100)
    else:
        catalog.mkdir()
    for args in (["list"], ["status", wf], ["run", REQUEST, "--yes", "--repair-scope", "fight"]):
        _one_error_line(gcv(*args, home=home), 70, "catalog")  # main: a traceback
    if damage == "garbage":
        catalog.unlink()
        gcv("reindex", home=home).clean(0)  # the folders rebuild the index
        assert wf in gcv("list", home=home).stdout


@pytest.mark.parametrize("damage", ["missing", "corrupt"])
def test_a_missing_or_corrupt_artifact_is_exit_2_from_every_command(damage: str, gcv: Callable[..., Ran],
                                                                    ws: tuple[Path, str]) -> None:
    """The same code whichever command finds the damage, and however deep (status reads the
    artifact while printing, resume while writing the evidence; they used to exit 70)."""
    home, wf = ws
    for artifact in sorted((home / "workflows" / wf / "artifacts").iterdir()):
        if damage == "missing":
            artifact.unlink()
        else:
            artifact.write_bytes(b"{}")
    needle = "is missing from" if damage == "missing" else "is corrupted (its hash does not match)"
    for args in (["status", wf], ["bundle", wf], ["report", wf], ["resume", wf]):
        _one_error_line(gcv(*args, home=home), 2, "artifact", needle)
    doc = gcv("resume", wf, "--json", home=home).clean(2).json()  # one object on stdout
    assert doc["exit_code"] == 2 and "artifact" in doc["error"] and doc["kind"] == "input"


def test_evidence_that_cannot_be_written_for_a_damaged_record_is_exit_2_and_says_so(
        gcv: Callable[..., Ran], ws: tuple[Path, str]) -> None:
    """Only the baseline's telemetry damaged: the summary still reads, the evidence cannot be
    written; the passing workflow must not look like a success, and the code is the damage's."""
    home, wf = ws
    d = home / "workflows" / wf
    digest = json.loads((d / "state.json").read_text())["baseline_run"]["telemetry_hash"]
    (d / "artifacts" / f"{digest}.json").unlink()
    doc = gcv("resume", wf, "--json", home=home).clean(2).json()
    assert (doc["status"], doc["exit_code"], doc["evidence_written"]) == ("evidence_ready", 2, False)


def test_a_truncated_state_is_refused_by_every_command(gcv: Callable[..., Ran], ws: tuple[Path, str]) -> None:
    home, wf = ws
    state = home / "workflows" / wf / "state.json"
    state.write_bytes(state.read_bytes()[:100])
    for args in (["status", wf], ["resume", wf], ["bundle", wf], ["decide", wf, "accept", "--actor", "a", "--note", "n"]):
        _one_error_line(gcv(*args, home=home), 2, "state.json")
    assert len(state.read_bytes()) == 100  # refused, not "repaired"


def test_a_non_event_line_makes_every_writing_command_refuse_with_its_line(gcv: Callable[..., Ran],
                                                                          ws: tuple[Path, str]) -> None:
    home, wf = ws
    events = home / "workflows" / wf / "events.jsonl"
    lines = events.read_bytes().splitlines(keepends=True)
    lines[1] = b'{"hello": 1}\n'
    events.write_bytes(b"".join(lines))
    before = events.read_bytes()
    for args in (["resume", wf], ["decide", wf, "accept", "--actor", "a", "--note", "n"], ["bundle", wf]):
        _one_error_line(gcv(*args, home=home), 2, "events.jsonl line 2")
    assert events.read_bytes() == before  # nothing truncated, nothing appended


def _disk_full_after(limit: int) -> Callable[[], None]:
    def apply() -> None:  # in the child: writes beyond `limit` bytes fail with EFBIG, as on a full disk
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


@pytest.mark.slow
def test_a_full_disk_is_one_line_and_a_later_resume_completes(ws: tuple[Path, str], tmp_path: Path) -> None:
    home, _ = ws
    for limit in (0, 3000):
        before = set((home / "workflows").iterdir())
        ran = run_gcv(["run", REQUEST, "--yes", "--repair-scope", "fight"], home=home, cwd=tmp_path, preexec_fn=_disk_full_after(limit),
                      timeout=120)
        _one_error_line(ran, 70)  # main: an OSError / StoreError traceback
    # the second run's folder (ids made in the same second sort by their random part, not by time)
    created = sorted(set((home / "workflows").iterdir()) - before)
    assert created, "the second run got far enough to create its workflow"
    wf = created[-1].name
    run_gcv(["reindex"], home=home, cwd=tmp_path, timeout=60).clean(0)
    # the interrupted step is redone: the proposal again, then a person authorizes, then the runs
    ran = run_gcv(["resume", wf, "--json"], home=home, cwd=tmp_path, timeout=120).clean(7)
    run_gcv(["authorize", wf, "--actor", "ops", "--repair-scope", "fight"], home=home, cwd=tmp_path, timeout=60).clean(0)
    ran = run_gcv(["resume", wf, "--json"], home=home, cwd=tmp_path, timeout=120).clean()
    assert ran.json()["status"] in ("evidence_ready", "budget_exhausted", "blocked", "failed"), ran.json()


def test_a_second_writer_is_refused_at_once_with_the_holders_pid(gcv: Callable[..., Ran], ws: tuple[Path, str]) -> None:
    home, wf = ws
    events = home / "workflows" / wf / "events.jsonl"
    before = events.read_bytes()
    with WorkflowLock(home / "workflows" / wf, wf):  # this test process is the first writer
        for args in (["resume", wf, "--json"], ["decide", wf, "accept", "--actor", "a", "--note", "n", "--json"]):
            ran = gcv(*args, home=home, timeout=20).clean(2)
            assert f"in use by PID {os.getpid()}" in ran.json()["error"], ran.json()
            assert ran.seconds < 10
    assert events.read_bytes() == before


@pytest.mark.slow
def test_ctrl_c_exits_130_without_a_traceback(tmp_path: Path) -> None:
    import subprocess
    import sys
    import time

    from tests.hostile.conftest import REPO_ROOT

    rows = [json.loads(line) for line in (REPO_ROOT / "artifacts" / "requests" / "dev.jsonl").read_text().splitlines()
            if line.strip()]
    many = tmp_path / "many.jsonl"  # long enough to be interrupted in the middle
    many.write_text("".join(json.dumps({**row, "id": f"{row['id']}-{n}"}) + "\n" for n in range(20) for row in rows))
    env = dict(os.environ, GCV_HOME=str(tmp_path / "home"), PYTHONPATH=str(REPO_ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "gcv.cli.app", "eval-requests", str(many)], env=env, cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(3)
    assert proc.poll() is None, "finished before the interrupt"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, (proc.returncode, err[-2000:])
    assert "Traceback" not in err
