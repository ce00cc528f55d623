"""Fuzz the command line's file inputs: random bytes, random JSON, random TOML, mutated real
documents and special files into every command that reads a file. Whatever arrives, the
answer is a documented exit code, no traceback and no hang (docs/reliability.md)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hostile.conftest import BASELINE, baseline_data, run_gcv

COMMANDS = {
    "validate": ["validate", "F"],
    "validate --goal": ["validate", str(BASELINE), "--goal", "F"],
    "diff": ["diff", str(BASELINE), "F"],
    "sim": ["sim", "F"],
    "sim inputs": ["sim", str(BASELINE), "--player", "inputs:F"],
    "fair": ["fair", "F", "--budget-seconds", "5"],
    "batch": ["batch", "F", "--workers", "1"],
    "verify": ["verify", "F"],
    "eval-requests": ["eval-requests", "F"],
    "compare": ["compare", "F", "F"],
}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2 ** 70), 2 ** 70) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=10), children, max_size=5),
    max_leaves=30)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            out += _paths(child, prefix + (key,))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            out += _paths(child, prefix + (i,))
    return out


@st.composite
def mutated_config(draw: st.DrawFn) -> bytes:
    """The real baseline with one value replaced: near-valid documents reach the deep code."""
    data = baseline_data()
    paths = _paths(data)[1:]
    path = draw(st.sampled_from(paths))
    target = data
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = draw(json_values)
    return json.dumps(data).encode()


@st.composite
def toml_text(draw: st.DrawFn) -> bytes:
    keys = st.sampled_from(["name", "configs", "seeds", "players", "engines", "output", "[gate]", "x"])
    values = st.sampled_from(['"a"', "1", "[1, 2]", "[[[[]]]]", '["scripted"]', '{a = 1}', "true", '"', "1e999",
                              "[" * 300 + "]" * 300, f'["{BASELINE}"]'])
    lines = draw(st.lists(st.tuples(keys, values), max_size=6))
    return "".join(f"{k} = {v}\n" if not k.startswith("[") else f"{k}\n" for k, v in lines).encode()


contents = st.one_of(
    st.binary(max_size=300),
    json_values.map(lambda v: json.dumps(v).encode()),
    mutated_config(),
    toml_text(),
    st.sampled_from([b"", b"\xef\xbb\xbf{}", b"[" * 5000, b'{"a": NaN}', b'{"a": 1, "a": 2}', b"\xff\xfe",
                     b'{"format": "gcv.inputs/1", "tick_hz": 60, "runs": [[99999999, 1, 1, 1]]}']),
    st.sampled_from(["FIFO", "DIR", "/dev/zero", "MISSING"]),
)


@pytest.mark.slow
@settings(max_examples=int(os.environ.get("GCV_FUZZ_EXAMPLES", "40")), deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large])
@given(command=st.sampled_from(sorted(COMMANDS)), content=contents)
def test_no_file_input_makes_the_cli_crash_or_hang(command: str, content: bytes | str,
                                                   tmp_path_factory: pytest.TempPathFactory) -> None:
    work = tmp_path_factory.mktemp("fuzz")
    target = work / "input"
    if content == "FIFO":
        os.mkfifo(target)
    elif content == "DIR":
        target.mkdir()
    elif content == "/dev/zero":
        target = Path("/dev/zero")
    elif content == "MISSING":
        pass
    else:
        assert isinstance(content, bytes)
        target.write_bytes(content)
    args = [str(target) if a == "F" else (f"inputs:{target}" if a == "inputs:F" else a) for a in COMMANDS[command]]
    ran = run_gcv(args, home=work / "home", cwd=work, timeout=90)
    ran.clean()  # no traceback, an exit code from the documented set
    if ran.returncode == 2:
        assert ran.stderr.strip(), "exit 2 says why"
