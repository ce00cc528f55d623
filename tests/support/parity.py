"""Shared machinery of the C# and C++ parity tests: run a harness as a real subprocess,
check the protocol lines, and, on a mismatch, name the first diverging tick and state field.
"""

from __future__ import annotations

import copy
import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest

from engine_runners.protocol import DONE_PREFIX, PROTOCOL_ID, parse_handshake
from gcv.sim.engine import Simulation, _signed64
from gcv.sim.players import player_label
from gcv.sim.program import program_hash
from gcv.sim.telemetry import gameplay_view

RUN_TIMEOUT = 120
STATE_FIELDS = ("tick", "px", "py", "health", "invuln_until", "boss_health", "phase_index",
                "wave_index", "next_wave_tick", "rng_state", "bot_move", "bot_next_decision",
                "spawned", "hits", "grazes", "bullet_count", "X", "Y", "VX", "VY", "DEATH", "PH", "GR")


class HarnessRun:
    def __init__(self, proc: subprocess.CompletedProcess[str], out_dir: Path) -> None:
        self.proc = proc
        self.out_dir = out_dir
        self.lines = proc.stdout.splitlines()

    @property
    def code(self) -> int:
        return self.proc.returncode

    @property
    def telemetry(self) -> dict[str, Any]:
        return json.loads((self.out_dir / "telemetry.json").read_text(encoding="utf-8"))

    def handshake(self) -> dict[str, Any]:
        assert self.lines, f"no stdout at all; stderr: {self.proc.stderr}"
        payload = parse_handshake(self.lines[0])
        assert payload is not None, f"first stdout line is not a handshake: {self.lines[0]!r}"
        return payload

    def tagged(self, prefix: str) -> list[dict[str, Any]]:
        return [json.loads(line[len(prefix):]) for line in self.lines if line.startswith(prefix)]


def make_request(program: dict[str, Any], seed: int, player: dict[str, Any], out_dir: Path,
                 run_id: str = "parity") -> dict[str, Any]:
    return {
        "run_request": "gcv.run_request/1", "run_id": run_id, "program": program,
        "program_hash": program_hash(program), "config_hash": program["config_hash"], "seed": seed,
        "player": player, "player_label": player_label(player), "capture_ticks": [],
        "output_dir": str(out_dir),
    }


