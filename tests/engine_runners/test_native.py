"""The C++ core in process (engine_runners/native.py): bit-for-bit parity with python-sim,
the build cache, the fallback to Python, and its use by batches and populations.

Parity is tested like the harnesses: every golden vector and random valid configs x seeds x
players, at -O0 and at -O2, telemetry compared as dicts and as the bytes python-sim's writer
produces (the native path returns python-sim's telemetry, ``engine`` included). The libraries are
built into a temporary cache for this module. Tests that need g++ are marked ``toolchain``;
the fallback tests simulate a machine without it and run anywhere.
"""

from __future__ import annotations

import copy
import json
import os
import re
import threading
from pathlib import Path
from typing import Any, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from typer.testing import CliRunner

from engine_runners import native
from gcv.batch import executors
from gcv.batch.population import run_population
from gcv.cli.app import app
from gcv.simio.pool import run_batch as python_run_batch
from gcv.sim.engine import Simulation
from gcv.sim.players import player_label
from gcv.sim.program import program_hash
from tests.support.batchutil import write_configs, write_spec
from tests.support.program_strategies import EXOTIC, PLAYERS, parity_cases
from tests.support.simutil import VECTORS, baseline_program, load_vector
from tests.support.telemetry_bytes import first_byte_difference, python_writer_bytes

REQUIRE_TOOLCHAINS = os.environ.get("GCV_REQUIRE_TOOLCHAINS") == "1"


def _require_compiler() -> None:
    ok, reason = native.toolchain_status()
    if not ok:
        if REQUIRE_TOOLCHAINS:
            pytest.fail(f"GCV_REQUIRE_TOOLCHAINS=1 but the native core cannot be built: {reason}")
        pytest.skip(f"native core toolchain missing: {reason}")


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("native-cache")


@pytest.fixture(scope="module")
def core_o2(cache: Path) -> native.NativeCore:
    _require_compiler()
    return native.load("-O2", cache)


@pytest.fixture(scope="module")
def core_o0(cache: Path) -> native.NativeCore:
    _require_compiler()
    return native.load("-O0", cache)


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch, cache: Path) -> Iterator[None]:
    """This process's native path forgotten before and after (tests change the environment)."""
    monkeypatch.setenv(native.CACHE_ENV, str(cache))
    monkeypatch.delenv(native.MODE_ENV, raising=False)
    native.reset()
    yield
    native.reset()


