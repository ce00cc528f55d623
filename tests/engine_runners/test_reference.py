"""engine_runners/reference.py: the loop's reference simulation picks the native core where it is
exact and gives python-sim's telemetry either way; GCV_NATIVE=off, ``native.python_only`` and a
machine without a core take the Python simulator; what the core refuses runs in Python."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest

from engine_runners import native, reference
from engine_runners.python_sim import RequestError
from engine_runners.requests import build_request
from gcv.contract.canonical import canonical_bytes
from gcv.sim.engine import Simulation
from gcv.sim.players import INPUTS_FORMAT
from tests.support.simutil import baseline_program
from tests.support.toolchains import require_native_core

INPUTS = {"kind": "inputs", "trace": {"format": INPUTS_FORMAT, "tick_hz": 60, "source": "test",
                                      "runs": [[90, 1, 0, 0], [120, 0, -1, 1], [60, -1, 1, 0]]}}
PLAYERS = [{"kind": "scripted"}, {"kind": "bot", "skill": "novice"}, {"kind": "bot", "skill": "expert"}, INPUTS]


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv(native.MODE_ENV, raising=False)
    native.reset()
    yield
    native.reset()


def _request(player: dict[str, Any], program: dict[str, Any] | None = None, seed: int = 7) -> Any:
    return build_request(program or baseline_program(), seed=seed, player=player, output_dir="runs/x", run_id="wf-x-ref")


@pytest.mark.toolchain
@pytest.mark.parametrize("player", PLAYERS, ids=lambda p: p.get("skill", p["kind"]))
def test_the_native_path_gives_python_sims_telemetry_bit_for_bit(fresh: None, player: dict[str, Any]) -> None:
    require_native_core()
    request = _request(player)
    fast, path = reference.run_request(request)
    slow, slow_path = reference.run_request(request, python=True)
    assert (path, slow_path) == ("native", "python")
    assert fast == slow and canonical_bytes(fast) == canonical_bytes(slow)
    assert json.dumps(fast, sort_keys=True) == json.dumps(slow, sort_keys=True)  # same types too (1 is not 1.0)
    assert fast["run_id"] == "wf-x-ref" and fast["player"] == request.player_label
    assert "wall_time_ms" not in fast


@pytest.mark.toolchain
def test_telemetry_replays_an_inputs_trace_as_the_simulator_does(fresh: None) -> None:
    require_native_core()
    program = baseline_program()
    got = reference.telemetry(program, INPUTS, 11)
    assert got == Simulation(program, INPUTS).run(seed=11).telemetry


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = native.NativeProgram.run_bytes

    def counted(self: native.NativeProgram, *a: Any, **k: Any) -> bytes:
        calls.append(1)
        return real(self, *a, **k)

    monkeypatch.setattr(native.NativeProgram, "run_bytes", counted)
    return calls


@pytest.mark.toolchain
def test_off_and_python_only_take_the_python_simulator(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    require_native_core()
    calls = _counting(monkeypatch)
    request = _request({"kind": "scripted"})
    with native.python_only():
        assert reference.run_request(request)[1] == "python"
        assert native.status(build=True).path == "python"
    assert reference.run_request(request)[1] == "native" and len(calls) == 1
    monkeypatch.setenv(native.MODE_ENV, "off")
    assert reference.run_request(request)[1] == "python"
    assert reference.telemetry(request.program, {"kind": "scripted"}, 7)["state_hash"]
    assert len(calls) == 1  # nothing more reached the core


def test_without_a_core_the_python_simulator_runs(fresh: None, monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    monkeypatch.setenv("CXX", "g++-that-does-not-exist")
    monkeypatch.setenv(native.CACHE_ENV, str(tmp_path / "empty-cache"))
    request = _request({"kind": "scripted"})
    telemetry, path = reference.run_request(request)
    assert path == "python"
    assert telemetry == reference.run_request(request, python=True)[0]
    monkeypatch.setenv(native.MODE_ENV, "require")
    native.reset()
    with pytest.raises(native.NativeUnavailable, match="GCV_NATIVE=require"):
        reference.run_request(request)


@pytest.mark.toolchain
def test_a_program_beyond_the_cores_bounds_runs_in_python_unless_required(fresh: None,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A run request cannot carry such a program (its model holds the core's bounds); a program
    handed to ``telemetry`` (the fair-fight analysis compiles its own) can."""
    require_native_core()
    calls = _counting(monkeypatch)
    program = baseline_program()
    program["boss"]["x"] = 1 << 29  # allowed by python-sim, beyond the core's 2^28
    assert reference.telemetry(program, INPUTS, 7) == Simulation(program, INPUTS).run(seed=7).telemetry
    assert not calls
    monkeypatch.setenv(native.MODE_ENV, "require")
    with pytest.raises(native.NativeProgramRefused):
        reference.telemetry(program, INPUTS, 7)


@pytest.mark.parametrize("python", [False, True])
def test_a_request_whose_hashes_do_not_match_is_refused_on_either_path(fresh: None, python: bool) -> None:
    request = _request({"kind": "scripted"})
    forged = request.model_copy(update={"program_hash": "0" * 64})
    with pytest.raises(RequestError, match="program_hash does not match"):
        reference.run_request(forged, python=python)
    forged = request.model_copy(update={"config_hash": "1" * 64})
    with pytest.raises(RequestError, match="config_hash does not match"):
        reference.run_request(forged, python=python)