def differing_fields(expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    return [k for k in sorted(set(expected) | set(actual)) if expected.get(k) != actual.get(k)]


def python_state_after(program: dict[str, Any], player: dict[str, Any], seed: int, tick: int) -> dict[str, Any]:
    """Python's hashed state once tick ``tick`` has been simulated (or the fight ended)."""
    sim = Simulation(program, player)
    sim.reset(seed=seed)
    while True:
        more = sim.step()
        if sim.tick - 1 >= tick or not more:
            break
    state: dict[str, Any] = {
        "tick": sim.tick, "px": sim.px, "py": sim.py, "health": sim.health,
        "invuln_until": sim.invuln_until, "boss_health": sim.boss_health,
        "phase_index": sim.phase_index, "wave_index": sim.wave_index,
        "next_wave_tick": sim.next_wave_tick, "rng_state": _signed64(sim.rng.state),
        "bot_move": sim.bot_move, "bot_next_decision": sim.bot_next_decision,
        "spawned": sim.spawned, "hits": sim.hits, "grazes": sim.grazes, "bullet_count": int(sim.VX.size),
    }
    for name in ("X", "Y", "VX", "VY", "DEATH", "PH", "GR"):
        state[name] = [int(v) for v in getattr(sim, name)]
    return state


@dataclass(frozen=True)
class HarnessKind:
    """One engine core's harness: how to call it and how to ask it for a state dump."""

    label: str  # "cpp" or "csharp", used in messages
    engine_name: str
    command: Callable[[Path, Path], list[str]]
    state_args: Callable[[int], list[str]]

    def run(self, exe: Path, request: dict[str, Any], out_dir: Path, *extra: str) -> HarnessRun:
        out_dir.mkdir(parents=True, exist_ok=True)
        request = dict(request)
        request.setdefault("output_dir", str(out_dir))
        req_path = out_dir / "request.json"
        req_path.write_text(json.dumps(request), encoding="utf-8")
        proc = subprocess.run(self.command(exe, req_path) + list(extra), capture_output=True, text=True,
                              timeout=RUN_TIMEOUT, stdin=subprocess.DEVNULL)
        return HarnessRun(proc, out_dir)

    def assert_protocol_ok(self, run: HarnessRun, run_id: str) -> None:
        assert run.code == 0, f"exit code {run.code}; stderr:\n{run.proc.stderr}"
        assert run.handshake() == {"engine": self.engine_name, "protocol": PROTOCOL_ID, "run_id": run_id,
                                   "version": "0.1.0"}
        last = run.lines[-1]
        assert last.startswith(DONE_PREFIX), f"last stdout line is not GCV-DONE: {last!r}"
        done = json.loads(last[len(DONE_PREFIX):])
        assert done == {"status": run.telemetry["status"], "telemetry": "telemetry.json"}
        assert not (run.out_dir / "telemetry.json.tmp").exists()

    def assert_matches_python(self, exe: Path, program: dict[str, Any], player: dict[str, Any], seed: int,
                              work: Path, name: str) -> None:
        """One run of ``program`` equals the reference's gameplay figures, else fail naming the
        first diverging tick and state field."""
        expected = gameplay_view(Simulation(program, player).run(seed=seed).telemetry)
        run = self.run(exe, make_request(program, seed, player, work), work)
        self.assert_protocol_ok(run, "parity")
        diff = differing_fields(expected, gameplay_view(run.telemetry))
        if diff:
            report = self.divergence_report(exe, program, player, seed, work / "report")
            pytest.fail(f"{name}: {self.label} and Python disagree on {diff}; {report}")

    def first_state_difference(self, py_state: dict[str, Any], other: dict[str, Any]) -> str | None:
        """Name the first field (in state-hash order) where two state dumps differ."""
        for name in STATE_FIELDS:
            a, b = py_state.get(name), other.get(name)
            if a == b:
                continue
            if isinstance(a, list) and isinstance(b, list):
                for i, (x, y) in enumerate(zip(a, b)):
                    if x != y:
                        return f"{name}[{i}]: python {x}, {self.label} {y}"
                return f"{name}: python has {len(a)} entries, {self.label} {len(b)}"
            return f"{name}: python {a}, {self.label} {b}"
        return None

    def divergence_report(self, exe: Path, program: dict[str, Any], player: dict[str, Any], seed: int,
                          work: Path) -> str:
        """Re-run both sides hashing every tick; name the first diverging tick and state field."""
        fine = copy.deepcopy(program)
        fine["state_hash_interval"] = 1  # make_request recomputes the program hash
        py_hashes = Simulation(fine, player).run(seed=seed).telemetry["state_hashes"]
        run = self.run(exe, make_request(fine, seed, player, work / "fine"), work / "fine")
        if run.code != 0:
            return f"fine-grained harness run failed (exit {run.code}): {run.proc.stderr.strip()}"
        other = run.telemetry["state_hashes"]
        tick = next((i for i, (a, b) in enumerate(zip(py_hashes, other)) if a != b), None)
        if tick is None:
            if len(py_hashes) == len(other):
                return "state hashes agree on every tick (the difference is in the statistics only)"
            tick = min(len(py_hashes), len(other))
        dump = self.run(exe, make_request(fine, seed, player, work / "dump"), work / "dump",
                        *self.state_args(tick))
        states = dump.tagged("GCV-STATE ")
        py_state = python_state_after(fine, player, seed, tick)
        field = self.first_state_difference(py_state, states[0]) if states else "(no GCV-STATE line)"
        return f"first diverging tick: {tick}; first differing state field: {field}"


def _cpp_kind() -> HarnessKind:
    from engine_runners.harness_cpp import cpp_harness_command

    return HarnessKind("cpp", "ue5-harness", cpp_harness_command, lambda tick: [f"-GcvStateAt={tick}"])


def _csharp_kind() -> HarnessKind:
    from engine_runners.harness_csharp import csharp_harness_command

    return HarnessKind("csharp", "unity-harness", csharp_harness_command, lambda tick: ["-gcvStateAt", str(tick)])


CPP = _cpp_kind()
CSHARP = _csharp_kind()
