"""Requests every reader used to accept (or refuse differently), refused by all three readers
with one exit code and one message (issue 25.13-14): a repeated JSON key (each reader kept
the last value), and a program.config_hash that is a number, missing or not a hash (python-sim
and the native path exited 2, the harnesses 3, and the C# harness named the field
"(missing)"). The program-level refusals (a repeated phase id, a pattern_code that names
another pattern) are in test_program_shape.py with the other shape rules.

Each reader runs as the runner launches it: python-sim as ``python -m engine_runners.python_sim``,
the C++ and C# cores as their harnesses (built with g++ and mcs).
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

from gcv.sim.program import program_hash
from tests.support.parity import HarnessKind, make_request
from tests.support.simutil import VECTORS, load_vector

REPO = Path(__file__).resolve().parents[2]
SCRIPTED = {"kind": "scripted"}


def _request(tmp_path: Path) -> dict[str, Any]:
    program = copy.deepcopy(load_vector(VECTORS[0])["request"]["program"])
    return make_request(program, 1, SCRIPTED, tmp_path)


def _python_sim(request_path: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "engine_runners.python_sim", "--request", str(request_path)],
                          capture_output=True, text=True, timeout=120, env=env, stdin=subprocess.DEVNULL)


def _core(kind: HarnessKind, exe: Path) -> Callable[[Path], subprocess.CompletedProcess[str]]:
    return lambda request_path: subprocess.run(kind.command(exe, request_path), capture_output=True, text=True,
                                               timeout=120, stdin=subprocess.DEVNULL)


@pytest.fixture(params=["python-sim", "cpp", "csharp"])
def reader(request: pytest.FixtureRequest) -> Callable[[Path], subprocess.CompletedProcess[str]]:
    """Each of the three readers, as a function of a request file."""
    if request.param == "python-sim":
        return _python_sim
    from tests.support.parity import CPP, CSHARP
    from tests.support.toolchains import require_cpp_harness, require_csharp_harness

    if request.param == "cpp":
        return _core(CPP, require_cpp_harness())
    return _core(CSHARP, require_csharp_harness())


def _refused(reader: Callable[[Path], subprocess.CompletedProcess[str]], text: str, tmp_path: Path,
             words: str) -> None:
    path = tmp_path / "request.json"
    path.write_text(text, encoding="utf-8")
    proc = reader(path)
    assert proc.returncode == 2, f"exit {proc.returncode}: {proc.stderr}"
    assert words in proc.stderr, proc.stderr
    assert not (tmp_path / "telemetry.json").exists()
    error = [json.loads(line[len("GCV-ERROR "):]) for line in proc.stdout.splitlines() if line.startswith("GCV-ERROR ")]
    assert [e["exit_code"] for e in error] == [2] and words in error[0]["message"]


# (id, where the key is repeated: the text before which a copy of it is put, the key)
DUPLICATES = [
    ("top-level-seed", '"seed": 1', "seed"),
    ("program-member", '"tick_hz": 60', "tick_hz"),
    ("in-a-phase", '"aim": false', "aim"),
    ("in-the-player", '"kind": "scripted"', "kind"),
]


@pytest.mark.toolchain
@pytest.mark.parametrize("case_id, member, key", DUPLICATES, ids=[d[0] for d in DUPLICATES])
def test_a_repeated_json_key_is_refused_by_every_reader(reader: Any, case_id: str, member: str, key: str,
                                                        tmp_path: Path) -> None:
    """The same value twice is refused too: the reader cannot know which one was meant."""
    text = json.dumps(_request(tmp_path))
    assert member in text
    text = text.replace(member, f"{member}, {member}", 1)
    _refused(reader, text, tmp_path, f'duplicate key "{key}" (each key may appear once per object)')


CONFIG_HASHES = [
    ("a-number", lambda p: p.update(config_hash=5), "Input should be a valid string"),
    ("null", lambda p: p.update(config_hash=None), "Input should be a valid string"),
    ("missing", lambda p: p.pop("config_hash"), "Field required"),
    ("not-a-hash", lambda p: p.update(config_hash="ABC"), "String should match pattern '^[0-9a-f]{64}$'"),
    ("a-trailing-newline", lambda p: p.update(config_hash="a" * 64 + "\n"),
     "String should match pattern '^[0-9a-f]{64}$'"),
]


@pytest.mark.toolchain
@pytest.mark.parametrize("hash_right", [True, False], ids=["program-hash-right", "program-hash-wrong"])
@pytest.mark.parametrize("case_id, mutate, words", CONFIG_HASHES, ids=[c[0] for c in CONFIG_HASHES])
def test_a_malformed_program_config_hash_is_a_bad_request_everywhere(reader: Any, case_id: str, mutate: Any,
                                                                     words: str, hash_right: bool,
                                                                     tmp_path: Path) -> None:
    """Exit 2 naming program.config_hash in the same words, before any hash is compared
    (whether or not program_hash matches), never exit 3."""
    request = _request(tmp_path)
    mutate(request["program"])
    if hash_right:
        request["program_hash"] = program_hash(request["program"])
    _refused(reader, json.dumps(request), tmp_path, f"field program.config_hash: {words}")


@pytest.mark.toolchain
def test_a_config_hash_mismatch_is_still_exit_3(reader: Any, tmp_path: Path) -> None:
    """The new check reads the field; two well-formed hashes that differ stay a mismatch."""
    request = _request(tmp_path)
    request["program"]["config_hash"] = "0" * 64
    request["program_hash"] = program_hash(request["program"])
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request), encoding="utf-8")
    proc = reader(path)
    assert proc.returncode == 3, proc.stderr
    assert "config_hash" in proc.stderr and "(missing)" not in proc.stderr


ALLOWED = [
    ("negative-slot-speed", lambda p: [s.__setitem__(1, -s[1]) for s in p["phases"][0]["slots"]]),
    ("zero-rotation-sign", lambda p: [s.__setitem__(2, 0) for s in p["phases"][1]["slots"]]),
]


@pytest.mark.toolchain
@pytest.mark.parametrize("case_id, mutate", ALLOWED, ids=[a[0] for a in ALLOWED])
def test_what_the_program_model_allows_every_reader_runs_alike(reader: Any, case_id: str, mutate: Any,
                                                               tmp_path: Path) -> None:
    """A reversed slot and a slot that does not rotate are inside the model's slot ranges (and
    docs/simulation.md allows them): every reader runs them to the reference's figures
    (python-sim's request model used to refuse both with a narrower check of its own)."""
    from gcv.sim.engine import Simulation
    from gcv.sim.telemetry import gameplay_view

    request = _request(tmp_path)
    mutate(request["program"])
    request["program_hash"] = program_hash(request["program"])
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request), encoding="utf-8")
    proc = reader(path)
    assert proc.returncode == 0, proc.stderr
    got = json.loads((tmp_path / "telemetry.json").read_text(encoding="utf-8"))
    expected = Simulation(request["program"], SCRIPTED).run(seed=1).telemetry
    expected["player"] = request["player_label"]
    assert gameplay_view(got) == gameplay_view(expected)


@pytest.mark.toolchain
def test_an_object_of_a_hundred_thousand_members_is_refused_in_seconds(reader: Any, tmp_path: Path) -> None:
    """Every reader parses an object in linear time: the C++ parser searched the members read so
    far for each new one and took 83 s on this 1.7 MB request (python-sim and C#: under a second)."""
    import time

    request = _request(tmp_path)
    request["zz_wide"] = {f"k{i}": i for i in range(100_000)}
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request), encoding="utf-8")
    started = time.monotonic()
    proc = reader(path)
    elapsed = time.monotonic() - started
    assert proc.returncode == 2 and "zz_wide" in proc.stderr, proc.stderr
    assert elapsed < 15, f"{elapsed:.1f} s"
