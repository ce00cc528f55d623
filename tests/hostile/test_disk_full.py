"""A full disk is the environment's failure, exit 70, from every command that writes an
output, never "bad input" (exit 2). The child's file-size limit makes writes fail as on a
full disk (EFBIG), as in tests/hostile/test_workspace.py."""

from __future__ import annotations

import resource
import signal
from pathlib import Path
from typing import Callable

import pytest

from tests.hostile.conftest import BASELINE, Ran, run_gcv

REQUEST = "make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive"


def _full() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("full")
    ran = run_gcv(["run", REQUEST, "--yes", "--repair-scope", "fight", "--json"], home=root / "ws", cwd=root, timeout=120).clean(0)
    return root / "ws", ran.json()["workflow_id"]


@pytest.mark.parametrize("args", [
    ["sim", str(BASELINE), "--out", "{out}/sim"],
    ["bundle", "{wf}", "--out", "{out}/b.zip"],
    ["bundle", "{wf}", "--dir", "--out", "{out}/b"],
    ["report", "{wf}", "--out", "{out}/r.html"],
    ["schema", "export", "--dir", "{out}/schemas"],
], ids=["sim", "bundle", "bundle-dir", "report", "schema-export"])
def test_a_full_disk_is_exit_70_not_bad_input(args: list[str], finished: tuple[Path, str], tmp_path: Path) -> None:
    home, wf = finished
    argv = [a.format(wf=wf, out=tmp_path) for a in args]
    ran: Ran = run_gcv(argv, home=home, cwd=tmp_path, preexec_fn=_full, timeout=60)
    ran.clean(70)  # before: exit 2, "cannot write ..."
    assert "error:" in ran.stderr and str(tmp_path) in ran.stderr, ran.stderr[-1000:]
