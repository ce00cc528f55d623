"""Evidence versions (issue 25.11): the number is a function of the recorded history, verify
recomputes it, the newest file of each kind is found by its number, and older bundles (written
before versions and the history mark) still verify."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gcv.evidence.bundle import export_bundle
from gcv.evidence.finalize import finalize_evidence
from gcv.evidence.verify import verify_bundle
from gcv.evidence.versions import Version, evidence_version, latest
from gcv.workflow.events import Event, parse_events
from gcv.workflow.loop import WorkflowLoop
from tests.support.evidenceutil import Clock, dump, load, read_zip, rehash_manifest, run_workflow, write_plain_zip


def transitions(*targets: str) -> list[Event]:
    """A typed history that moves through ``targets`` (payloads as a run writes them, minimal)."""
    records: list[dict] = [{"type": "created", "to": "proposed", "data": {"request": "r", "settings": {},
                                                                        "baseline_hash": "b"}}]
    for source, target in zip(("proposed", *targets), targets):
        records.append({"type": "transition", "from": source, "to": target, "data": {}})
    return parse_events([{**r, "seq": i, "at": float(i), "prev_hash": "p", "hash": "h"} for i, r in enumerate(records)])


def test_each_stop_is_a_version_and_a_running_workflow_is_at_an_interim_one() -> None:
    assert evidence_version(transitions("awaiting_authorization"), "awaiting_authorization") == Version(1, True)
    run = ("awaiting_authorization", "authorized", "running_baseline", "running_candidate", "reviewing",
           "evidence_ready")
    assert evidence_version(transitions(*run), "evidence_ready") == Version(1, False)
    assert evidence_version(transitions(*run, "accepted"), "accepted") == Version(2, False)
    asked = ("needs_clarification", "proposed", *run)
    assert evidence_version(transitions(*asked), "evidence_ready") == Version(2, False)
    assert evidence_version(transitions("needs_clarification", "proposed"), "proposed") == Version(2, True)


def test_the_newest_file_of_each_kind_is_found_by_its_number(tmp_path: Path) -> None:
    assert latest(tmp_path, "wf-a", "bundle").path is None
    (tmp_path / "wf-a.evidence.zip").write_bytes(b"old")
    (tmp_path / "report.html").write_text("old")
    assert latest(tmp_path, "wf-a", "bundle") == latest(tmp_path, "wf-a", "bundle")
    assert latest(tmp_path, "wf-a", "bundle").number is None  # written before versions existed
    for n in (1, 2, 9, 10):
        (tmp_path / f"wf-a.evidence.v{n}.zip").write_bytes(b"x")
    (tmp_path / "wf-b.evidence.v99.zip").write_bytes(b"another workflow's")
    (tmp_path / "report.v3.html").write_text("x")
    assert latest(tmp_path, "wf-a", "bundle").number == 10  # by number, not by name
    assert latest(tmp_path, "wf-a", "report").path == tmp_path / "report.v3.html"


@pytest.fixture(scope="module")
def decided(tmp_path_factory: pytest.TempPathFactory):
    mp = pytest.MonkeyPatch()
    for name in ("GCV_SIGNING_KEY_HMAC", "GCV_SIGNING_KEY_ED25519", "GCV_VERIFY_KEY_ED25519"):
        mp.delenv(name, raising=False)
    try:
        ws, wf_id = run_workflow(tmp_path_factory.mktemp("ws"))
        first = finalize_evidence(ws, wf_id)
        WorkflowLoop(ws, clock=Clock(step=1000.0)).decide(wf_id, decision="accept", actor="rita", note="fine")
        second = finalize_evidence(ws, wf_id)
    finally:
        mp.undo()
    return ws, wf_id, first, second


def test_a_decision_is_a_new_version_beside_the_old_one(decided) -> None:
    _, wf_id, first, second = decided
    assert (first.version, second.version) == (Version(1, False), Version(2, False))
    assert first.bundle.is_file() and verify_bundle(first.bundle).ok and verify_bundle(second.bundle).ok
    assert load(read_zip(first.bundle), "workflow/state.json")["human_decision"] is None
    assert load(read_zip(second.bundle), "workflow/state.json")["human_decision"]["note"] == "fine"
    assert second.latest_bundle.read_bytes() == second.bundle.read_bytes()


def test_a_forged_version_number_is_caught(decided, tmp_path: Path) -> None:
    files = read_zip(decided[3].bundle)
    manifest = load(files, "manifest.json")
    manifest["predicate"]["evidence_version"] = {"number": 1, "interim": False}  # passing v2 off as v1
    files["manifest.json"] = dump(manifest)
    report = verify_bundle(write_plain_zip(rehash_manifest(files), tmp_path / "forged.zip"))
    assert report.first_failure.name == "consistency.manifest" and "evidence_version" in report.first_failure.message


def test_a_bundle_written_before_versions_and_the_history_mark_still_verifies(decided, tmp_path: Path) -> None:
    files = read_zip(decided[3].bundle)
    manifest = load(files, "manifest.json")
    del manifest["predicate"]["evidence_version"]
    files["manifest.json"] = dump(manifest)
    state = load(files, "workflow/state.json")
    del state["history"]
    files["workflow/state.json"] = dump(state)
    report = verify_bundle(write_plain_zip(rehash_manifest(files), tmp_path / "old.zip"))
    assert report.ok, (report.first_failure, report.failed())


def test_a_bundle_whose_log_lost_events_is_caught_by_its_own_state(decided, tmp_path: Path) -> None:
    files = read_zip(decided[3].bundle)
    lines = files["workflow/events.jsonl"].split(b"\n")
    files["workflow/events.jsonl"] = b"\n".join(lines[:-3]) + b"\n"  # the last two events cut off
    manifest = load(files, "manifest.json")
    events = [json.loads(line) for line in files["workflow/events.jsonl"].split(b"\n") if line]
    manifest["predicate"]["event_chain"] = {"events": len(events), "head": events[-1]["hash"]}
    files["manifest.json"] = dump(manifest)
    report = verify_bundle(write_plain_zip(rehash_manifest(files), tmp_path / "short.zip"))
    assert "consistency.events" in report.failed()
    message = next(c.message for c in report.checks if c.name == "consistency.events")
    assert "the state includes" in message


def test_export_to_a_named_file_keeps_its_own_name_in_the_report(decided, tmp_path: Path) -> None:
    ws, wf_id, _, _ = decided
    out = export_bundle(ws, wf_id, tmp_path / "for-review.zip", signer=False)
    files = read_zip(out)
    assert load(files, "manifest.json")["predicate"]["evidence_version"]["number"] == 2
    assert "gcv verify for-review.zip --replay" in files["report.html"].decode("utf-8")
