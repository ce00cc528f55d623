"""The hostile suite: the real ``gcv`` command line in subprocesses, fed what an attacker, a
broken disk or an impatient operator would feed it. Every case asserts the promise of
docs/reliability.md: one clear message, a documented exit code, no traceback, no hang."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
BASELINE = REPO_ROOT / "artifacts" / "baselines" / "shrine_trial.json"
HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every case here starts the real CLI in a subprocess (0.3-3 s each): the suite belongs to
    `make test`, not to the day-to-day `make test-fast`."""
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.slow)


# Every exit code the CLI documents (README "Exit codes"); anything else is a defect.
DOCUMENTED_EXITS = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 70, 130}


@dataclass
class Ran:
    args: list[str]
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    def json(self) -> dict[str, Any]:
        return json.loads(self.stdout)

    def clean(self, *codes: int) -> "Ran":
        """No traceback, a documented exit code (one of ``codes`` if given)."""
        assert "Traceback" not in self.stderr and "Traceback" not in self.stdout, self.stderr[-3000:]
        allowed = set(codes) if codes else DOCUMENTED_EXITS
        assert self.returncode in allowed, (self.args, self.returncode, self.stderr[-2000:], self.stdout[-1000:])
        return self


def run_gcv(args: list[str], *, home: Path, cwd: Path, timeout: float = 30, extra_env: dict[str, str] | None = None,
            preexec_fn: Callable[[], None] | None = None) -> Ran:
    """``python -m gcv.cli.app ARGS`` with ``GCV_HOME=home``; a hang fails the test at ``timeout``."""
    import time

    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GCV_SIGNING_KEY", "GCV_VERIFY_KEY", "GCV_DEBUG", "ANTHROPIC"))}
    env.update(GCV_HOME=str(home), PYTHONPATH=os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p),
               COLUMNS="200", NO_COLOR="1", GCV_NATIVE="off")
    env.update(extra_env or {})
    started = time.monotonic()
    try:
        out = subprocess.run([sys.executable, "-m", "gcv.cli.app", *args], cwd=cwd, env=env, capture_output=True,
                             text=True, errors="replace", timeout=timeout, stdin=subprocess.DEVNULL,
                             preexec_fn=preexec_fn)
    except subprocess.TimeoutExpired:
        pytest.fail(f"gcv {' '.join(args)} hung for {timeout} s")
    return Ran(args, out.returncode, out.stdout, out.stderr, time.monotonic() - started)


@pytest.fixture
def gcv(tmp_path: Path) -> Callable[..., Ran]:
    home = tmp_path / "home"

    def call(*args: str, **kwargs: Any) -> Ran:
        kwargs.setdefault("home", home)
        return run_gcv(list(args), cwd=tmp_path, **kwargs)

    return call


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "input.fifo"
    os.mkfifo(path)
    return path


def baseline_data() -> dict[str, Any]:
    return json.loads(BASELINE.read_text(encoding="utf-8"))
