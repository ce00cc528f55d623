"""Bit-for-bit parity of the C# port (unity_project/Assets/Gcv/Core) with the Python reference.

The C# core is compiled with Mono's mcs into the console harness (the same RunProtocol
class the Unity player uses) and run as a real subprocess, once per golden vector and on
random valid configs x seeds x players, compared field by field and byte by byte (the
written telemetry against Python's writer). Planted off-by-ones in a copy of the core (`<`
for `<=` in the hit test, ...) are each caught by a directed golden vector. Needs mcs +
mono; skipped with a reason when they are missing, unless GCV_REQUIRE_TOOLCHAINS=1 (then the
tests fail).
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

from engine_runners.harness_csharp import (CORE_DIR, build_csharp_harness, csharp_harness_bench_command,
                                           csharp_harness_command, toolchain_status)
from engine_runners.protocol import DONE_PREFIX
from gcv.sim.engine import Simulation
from gcv.sim.players import player_label
from gcv.sim.program import compile_program, program_hash
from gcv.sim.telemetry import gameplay_view
from gcv.sim.telemetry_model import Telemetry
from tests.support.mutation import Mutation, plant
from tests.support.parity import (CSHARP, STATE_FIELDS, HarnessRun, differing_fields, make_request,
                          python_state_after)
from tests.support.program_strategies import EXOTIC, PLAYERS
from tests.support.simutil import VECTORS, load_vector
from tests.support.strategies import valid_configs
from tests.support.telemetry_bytes import expected_bytes, first_byte_difference

pytestmark = pytest.mark.toolchain  # builds and runs an engine core harness

ENGINE_NAME = "unity-harness"
RUN_TIMEOUT = 120


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ok, reason = toolchain_status()
    if not ok:
        if os.environ.get("GCV_REQUIRE_TOOLCHAINS") == "1":
            pytest.fail(f"GCV_REQUIRE_TOOLCHAINS=1 but the C# toolchain is missing: {reason}")
        pytest.skip(f"C# harness toolchain missing: {reason}")
    return build_csharp_harness(tmp_path_factory.mktemp("csharp-harness"))


# ---------------------------------------------------------------------------- helpers
KIND = CSHARP
run_harness = KIND.run
assert_protocol_ok = KIND.assert_protocol_ok
first_state_difference = KIND.first_state_difference
divergence_report = KIND.divergence_report


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
    # the file itself: every byte as Python's writer would write it (16.0, not 16)
    python = Simulation(request["program"], request["player"]).run(seed=request["seed"]).telemetry
    python["player"] = request["player_label"]
    written = (tmp_path / "telemetry.json").read_bytes()
    assert first_byte_difference(expected_bytes(python, telemetry), written) is None


def test_whole_thousandths_are_written_like_python(harness: Path, tmp_path: Path) -> None:
    """A whole number of thousandths is written 16.0, as Python's float repr (the C# writer
    once wrote 16)."""
    (path,) = [p for p in VECTORS if p.stem.endswith("boundary_whole_thousandths")]
    request = dict(load_vector(path)["request"], output_dir=str(tmp_path))
    run = run_harness(harness, request, tmp_path)
    assert_protocol_ok(run, request["run_id"])
    text = (tmp_path / "telemetry.json").read_text(encoding="utf-8")
    for line in ('"mean_alive_bullets": 16.0', '"average_fps": 100.0', '"low_fps": 100.0', '"worst_frame_ms": 10.0'):
        assert line in text


def test_non_ascii_player_label_is_escaped_like_python(harness: Path, tmp_path: Path) -> None:
    request = dict(load_vector(VECTORS[0])["request"], output_dir=str(tmp_path),
                   player_label="scripted \u00e9\x7f\u2603\U0001d11e")
    run = run_harness(harness, request, tmp_path)
    assert_protocol_ok(run, request["run_id"])
    python = Simulation(request["program"], request["player"]).run(seed=request["seed"]).telemetry
    python["player"] = request["player_label"]
    written = (tmp_path / "telemetry.json").read_bytes()
    assert b'"player": "scripted \\u00e9\\u007f\\u2603\\ud834\\udd1e"' in written
    assert first_byte_difference(expected_bytes(python, run.telemetry), written) is None


def test_golden_vector_count() -> None:
    """20 scenario vectors and 12 directed ones that meet each comparison (and each rounding tie)
    at its boundary."""
    assert len(VECTORS) == 32
    assert sum(p.stem.split("_", 1)[1].startswith("boundary_") for p in VECTORS) == 12


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
    python = Simulation(program, player).run(seed=seed).telemetry
    expected = gameplay_view(python)
    with tempfile.TemporaryDirectory(prefix="gcv-parity-") as tmp:
        work = Path(tmp)
        run = run_harness(harness, make_request(program, seed, player, work / "run"), work / "run")
        assert_protocol_ok(run, "parity")
        got = gameplay_view(run.telemetry)
        diff = differing_fields(expected, got)
        if diff:
            report = divergence_report(harness, program, player, seed, work)
            pytest.fail(f"C# and Python disagree on {diff} ({player_label(player)}, seed {seed}); {report}")
        written = (work / "run" / "telemetry.json").read_bytes()
        assert first_byte_difference(expected_bytes(python, run.telemetry), written) is None


@pytest.mark.parametrize("player", PLAYERS, ids=lambda p: p.get("skill", p["kind"]))
@pytest.mark.parametrize("name", sorted(EXOTIC))
def test_exotic_programs_match_python(harness: Path, tmp_path: Path, name: str, player: dict[str, Any]) -> None:
    """Programs no config compiles to but the shared program bounds allow (negative slot speeds
    and rates, huge angle offsets, re-entered phases...): the C# core agrees with Python too."""
    KIND.assert_matches_python(harness, EXOTIC[name](load_vector(VECTORS[0])["request"]["program"]),
                               player, 4242, tmp_path, name)


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


