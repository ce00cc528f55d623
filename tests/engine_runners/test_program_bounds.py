"""One table of program ranges: the Python model, the C# core and the C++ core accept and
refuse exactly the same programs (issue 12: the bounds used to differ in all three)."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from engine_runners.protocol import RunRequest
from gcv.schema_export import ENGINE_FILES, bound_name
from gcv.sim.program_model import Bound, program_bounds
from tests.support.parity import HarnessKind, make_request
from tests.support.simutil import VECTORS, load_vector

BOUNDS = program_bounds()
SKILL = "novice"


def test_generated_engine_files_are_committed(repo_root: Path) -> None:
    for rel, build in ENGINE_FILES.items():
        assert (repo_root / rel).read_text(encoding="utf-8") == build(), (
            f"{rel} differs from gcv/sim/program_model.py; run `gcv schema export` and commit")


def test_every_bound_has_a_distinct_engine_name() -> None:
    names = [bound_name(b) for b in BOUNDS]
    assert len(names) == len(set(names))
    assert all(re.fullmatch(r"[A-Z][A-Za-z0-9]*", n) for n in names)


def test_every_range_the_ports_read_comes_from_the_generated_table(repo_root: Path) -> None:
    """No literal range is left in either reader: each field read names its generated bounds."""
    cs = (repo_root / "unity_project/Assets/Gcv/Core/SimProgram.cs").read_text(encoding="utf-8")
    cpp = (repo_root / "ue5_plugin/GcvBridge/Source/GcvSimCore/Public/Gcv/Program.h").read_text(encoding="utf-8")
    for b in BOUNDS:
        name = bound_name(b)
        assert f"ProgramBounds.{name}Min" in cs and f"ProgramBounds.{name}Max" in cs, f"C# does not read {b.path}"
        assert f"k{name}Min" in cpp and f"k{name}Max" in cpp, f"C++ does not read {b.path}"
    assert not re.search(r'Fields\.Int\(\w+, "\w+", \w+, -?\(?\d', cs), "a literal range in SimProgram.cs"
    assert not re.search(r'r\.Int\([^;]*, -?\(?\d', cpp.split("inline bool ReadProgram")[1].split("ReadRunRequest")[0]), \
        "a literal range in ReadProgram"


# Every reader reads the whole program whichever player runs: a scripted player for every case
# (so a bad bot section is refused on a scripted run too, as pydantic refuses it).
PLAYER = {"kind": "scripted"}


def _with_value(program: dict[str, Any], bound: Bound, value: int) -> dict[str, Any]:
    """The baseline program with one field (or one list's length) set to ``value``."""
    p = copy.deepcopy(program)
    path = bound.path
    if path == "phases":
        p["phases"] = [dict(p["phases"][0], phase_id=f"p{k}") for k in range(value)]
    elif path == "phases[].phase_id":  # a string's length
        p["phases"][0]["phase_id"] = "p" * value
    elif path == "phases[].slots":
        p["phases"][0]["slots"] = [list(p["phases"][0]["slots"][0]) for _ in range(value)]
    elif path.startswith("phases[].slots[]["):
        p["phases"][0]["slots"][0][int(path[-2])] = value
    elif path.startswith("phases[]."):
        p["phases"][0][path.split(".")[-1]] = value
    elif path.startswith("bot.skills[]."):
        p["bot"]["skills"][SKILL][path.split(".")[-1]] = value
    else:
        *parents, leaf = path.split(".")
        node = p
        for key in parents:
            node = node[key]
        node[leaf] = value
    return p


def _outside(bound: Bound) -> list[tuple[str, int]]:
    return [("above", bound.hi + 1), ("below", bound.lo - 1)]


CASES = [(b, side, value) for b in BOUNDS for side, value in _outside(b)]
IDS = [f"{b.path}-{side}" for b, side, _ in CASES]


@pytest.mark.parametrize("bound, side, value", CASES, ids=IDS)
def test_python_refuses_a_value_outside_the_range(bound: Bound, side: str, value: int, tmp_path: Path) -> None:
    program = _with_value(load_vector(VECTORS[0])["request"]["program"], bound, value)
    with pytest.raises(ValidationError) as err:
        RunRequest.model_validate(make_request(program, 1, PLAYER, tmp_path))
    leaf = re.sub(r"\[.*", "", bound.path.split(".")[-1])
    assert leaf in str(err.value)


@pytest.mark.toolchain
@pytest.mark.parametrize("bound, side, value", CASES, ids=IDS)
def test_the_engine_cores_refuse_the_same_value(engine_core: tuple[HarnessKind, Path], bound: Bound, side: str,
                                                value: int, tmp_path: Path) -> None:
    kind, exe = engine_core
    program = _with_value(load_vector(VECTORS[0])["request"]["program"], bound, value)
    run = kind.run(exe, make_request(program, 1, PLAYER, tmp_path), tmp_path)
    leaf = re.sub(r"\[.*", "", bound.path.split(".")[-1])
    assert run.code == 2, f"{kind.label} accepted {bound.path} = {value}: {run.proc.stderr}"
    assert leaf in run.proc.stderr, run.proc.stderr


@pytest.mark.toolchain
@pytest.mark.parametrize("edge", ["lo", "hi"])
def test_the_engine_cores_accept_a_list_length_at_its_edge(engine_core: tuple[HarnessKind, Path], edge: str,
                                                           tmp_path: Path) -> None:
    """At the edges, lists are accepted by all three (a program at every field's edge at once
    could overflow nothing but would take long to run; the lengths are the cheap ones)."""
    kind, exe = engine_core
    bound = next(b for b in BOUNDS if b.path == "phases")
    program = _with_value(load_vector(VECTORS[0])["request"]["program"], bound, getattr(bound, edge))
    request = make_request(program, 1, {"kind": "scripted"}, tmp_path)
    RunRequest.model_validate(request)
    run = kind.run(exe, request, tmp_path)
    kind.assert_protocol_ok(run, "parity")
