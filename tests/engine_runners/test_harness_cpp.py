"""Bit-for-bit parity of the C++ port (the UE5 plugin's GcvSimCore) with the Python reference.

The header-only core is built with g++ into the console harness gcv-ue5-harness (the same
protocol entry the UE5 commandlet calls), once per module at -O2 and once at -O0, and run
as a real subprocess: every golden vector through both builds, random valid configs x
seeds x players against Python field by field (naming the first diverging tick and state
field on a mismatch) and byte by byte (the written telemetry against Python's writer), -O0
against -O2, protocol errors and exit codes, and, when the C# port's toolchain is there,
Python / C# / C++ three ways. Planted off-by-ones in a copy of the core (`<` for `<=` in the
graze test, ...) are each caught by a directed golden vector.

Needs g++; skipped with a reason when it is missing, unless GCV_REQUIRE_TOOLCHAINS=1 (then
the tests fail).
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine_runners.base import check_telemetry
from engine_runners.harness_cpp import (HarnessBuildError, build_cpp_harness, cpp_harness_command,
                                        toolchain_status)
from engine_runners.protocol import DONE_PREFIX, RunRequest
from gcv.sim.engine import Simulation
from gcv.sim.players import player_label
from gcv.sim.program import program_hash
from gcv.sim.telemetry import gameplay_view
from gcv.sim.telemetry_model import Telemetry
from tests.support.parity import (CPP, HarnessRun, differing_fields, make_request,
                          python_state_after)
from tests.support.mutation import Mutation, plant
from tests.support.program_strategies import EXOTIC, PLAYERS, parity_cases
from tests.support.simutil import VECTORS, load_vector
from tests.support.telemetry_bytes import expected_bytes, first_byte_difference

pytestmark = pytest.mark.toolchain  # builds and runs an engine core harness

ENGINE_NAME = "ue5-harness"
RUN_TIMEOUT = 120
REQUIRE_TOOLCHAINS = os.environ.get("GCV_REQUIRE_TOOLCHAINS") == "1"
# Modeled frame figures: not gameplay, but the harness must reproduce Python's model exactly.
MODEL_FIELDS = ("fps_source", "average_fps", "low_fps", "worst_frame_ms", "frame_model")


def _build(factory: pytest.TempPathFactory, opt: str) -> Path:
    ok, reason = toolchain_status()
    if not ok:
        if REQUIRE_TOOLCHAINS:
            pytest.fail(f"GCV_REQUIRE_TOOLCHAINS=1 but the C++ toolchain is missing: {reason}")
        pytest.skip(f"C++ harness toolchain missing: {reason}")
    return build_cpp_harness(factory.mktemp(f"cpp-harness{opt}"), opt)


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The -O2 build (what the runner and the benchmark use)."""
    return _build(tmp_path_factory, "-O2")


