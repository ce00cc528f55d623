"""Bit-for-bit parity of the C# port (unity_project/Assets/Gcv/Core) with the Python reference.

The C# core is compiled with Mono's mcs into the console harness (the same RunProtocol
class the Unity player uses) and run as a real subprocess, once per golden vector and on
random valid configs x seeds x players. Needs mcs + mono; skipped with a reason when they
are missing, unless GCV_REQUIRE_TOOLCHAINS=1 (then the tests fail).
"""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine_runners.harness_csharp import (build_csharp_harness, csharp_harness_bench_command,
                                           csharp_harness_command, toolchain_status)
from engine_runners.protocol import DONE_PREFIX, PROTOCOL_ID, parse_handshake
from gcv.sim.engine import Simulation, _signed64
from gcv.sim.players import player_label
from gcv.sim.program import compile_program, program_hash
from gcv.sim.telemetry import gameplay_view
from gcv.sim.telemetry_model import Telemetry
from tests.simutil import VECTORS, load_vector
from tests.strategies import valid_configs

ENGINE_NAME = "unity-harness"
RUN_TIMEOUT = 120
STATE_FIELDS = ("tick", "px", "py", "health", "invuln_until", "boss_health", "phase_index",
                "wave_index", "next_wave_tick", "rng_state", "bot_move", "bot_next_decision",
                "spawned", "hits", "grazes", "bullet_count", "X", "Y", "VX", "VY", "DEATH", "PH", "GR")


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ok, reason = toolchain_status()
    if not ok:
        if os.environ.get("GCV_REQUIRE_TOOLCHAINS") == "1":
            pytest.fail(f"GCV_REQUIRE_TOOLCHAINS=1 but the C# toolchain is missing: {reason}")
        pytest.skip(f"C# harness toolchain missing: {reason}")
    return build_csharp_harness(tmp_path_factory.mktemp("csharp-harness"))


# ---------------------------------------------------------------------------- helpers
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


def run_harness(exe: Path, request: dict[str, Any], out_dir: Path, *extra: str) -> HarnessRun:
    out_dir.mkdir(parents=True, exist_ok=True)
    request = dict(request)
    request.setdefault("output_dir", str(out_dir))
    req_path = out_dir / "request.json"
    req_path.write_text(json.dumps(request), encoding="utf-8")
    cmd = csharp_harness_command(exe, req_path) + list(extra)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=RUN_TIMEOUT)
    return HarnessRun(proc, out_dir)


def make_request(program: dict[str, Any], seed: int, player: dict[str, Any], out_dir: Path,
                 run_id: str = "parity") -> dict[str, Any]:
    return {
        "run_request": "gcv.run_request/1",
        "run_id": run_id,
        "program": program,
        "program_hash": program_hash(program),
        "config_hash": program["config_hash"],
        "seed": seed,
        "player": player,
        "player_label": player_label(player),
        "capture_ticks": [],
        "output_dir": str(out_dir),
    }


def assert_protocol_ok(run: HarnessRun, run_id: str) -> None:
    assert run.code == 0, f"exit code {run.code}; stderr:\n{run.proc.stderr}"
    hs = run.handshake()
    assert hs == {"engine": ENGINE_NAME, "protocol": PROTOCOL_ID, "run_id": run_id, "version": "0.1.0"}
    last = run.lines[-1]
    assert last.startswith(DONE_PREFIX), f"last stdout line is not GCV-DONE: {last!r}"
    done = json.loads(last[len(DONE_PREFIX):])
    assert done == {"status": run.telemetry["status"], "telemetry": "telemetry.json"}
    assert not (run.out_dir / "telemetry.json.tmp").exists()


def python_state_after(program: dict[str, Any], player: dict[str, Any], seed: int, tick: int) -> dict[str, Any]:
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
        "spawned": sim.spawned, "hits": sim.hits, "grazes": sim.grazes, "bullet_count": int(sim.X.size),
    }
    for name in ("X", "Y", "VX", "VY", "DEATH", "PH", "GR"):
        state[name] = [int(v) for v in getattr(sim, name)]
    return state


