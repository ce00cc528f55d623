"""The collector while the CLI starts (gcv/cli/startup.py): held during start-up, frozen and
back to the usual thresholds once a long command has its imports; observed in real processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_startup_imports import BASELINE, README_REQUEST, REPO

PROBE = """
import atexit, gc, json, sys
out = sys.argv.pop(1)
usual = gc.get_threshold()
atexit.register(lambda: open(out, "w").write(json.dumps(
    {"usual": usual, "threshold": gc.get_threshold(), "frozen": gc.get_freeze_count()})))
sys.argv[0] = "gcv"
from gcv.cli.entry import main
main()
"""


def collector_at_exit(tmp_path: Path, *args: str) -> tuple[int, dict]:
    out = tmp_path / "gc.json"
    env = dict(os.environ, GCV_HOME=str(tmp_path / "home"), PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", PROBE, str(out), *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    return done.returncode, json.loads(out.read_text())


def test_a_short_command_runs_with_the_collector_held(tmp_path: Path) -> None:
    code, seen = collector_at_exit(tmp_path, "validate", str(BASELINE))
    assert code == 0
    assert seen["threshold"][0] == 1_000_000 and seen["threshold"][1:] == seen["usual"][1:]
    assert seen["frozen"] == 0


@pytest.mark.slow
def test_the_workflow_collects_as_usual_after_its_imports_and_froze_the_start_up(tmp_path: Path) -> None:
    code, seen = collector_at_exit(tmp_path, "run", README_REQUEST, "--yes", "--repair-scope", "fight")
    assert code == 0
    assert seen["threshold"] == seen["usual"]
    assert seen["frozen"] > 50_000  # modules, classes and functions of the start-up


def test_hold_and_imports_done_are_idempotent_and_restore_the_thresholds() -> None:
    code = ("import gc\nusual = gc.get_threshold()\nfrom gcv.cli import startup\n"
            "startup.hold(); startup.hold()\nassert gc.get_threshold()[0] == startup.STARTUP_GEN0\n"
            "startup.imports_done(); startup.imports_done()\nassert gc.get_threshold() == usual, gc.get_threshold()\n"
            "assert gc.get_freeze_count() > 0\nprint('ok')\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "ok"
