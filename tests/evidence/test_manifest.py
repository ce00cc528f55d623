"""The bundle's manifest (gcv.evidence.manifest): an in-toto Statement naming every file but the
manifest and its signature, with the Merkle root over them and what the workflow decided."""

from __future__ import annotations

import json
from pathlib import Path

from gcv.contract.canonical import sha256_hex
from gcv.evidence.collect import collect
from gcv.evidence.manifest import (PREDICATE_TYPE, STATEMENT_TYPE, build_manifest, manifest_bytes, subject_pairs,
                                   subjects, tool_versions)
from gcv.evidence.merkle import merkle_root
from gcv.store.catalog import Workspace
from gcv.workflow.baselines import active_baseline
from gcv.workflow.loop import WorkflowLoop
from gcv.workflow.state import Settings
from tests.support.simutil import Clock


def _blocked(root: Path):  # type: ignore[no-untyped-def]
    loop = WorkflowLoop(Workspace(root), clock=Clock())
    baseline, source = active_baseline(loop.ws, 0.0)
    wf = loop.create("make the boss health 9000", baseline, Settings(), baseline_source=source)
    loop.advance(wf)
    return collect(loop.ws, wf)


def test_subjects_are_every_file_but_the_manifest_sorted_by_name_bytes() -> None:
    files = {"b.json": b"2", "a.json": b"1", "\u00e9.txt": b"3", "manifest.json": b"{}", "manifest.dsse.json": b"{}"}
    listed = subjects(files)
    assert [s["name"] for s in listed] == ["a.json", "b.json", "\u00e9.txt"]
    assert listed[0]["digest"] == {"sha256": sha256_hex(b"1")}
    assert subject_pairs(listed)[1] == ("b.json", sha256_hex(b"2"))


def test_the_manifest_of_a_blocked_workflow(tmp_path: Path) -> None:
    ev = _blocked(tmp_path)
    manifest = build_manifest(ev, ev.files, bundle_name="wf.evidence.v1.zip")
    assert manifest["_type"] == STATEMENT_TYPE and manifest["predicateType"] == PREDICATE_TYPE
    assert len(manifest["subject"]) == len(ev.files)
    p = manifest["predicate"]
    assert p["merkle_root"] == p["merkle"]["root"] == merkle_root(subject_pairs(manifest["subject"]))
    assert (p["workflow"]["status"], p["workflow"]["terminal_reason"], p["workflow"]["rounds"]) == (
        "blocked", "requirement_blocked", 0)
    assert p["final_decision"]["requirement"] == "blocked" and p["engine"] == {"requested": "python-sim", "runs": []}
    assert p["event_chain"] == {"events": len(ev.events()), "head": ev.events()[-1]["hash"]}
    assert p["report"] == {"file": "report.html", "bundle_name": "wf.evidence.v1.zip"}
    assert p["tool"] == tool_versions() and p["tool"]["name"] == "gcv"
    text = manifest_bytes(manifest)
    assert json.loads(text) == manifest and text.endswith(b"\n")
