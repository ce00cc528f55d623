"""gcv/workflow/events.py: the typed history. Every event the loop writes is one of the four
kinds and matches schemas/workflow_event.schema.json; readers get types, and an event GCV
never writes is named by verify (event, field), not read past."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from pydantic import ValidationError

from gcv.evidence.bundle import export_bundle
from gcv.evidence.verify import verify_bundle
from gcv.workflow.events import (EVENT_SCHEMA_FILE, CreatedEvent, HistoryError, StepEvent, TraceEvent,
                                 TransitionData, TransitionEvent, event_json_schema, parse_event, parse_events,
                                 trace_lines, transitions)
from tests.support.evidenceutil import read_zip, rechain_events, rehash_manifest, run_workflow, write_plain_zip

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def chosen(tmp_path_factory: pytest.TempPathFactory):
    """The README request in the default scope: a choice, then evidence_ready, then accepted."""
    root = tmp_path_factory.mktemp("events")
    ws, wf_id = run_workflow(root, whole_fight_scope=False, choose=1)
    from gcv.workflow.loop import WorkflowLoop
    from tests.support.simutil import Clock

    WorkflowLoop(ws, clock=Clock()).decide(wf_id, decision="accept", actor="rita", note="as asked")
    return ws, wf_id


def test_every_event_of_a_real_workflow_is_typed_and_matches_the_committed_schema(chosen) -> None:
    ws, wf_id = chosen
    records = ws.workflow_dir(wf_id).events()
    events = parse_events(records)
    kinds = {type(e) for e in events}
    assert kinds == {CreatedEvent, TransitionEvent, TraceEvent, StepEvent}
    committed = json.loads((ROOT / "schemas" / EVENT_SCHEMA_FILE).read_text())
    assert committed == event_json_schema()
    validator = Draft202012Validator(committed)
    for record in records:
        assert not list(validator.iter_errors(record)), record["seq"]
    # a payload reads back as exactly the keys that were written (old logs replay unchanged)
    for record, event in zip(records, events):
        assert event.data.record() == record["data"]
    targets = [str(e.target) for e in transitions(events)]
    assert targets[:3] == ["awaiting_authorization", "authorized", "running_baseline"]
    assert "awaiting_choice" in targets and targets[-1] == "accepted"
    choice = next(e for e in transitions(events) if e.data.choice is not None)
    assert choice.data.choice.actor == "designer" and choice.data.choice.number == 1
    offered = next(e for e in transitions(events) if e.data.tradeoffs)
    assert len(offered.data.tradeoffs) >= 2 and all(t.candidate_hash for t in offered.data.tradeoffs)
    decided = transitions(events)[-1]
    assert decided.data.decision is not None and decided.data.decision.actor == "rita"
    assert trace_lines(events) and all(isinstance(line, str) for line in trace_lines(events))


def test_a_payload_the_readers_do_not_know_cannot_be_built() -> None:
    with pytest.raises(ValidationError):
        TransitionData(round=1, verdict="accept")  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        TransitionData(round=-1)


@pytest.mark.parametrize("edit, where", [
    (lambda e: e.update(type="transitoin"), "type"),
    (lambda e: e["data"].update(extra_key=1), "data.extra_key"),
    (lambda e: e.update(to="evidence_redy"), "to"),
    (lambda e: e.pop("at"), "at"),
])
def test_parse_names_the_event_and_the_field(chosen, edit, where) -> None:
    ws, wf_id = chosen
    record = ws.workflow_dir(wf_id).events()[3]
    edit(record)
    with pytest.raises(HistoryError) as caught:
        parse_event(record)
    assert caught.value.seq == 3 and caught.value.where.startswith(where.split(".")[0])
    assert str(caught.value).startswith("event 3: ")


def test_verify_names_an_event_gcv_never_writes(chosen, tmp_path: Path) -> None:
    """A forger re-chains the log and re-hashes the manifest after adding a key to an event:
    integrity holds, the typed history names the event and the field."""
    ws, wf_id = chosen
    bundle = export_bundle(ws, wf_id, tmp_path / "b.zip")
    files = read_zip(Path(bundle))

    def edit(events: list[dict]) -> None:
        target = next(e for e in events if e.get("to") == "authorized")
        target["data"]["skip_review"] = True

    forged = write_plain_zip(rehash_manifest(rechain_events(files, edit)), tmp_path / "forged.zip")
    result = verify_bundle(forged)
    events_check = next(c for c in result.checks if c.name == "consistency.events")
    assert events_check.status == "failed"
    assert any("data.skip_review" in p and "not an event GCV writes" in p for p in events_check.details)


def test_the_loop_writes_no_event_its_readers_refuse(tmp_path: Path) -> None:
    """The writer reads back every event as its type before appending (a loop bug that built a
    bad payload by hand would fail here, not in a reviewer's verify)."""
    from gcv.workflow.loop import WorkflowLoop
    from gcv.store.catalog import Workspace
    from tests.support.simutil import Clock

    loop = WorkflowLoop(Workspace(tmp_path), clock=Clock())
    ws, wf_id = run_workflow(tmp_path / "w", choose=None)
    d = Workspace(tmp_path / "w").workflow_dir(wf_id)
    before = len(d.events())
    with pytest.raises(HistoryError):
        loop._event(d, "transition", TransitionData(round=1), **{"from": "reviewing", "to": "not_a_status"})
    assert len(d.events()) == before