@pytest.fixture(scope="module")
def harness_o0(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An unoptimised build: the same answers prove nothing depends on optimisation."""
    return _build(tmp_path_factory, "-O0")


# ---------------------------------------------------------------------------- helpers
KIND = CPP
run_harness = KIND.run
assert_protocol_ok = KIND.assert_protocol_ok
first_state_difference = KIND.first_state_difference
divergence_report = KIND.divergence_report


# ---------------------------------------------------------------------------- golden vectors
@pytest.mark.parametrize("opt", ["-O2", "-O0"])
@pytest.mark.parametrize("path", VECTORS, ids=[p.stem for p in VECTORS])
def test_golden_vector_through_harness(request: pytest.FixtureRequest, tmp_path: Path, path: Path,
                                       opt: str) -> None:
    exe = request.getfixturevalue("harness" if opt == "-O2" else "harness_o0")
    vector = load_vector(path)
    req = dict(vector["request"], output_dir=str(tmp_path))
    run = run_harness(exe, req, tmp_path)
    assert_protocol_ok(run, req["run_id"])
    telemetry = run.telemetry
    Telemetry.model_validate(telemetry)  # schema-valid, as a runner checks it
    assert telemetry["engine"] == {"name": ENGINE_NAME, "implementation": "cpp", "version": "0.1.0"}
    assert telemetry["run_id"] == req["run_id"]
    got = gameplay_view(telemetry)
    expected = vector["expected"]
    assert differing_fields(expected, got) == []
    assert got == expected
    # the file itself: every byte as Python's writer would write it
    python = Simulation(req["program"], req["player"]).run(seed=req["seed"]).telemetry
    python["player"] = req["player_label"]
    written = (tmp_path / "telemetry.json").read_bytes()
    assert first_byte_difference(expected_bytes(python, telemetry), written) is None


def test_non_ascii_player_label_is_escaped_like_python(harness: Path, tmp_path: Path) -> None:
    """ensure_ascii as Python: non-ASCII as \\uXXXX (surrogate pairs above U+FFFF) and DEL too."""
    req = dict(load_vector(VECTORS[0])["request"], output_dir=str(tmp_path),
               player_label="scripted \u00e9\x7f\u2603\U0001d11e")
    run = run_harness(harness, req, tmp_path)
    assert_protocol_ok(run, req["run_id"])
    python = Simulation(req["program"], req["player"]).run(seed=req["seed"]).telemetry
    python["player"] = req["player_label"]
    written = (tmp_path / "telemetry.json").read_bytes()
    assert b'"player": "scripted \\u00e9\\u007f\\u2603\\ud834\\udd1e"' in written
    assert first_byte_difference(expected_bytes(python, run.telemetry), written) is None


def test_golden_vector_count() -> None:
    """20 scenario vectors and 12 directed ones that meet each comparison (and each rounding tie)
    at its boundary."""
    assert len(VECTORS) == 32
    assert sum(p.stem.split("_", 1)[1].startswith("boundary_") for p in VECTORS) == 12


def test_modeled_frame_figures_match_python(harness: Path, tmp_path: Path) -> None:
    vector = load_vector(VECTORS[14])  # maximum_bullets: the heaviest frames
    req = dict(vector["request"], output_dir=str(tmp_path))
    run = run_harness(harness, req, tmp_path)
    assert_protocol_ok(run, req["run_id"])
    python = Simulation(req["program"], req["player"]).run(seed=req["seed"]).telemetry
    assert {k: run.telemetry[k] for k in MODEL_FIELDS} == {k: python[k] for k in MODEL_FIELDS}


def test_runner_accepts_the_telemetry(harness: Path, tmp_path: Path) -> None:
    """The shared runner check (schema, hashes, seed, player, run_id) passes."""
    vector = load_vector(VECTORS[15])  # inputs trace: the label is a content hash
    req = dict(vector["request"], output_dir=str(tmp_path))
    run = run_harness(harness, req, tmp_path)
    assert_protocol_ok(run, req["run_id"])
    telemetry, kind, message = check_telemetry(RunRequest.model_validate(req), tmp_path / "telemetry.json")
    assert telemetry is not None, f"{kind}: {message}"


# ---------------------------------------------------------------------------- randomized parity
RANDOM_SETTINGS = settings(max_examples=20, deadline=None,
                           suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                  HealthCheck.function_scoped_fixture])


@RANDOM_SETTINGS
@given(case=parity_cases())
def test_random_configs_match_python(harness: Path, harness_o0: Path, case: Any) -> None:
    program, seed, player = case
    python = Simulation(program, player).run(seed=seed).telemetry
    expected = gameplay_view(python)
    with tempfile.TemporaryDirectory(prefix="gcv-parity-cpp-") as tmp:
        work = Path(tmp)
        request = make_request(program, seed, player, work / "o2")
        run = run_harness(harness, request, work / "o2")
        assert_protocol_ok(run, "parity")
        telemetry = run.telemetry
        diff = differing_fields(expected, gameplay_view(telemetry))
        if diff:
            report = divergence_report(harness, program, player, seed, work)
            pytest.fail(f"C++ and Python disagree on {diff} ({player_label(player)}, seed {seed}); {report}")
        assert {k: telemetry[k] for k in MODEL_FIELDS} == {k: python[k] for k in MODEL_FIELDS}
        written = (work / "o2" / "telemetry.json").read_bytes()
        assert first_byte_difference(expected_bytes(python, telemetry), written) is None
        # The unoptimised build must write the very same telemetry (wall time aside).
        run0 = run_harness(harness_o0, dict(request, output_dir=str(work / "o0")), work / "o0")
        assert_protocol_ok(run0, "parity")
        t0 = run0.telemetry
        t0.pop("wall_time_ms")
        telemetry.pop("wall_time_ms")
        assert differing_fields(telemetry, t0) == [], "-O0 and -O2 builds disagree"


@pytest.mark.parametrize("player", PLAYERS, ids=lambda p: p.get("skill", p["kind"]))
@pytest.mark.parametrize("name", sorted(EXOTIC))
def test_exotic_programs_match_python(harness: Path, tmp_path: Path, name: str, player: dict[str, Any]) -> None:
    KIND.assert_matches_python(harness, EXOTIC[name](load_vector(VECTORS[0])["request"]["program"]),
                               player, 4242, tmp_path, name)


def test_divergence_report_names_tick_and_field(harness: Path, tmp_path: Path) -> None:
    """The mismatch report works: a deliberately different program diverges where expected."""
    vector = load_vector(VECTORS[1])  # bot novice
    req = vector["request"]
    report = divergence_report(harness, req["program"], req["player"], req["seed"], tmp_path)
    assert report == "state hashes agree on every tick (the difference is in the statistics only)"
    altered = copy.deepcopy(req["program"])
    altered["phases"][0]["slots"][3][1] += 1000  # one bullet of every phase-1 wave faster

    # Compare Python on the original program against the harness on the altered one.
    fine = copy.deepcopy(req["program"])
    fine["state_hash_interval"] = 1
    py_hashes = Simulation(fine, req["player"]).run(seed=req["seed"]).telemetry["state_hashes"]
    fine_alt = copy.deepcopy(altered)
    fine_alt["state_hash_interval"] = 1
    run = run_harness(harness, make_request(fine_alt, req["seed"], req["player"], tmp_path / "alt"), tmp_path / "alt")
    cpp_hashes = run.telemetry["state_hashes"]
    tick = next(i for i, (a, b) in enumerate(zip(py_hashes, cpp_hashes)) if a != b)
    assert tick == 0  # the first wave is emitted on tick 0
    dump = run_harness(harness, make_request(fine_alt, req["seed"], req["player"], tmp_path / "d"),
                       tmp_path / "d", f"-GcvStateAt={tick}")
    (state,) = dump.tagged("GCV-STATE ")
    field = first_state_difference(python_state_after(fine, req["player"], req["seed"], tick), state)
    assert field is not None and field.startswith("VX[3]: python ")


def test_state_dump_matches_python(harness: Path, tmp_path: Path) -> None:
    vector = load_vector(VECTORS[3])  # a bot run: the RNG and the bot state are in play
    req = vector["request"]
    run = run_harness(harness, dict(req, output_dir=str(tmp_path)), tmp_path, "-GcvStateAt=500")
    assert run.code == 0, run.proc.stderr
    (state,) = run.tagged("GCV-STATE ")
    assert first_state_difference(python_state_after(req["program"], req["player"], req["seed"], 500), state) is None


# ---------------------------------------------------------------------------- three ways
def _csharp_module() -> Any | None:
    if importlib.util.find_spec("engine_runners.harness_csharp") is None:
        return None
    import engine_runners.harness_csharp as module

    return module


@pytest.fixture(scope="module")
def csharp_harness(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path]:
    module = _csharp_module()
    if module is None:
        pytest.skip("engine_runners/harness_csharp.py does not exist (yet): the C# port is not in this tree")
    ok, reason = module.toolchain_status()
    if not ok:
        if REQUIRE_TOOLCHAINS:
            pytest.fail(f"GCV_REQUIRE_TOOLCHAINS=1 but the C# toolchain is missing: {reason}")
        pytest.skip(f"C# harness toolchain missing: {reason}")
    try:
        exe = module.build_csharp_harness(tmp_path_factory.mktemp("csharp-harness"))
    except Exception as exc:  # noqa: BLE001 - the C# side may be mid-development
        if REQUIRE_TOOLCHAINS:
            raise
        pytest.skip(f"the C# harness does not build in this tree: {exc}")
    return module, exe


@RANDOM_SETTINGS
@given(case=parity_cases())
def test_python_csharp_cpp_agree(harness: Path, csharp_harness: tuple[Any, Path], case: Any) -> None:
    module, cs_exe = csharp_harness
    program, seed, player = case
    expected = gameplay_view(Simulation(program, player).run(seed=seed).telemetry)
    with tempfile.TemporaryDirectory(prefix="gcv-parity-3way-") as tmp:
        work = Path(tmp)
        request = make_request(program, seed, player, work / "cpp")
        cpp = run_harness(harness, request, work / "cpp")
        assert cpp.code == 0, cpp.proc.stderr
        cs_dir = work / "cs"
        cs_dir.mkdir()
        req_path = cs_dir / "request.json"
        req_path.write_text(json.dumps(dict(request, output_dir=str(cs_dir))), encoding="utf-8")
        cs = subprocess.run(module.csharp_harness_command(cs_exe, req_path), capture_output=True, text=True,
                            timeout=RUN_TIMEOUT, stdin=subprocess.DEVNULL)
        assert cs.returncode == 0, cs.stderr
        got_cpp = gameplay_view(cpp.telemetry)
        got_cs = gameplay_view(json.loads((cs_dir / "telemetry.json").read_text(encoding="utf-8")))
        where = f"({player_label(player)}, seed {seed})"
        assert differing_fields(expected, got_cpp) == [], f"C++ differs from Python {where}"
        assert differing_fields(expected, got_cs) == [], f"C# differs from Python {where}"
        assert differing_fields(got_cs, got_cpp) == []


# ---------------------------------------------------------------------------- protocol errors
def _baseline_request(tmp_path: Path) -> dict[str, Any]:
    return dict(load_vector(VECTORS[0])["request"], output_dir=str(tmp_path))


def _run_raw(exe: Path, req_path: Path, *extra: str) -> HarnessRun:
    proc = subprocess.run(cpp_harness_command(exe, req_path) + list(extra), capture_output=True, text=True,
                          timeout=RUN_TIMEOUT, stdin=subprocess.DEVNULL)
    return HarnessRun(proc, req_path.parent)


def test_not_json_is_bad_request(harness: Path, tmp_path: Path) -> None:
    req_path = tmp_path / "request.json"
    req_path.write_text('{"run_id": "x",\n  "seed": 1,, }', encoding="utf-8")
    run = _run_raw(harness, req_path)
    assert run.code == 2
    assert run.handshake()["run_id"] == "unknown"  # as python-sim: the handshake comes first
    assert "is not JSON" in run.proc.stderr and "line 2 column 13" in run.proc.stderr
    assert not any(line.startswith(DONE_PREFIX) for line in run.lines)
    assert not (tmp_path / "telemetry.json").exists()


def test_missing_argument_is_bad_request(harness: Path) -> None:
    proc = subprocess.run([str(harness)], capture_output=True, text=True, timeout=RUN_TIMEOUT)
    assert proc.returncode == 2 and "-GcvRequest" in proc.stderr


@pytest.mark.parametrize("mutate, field", [
    (lambda r: r.pop("seed"), "seed"),
    (lambda r: r.update(seed=True), "seed"),
    (lambda r: r.update(seed=-1), "seed"),
    (lambda r: r.update(seed=1.5), "seed"),
    (lambda r: r.update(player={"kind": "bot", "skill": "godlike"}), "player.skill"),
    (lambda r: r.update(player={"kind": "bot"}), "player.skill"),
    (lambda r: r.update(player={"kind": "human"}), "player.kind"),
    (lambda r: r.update(surprise=1), "surprise"),
    (lambda r: r.update(run_id="no spaces allowed"), "run_id"),
    (lambda r: r.update(run_id="a-final-newline\n"), "run_id"),
    (lambda r: r.update(program_hash="ABC"), "program_hash"),
    (lambda r: r.update(capture_ticks=list(range(65))), "capture_ticks"),
    (lambda r: r.update(player_label=""), "player_label"),
    (lambda r: r.update(output_dir=""), "output_dir"),
    (lambda r: r.update(player={"kind": "inputs", "trace": {"format": "gcv.inputs/1", "tick_hz": 60,
                                                           "runs": [[10, 2, 0, 0]]}}), "player.trace.runs.0.1"),
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
    assert "program is malformed: field program.phases.1.slots.4.1: Input should be a valid integer" \
        in run.proc.stderr


def test_missing_program_field_is_bad_request(harness: Path, tmp_path: Path) -> None:
    request = _baseline_request(tmp_path)
    program = copy.deepcopy(request["program"])
    del program["arena"]["despawn_y"]
    request.update(program=program, program_hash=program_hash(program))
    run = run_harness(harness, request, tmp_path)
    assert run.code == 2 and "field program.arena.despawn_y: Field required" in run.proc.stderr


def test_unwritable_output_exits_4(harness: Path, tmp_path: Path) -> None:
    """A temp file that cannot be created (here: a directory is in its way; works as root too)."""
    out = tmp_path / "out"
    (out / "telemetry.json.tmp").mkdir(parents=True)
    request = dict(_baseline_request(tmp_path), output_dir=str(out))
    run = run_harness(harness, request, tmp_path / "req")
    assert run.code == 4 and "cannot write outputs" in run.proc.stderr
    assert not (out / "telemetry.json").exists()


def test_program_hash_is_canonical_not_textual(harness: Path, tmp_path: Path) -> None:
    """Key order, whitespace and escapes in the file do not change the program hash."""
    request = _baseline_request(tmp_path)
    program = request["program"]
    shuffled = dict(reversed(list(program.items())))
    text = json.dumps(dict(request, program=shuffled), indent=3, ensure_ascii=True)
    req_path = tmp_path / "request.json"
    req_path.write_text(text, encoding="utf-8")
    run = _run_raw(harness, req_path)
    assert_protocol_ok(run, request["run_id"])


JSON_LEAVES = st.one_of(
    st.none(), st.booleans(),
    st.integers(), st.integers(min_value=-(10 ** 30), max_value=10 ** 30),  # beyond int64 too
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),  # any Unicode (no lone surrogates): escapes, non-BMP, controls
)
JSON_VALUES = st.recursive(JSON_LEAVES, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)), max_leaves=12)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(extra=JSON_VALUES, ensure_ascii=st.booleans())
def test_program_hash_agrees_with_python_canonical_json(harness: Path, extra: Any, ensure_ascii: bool) -> None:
    """The C++ canonical JSON equals gcv.contract.canonical's for arbitrary JSON, however the
    request file writes it: an unknown program member carries the value. The hash is checked
    before the program is read, so a run that gets as far as refusing the member (exit 2,
    naming it) computed the same hash; a different one is exit 3, hash_mismatch."""
    with tempfile.TemporaryDirectory(prefix="gcv-canonical-") as tmp:
        out = Path(tmp)
        request = _baseline_request(out)
        program = dict(request["program"], zz_extra=extra)
        request.update(program=program, program_hash=program_hash(program))
        req_path = out / "request.json"
        req_path.write_text(json.dumps(request, ensure_ascii=ensure_ascii), encoding="utf-8")
        run = _run_raw(harness, req_path)
        assert run.code == 2, run.proc.stderr
        assert "program is malformed: field program.zz_extra: Extra inputs are not permitted" in run.proc.stderr


def test_capture_ticks_are_ignored_and_said_so(harness: Path, tmp_path: Path) -> None:
    request = _baseline_request(tmp_path)
    request["capture_ticks"] = [0, 600]
    run = run_harness(harness, request, tmp_path)
    assert_protocol_ok(run, request["run_id"])
    assert any("capture_ticks ignored" in line for line in run.lines)
    assert not (tmp_path / "frames").exists()


def test_bench_flag_times_in_process_runs(harness: Path, tmp_path: Path) -> None:
    request = _baseline_request(tmp_path)
    run = run_harness(harness, request, tmp_path, "-GcvBench=3")
    assert_protocol_ok(run, request["run_id"])
    bench = run.tagged("GCV-BENCH ")
    assert [b["run"] for b in bench[:3]] == [1, 2, 3]
    assert all(b["ms"] >= 0 and b["ticks"] == run.telemetry["ticks"] for b in bench[:3])
    assert bench[3]["runs"] == 3 and bench[3]["state_hash"] == run.telemetry["state_hash"]


def test_overwrites_existing_telemetry(harness: Path, tmp_path: Path) -> None:
    request = _baseline_request(tmp_path)
    (tmp_path / "telemetry.json").write_text("stale", encoding="utf-8")
    run = run_harness(harness, request, tmp_path)
    assert_protocol_ok(run, request["run_id"])
    assert run.telemetry["run_id"] == request["run_id"]


def test_self_test_flag(harness: Path) -> None:
    proc = subprocess.run([str(harness), "-GcvSelfTest"], capture_output=True, text=True, timeout=RUN_TIMEOUT)
    assert proc.returncode == 0, proc.stderr
    assert "all checks passed" in proc.stdout


# ---------------------------------------------------------------------------- build helper
def test_build_is_cached_until_a_source_changes(harness: Path) -> None:
    before = harness.stat().st_mtime_ns
    assert build_cpp_harness(harness.parent, "-O2") == harness
    assert harness.stat().st_mtime_ns == before


def test_missing_compiler_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CXX", "g++-that-does-not-exist")
    ok, reason = toolchain_status()
    assert not ok and "g++" in reason
    with pytest.raises(HarnessBuildError, match="g\\+\\+"):
        build_cpp_harness(tmp_path, "-O2")


def test_command_line_shape() -> None:
    assert cpp_harness_command(Path("/x/gcv-ue5-harness"), Path("/r/request.json")) == [
        "/x/gcv-ue5-harness", "-GcvRequest=/r/request.json"]
    with pytest.raises(ValueError):
        build_cpp_harness(None, "-Ofast")


# ---------------------------------------------------------------------------- planted off-by-ones
SIM_H = "GcvBridge/Source/GcvSimCore/Public/Gcv/Simulation.h"
TELEMETRY_H = "GcvBridge/Source/GcvSimCore/Public/Gcv/Telemetry.h"
FIXED_H = "GcvBridge/Source/GcvSimCore/Public/Gcv/Fixed.h"
CPP_MUTATIONS = [
    Mutation("graze_test_strict", SIM_H, "} else if (d2 <= grazeR2_ && GR[i] == 0) {",
             "} else if (d2 < grazeR2_ && GR[i] == 0) {", "boundary_graze_radius"),
    Mutation("hit_test_strict", SIM_H, "            if (d2 <= hitR2_) {", "            if (d2 < hitR2_) {",
             "boundary_hit_radius"),
    Mutation("expiry_a_tick_late", SIM_H, "return death[i] > t;", "return death[i] >= t;", "boundary_lifetime"),
    Mutation("despawn_without_the_last_move", SIM_H, "FloorDiv(prog_.despawnY + by, -vy) + 1)",
             "FloorDiv(prog_.despawnY + by, -vy))", "boundary_despawn_margin"),
    Mutation("clamp_a_unit_short", SIM_H, "px_ = ClampI(px_ + sx, -hw, hw);", "px_ = ClampI(px_ + sx, -hw, hw - 1);",
             "boundary_arena_clamp"),
    Mutation("trigger_strict", SIM_H, ">= health * 1000000) active", "> health * 1000000) active",
             "boundary_phase_trigger"),
    Mutation("invulnerable_a_tick_longer", SIM_H, "if (t >= invulnUntil_) {", "if (t > invulnUntil_) {",
             "boundary_invulnerability"),
    Mutation("boss_death_beats_player_death", SIM_H, "        if (health_ <= 0) {",
             "        if (health_ <= 0 && bossHealth_ != 0) {", "boundary_death_same_tick"),
    Mutation("whole_thousandths_without_the_point", TELEMETRY_H,
             'return (neg ? "-" : "") + std::to_string(m / 1000) + "." + frac;',
             'return (neg ? "-" : "") + std::to_string(m / 1000) + (frac == "0" ? "" : "." + frac);',
             "boundary_whole_thousandths", bytes_only=True),
    # issue 25.12: half down for half up in the thousandths (no vector ended on a tie before)
    Mutation("thousandths_rounded_half_down", TELEMETRY_H, "    out = twice / (2 * denominator);",
             "    out = (twice - 1) / (2 * denominator);", "boundary_half_thousandths"),
    # and in the integer trigonometry, which no vector met on a tie either
    Mutation("sine_rounded_half_down", FIXED_H, "    return (v + (1 << 13)) >> 14;",
             "    return (v + (1 << 13) - 1) >> 14;", "boundary_trig_ties"),
    Mutation("atan_rounded_half_down", FIXED_H, "return (8192 * r + p * q + (1 << 15)) >> 16;",
             "return (8192 * r + p * q + (1 << 15) - 1) >> 16;", "boundary_trig_ties"),
]
REPO = Path(__file__).resolve().parents[2]


def _directed_vector(name: str) -> dict[str, Any]:
    (path,) = [p for p in VECTORS if p.stem.endswith(name)]
    return load_vector(path)


def _planted_harness(tmp_path: Path, mutation: Mutation | None) -> Path:
    ok, reason = toolchain_status()
    if not ok:
        if REQUIRE_TOOLCHAINS:
            pytest.fail(f"GCV_REQUIRE_TOOLCHAINS=1 but the C++ toolchain is missing: {reason}")
        pytest.skip(f"C++ harness toolchain missing: {reason}")
    root = plant(REPO / "ue5_plugin", tmp_path / "ue5_plugin", ["harness", "GcvBridge/Source/GcvSimCore"], mutation)
    proc = subprocess.run(["bash", str(root / "harness" / "build.sh"), str(tmp_path / "bin"), "-O0"],
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return tmp_path / "bin" / "gcv-ue5-harness"


def _run_vector(exe: Path, vector: dict[str, Any], out: Path) -> tuple[dict[str, Any], bytes, bytes]:
    """(gameplay view, written bytes, python writer's bytes) of one vector through a harness."""
    req = dict(vector["request"], output_dir=str(out))
    run = run_harness(exe, req, out)
    assert_protocol_ok(run, req["run_id"])
    python = Simulation(req["program"], req["player"]).run(seed=req["seed"]).telemetry
    python["player"] = req["player_label"]
    return gameplay_view(run.telemetry), (out / "telemetry.json").read_bytes(), expected_bytes(python, run.telemetry)


@pytest.mark.slow
def test_an_unmutated_copy_passes_every_directed_vector(tmp_path: Path) -> None:
    """The copy-and-build of the mutation tests itself is sound."""
    exe = _planted_harness(tmp_path, None)
    for mutation in CPP_MUTATIONS:
        vector = _directed_vector(mutation.vector)
        got, written, python_bytes = _run_vector(exe, vector, tmp_path / mutation.name)
        assert got == vector["expected"] and written == python_bytes


@pytest.mark.slow
@pytest.mark.parametrize("mutation", CPP_MUTATIONS, ids=lambda m: m.name)
def test_a_planted_off_by_one_is_caught_by_its_directed_vector(tmp_path: Path, mutation: Mutation) -> None:
    exe = _planted_harness(tmp_path, mutation)
    vector = _directed_vector(mutation.vector)
    got, written, python_bytes = _run_vector(exe, vector, tmp_path / "run")
    if mutation.bytes_only:
        assert got == vector["expected"], "a writer mutation changed a gameplay figure"
        assert written != python_bytes, f"{mutation.name} survived {mutation.vector}"
    else:
        assert differing_fields(vector["expected"], got), f"{mutation.name} survived {mutation.vector}"
