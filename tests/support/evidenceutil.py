"""Helpers for the evidence tests: a real workflow, and bundle surgery for mutation tests."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

from gcv.evidence.manifest import subject_pairs, subjects
from gcv.evidence.merkle import merkle_root
from gcv.repair.scope import whole_fight
from gcv.workflow.baselines import active_baseline
from gcv.workflow.loop import WorkflowLoop
from gcv.workflow.state import Settings
from gcv.store.catalog import Workspace

REQUEST = ("make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive "
           "and keep the low FPS at 55 or above")


from tests.support.simutil import Clock  # noqa: F401 - re-exported for the evidence tests


def run_workflow(root: Path, request: str = REQUEST, *, authorize: bool = True,
                 settings: Settings | None = None, choose: int | None = 1,
                 whole_fight_scope: bool = True) -> tuple[Workspace, str]:
    """A real workflow (offline agents, python-sim by default) in a workspace at ``root``.

    The evidence tests are about bundles with repair rounds, so by default the operator
    authorizes repairs anywhere (``--repair-scope fight``). With ``whole_fight_scope=False``
    (the product's default scope) a repair outside the request becomes trade-offs, and the
    designer picks option ``choose`` as a person would (``None`` leaves it awaiting)."""
    engine = WorkflowLoop(Workspace(root), clock=Clock())
    baseline, source = active_baseline(engine.ws, 0.0)
    wf_id = engine.create(request, baseline, settings or Settings(), baseline_source=source)
    state = engine.advance(wf_id)
    if authorize and state.status == "awaiting_authorization":
        engine.authorize(wf_id, actor="tester", repair_scope=whole_fight(baseline) if whole_fight_scope else None)
        state = engine.advance(wf_id)
    if choose is not None and state.status == "awaiting_choice":
        engine.choose(wf_id, number=choose, actor="designer")
        engine.advance(wf_id)
    return engine.ws, wf_id


def read_zip(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def write_plain_zip(files: dict[str, bytes], path: Path) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(files):
            zf.writestr(name, files[name])
    return path


def load(files: dict[str, bytes], name: str) -> Any:
    return json.loads(files[name])


def dump(value: Any) -> bytes:
    return (json.dumps(value, indent=2, sort_keys=True) + "\n").encode()


def rerender_report(files: dict[str, bytes]) -> dict[str, bytes]:
    """A careful forger also redraws report.html from the edited evidence."""
    from gcv.evidence.collect import Evidence
    from gcv.evidence.report import render_report

    name = json.loads(files["manifest.json"])["predicate"]["report"]["bundle_name"]
    files["report.html"] = render_report(Evidence(files), bundle_name=name).encode("utf-8")
    return files


def rehash_manifest(files: dict[str, bytes]) -> dict[str, bytes]:
    """What a forger does after editing files: recompute every digest and the Merkle root."""
    manifest = json.loads(files["manifest.json"])
    manifest["subject"] = subjects(files)
    root = merkle_root(subject_pairs(manifest["subject"]))
    manifest["predicate"]["merkle_root"] = root
    manifest["predicate"]["merkle"]["root"] = root
    manifest["predicate"]["merkle"]["leaves"] = len(manifest["subject"])
    files["manifest.json"] = dump(manifest)
    files.pop("manifest.dsse.json", None)
    return files


def zip_bytes(entries: list[tuple[zipfile.ZipInfo | str, bytes]]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for info, data in entries:
            zf.writestr(info, data)
    return buf.getvalue()


def rechain_events(files: dict[str, bytes], edit: Any) -> dict[str, bytes]:
    """A careful forger: ``edit(events)`` changes the event list, then every hash link is redone
    and the manifest's event-chain head and the state's history (how far its log reaches) follow."""
    from gcv.contract.canonical import canonical_json
    from gcv.store.logs import GENESIS, event_hash

    events = [json.loads(line) for line in files["workflow/events.jsonl"].decode().split("\n") if line.strip()]
    edit(events)
    prev = GENESIS
    for i, event in enumerate(events):
        event["seq"], event["prev_hash"] = i, prev
        event["hash"] = event_hash(event)
        prev = event["hash"]
    files["workflow/events.jsonl"] = "".join(canonical_json(e) + "\n" for e in events).encode()
    manifest = json.loads(files["manifest.json"])
    manifest["predicate"]["event_chain"] = {**manifest["predicate"].get("event_chain", {}), "head": prev,
                                            "events": len(events)}
    files["manifest.json"] = dump(manifest)
    state = json.loads(files["workflow/state.json"])
    state["event_seq"] = len(events) - 1
    if state.get("history"):
        state["history"]["events"] = {"count": len(events), "hash": prev}
    files["workflow/state.json"] = dump(state)
    return files


def forge_evidence_ready(files: dict[str, bytes]) -> dict[str, bytes]:
    """A forger's bundle: the verdict edited to evidence_ready, the events re-chained and the
    manifest re-hashed; the signature cannot be redone without the key, so it is dropped."""
    files = dict(files)
    state = load(files, "workflow/state.json")
    state.update(status="evidence_ready", terminal_reason="accepted_by_review", terminal_message="all checks pass")
    files["workflow/state.json"] = dump(state)

    def edit(events: list[dict[str, Any]]) -> None:
        events[-1]["to"] = "evidence_ready"
        events[-1]["data"] = {**events[-1]["data"], "terminal_reason": "accepted_by_review",
                              "message": "all checks pass"}

    rechain_events(files, edit)
    manifest = load(files, "manifest.json")
    manifest["predicate"]["workflow"].update(status="evidence_ready", terminal_reason="accepted_by_review",
                                             terminal_message="all checks pass")
    manifest["predicate"]["final_decision"]["status"] = "evidence_ready"
    files["manifest.json"] = dump(manifest)
    return rehash_manifest(files)  # (drops manifest.dsse.json, as a forger must)
