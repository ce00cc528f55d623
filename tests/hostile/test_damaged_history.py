"""A workflow's history that lost lines is refused by every reader, through the real CLI.

A flipped byte, a foreign line or a swapped line already broke the hash chain; an
``events.jsonl`` or ``activities.jsonl`` that is truncated, emptied or deleted did not: the
logs that remained were a valid (shorter) history, so ``authorize``, ``resume``, ``decide`` and
``bundle`` exited 0 and ``resume`` went on to write a bundle that failed ``gcv verify``. The
state now records how far both logs reach (``history``) and every reader holds the logs to it:
exit 2, the file named, nothing written.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Callable

import pytest

from tests.hostile.conftest import Ran, run_gcv

REQUEST = "make phase 2 a denser spiral, but never more than 350 bullets alive"
LOGS = ("events.jsonl", "activities.jsonl")


def _truncate(path: Path) -> None:
    """Cut the file inside its last complete line (as a copy or a disk that lost its tail)."""
    data = path.read_bytes()
    start = data.rstrip(b"\n").rfind(b"\n") + 1
    path.write_bytes(data[: start + (len(data) - start) // 2])


DAMAGE: dict[str, Callable[[Path], None]] = {
    "truncated": _truncate,
    "emptied": lambda path: path.write_bytes(b""),
    "deleted": lambda path: path.unlink(),
}


@pytest.fixture(scope="module")
def homes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    """Three workspaces: a workflow awaiting authorization, one authorized (not yet run), one
    at evidence_ready (its report and bundle written)."""
    root = tmp_path_factory.mktemp("history")
    out: dict[str, tuple[Path, str]] = {}
    waiting = run_gcv(["run", REQUEST, "--json"], home=root / "waiting", cwd=root, timeout=120).clean(7).json()
    out["waiting"] = (root / "waiting", waiting["workflow_id"])
    shutil.copytree(root / "waiting", root / "authorized")
    run_gcv(["authorize", waiting["workflow_id"], "--actor", "ana", "--repair-scope", "fight"], home=root / "authorized", cwd=root).clean(0)
    out["authorized"] = (root / "authorized", waiting["workflow_id"])
    done = run_gcv(["run", REQUEST, "--yes", "--repair-scope", "fight", "--json"], home=root / "done", cwd=root, timeout=120).clean(0).json()
    out["done"] = (root / "done", done["workflow_id"])
    return out


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.name.startswith(".lock")}  # the lock and its owner note


def damaged_copy(homes: dict[str, tuple[Path, str]], which: str, tmp_path: Path, log: str,
                 damage: str) -> tuple[Path, str, Path]:
    src, wf = homes[which]
    home = tmp_path / which
    shutil.copytree(src, home)
    folder = home / "workflows" / wf
    DAMAGE[damage](folder / log)
    return home, wf, folder


# Every reader the issue names, each on a workflow in a status where it would act.
COMMANDS = [
    ("waiting", ["authorize", "{wf}", "--actor", "ana", "--repair-scope", "fight"]),
    ("waiting", ["bundle", "{wf}"]),
    ("authorized", ["resume", "{wf}"]),
    ("done", ["decide", "{wf}", "accept", "--actor", "rev", "--note", "ok", "--promote"]),
    ("done", ["report", "{wf}"]),
    ("done", ["status", "{wf}"]),
]


@pytest.mark.parametrize("damage", sorted(DAMAGE))
@pytest.mark.parametrize("log", LOGS)
def test_a_log_that_lost_lines_is_refused_by_every_reader_and_nothing_is_written(
        homes: dict[str, tuple[Path, str]], tmp_path: Path, log: str, damage: str) -> None:
    copies = {which: damaged_copy(homes, which, tmp_path, log, damage) for which in homes}
    before = {which: snapshot(home) for which, (home, _, _) in copies.items()}
    for i, (which, args) in enumerate(COMMANDS):
        home, wf, _ = copies[which]
        args = [a.format(wf=wf) for a in args]
        for json_mode in (False, True) if i == 0 else (True,):
            ran = run_gcv(args + (["--json"] if json_mode else []), home=home, cwd=tmp_path, timeout=60).clean(2)
            said = ran.json()["error"] if json_mode else ran.stderr
            assert log in said and damage in said, (args, said)
            assert "nothing was changed" in said, (args, said)
        assert snapshot(home) == before[which], f"{args} changed the workspace"


def test_the_damaged_history_of_the_issue_never_becomes_an_unverifiable_bundle(
        homes: dict[str, tuple[Path, str]], tmp_path: Path) -> None:
    """The case as reported: events.jsonl cut back by its last lines (whole lines, a valid
    shorter chain), then resume. Before, it reached evidence_ready and wrote a bundle that
    failed `gcv verify`."""
    src, wf = homes["authorized"]
    home = tmp_path / "home"
    shutil.copytree(src, home)
    events = home / "workflows" / wf / "events.jsonl"
    lines = events.read_bytes().splitlines(keepends=True)
    events.write_bytes(b"".join(lines[:-2]))
    ran = run_gcv(["resume", wf, "--json"], home=home, cwd=tmp_path, timeout=120).clean(2)
    assert "events.jsonl" in ran.json()["error"] and "truncated" in ran.json()["error"]
    assert not (home / "workflows" / wf / "evidence").exists()


def test_a_workflow_written_before_the_history_mark_is_still_read_and_held_to_its_last_event(
        homes: dict[str, tuple[Path, str]], tmp_path: Path) -> None:
    src, wf = homes["done"]
    for damaged in (False, True):
        home = tmp_path / f"old-{damaged}"
        shutil.copytree(src, home)
        folder = home / "workflows" / wf
        state = json.loads((folder / "state.json").read_text(encoding="utf-8"))
        del state["history"]  # as every state.json written before it was recorded
        (folder / "state.json").write_text(json.dumps(state, indent=1), encoding="utf-8")
        if damaged:
            _truncate(folder / "events.jsonl")
            ran = run_gcv(["bundle", wf, "--json"], home=home, cwd=tmp_path, timeout=60).clean(2)
            assert "events.jsonl" in ran.json()["error"]
            continue
        run_gcv(["status", wf, "--json"], home=home, cwd=tmp_path).clean(0)
        out = tmp_path / "old.zip"
        run_gcv(["bundle", wf, "-o", str(out), "--json"], home=home, cwd=tmp_path, timeout=60).clean(0)
        run_gcv(["verify", str(out), "--json"], home=home, cwd=tmp_path, timeout=60).clean(0)
        run_gcv(["decide", wf, "accept", "--actor", "rev", "--note", "ok", "--json"], home=home, cwd=tmp_path,
                timeout=60).clean(0)


def test_a_state_edited_to_disagree_with_its_records_is_never_exported(homes: dict[str, tuple[Path, str]],
                                                                      tmp_path: Path) -> None:
    """No command writes a bundle that `gcv verify` fails: here a state whose verdict was edited
    by hand (status evidence_ready on a workflow whose logs say otherwise)."""
    src, wf = homes["waiting"]
    home = tmp_path / "home"
    shutil.copytree(src, home)
    path = home / "workflows" / wf / "state.json"
    state = json.loads(path.read_text(encoding="utf-8"))
    state.update(status="evidence_ready", terminal_reason="accepted_by_review")
    path.write_text(json.dumps(state, indent=1), encoding="utf-8")
    before = snapshot(home)
    for args in (["bundle", wf], ["bundle", wf, "-o", str(tmp_path / "x.zip")], ["report", wf]):
        ran = run_gcv(args + ["--json"], home=home, cwd=tmp_path, timeout=60).clean(2)
        assert "gcv verify" in ran.json()["error"], ran.json()
    assert snapshot(home) == before and not (tmp_path / "x.zip").exists()
