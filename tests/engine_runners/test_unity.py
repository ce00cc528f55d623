"""The Unity runner's configuration (engine_runners.unity): the mode the operator's variables
select, the label it runs under, and the log lines it recognises. Real runs through a fake player
and the C# harness are in tests/engine_runners/test_engines.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine_runners.unity import LABELS, MODES, PROBLEMS, UnityRunner


@pytest.fixture(autouse=True)
def _no_unity(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [n for n in os.environ if n.startswith("GCV_UNITY") or n == "GCV_MONO"]:
        monkeypatch.delenv(name)


@pytest.mark.parametrize("variables,mode", [
    ({}, None), ({"GCV_UNITY_PLAYER": "/p"}, "player"), ({"GCV_UNITY_EDITOR": "/e"}, "editor"),
    ({"GCV_UNITY_PROJECT": "/proj"}, "editor"), ({"GCV_UNITY_HARNESS": "/h"}, "harness"),
    ({"GCV_UNITY_PLAYER": "/p", "GCV_UNITY_HARNESS": "/h"}, "player"),
    ({"GCV_UNITY_PLAYER": "/p", "GCV_UNITY_MODE": "harness"}, "harness"),
])
def test_the_mode_follows_the_operators_variables(monkeypatch: pytest.MonkeyPatch, variables: dict[str, str],
                                                  mode: str | None) -> None:
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    runner = UnityRunner()
    assert runner._mode() == mode
    assert runner.engine_label() == (LABELS[mode] if mode else "unity")


def test_nothing_configured_and_a_mode_that_does_not_exist() -> None:
    assert UnityRunner().check().status == "not_installed"
    assert MODES == ("player", "editor", "harness")


def test_a_forced_unknown_mode_is_misconfigured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCV_UNITY_MODE", "cloud")
    status = UnityRunner().check()
    assert status.status == "misconfigured" and status.reason == "GCV_UNITY_MODE='cloud'; allowed: player, editor, harness"


def test_a_missing_player_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GCV_UNITY_PLAYER", str(tmp_path / "Game.x86_64"))
    status = UnityRunner().check()
    assert status.status == "misconfigured" and status.reason.endswith("does not exist (player missing)")


def test_a_bad_rendering_flag_is_misconfigured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCV_UNITY_HARNESS", "/h")
    monkeypatch.setenv("GCV_UNITY_RENDERING", "sometimes")
    assert UnityRunner().check().status == "misconfigured"


@pytest.mark.parametrize("line,kind", [
    ("No valid Unity Editor license found. Please activate your license.", "licence"),
    ("Machine identification is invalid for current license.", "licence"),
    ("Unable to open display", "no_graphics"),
    ("Desktop is 0 x 0 @ 0 Hz", None),  # normal output of a -batchmode -nographics player
])
def test_the_log_problems(line: str, kind: str | None) -> None:
    found = [p.kind for p in PROBLEMS if p.pattern.search(line)]
    assert found == ([kind] if kind else [])