@pytest.fixture
def no_compiler(fresh: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A machine without g++ and with nothing cached."""
    monkeypatch.setenv("CXX", "g++-that-does-not-exist")
    monkeypatch.setenv(native.CACHE_ENV, str(tmp_path / "empty-cache"))


def _python(program: dict[str, Any], player: dict[str, Any], seed: int) -> dict[str, Any]:
    return Simulation(program, player).run(seed=seed).telemetry


def assert_same_as_python(core: native.NativeCore, program: dict[str, Any], player: dict[str, Any],
                          seed: int) -> bytes:
    """The native run equals python-sim's: the dict and the bytes python-sim's writer produces."""
    python = _python(program, player, seed)
    written = core.program(program).run_bytes(player, seed)
    got = json.loads(written)
    assert got == python, f"differs at {[k for k in python if python[k] != got.get(k)]} " \
                          f"({player_label(player)}, seed {seed})"
    assert first_byte_difference(python_writer_bytes(python), written) is None
    return written


# ---------------------------------------------------------------------------- parity
@pytest.mark.toolchain
@pytest.mark.slow
@pytest.mark.parametrize("opt", ["-O2", "-O0"])
@pytest.mark.parametrize("path", VECTORS, ids=[p.stem for p in VECTORS])
def test_golden_vector_in_process(request: pytest.FixtureRequest, path: Path, opt: str) -> None:
    core = request.getfixturevalue("core_o2" if opt == "-O2" else "core_o0")
    vector = load_vector(path)
    req = vector["request"]
    assert core.program(req["program"]).hash == req["program_hash"]
    written = assert_same_as_python(core, req["program"], req["player"], req["seed"])
    got = json.loads(written)
    assert {k: got[k] for k in vector["expected"]} == vector["expected"]


@pytest.mark.toolchain
@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                                   HealthCheck.function_scoped_fixture])
@given(case=parity_cases())
def test_random_cases_match_python_at_both_optimisation_levels(core_o2: native.NativeCore, core_o0: native.NativeCore,
                                                                case: Any) -> None:
    program, seed, player = case
    written = assert_same_as_python(core_o2, program, player, seed)
    assert core_o0.program(program).run_bytes(player, seed) == written, "-O0 and -O2 libraries disagree"


@pytest.mark.toolchain
@pytest.mark.slow
@pytest.mark.parametrize("player", PLAYERS, ids=lambda p: p.get("skill", p["kind"]))
@pytest.mark.parametrize("name", sorted(EXOTIC))
def test_exotic_programs_match_python(core_o2: native.NativeCore, name: str, player: dict[str, Any]) -> None:
    program = EXOTIC[name](load_vector(VECTORS[0])["request"]["program"])
    assert_same_as_python(core_o2, program, player, 4242)


@pytest.mark.toolchain
def test_state_hash_every_tick_matches_python(core_o2: native.NativeCore) -> None:
    """A bot fight with a state hash after every tick: the skipping, implicit motion and the
    faster SHA-256 agree with Python on every single tick, not only every 60."""
    program = copy.deepcopy(load_vector(VECTORS[13])["request"]["program"])  # minimum_interval: dense
    program["state_hash_interval"] = 1
    program["duration_ticks"] = 900
    for player in ({"kind": "bot", "skill": "expert"}, {"kind": "scripted"}):
        got = core_o2.program(program).run(player, 5)
        assert got["state_hashes"] == _python(program, player, 5)["state_hashes"]
        assert len(got["state_hashes"]) == got["ticks"]


@pytest.mark.toolchain
def test_self_test_checks_both_sha256_paths(core_o2: native.NativeCore) -> None:
    ok, message = core_o2.self_test()
    assert ok and message == "self-test: all checks passed"
    assert isinstance(core_o2.sha_accelerated, bool)


# ---------------------------------------------------------------------------- programs, players, seeds
@pytest.mark.toolchain
def test_a_program_is_parsed_once(core_o2: native.NativeCore) -> None:
    program = baseline_program()
    first = core_o2.program(program)
    assert core_o2.program(copy.deepcopy(program)) is first  # same hash: the parsed program is reused
    assert first.hash == program_hash(program)
    other = copy.deepcopy(program)
    other["state_hash_interval"] = 30
    assert core_o2.program(other) is not first
    for i in range(native.PROGRAM_CACHE_SIZE + 2):  # the cache is bounded
        variant = copy.deepcopy(program)
        variant["duration_ticks"] = 100 + i
        core_o2.program(variant)
    assert len(core_o2._programs) == native.PROGRAM_CACHE_SIZE


@pytest.mark.toolchain
@pytest.mark.parametrize("player, field", [
    ({"kind": "bot", "skill": "godlike"}, "player.skill"),
    ({"kind": "bot"}, "player.skill"),
    ({"kind": "human"}, "player.kind"),
    ({"kind": "scripted", "extra": 1}, "player.extra"),
    ({"kind": "inputs", "trace": {"format": "gcv.inputs/1", "tick_hz": 60, "runs": [[10, 2, 0, 0]]}},
     "player.trace.runs.0.1"),
])
def test_a_bad_player_is_refused_with_the_field(core_o2: native.NativeCore, player: dict[str, Any],
                                                 field: str) -> None:
    with pytest.raises(native.NativeRequestError, match=f"field {field}:"):
        core_o2.program(baseline_program()).run(player, 1)


@pytest.mark.toolchain
def test_a_bad_seed_is_refused_as_python_refuses_it(core_o2: native.NativeCore) -> None:
    program = baseline_program()
    for seed in (-1, 1 << 63):
        with pytest.raises(ValueError) as python_error:
            _python(program, {"kind": "scripted"}, seed)
        with pytest.raises(ValueError) as native_error:
            core_o2.program(program).run({"kind": "scripted"}, seed)
        assert str(native_error.value) == str(python_error.value)


@pytest.mark.toolchain
def test_a_malformed_program_is_refused_with_the_field(core_o2: native.NativeCore) -> None:
    program = baseline_program()
    del program["arena"]["despawn_y"]
    with pytest.raises(native.NativeRequestError, match="field program.arena.despawn_y: Field required"):
        core_o2.program(program).run({"kind": "scripted"}, 1)


@pytest.mark.toolchain
@pytest.mark.parametrize("mutate, words", [
    (lambda p: p.update(config_hash=5), "field program.config_hash: Input should be a valid string"),
    (lambda p: p["phases"][2].update(phase_id=p["phases"][0]["phase_id"]),
     "field program.phases.2.phase_id: phase id 'phase_1' is used by phases 0 and 2"),
    (lambda p: p["phases"][1].update(pattern_code=0),
     "field program.phases.1.pattern_code: pattern_code 0 contradicts pattern 'spiral' (whose code is 1)"),
], ids=["config-hash-a-number", "phase-id-repeated", "pattern-code-of-another-pattern"])
def test_the_native_path_refuses_what_python_refuses_in_its_words(core_o2: native.NativeCore, mutate: Any,
                                                                   words: str) -> None:
    """Issue 25.13-14: the in-process core says what the Python model and the harnesses say."""
    from pydantic import ValidationError

    from gcv.sim.program_model import SimProgram

    program = baseline_program()
    mutate(program)
    with pytest.raises(ValidationError) as err:
        SimProgram.model_validate(program)
    first = err.value.errors()[0]
    assert f"field program.{'.'.join(map(str, first['loc']))}: {first['msg']}".startswith(words)
    with pytest.raises(native.NativeRequestError, match=re.escape(words)):
        core_o2.program(program).run({"kind": "scripted"}, 1)


@pytest.mark.toolchain
def test_runs_from_several_threads_agree(core_o2: native.NativeCore) -> None:
    program = baseline_program()
    parsed = core_o2.program(program)
    players = [{"kind": "bot", "skill": s} for s in ("novice", "average", "expert")] * 3
    expected = [parsed.run_bytes(p, 11) for p in players]
    results: dict[int, bytes] = {}

    def work(i: int) -> None:
        results[i] = parsed.run_bytes(players[i], 11)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(players))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [results[i] for i in range(len(players))] == expected


# ---------------------------------------------------------------------------- the build
@pytest.mark.toolchain
def test_the_library_is_cached_outside_the_tree_and_reused(core_o2: native.NativeCore, cache: Path) -> None:
    lib = native.library_path("-O2", cache)
    assert core_o2.path == lib and lib.is_file()
    assert native.REPO not in lib.parents
    before = lib.stat().st_mtime_ns
    assert native.build_library("-O2", cache) == lib
    assert lib.stat().st_mtime_ns == before  # not rebuilt
    assert native.library_path("-O0", cache) != lib  # another flag, another library
    assert not list(cache.glob("*.tmp.*"))  # published by rename, nothing half-written left


def test_the_cache_key_follows_the_sources_and_flags(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    key = native.build_key("-O2")
    assert native.build_key("-O2") == key and native.build_key("-O0") != key
    monkeypatch.setenv("CXX", "clang++")
    assert native.build_key("-O2") != key
    monkeypatch.delenv("CXX")
    header = tmp_path / "Extra.h"
    header.write_text("// a changed header\n", encoding="utf-8")
    monkeypatch.setattr(native, "sources", lambda: [native.SOURCE, header])
    assert native.build_key("-O2") != key


@pytest.mark.toolchain
@pytest.mark.slow
def test_concurrent_first_uses_build_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _require_compiler()
    calls = []
    real_run = native.subprocess.run

    def counting_run(*args: Any, **kwargs: Any) -> Any:
        calls.append(args[0])
        return real_run(*args, **kwargs)

    monkeypatch.setattr(native.subprocess, "run", counting_run)
    paths: list[Path] = []
    threads = [threading.Thread(target=lambda: paths.append(native.build_library("-O0", tmp_path)))
               for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len(set(paths)) == 1 and paths[0].is_file()


@pytest.mark.toolchain
def test_a_compile_error_is_reported_with_the_compiler_output(monkeypatch: pytest.MonkeyPatch,
                                                               tmp_path: Path) -> None:
    _require_compiler()
    broken = tmp_path / "broken.cpp"
    broken.write_text("int main( {\n", encoding="utf-8")
    monkeypatch.setattr(native, "SOURCE", broken)
    with pytest.raises(native.NativeBuildError, match="failed to build the native core") as err:
        native.build_library("-O0", tmp_path / "cache")
    assert "broken.cpp" in str(err.value)


def test_unknown_optimisation_level_and_mode_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="opt must be one of"):
        native.build_library("-Ofast")
    monkeypatch.setenv(native.MODE_ENV, "fast")
    with pytest.raises(ValueError, match="GCV_NATIVE='fast'; allowed: auto, off, require"):
        native.mode()
    status = native.status()
    assert status.path == "python" and not status.ok and "allowed: auto, off, require" in status.reason


# ---------------------------------------------------------------------------- which path runs
def test_without_a_compiler_python_runs_and_says_why(no_compiler: None) -> None:
    before = native.status()
    assert before.path == "python" and before.ok and "g++" in before.reason
    program = baseline_program()
    runs = [(3, {"kind": "bot", "skill": "average"}), (4, {"kind": "scripted"})]
    telemetries, path = native.run_batch(program, runs)
    assert path == "python"
    assert telemetries == python_run_batch(program, runs)
    after = native.status(build=True)
    assert after.path == "python" and "g++" in after.reason


def test_require_without_a_core_is_an_error(no_compiler: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(native.MODE_ENV, "require")
    assert not native.status().ok
    with pytest.raises(native.NativeUnavailable, match="GCV_NATIVE=require"):
        native.run_batch(baseline_program(), [(1, {"kind": "scripted"})])
    status = native.status(build=True)
    assert status.path == "python" and not status.ok


@pytest.mark.toolchain
@pytest.mark.slow
def test_a_first_build_is_announced(fresh: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _require_compiler()
    monkeypatch.setenv(native.CACHE_ENV, str(tmp_path / "new-cache"))
    lines: list[str] = []
    status = native.status(build=True, announce=lines.append)
    assert status.path == "native" and len(lines) == 1 and "building the native C++ core" in lines[0]
    native.reset()
    assert native.status(build=True, announce=lines.append).path == "native" and len(lines) == 1  # cached now


def test_off_runs_python(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(native.MODE_ENV, "off")
    assert native.status(build=True) == native.NativeStatus("python", "GCV_NATIVE=off")
    assert native.core() is None
    _, path = native.run_batch(baseline_program(), [(1, {"kind": "scripted"})])
    assert path == "python"


@pytest.mark.toolchain
def test_auto_runs_native(fresh: None, core_o2: native.NativeCore) -> None:
    status = native.status(build=True)
    assert status.path == "native" and status.ok and status.library == str(core_o2.path)
    assert status.sha256 in ("cpu", "portable")
    program = baseline_program()
    runs = [(seed, {"kind": "bot", "skill": s}) for seed in (1, 2) for s in ("novice", "expert")]
    telemetries, path = native.run_batch(program, runs)
    assert path == "native"
    assert telemetries == python_run_batch(program, runs)


@pytest.mark.toolchain
def test_python_only_runs_python_in_its_own_context_only(fresh: None, core_o2: native.NativeCore) -> None:
    """What verify --replay recomputes in: Python, whatever GCV_NATIVE says; another thread
    (a batch beside it in the console) keeps its native core."""
    program = baseline_program()
    runs = [(3, {"kind": "bot", "skill": "average"})]
    elsewhere: list[str] = []
    with native.python_only():
        telemetries, path = native.run_batch(program, runs)
        assert path == "python" and native.core() is None and native.status(build=True).path == "python"
        thread = threading.Thread(target=lambda: elsewhere.append(native.run_batch(program, runs)[1]))
        thread.start()
        thread.join()
    assert elsewhere == ["native"]
    assert native.run_batch(program, runs) == (telemetries, "native")


@pytest.mark.toolchain
def test_a_program_outside_the_cores_bounds_runs_in_python(fresh: None, core_o2: native.NativeCore) -> None:
    """The C++ reader bounds every number so no intermediate leaves int64; python-sim accepts
    more. Such a program runs in Python (the specification) rather than failing."""
    program = baseline_program()
    program["boss"]["x"] = 1 << 29  # allowed by the program schema, beyond the core's 2^28
    telemetries, path = native.run_batch(program, [(1, {"kind": "scripted"})])
    assert path == "python" and telemetries == python_run_batch(program, [(1, {"kind": "scripted"})])


# ---------------------------------------------------------------------------- batches and populations
def _unit(program: dict[str, Any]) -> dict[str, Any]:
    players = {"bot:average": {"kind": "bot", "skill": "average"}, "scripted": {"kind": "scripted"}}
    cells = [{"cell_id": f"c{i}", "config_hash": program["config_hash"], "config_label": "shrine", "player": label,
              "engine": "python-sim", "seed": seed, "attempt": 1}
             for i, (label, seed) in enumerate((lb, s) for lb in players for s in (5, 6))]
    return {"engine": "python-sim", "program": program, "players": players, "cells": cells, "capture_ticks": [],
            "timeout": 60.0, "output_dir": "."}


def _rows_without(rows: list[dict[str, Any]], *keys: str) -> list[dict[str, Any]]:
    return [{k: v for k, v in row.items() if k not in keys} for row in rows]


@pytest.mark.toolchain
def test_batch_cells_run_native_with_the_rows_python_gives(fresh: None, core_o2: native.NativeCore,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    unit = _unit(baseline_program())
    calls = []
    real = native.NativeProgram.run
    monkeypatch.setattr(native.NativeProgram, "run", lambda self, *a, **k: calls.append(a) or real(self, *a, **k))
    fast = executors.run_unit(unit)
    assert len(calls) == len(unit["cells"])  # every cell ran on the native core
    monkeypatch.setenv(native.MODE_ENV, "off")
    slow = executors.run_unit(unit)
    assert len(calls) == len(unit["cells"])  # and none of these
    assert _rows_without(fast, "duration_ms") == _rows_without(slow, "duration_ms")
    assert all(row["status"] in ("completed", "died") for row in fast)


@pytest.mark.toolchain
def test_a_failing_cell_is_still_an_error_row(fresh: None, core_o2: native.NativeCore) -> None:
    unit = _unit(baseline_program())
    unit["players"]["scripted"] = {"kind": "bot", "skill": "godlike"}  # refused by the core and by Python
    rows = executors.run_unit(unit)
    assert [r["status"] == "error" for r in rows] == [False, False, True, True]
    assert "player.skill" in rows[2]["error_message"]


@pytest.mark.toolchain
@pytest.mark.slow
def test_population_native_equals_python(fresh: None, core_o2: native.NativeCore,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    program = baseline_program()
    calls = []
    real = native.NativeProgram.run
    monkeypatch.setattr(native.NativeProgram, "run", lambda self, *a, **k: calls.append(a) or real(self, *a, **k))
    skills = ["novice", "average", "expert"]
    fast = run_population(program, skills=skills, seeds=6)
    assert len(calls) == 18  # 6 seeds x 3 skills, all native
    monkeypatch.setenv(native.MODE_ENV, "off")
    assert run_population(program, skills=skills, seeds=6) == fast
    assert len(calls) == 18


def test_population_without_a_compiler_still_runs(no_compiler: None) -> None:
    summary = run_population(baseline_program(), skills=["average"], seeds=2)
    assert summary.skill("average").runs == 2


def test_population_under_require_without_a_core_fails_before_running(no_compiler: None,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(native.MODE_ENV, "require")
    with pytest.raises(native.NativeUnavailable, match="g\\+\\+"):
        run_population(baseline_program(), skills=["average"], seeds=2)


# ---------------------------------------------------------------------------- the CLI says which path runs
def _cli(*args: Any) -> Any:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert "Traceback" not in result.output
    return result


def _batch_spec(root: Path) -> Path:
    write_configs(root / "configs")
    return write_spec(root, 'configs = ["configs/shrine.json"]\nseeds = { start = 1, count = 2 }\n'
                            'players = ["bot:average"]\noutput = "out"\n')


def test_gcv_engines_reports_the_batch_path(no_compiler: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "250")
    doc = json.loads(_cli("engines", "--json").stdout)
    (sim,) = [e for e in doc["engines"] if e["engine"] == "python-sim"]
    assert sim["batch_path"]["path"] == "python" and "g++" in sim["batch_path"]["reason"]
    assert "batches: Python (" in sim["reason"]
    human = _cli("engines").stdout
    assert "batches: Python" in human


@pytest.mark.toolchain
def test_gcv_engines_reports_native_when_built(fresh: None, core_o2: native.NativeCore,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    doc = json.loads(_cli("engines", "--json").stdout)
    (sim,) = [e for e in doc["engines"] if e["engine"] == "python-sim"]
    assert sim["batch_path"] == native.NativeStatus("native", f"{core_o2.path.name} in {core_o2.path.parent}, built",
                                                    str(core_o2.path)).as_dict()


@pytest.mark.toolchain
@pytest.mark.slow
def test_gcv_batch_says_which_path_runs(fresh: None, core_o2: native.NativeCore, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("GCV_HOME", str(tmp_path / "ws"))
    spec = _batch_spec(tmp_path)
    result = _cli("batch", spec, "--workers", "1", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["python_sim_path"]["path"] == "native" and doc["python_sim_path"]["library"] == str(core_o2.path)
    assert "python-sim runs on the native C++ core" in result.stderr
    native.reset()
    monkeypatch.setenv(native.MODE_ENV, "off")
    result = _cli("batch", spec, "--workers", "1", "--overwrite")
    assert result.exit_code == 0, result.output
    assert "python-sim runs in Python (GCV_NATIVE=off)" in result.stderr


def test_gcv_batch_under_require_without_a_core_stops_before_running(no_compiler: None, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(native.MODE_ENV, "require")
    monkeypatch.setenv("GCV_HOME", str(tmp_path / "ws"))
    result = _cli("batch", _batch_spec(tmp_path), "--json")
    assert result.exit_code == 2
    doc = json.loads(result.stdout)
    assert "GCV_NATIVE=require" in doc["error"] and "g++" in doc["error"]
    assert not (tmp_path / "out" / "results.jsonl").exists()