@pytest.mark.parametrize("mutate, field", [
    (lambda r: r.pop("seed"), "seed"),
    (lambda r: r.update(seed=True), "seed"),
    (lambda r: r.update(seed=-1), "seed"),
    (lambda r: r.update(player={"kind": "bot", "skill": "godlike"}), "player.skill"),
    (lambda r: r.update(surprise=1), "surprise"),
    (lambda r: r.update(run_id="no spaces allowed"), "run_id"),
    (lambda r: r.update(run_id="a-final-newline\n"), "run_id"),  # .NET's "$" matches before it
    (lambda r: r.update(config_hash="a" * 64 + "\n"), "config_hash"),
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
    assert "field program.phases.1.slots.4.1: expected an integer" in run.proc.stderr  # pydantic's path


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
UNITY = Path(__file__).resolve().parents[2] / "unity_project"
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


# ---------------------------------------------------------------------------- planted off-by-ones
SIMULATION_CS = "Simulation.cs"
CSHARP_MUTATIONS = [
    Mutation("hit_test_strict", SIMULATION_CS, "if (d2 <= h2)", "if (d2 < h2)", "boundary_hit_radius"),
    Mutation("graze_test_strict", SIMULATION_CS, "if (d2 <= g2 && gr[i] == 0)", "if (d2 < g2 && gr[i] == 0)",
             "boundary_graze_radius"),
    Mutation("trigger_strict", SIMULATION_CS, "TriggerMicro * maxHealth >= health * 1000000L",
             "TriggerMicro * maxHealth > health * 1000000L", "boundary_phase_trigger"),
    Mutation("clamp_a_unit_short", SIMULATION_CS, "Px = Math.Min(Math.Max(Px + sx, -hw), hw);",
             "Px = Math.Min(Math.Max(Px + sx, -hw), hw - 1);", "boundary_arena_clamp"),
    Mutation("whole_thousandths_without_the_point", "Json.cs", '+ "." + (f.Length == 0 ? "0" : f);',
             '+ (f.Length == 0 ? "" : "." + f);', "boundary_whole_thousandths", bytes_only=True),
    # issue 25.12: half down for half up in the thousandths (no vector ended on a tie before)
    Mutation("thousandths_rounded_half_down", "Telemetry.cs", "return (2000 * numerator + denominator) / (2 * denominator);",
             "return (2000 * numerator + denominator - 1) / (2 * denominator);", "boundary_half_thousandths"),
    # and in the integer trigonometry, which no vector met on a tie either
    Mutation("sine_rounded_half_down", "Fixed.cs", "return (v + (1L << 13)) >> 14;",
             "return (v + (1L << 13) - 1) >> 14;", "boundary_trig_ties"),
    Mutation("atan_rounded_half_down", "Fixed.cs", "return (8192 * r + p * q + (1L << 15)) >> 16;",
             "return (8192 * r + p * q + (1L << 15) - 1) >> 16;", "boundary_trig_ties"),
]


def _planted_harness(tmp_path: Path, mutation: Mutation | None) -> Path:
    ok, reason = toolchain_status()
    if not ok:
        if os.environ.get("GCV_REQUIRE_TOOLCHAINS") == "1":
            pytest.fail(f"GCV_REQUIRE_TOOLCHAINS=1 but the C# toolchain is missing: {reason}")
        pytest.skip(f"C# harness toolchain missing: {reason}")
    core = plant(CORE_DIR, tmp_path / "core", ["."], mutation)
    return build_csharp_harness(tmp_path / "bin", core_dir=core)


def _run_vector(exe: Path, vector: dict[str, Any], out: Path) -> tuple[dict[str, Any], bytes, bytes]:
    """(gameplay view, written bytes, python writer's bytes) of one vector through a harness."""
    req = dict(vector["request"], output_dir=str(out))
    run = run_harness(exe, req, out)
    assert_protocol_ok(run, req["run_id"])
    python = Simulation(req["program"], req["player"]).run(seed=req["seed"]).telemetry
    python["player"] = req["player_label"]
    return gameplay_view(run.telemetry), (out / "telemetry.json").read_bytes(), expected_bytes(python, run.telemetry)


@pytest.mark.slow
def test_an_unmutated_copy_passes_the_directed_vectors(tmp_path: Path) -> None:
    """The copy-and-build of the mutation tests itself is sound."""
    exe = _planted_harness(tmp_path, None)
    for mutation in CSHARP_MUTATIONS:
        (path,) = [p for p in VECTORS if p.stem.endswith(mutation.vector)]
        vector = load_vector(path)
        got, written, python_bytes = _run_vector(exe, vector, tmp_path / mutation.name)
        assert got == vector["expected"] and written == python_bytes


@pytest.mark.slow
@pytest.mark.parametrize("mutation", CSHARP_MUTATIONS, ids=lambda m: m.name)
def test_a_planted_off_by_one_is_caught_by_its_directed_vector(tmp_path: Path, mutation: Mutation) -> None:
    exe = _planted_harness(tmp_path, mutation)
    (path,) = [p for p in VECTORS if p.stem.endswith(mutation.vector)]
    vector = load_vector(path)
    got, written, python_bytes = _run_vector(exe, vector, tmp_path / "run")
    if mutation.bytes_only:
        assert got == vector["expected"], "a writer mutation changed a gameplay figure"
        assert written != python_bytes, f"{mutation.name} survived {mutation.vector}"
    else:
        assert differing_fields(vector["expected"], got), f"{mutation.name} survived {mutation.vector}"
