"""The UE5 runner's configuration (engine_runners.ue5): the mode the operator's variables select,
which binaries are editors, and where the GcvBridge plugin is found. Real runs through a fake
game and the C++ harness are in tests/engine_runners/test_engines.py."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from engine_runners.ue5 import LABELS, PROBLEMS, UE5Runner, is_editor_binary, plugin_status


@pytest.fixture(autouse=True)
def _no_unreal(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [n for n in os.environ if n.startswith("GCV_UE")]:
        monkeypatch.delenv(name)


@pytest.mark.parametrize("variables,capture,mode", [
    ({}, False, None), ({"GCV_UE_EDITOR_CMD": "/e"}, False, "commandlet"), ({"GCV_UE_GAME": "/g"}, False, "game"),
    ({"GCV_UE_HARNESS": "/h"}, False, "harness"), ({"GCV_UE_EDITOR_CMD": "/e", "GCV_UE_GAME": "/g"}, False, "commandlet"),
    ({"GCV_UE_EDITOR_CMD": "/e", "GCV_UE_GAME": "/g"}, True, "game"),  # a capture run needs the game
    ({"GCV_UE_EDITOR_CMD": "/e", "GCV_UE_MODE": "harness"}, True, "harness"),
])
def test_the_mode_follows_the_operators_variables(monkeypatch: pytest.MonkeyPatch, variables: dict[str, str],
                                                  capture: bool, mode: str | None) -> None:
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    assert UE5Runner()._mode(capture=capture) == mode
    if not capture:
        assert UE5Runner().engine_label() == (LABELS[mode] if mode else "ue5")


def test_nothing_configured_and_an_unknown_mode() -> None:
    assert UE5Runner().check().status == "not_installed"


def test_an_unknown_forced_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCV_UE_MODE", "cloud")
    assert UE5Runner().check().reason == "GCV_UE_MODE='cloud'; allowed: commandlet, game, harness"


@pytest.mark.parametrize("name,editor", [
    ("UnrealEditor", True), ("UnrealEditor-Cmd.exe", True), ("UnrealEditor-Linux-DebugGame", True),
    ("UnrealEditor-Win64-Debug-Cmd.exe", True), ("UE4Editor.exe", True), ("MyGame", False),
    ("MyGame-Linux-Shipping", False), ("UnrealEditorX", False),
])
def test_is_editor_binary(name: str, editor: bool) -> None:
    assert is_editor_binary(Path("/opt/ue/Binaries") / name) is editor


def test_plugin_status(tmp_path: Path) -> None:
    project = tmp_path / "Game.uproject"
    project.write_text(json.dumps({"Plugins": [{"Name": "GcvBridge", "Enabled": False}]}))
    assert plugin_status(project) == (False, "Game.uproject disables the GcvBridge plugin")
    project.write_text("{}")
    found, detail = plugin_status(project)
    assert found is None and detail.startswith("GcvBridge not found")
    (tmp_path / "Plugins" / "GcvBridge").mkdir(parents=True)
    (tmp_path / "Plugins" / "GcvBridge" / "GcvBridge.uplugin").write_text("{}")
    assert plugin_status(project) == (True, "GcvBridge found in the project's Plugins/ folder")
    assert plugin_status(tmp_path / "missing.uproject")[0] is None


def test_the_log_problems() -> None:
    line = "LogModuleManager: Error: Unable to load module: failed to load because module 'GcvBridge' could not be found"
    assert [p.kind for p in PROBLEMS if p.pattern.search(line)] == ["engine_setup"]
    assert [p.kind for p in PROBLEMS if p.pattern.search("Failed to initialize the RHI")] == ["no_graphics"]
