"""Which engines exist (engine_runners.registry): python-sim, unity and ue5, configured only by
the operator."""

from __future__ import annotations

import os

import pytest

from engine_runners.python_sim import PythonSimRunner
from engine_runners.registry import UnknownEngineError, all_runners, get_runner, runner_names, unavailable_reason
from engine_runners.ue5 import UE5Runner
from engine_runners.unity import UnityRunner


def test_the_three_engines() -> None:
    assert runner_names() == ["python-sim", "unity", "ue5"]
    assert [type(r) for r in all_runners()] == [PythonSimRunner, UnityRunner, UE5Runner]
    assert isinstance(get_runner("unity"), UnityRunner)


def test_an_unknown_engine_names_the_known_ones() -> None:
    with pytest.raises(UnknownEngineError, match="unknown engine 'godot'; available: python-sim, unity, ue5"):
        get_runner("godot")


def test_unavailable_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    assert unavailable_reason("python-sim") is None
    for var in [name for name in os.environ if name.startswith("GCV_UNITY")]:
        monkeypatch.delenv(var)
    reason = unavailable_reason("unity")
    assert reason is not None and reason.startswith("engine unity is ")
