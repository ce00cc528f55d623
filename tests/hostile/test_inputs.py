"""Every file the CLI reads is a regular file under a size cap; anything else is one clear
message naming the input, exit code 2, at once (docs/reliability.md, "Bad input")."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable

import pytest

from tests.hostile.conftest import BASELINE, REPO_ROOT, Ran, baseline_data

REQUESTS = str(REPO_ROOT / "artifacts" / "requests")

# Every command (and option) that reads a file, with F standing for the file under test.
FILE_INPUTS: dict[str, list[str]] = {
    "validate CANDIDATE": ["validate", "F"],
    "validate --baseline": ["validate", str(BASELINE), "--baseline", "F"],
    "validate --goal": ["validate", str(BASELINE), "--goal", "F"],
    "diff BEFORE": ["diff", "F", str(BASELINE)],
    "sim CONFIG": ["sim", "F"],
    "sim --player inputs:FILE": ["sim", str(BASELINE), "--player", "inputs:F"],
    "fair CONFIG": ["fair", "F"],
    "batch SPEC": ["batch", "F"],
    "verify BUNDLE": ["verify", "F"],
    "eval-requests SET": ["eval-requests", "F"],
    "eval-requests --provider replay:FILE": ["eval-requests", REQUESTS, "--provider", "replay:F"],
    "eval-requests --baseline": ["eval-requests", REQUESTS, "--baseline", "F"],
    "propose --baseline": ["propose", "make phase 2 harder", "--baseline", "F"],
    "run --baseline": ["run", "make phase 2 harder", "--baseline", "F", "--yes", "--repair-scope", "fight"],
    "serve --users": ["serve", "--users", "F", "--port", "1"],
    "compare A B": ["compare", "F", "F"],
}


def _with(args: list[str], path: Path) -> list[str]:
    return [a.replace("F", str(path)) if a == "F" or a.endswith(":F") else a for a in args]


def _refused(ran: Ran, path: Path, *needles: str) -> None:
    ran.clean(2)
    said = " ".join((ran.stderr + ran.stdout).split())  # rich wraps long lines
    assert str(path) in said or path.name in said, said
    for needle in needles:
        assert needle in said, said


@pytest.mark.slow
@pytest.mark.parametrize("name", list(FILE_INPUTS))
def test_a_fifo_is_refused_at_once_by_every_command_that_reads_a_file(name: str, gcv: Callable[..., Ran],
                                                                     fifo: Path) -> None:
    ran = gcv(*_with(FILE_INPUTS[name], fifo), timeout=20)  # main: blocks forever opening the FIFO
    _refused(ran, fifo, "FIFO")
    assert ran.seconds < 15


@pytest.mark.slow
@pytest.mark.parametrize("name", ["validate CANDIDATE", "sim CONFIG", "batch SPEC", "verify BUNDLE",
                                  "sim --player inputs:FILE", "eval-requests SET", "serve --users"])
def test_dev_zero_is_refused_not_read(name: str, gcv: Callable[..., Ran]) -> None:
    ran = gcv(*_with(FILE_INPUTS[name], Path("/dev/zero")), timeout=20)  # main: reads until memory runs out
    _refused(ran, Path("/dev/zero"), "character device")


def test_a_fifo_config_is_refused_at_once(gcv: Callable[..., Ran], fifo: Path) -> None:
    """The fast representative of the FIFO matrix above."""
    ran = gcv("validate", str(fifo), "--json", timeout=20)
    ran.clean(2)
    assert ran.json()["file"] == str(fifo) and "FIFO" in ran.json()["error"]


@pytest.mark.parametrize("name", ["validate CANDIDATE", "batch SPEC", "verify BUNDLE", "sim --player inputs:FILE"])
def test_an_oversize_file_is_refused_before_it_is_read(name: str, gcv: Callable[..., Ran], tmp_path: Path) -> None:
    big = tmp_path / "big.input"
    with open(big, "wb") as fh:  # sparse: 1 GiB + 1 byte that costs no disk
        fh.truncate((1 << 30) + 1)
    ran = gcv(*_with(FILE_INPUTS[name], big), timeout=20)
    _refused(ran, big, "at most")
    assert ran.seconds < 10


def test_a_directory_and_a_missing_file_are_named(gcv: Callable[..., Ran], tmp_path: Path) -> None:
    _refused(gcv("validate", str(tmp_path)), tmp_path, "is a directory")
    _refused(gcv("sim", str(tmp_path / "nope.json")), tmp_path / "nope.json", "file not found")


def test_invalid_utf8_names_the_byte(gcv: Callable[..., Ran], tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b'name = "\xff"\n')
    _refused(gcv("batch", str(bad)), bad, "byte offset")


DEEP_JSON = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("args", [["validate", "F"], ["sim", str(BASELINE), "--player", "inputs:F"], ["diff", "F", "F"]])
def test_deeply_nested_json_is_refused(args: list[str], gcv: Callable[..., Ran], tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text(DEEP_JSON)
    ran = gcv(*_with(args, deep))  # main: RecursionError traceback from the inputs trace
    _refused(ran, deep, "nested too deeply")


@pytest.mark.parametrize("args", [["batch", "F"], ["serve", "--users", "F", "--port", "1"]])
def test_deeply_nested_toml_is_refused(args: list[str], gcv: Callable[..., Ran], tmp_path: Path) -> None:
    deep = tmp_path / "deep.toml"
    deep.write_text("x = " + "[" * 50_000 + "]" * 50_000 + "\n")
    ran = gcv(*_with(args, deep))  # main: RecursionError traceback from tomllib
    _refused(ran, deep, "nested too deeply")


def test_json_of_the_wrong_shape_is_reported_not_a_traceback(gcv: Callable[..., Ran], tmp_path: Path) -> None:
    array = tmp_path / "array.json"
    array.write_text("[1, 2]")
    ran = gcv("sim", str(array))  # main: a GcvInputError traceback ("baseline: Input should be a valid dictionary")
    ran.clean(1)
    assert "does not validate" in ran.stderr and "array" in ran.stderr
    ran = gcv("validate", str(BASELINE), "--goal", str(array), "--json")
    ran.clean(2)
    assert ran.json()["error"] == "goal: expected a JSON object, found an array"


def _phases_config(tmp_path: Path, count: int) -> Path:
    data = baseline_data()
    phase = data["phases"][0]
    data["phases"] = [dict(phase, phase_id=f"p{i}") for i in range(count)]
    path = tmp_path / "phases.json"
    path.write_text(json.dumps(data))
    return path


def test_forty_thousand_phases_are_refused_fast_with_the_field_and_the_maximum(gcv: Callable[..., Ran],
                                                                                tmp_path: Path) -> None:
    config = _phases_config(tmp_path, 40_000)
    assert config.stat().st_size > 10 << 20  # the 10 MB config of the issue
    ran = gcv("validate", str(config), "--json")  # main: 8 s here (33 s on the issue's machine)
    ran.clean(1)
    issue = ran.json()["layers"][0]["errors"][0]
    assert (issue["path"], issue["actual"], issue["allowed"]) == ("$.phases", 40_000, "list of 1..6 items")
    assert "at most 6" in issue["message"]
    assert ran.seconds < 5, ran.seconds
    ran = gcv("sim", str(config))
    ran.clean(1)
    assert "$.phases has 40000 items; at most 6" in ran.stderr


def test_two_hundred_thousand_unknown_fields_are_refused_fast(gcv: Callable[..., Ran], tmp_path: Path) -> None:
    data: dict[str, Any] = baseline_data()
    data.update({f"x{i}": i for i in range(200_000)})
    path = tmp_path / "keys.json"
    path.write_text(json.dumps(data))
    ran = gcv("validate", str(path), "--json", timeout=60)  # main: over 2 minutes and 1 GB of memory
    ran.clean(1)
    issue = ran.json()["layers"][0]["errors"][0]
    assert issue["rule_id"] == "schema.extra_field" and issue["actual"] == 200_000
    assert ran.seconds < 10, ran.seconds


def test_capture_with_too_many_ticks_names_the_maximum(gcv: Callable[..., Ran]) -> None:
    many = ",".join(str(i / 10) for i in range(100))
    ran = gcv("sim", str(BASELINE), "--capture", many, "--json")  # main: a pydantic traceback
    ran.clean(2)
    assert ran.json()["error"] == "--capture: 100 distinct ticks; at most 64 frames per run"


@pytest.mark.parametrize("content", ["[1, 2]", '{"summary": [1]}', '{"summary": [{"config_label": 1}]}'])
def test_compare_refuses_a_batch_result_of_the_wrong_shape(content: str, gcv: Callable[..., Ran],
                                                           tmp_path: Path) -> None:
    path = tmp_path / "summary.json"
    path.write_text(content)
    ran = gcv("compare", str(path), str(path), "--json").clean(2)  # main: a KeyError/TypeError traceback
    assert "not a batch result" in ran.json()["error"]


def test_a_special_file_inside_a_request_set_folder_is_refused(gcv: Callable[..., Ran], tmp_path: Path) -> None:
    folder = tmp_path / "set"
    folder.mkdir()
    os.mkfifo(folder / "a.jsonl")
    ran = gcv("eval-requests", str(folder), timeout=20)
    _refused(ran, folder / "a.jsonl", "FIFO")


def _zip_with_method(path: Path, method: int) -> Path:
    """A one-entry zip whose entry says compression ``method`` (patched into both headers when
    zipfile cannot write that method)."""
    import struct
    import zipfile

    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("manifest.json", b"{}", compress_type=zipfile.ZIP_STORED)
    data = bytearray(path.read_bytes())
    local, central = data.find(b"PK\x03\x04"), data.find(b"PK\x01\x02")
    struct.pack_into("<H", data, local + 8, method)
    struct.pack_into("<H", data, central + 10, method)
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("method", [12, 14, 99])  # bzip2 and lzma (nothing GCV writes), an unknown method
def test_a_zip_with_an_unsupported_compression_method_is_bad_input(method: int, gcv: Callable[..., Ran],
                                                                     tmp_path: Path) -> None:
    """main: zipfile's NotImplementedError (or a bzip2 read of stored bytes) came out as "a bug in
    GCV", exit 70; it is the bundle that is wrong."""
    bundle = _zip_with_method(tmp_path / f"m{method}.zip", method)
    ran = gcv("verify", str(bundle))
    _refused(ran, bundle, f"compression method {method}", "manifest.json")


@pytest.mark.parametrize("population", ["average+:32", "average: 32", "average:3_2", "average+average:8"])
def test_a_malformed_population_is_refused_before_any_work(population: str, gcv: Callable[..., Ran],
                                                           tmp_path: Path) -> None:
    """main: int() and a loose split took these, and the workflow ran."""
    ran = gcv("run", "make phase 2 harder", "--yes", "--repair-scope", "fight", "--population", population).clean(2)
    said = " ".join((ran.stderr + ran.stdout).split())
    assert "population" in said and population in said, said
    assert not list((tmp_path / "home").glob("workflows/*")), "a workflow was started"
