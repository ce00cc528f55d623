"""Writing the golden vectors as files (gcv.simio.golden_files): the folder's JSON files replaced
by the current set, one per vector, in order."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from gcv.simio import golden_files
from gcv.simio.golden import build_vector
from tests.support.evalutil import base


@pytest.fixture
def two_vectors(monkeypatch: pytest.MonkeyPatch) -> list[dict]:  # type: ignore[type-arg]
    cfg = base().model_dump(mode="json")
    vectors = [build_vector("first", "d1", cfg, 1, {"kind": "scripted"}),
               build_vector("second", "d2", cfg, 2, {"kind": "bot", "skill": "expert"})]
    monkeypatch.setattr(golden_files, "build_vectors", lambda: vectors)
    return vectors


def test_write_vectors_replaces_the_folders_json(tmp_path: Path, two_vectors) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "07_stale.json").write_text("{}")
    (tmp_path / "README.md").write_text("kept")
    written = golden_files.write_vectors(tmp_path)
    assert [p.name for p in written] == ["01_first.json", "02_second.json"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["01_first.json", "02_second.json", "README.md"]
    assert json.loads(written[1].read_text()) == two_vectors[1]
    assert written[0].read_text().endswith("}\n") and '\n "description"' in written[0].read_text()


def test_main_writes_and_summarises(tmp_path: Path, two_vectors, monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "argv", ["golden_files", "--write", str(tmp_path / "new")])
    golden_files.main()
    lines = capsys.readouterr().out.splitlines()
    exp = two_vectors[0]["expected"]
    assert lines[0] == (f"01_first.json: {exp['status']} ticks={exp['ticks']} peak={exp['peak_alive_bullets']} "
                        f"hits={exp['player_hits']} grazes={exp['grazes']} spawned={exp['total_bullets_spawned']}")
    assert len(lines) == 2
