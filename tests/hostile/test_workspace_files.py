"""Files under ``GCV_HOME`` get the treatment inputs get: a FIFO, a link to ``/dev/zero``, a
link out of the workspace or a directory in place of a file GCV reads or appends is one
error naming the file, at once (never a hang, never a read without end, never a write
through the link), and nothing is changed (docs/reliability.md, gcv/store/safe_open.py)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Callable

import pytest

from tests.hostile.conftest import Ran, run_gcv

REQUEST = "make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive"
KINDS = ["a FIFO", "a link to /dev/zero", "a link out of the workspace", "a directory"]
SAID = {"a FIFO": "is a FIFO (named pipe), not a regular file", "a link to /dev/zero": "symbolic link to /dev/zero",
        "a link out of the workspace": "outside the workspace", "a directory": "is a directory, not a regular file"}
DECIDE = ["decide", "{wf}", "accept", "--actor", "a", "--note", "n"]

# (the file in the workflow folder, the commands that must refuse it)
CASES: list[tuple[str, list[list[str]]]] = [
    ("events.jsonl", [DECIDE, ["bundle", "{wf}"]]),
    ("activities.jsonl", [["resume", "{wf}"]]),
    ("state.json", [["status", "{wf}"], DECIDE]),
    ("{artifact}", [["bundle", "{wf}"]]),
    (".lock", [DECIDE]),
    ("runs/{wf}-baseline/run.log", [["bundle", "{wf}"]]),
]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("template")
    ran = run_gcv(["run", REQUEST, "--yes", "--repair-scope", "fight", "--json"], home=root / "ws", cwd=root, timeout=120).clean(0)
    return root / "ws", ran.json()["workflow_id"]


@pytest.fixture
def ws(template: tuple[Path, str], tmp_path: Path) -> tuple[Path, str]:
    home = tmp_path / "ws"
    shutil.copytree(template[0], home)
    return home, template[1]


def _replace(path: Path, kind: str, outside: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
    if kind == "a FIFO":
        os.mkfifo(path)
    elif kind == "a link to /dev/zero":
        path.symlink_to("/dev/zero")
    elif kind == "a link out of the workspace":
        path.symlink_to(outside)
    else:
        path.mkdir()


def _artifact(home: Path, wf: str) -> str:
    return "artifacts/" + sorted(p.name for p in (home / "workflows" / wf / "artifacts").iterdir())[0]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("target,commands", CASES, ids=[c[0] for c in CASES])
def test_a_workspace_file_that_is_not_a_regular_file_is_one_error_naming_it(
        target: str, commands: list[list[str]], kind: str, gcv: Callable[..., Ran], ws: tuple[Path, str],
        tmp_path: Path) -> None:
    home, wf = ws
    folder = home / "workflows" / wf
    rel = target.format(wf=wf, artifact=_artifact(home, wf))
    path = folder / rel
    outside = tmp_path / "outside.txt"  # a file of the user's, outside the workspace
    outside.write_bytes(path.read_bytes() if path.is_file() else b"precious\n")
    before_outside = outside.read_bytes()
    _replace(path, kind, outside)
    events_before = (folder / "events.jsonl").read_bytes() if rel != "events.jsonl" else None
    try:
        for args in commands:
            ran = gcv(*[a.format(wf=wf) for a in args], home=home, timeout=20)  # before: a hang (FIFO, /dev/zero)
            ran.clean(2)
            text = " ".join(ran.stderr.split())
            assert str(path) in text and SAID[kind] in text, (args, text[-600:])
        assert outside.read_bytes() == before_outside  # never written through the link
        if events_before is not None:
            assert (folder / "events.jsonl").read_bytes() == events_before  # nothing appended
    finally:  # the suite's own state.json check reads every state file after the test
        _replace(path, "a directory", outside)


@pytest.mark.parametrize("kind", KINDS)
def test_a_catalog_that_is_not_a_regular_file_is_one_line_that_names_reindex(
        kind: str, gcv: Callable[..., Ran], ws: tuple[Path, str], tmp_path: Path) -> None:
    """The catalog is an index, refused as a damaged catalog is (exit 70, naming reindex)."""
    home, wf = ws
    outside = tmp_path / "outside.sqlite"
    shutil.copy(home / "catalog.sqlite", outside)
    before = outside.read_bytes()
    _replace(home / "catalog.sqlite", kind, outside)
    ran = gcv("status", wf, home=home, timeout=20).clean(70)
    text = " ".join(ran.stderr.split())
    assert str(home / "catalog.sqlite") in text and SAID[kind] in text and "gcv reindex" in text, text
    assert outside.read_bytes() == before


def test_a_link_to_a_file_inside_the_workspace_is_followed(gcv: Callable[..., Ran], ws: tuple[Path, str]) -> None:
    """Only links that leave the workspace are refused: a log moved elsewhere inside it still reads."""
    home, wf = ws
    events = home / "workflows" / wf / "events.jsonl"
    moved = home / "moved-events.jsonl"
    events.rename(moved)
    events.symlink_to(moved)
    gcv("bundle", wf, home=home, timeout=60).clean(0)
