"""index.json, typed (gcv.evidence.index): what collect writes is a BundleIndex byte for byte,
verify refuses an index that is not one (naming the field), and the typed state refuses a
state.json that is not a workflow state without a crash in the other checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gcv.evidence.bundle import export_bundle
from gcv.evidence.collect import INDEX_NAME, STATE_NAME, Evidence, EvidenceError, pretty_json
from gcv.evidence.index import BundleIndex, RoundFiles, run_label
from gcv.evidence.verify import verify_files
from tests.support.evidenceutil import read_zip, rehash_manifest, run_workflow


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    root = tmp_path_factory.mktemp("index")
    ws, wf_id = run_workflow(root / "ws")
    return read_zip(export_bundle(ws, wf_id, root / "b.zip"))


def test_the_written_index_is_a_bundle_index_byte_for_byte(bundle: dict[str, bytes]) -> None:
    index = BundleIndex.model_validate_json(bundle[INDEX_NAME])
    assert pretty_json(index.to_json()) == bundle[INDEX_NAME]
    assert index.rounds and index.baseline.run is not None
    # every file the index names is in the bundle
    named = [index.baseline.config, *[f for e in index.rounds for _, f in e.named()]]
    named += [f for _, run in index.runs() if run for f in (run.request, run.telemetry, *run.frames)]
    assert all(name in bundle for name in named if name)


def test_the_typed_views_answer_from_the_index(bundle: dict[str, bytes]) -> None:
    ev = Evidence(bundle)
    first = ev.rounds()[0]
    assert isinstance(first, RoundFiles) and ev.round_files(first.round) is first
    assert ev.run_entry(first.round) is first.run
    assert ev.telemetry(None) == json.loads(bundle[ev.index.baseline.run.telemetry])  # type: ignore[union-attr]
    assert ev.round_files(99) is None and ev.evaluation(99) is None
    assert [label for label, _ in ev.index.runs()][:3] == ["baseline", "baseline_prescreen", run_label(1)]


def test_an_index_with_a_field_gcv_never_writes_fails_the_index_check(bundle: dict[str, bytes]) -> None:
    files = dict(bundle)
    index = json.loads(files[INDEX_NAME])
    index["rounds"][0]["secret_extra"] = "configs/baseline.json"
    files[INDEX_NAME] = pretty_json(index)
    report = verify_files(rehash_manifest(files))
    check = report.check("consistency.index")
    assert check is not None and check.status == "failed"
    assert "index.json is not a bundle index" in check.message and "rounds.0.secret_extra" in check.message
    assert not report.ok


def test_a_state_that_is_not_a_workflow_state_skips_the_checks_that_need_it(bundle: dict[str, bytes]) -> None:
    files = dict(bundle)
    state = json.loads(files[STATE_NAME])
    state["status"] = "shipped"  # no such status
    files[STATE_NAME] = pretty_json(state)
    report = verify_files(rehash_manifest(files))
    schema = report.check("consistency.state_schema")
    assert schema is not None and schema.status == "failed" and "status" in schema.message
    for name in ("consistency.events", "consistency.configs", "consistency.verdict", "consistency.manifest"):
        check = report.check(name)
        assert check is not None and check.status == "skipped", (name, check)
        assert "not a workflow state (status" in check.message
    assert report.status == "shipped" and not report.ok  # said as written, never trusted
    with pytest.raises(EvidenceError, match="not a workflow state"):
        Evidence(files).state


def test_a_bundle_index_written_before_the_optional_files_still_reads(tmp_path: Path) -> None:
    """Bundles from before pre-screens, populations, fairness and answers name none of them."""
    old = {"index": "gcv.evidence_index/1", "bundle_format": "gcv.evidence_bundle/1", "workflow_id": "wf-1",
           "request": "request.txt", "state": "workflow/state.json", "events": "workflow/events.jsonl",
           "report": "report.html", "goal": None, "requirement": {"agent": "agents/requirement.json"},
           "baseline": {"config": "configs/baseline.json", "run": None},
           "rounds": [{"round": 1, "config": "configs/candidate_1.json"}]}
    index = BundleIndex.model_validate(old)
    assert index.requirement is not None and index.requirement.all() == ["agents/requirement.json"]
    assert index.rounds[0].run is None and index.redactions.events == [] and index.rehashed == {}
