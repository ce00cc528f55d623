"""Helpers shared by the batch tests: configs on disk, spec files, a misbehaving engine."""

from __future__ import annotations

import copy
import functools
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
import typer

from engine_runners.base import Capabilities, EnvironmentStatus, SubprocessRunner
from engine_runners.protocol import RunRequest
from engine_runners.python_sim import PythonSimRunner

REPO = Path(__file__).resolve().parents[2]
BASELINE_PATH = REPO / "artifacts" / "baselines" / "shrine_trial.json"
FAKE = Path(__file__).parent / "fakes" / "fake_engine.py"


def dense_config() -> dict[str, Any]:
    """The baseline with twice the bullets per wave: the scripted player dies, bots live."""
    data = copy.deepcopy(json.loads(BASELINE_PATH.read_text(encoding="utf-8")))
    data["name"] = "Shrine Trial (dense)"
    for phase in data["phases"]:
        phase["pattern"]["bullets_per_wave"] *= 2
    return data


def write_configs(directory: Path) -> tuple[Path, Path]:
    directory.mkdir(parents=True, exist_ok=True)
    base = directory / "shrine.json"
    dense = directory / "dense.json"
    base.write_text(BASELINE_PATH.read_text(encoding="utf-8"), encoding="utf-8")
    dense.write_text(json.dumps(dense_config(), indent=1), encoding="utf-8")
    return base, dense


def write_spec(directory: Path, text: str, name: str = "batch.toml") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path


class FakeRunner(SubprocessRunner):
    """tests/support/fakes/fake_engine.py behind the real supervision. ``modes[i]`` is the mode of
    attempt i + 1 (the attempt is read from the request's output folder, ``.../a<N>``); the
    last mode repeats."""

    name = "fake"
    startup_timeout = 5.0

    def __init__(self, modes: tuple[str, ...] = ("ok",)) -> None:
        self.modes = modes

    def command(self, request_path: Path, request: RunRequest) -> list[str]:
        attempt = int(Path(request.output_dir).name.lstrip("a") or 1)
        mode = self.modes[min(attempt, len(self.modes)) - 1]
        return [sys.executable, str(FAKE), mode, str(request_path)]

    def environment(self) -> dict[str, str]:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(REPO)
        return env

    def check(self) -> EnvironmentStatus:
        return EnvironmentStatus("fake", "available", "test double")

    def capabilities(self) -> Capabilities:
        return Capabilities(False, False, True, "python", "fake")


def register_fake(monkeypatch: pytest.MonkeyPatch, *modes: str) -> None:
    """Make engine ``fake`` exist in the registry for this test only."""
    import engine_runners.registry as registry

    factories = {"python-sim": PythonSimRunner, "fake": functools.partial(FakeRunner, tuple(modes) or ("ok",))}
    monkeypatch.setattr(registry, "_factories", lambda: dict(factories))


def batch_app() -> typer.Typer:
    """A Typer app with the batch command only, as `gcv` mounts it (for CliRunner)."""
    from gcv.cli.commands import batch_cmds  # the CLI layer, only for the tests that drive it

    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)

    @app.callback()
    def _root() -> None:
        """gcv (test app: the batch command only)."""

    app.add_typer(batch_cmds.app)
    return app