def first_state_difference(py_state: dict[str, Any], cs_state: dict[str, Any]) -> str | None:
    """Name the first field (in state-hash order) where two state dumps differ."""
    for name in STATE_FIELDS:
        a, b = py_state.get(name), cs_state.get(name)
        if a == b:
            continue
        if isinstance(a, list) and isinstance(b, list):
            for i, (x, y) in enumerate(zip(a, b)):
                if x != y:
                    return f"{name}[{i}]: python {x}, csharp {y}"
            return f"{name}: python has {len(a)} entries, csharp {len(b)}"
        return f"{name}: python {a}, csharp {b}"
    return None


def differing_fields(expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    return [k for k in sorted(set(expected) | set(actual)) if expected.get(k) != actual.get(k)]


def divergence_report(exe: Path, program: dict[str, Any], player: dict[str, Any], seed: int,
                      work: Path) -> str:
    """Re-run both sides hashing every tick; name the first diverging tick and state field."""
    fine = copy.deepcopy(program)
    fine["state_hash_interval"] = 1
    py_hashes = Simulation(fine, player).run(seed=seed).telemetry["state_hashes"]
    run = run_harness(exe, make_request(fine, seed, player, work / "fine"), work / "fine")
    if run.code != 0:
        return f"fine-grained harness run failed (exit {run.code}): {run.proc.stderr.strip()}"
    cs_hashes = run.telemetry["state_hashes"]
    tick = next((i for i, (a, b) in enumerate(zip(py_hashes, cs_hashes)) if a != b), None)
    if tick is None:
        if len(py_hashes) == len(cs_hashes):
            return "state hashes agree on every tick (the difference is in the statistics only)"
        tick = min(len(py_hashes), len(cs_hashes))
    dump = run_harness(exe, make_request(fine, seed, player, work / "dump"), work / "dump",
                       "-gcvStateAt", str(tick))
    states = dump.tagged("GCV-STATE ")
    py_state = python_state_after(fine, player, seed, tick)
    field = first_state_difference(py_state, states[0]) if states else "(no GCV-STATE line)"
    return f"first diverging tick: {tick} (state after tick {tick}); first differing field: {field}"


# ---------------------------------------------------------------------------- golden vectors
@pytest.mark.parametrize("path", VECTORS, ids=[p.stem for p in VECTORS])
def test_golden_vector_through_harness(harness: Path, tmp_path: Path, path: Path) -> None:
    vector = load_vector(path)
    request = dict(vector["request"], output_dir=str(tmp_path))
    run = run_harness(harness, request, tmp_path)
    assert_protocol_ok(run, request["run_id"])
    telemetry = run.telemetry
    Telemetry.model_validate(telemetry)  # schema-valid, like a runner checks it
    assert telemetry["engine"] == {"name": ENGINE_NAME, "implementation": "csharp", "version": "0.1.0"}
    assert telemetry["run_id"] == request["run_id"]
    assert telemetry["fps_source"] == "model"
    got = gameplay_view(telemetry)
    expected = vector["expected"]
    assert differing_fields(expected, got) == []
    assert got == expected


def test_golden_vector_count() -> None:
    assert len(VECTORS) == 20


# ---------------------------------------------------------------------------- randomized parity
BOT_PLAYERS = [{"kind": "scripted"}] + [{"kind": "bot", "skill": s} for s in ("novice", "average", "expert")]


@st.composite
def players(draw: Any) -> dict[str, Any]:
    if draw(st.integers(0, 9)) == 0:  # now and then a short recorded trace
        runs = draw(st.lists(st.tuples(st.integers(1, 240), st.integers(-1, 1), st.integers(-1, 1),
                                       st.integers(0, 1)).map(list), min_size=1, max_size=12))
        return {"kind": "inputs", "trace": {"format": "gcv.inputs/1", "tick_hz": 60, "runs": runs,
                                            "source": "hypothesis"}}
    return draw(st.sampled_from(BOT_PLAYERS))


@settings(max_examples=20, deadline=None, derandomize=False,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(config=valid_configs(), seed=st.integers(0, (1 << 63) - 1), player=players())
def test_random_configs_match_python(harness: Path, config: Any, seed: int, player: dict[str, Any]) -> None:
    program = compile_program(config)
    expected = gameplay_view(Simulation(program, player).run(seed=seed).telemetry)
    with tempfile.TemporaryDirectory(prefix="gcv-parity-") as tmp:
        work = Path(tmp)
        run = run_harness(harness, make_request(program, seed, player, work / "run"), work / "run")
        assert_protocol_ok(run, "parity")
        got = gameplay_view(run.telemetry)
        diff = differing_fields(expected, got)
        if diff:
            report = divergence_report(harness, program, player, seed, work)
            pytest.fail(f"C# and Python disagree on {diff} ({player_label(player)}, seed {seed}); {report}")


def test_state_difference_names_first_field() -> None:
    a = {name: 0 for name in STATE_FIELDS[:16]} | {n: [1, 2, 3] for n in STATE_FIELDS[16:]}
    b = copy.deepcopy(a)
    assert first_state_difference(a, b) is None
    b["VX"][2] = 9
    b["GR"] = [1]
    assert first_state_difference(a, b) == "VX[2]: python 3, csharp 9"
    b["rng_state"] = -5
    assert first_state_difference(a, b) == "rng_state: python 0, csharp -5"


def test_state_dump_matches_python(harness: Path, tmp_path: Path) -> None:
    vector = load_vector(VECTORS[3])  # a bot run: the RNG and the bot state are in play
    req = vector["request"]
    run = run_harness(harness, dict(req, output_dir=str(tmp_path)), tmp_path, "-gcvStateAt", "500")
    assert_protocol_ok(run, req["run_id"])
    (state,) = run.tagged("GCV-STATE ")
    assert first_state_difference(python_state_after(req["program"], req["player"], req["seed"], 500), state) is None


# ---------------------------------------------------------------------------- protocol errors
def _baseline_request(tmp_path: Path) -> dict[str, Any]:
    return dict(load_vector(VECTORS[0])["request"], output_dir=str(tmp_path))


def _run_raw(exe: Path, req_path: Path) -> HarnessRun:
    proc = subprocess.run(csharp_harness_command(exe, req_path), capture_output=True, text=True,
                          timeout=RUN_TIMEOUT)
    return HarnessRun(proc, req_path.parent)


def test_not_json_is_bad_request(harness: Path, tmp_path: Path) -> None:
    req_path = tmp_path / "request.json"
    req_path.write_text('{"run_id": "x",\n  "seed": 1,, }', encoding="utf-8")
    run = _run_raw(harness, req_path)
    assert run.code == 2
    assert run.handshake()["run_id"] == ""
    assert "not valid JSON" in run.proc.stderr and "line 2 column 13" in run.proc.stderr
    assert not any(line.startswith(DONE_PREFIX) for line in run.lines)
    assert not (tmp_path / "telemetry.json").exists()


def test_unreadable_request_is_bad_request(harness: Path, tmp_path: Path) -> None:
    run = _run_raw(harness, tmp_path / "missing.json")
    assert run.code == 2 and "cannot read request" in run.proc.stderr


@pytest.mark.parametrize("mutate, field", [
    (lambda r: r.pop("seed"), "seed"),
    (lambda r: r.update(seed=True), "seed"),
    (lambda r: r.update(seed=-1), "seed"),
    (lambda r: r.update(player={"kind": "bot", "skill": "godlike"}), "player.skill"),
    (lambda r: r.update(surprise=1), "surprise"),
    (lambda r: r.update(run_id="no spaces allowed"), "run_id"),
])
def test_invalid_field_is_bad_request(harness: Path, tmp_path: Path, mutate: Any, field: str) -> None:
    request = _baseline_request(tmp_path)
    mutate(request)
    run = run_harness(harness, request, tmp_path)
    assert run.code == 2, run.proc.stderr
    assert f"field {field}:" in run.proc.stderr
    assert not (tmp_path / "telemetry.json").exists()


def test_invalid_program_field_is_bad_request(harness: Path, tmp_path: Path) -> None:
    request = _baseline_request(tmp_path)
    program = copy.deepcopy(request["program"])
    program["phases"][1]["slots"][4][1] = "fast"
    request.update(program=program, program_hash=program_hash(program))
    run = run_harness(harness, request, tmp_path)
    assert run.code == 2
    assert "field program.phases[1].slots[4][1]: expected an integer" in run.proc.stderr


def test_missing_output_dir_exits_4(harness: Path, tmp_path: Path) -> None:
    request = _baseline_request(tmp_path)
    request["output_dir"] = str(tmp_path / "does" / "not" / "exist")
    run = run_harness(harness, request, tmp_path)
    assert run.code == 4
    assert run.handshake()["run_id"] == request["run_id"]
    assert "does not exist" in run.proc.stderr


def test_wrong_program_hash_exits_3(harness: Path, tmp_path: Path) -> None:
    request = _baseline_request(tmp_path)
    request["program_hash"] = "0" * 64
    run = run_harness(harness, request, tmp_path)
    assert run.code == 3 and "program_hash" in run.proc.stderr
    assert not (tmp_path / "telemetry.json").exists()


def test_tampered_program_exits_3(harness: Path, tmp_path: Path) -> None:
    request = _baseline_request(tmp_path)
    request["program"] = copy.deepcopy(request["program"])
    request["program"]["player"]["max_health"] = 99  # program_hash left as it was
    run = run_harness(harness, request, tmp_path)
    assert run.code == 3


def test_wrong_config_hash_exits_3(harness: Path, tmp_path: Path) -> None:
    request = _baseline_request(tmp_path)
    request["config_hash"] = "f" * 64
    run = run_harness(harness, request, tmp_path)
    assert run.code == 3 and "config_hash" in run.proc.stderr


def test_capture_ticks_are_ignored_and_said_so(harness: Path, tmp_path: Path) -> None:
    request = _baseline_request(tmp_path)
    request["capture_ticks"] = [0, 600]
    run = run_harness(harness, request, tmp_path)
    assert_protocol_ok(run, request["run_id"])
    assert any("capture_ticks ignored" in line for line in run.lines)
    assert not (tmp_path / "frames").exists()


def test_bench_flag_times_in_process_runs(harness: Path, tmp_path: Path) -> None:
    request = _baseline_request(tmp_path)
    req_path = tmp_path / "request.json"
    req_path.write_text(json.dumps(request), encoding="utf-8")
    proc = subprocess.run(csharp_harness_bench_command(harness, req_path, 3), capture_output=True,
                          text=True, timeout=RUN_TIMEOUT)
    run = HarnessRun(proc, tmp_path)
    assert_protocol_ok(run, request["run_id"])
    bench = run.tagged("GCV-BENCH ")
    assert [b["run"] for b in bench[:3]] == [1, 2, 3] and bench[3]["runs"] == 3
    assert all(b["ms"] > 0 and b["ticks"] == run.telemetry["ticks"] for b in bench[:3])


def test_overwrites_existing_telemetry(harness: Path, tmp_path: Path) -> None:
    request = _baseline_request(tmp_path)
    (tmp_path / "telemetry.json").write_text("stale", encoding="utf-8")
    run = run_harness(harness, request, tmp_path)
    assert_protocol_ok(run, request["run_id"])
    assert run.telemetry["run_id"] == request["run_id"]


# ---------------------------------------------------------------------------- manual play path
def test_recorded_trace_replays_in_python(harness: Path, tmp_path: Path) -> None:
    """Unity's manual-play path (live inputs + InputsRecorder, driven here by a scripted
    keyboard) writes a gcv.inputs/1 trace that Python replays into the very same fight."""
    from gcv.sim.players import load_trace

    vector = load_vector(VECTORS[0])
    req_path = tmp_path / "request.json"
    req_path.write_text(json.dumps(dict(vector["request"], output_dir=str(tmp_path))), encoding="utf-8")
    trace_path = tmp_path / "inputs_trace.json"
    proc = subprocess.run(["mono", str(harness), "-gcvRecordDemo", str(req_path), str(trace_path)],
                          capture_output=True, text=True, timeout=RUN_TIMEOUT)
    assert proc.returncode == 0, proc.stderr
    (recorded,) = [json.loads(line[len("GCV-RECORDED "):]) for line in proc.stdout.splitlines()
                   if line.startswith("GCV-RECORDED ")]
    player = {"kind": "inputs", "trace": load_trace(trace_path).model_dump()}  # validates the format
    assert recorded["runs"] == len(player["trace"]["runs"]) > 10
    assert player_label(player) == recorded["label"]
    telemetry = Simulation(vector["request"]["program"], player).run(seed=vector["request"]["seed"]).telemetry
    assert (telemetry["ticks"], telemetry["status"], telemetry["state_hash"]) == \
        (recorded["ticks"], recorded["status"], recorded["state_hash"])


# ---------------------------------------------------------------------------- Unity project
UNITY = Path(__file__).resolve().parents[1] / "unity_project"
GCV_ASSETS = UNITY / "Assets" / "Gcv"


def test_unity_glue_typechecks_against_api_stubs(harness: Path, tmp_path: Path) -> None:
    """Gcv.Runtime / Gcv.Editor / Gcv.Tests compile with mcs against hand-written stubs of the
    Unity and NUnit APIs they use (harness/stubs). This catches C# mistakes in the glue; it
    does not prove the real Unity API matches the stubs (only a Unity editor can)."""
    out = tmp_path
    steps = [
        ["-target:library", f"-out:{out / 'UnityApiStubs.dll'}", str(UNITY / "harness/stubs/UnityApiStubs.cs")],
        ["-target:library", f"-out:{out / 'Gcv.Core.dll'}", *map(str, sorted((GCV_ASSETS / "Core").glob("*.cs")))],
        ["-target:library", f"-r:{out / 'UnityApiStubs.dll'}", f"-r:{out / 'Gcv.Core.dll'}",
         f"-out:{out / 'Gcv.Runtime.dll'}", *map(str, sorted((GCV_ASSETS / "Runtime").glob("*.cs")))],
        ["-target:library", f"-r:{out / 'UnityApiStubs.dll'}", f"-r:{out / 'Gcv.Core.dll'}",
         f"-r:{out / 'Gcv.Runtime.dll'}", f"-out:{out / 'Gcv.Editor.dll'}",
         *map(str, sorted((GCV_ASSETS / "Editor").glob("*.cs")))],
        ["-target:library", f"-r:{out / 'UnityApiStubs.dll'}", f"-r:{out / 'Gcv.Core.dll'}",
         f"-out:{out / 'Gcv.Tests.dll'}", *map(str, sorted((GCV_ASSETS / "Tests").glob("*.cs")))],
    ]
    for args in steps:
        proc = subprocess.run(["mcs", "-nologo", "-langversion:6", *args], capture_output=True, text=True,
                              timeout=RUN_TIMEOUT)
        assert proc.returncode == 0, f"mcs {' '.join(args[:2])} failed:\n{proc.stdout}{proc.stderr}"


def test_unity_project_layout() -> None:
    version = (UNITY / "ProjectSettings" / "ProjectVersion.txt").read_text(encoding="utf-8")
    assert re.fullmatch(r"m_EditorVersion: 6000\.0\.\d+f\d+\n", version)
    manifest = json.loads((UNITY / "Packages" / "manifest.json").read_text(encoding="utf-8"))
    # test-framework, plus only the built-in modules the glue uses (PNG encoding, IMGUI)
    assert set(manifest["dependencies"]) <= {"com.unity.test-framework", "com.unity.modules.imageconversion",
                                             "com.unity.modules.imgui"}
    asmdefs = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in GCV_ASSETS.rglob("*.asmdef")}
    assert set(asmdefs) == {"Gcv.Core", "Gcv.Runtime", "Gcv.Editor", "Gcv.Tests"}
    assert asmdefs["Gcv.Core"]["noEngineReferences"] is True and asmdefs["Gcv.Core"]["references"] == []
    assert asmdefs["Gcv.Runtime"]["references"] == ["Gcv.Core"]
    assert asmdefs["Gcv.Editor"]["includePlatforms"] == ["Editor"]
    tests = asmdefs["Gcv.Tests"]
    assert tests["includePlatforms"] == ["Editor"] and tests["precompiledReferences"] == ["nunit.framework.dll"]
    assert {"Gcv.Core", "UnityEngine.TestRunner", "UnityEditor.TestRunner"} <= set(tests["references"])
    for source in (GCV_ASSETS / "Core").glob("*.cs"):
        assert "UnityEngine" not in source.read_text(encoding="utf-8").replace("no UnityEngine", ""), source.name


def test_unity_meta_files_are_complete_and_stable() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("write_meta", UNITY / "tools" / "write_meta.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    wanted = module.expected_metas(UNITY)
    assert len(wanted) >= 25
    stale = [str(m.relative_to(UNITY)) for m, text in wanted.items()
             if not m.exists() or m.read_text(encoding="utf-8") != text]
    assert stale == [], f"run python unity_project/tools/write_meta.py: {stale}"
    guids = [re.search(r"guid: ([0-9a-f]{32})", t).group(1) for t in wanted.values()]  # type: ignore[union-attr]
    assert len(set(guids)) == len(guids)
