"""``manifest.json``: an in-toto Statement v1 naming every file of the bundle.

    {"_type": "https://in-toto.io/Statement/v1",
     "subject": [{"name": "configs/baseline.json", "digest": {"sha256": "..."}}, ...],
     "predicateType": "https://gcv.dev/evidence-bundle/v1",
     "predicate": {workflow, status, engine(s), seed, players, budgets, usage,
                   final decision, tool versions, event-chain head, merkle root, ...}}

Every file except ``manifest.json`` and ``manifest.dsse.json`` is a subject, sorted by
name. ``predicate.merkle_root`` is the RFC 6962 tree hash over the subjects
(``gcv.evidence.merkle``), so the manifest's subject list and the root check each other.
The manifest is written as indented, key-sorted JSON; its exact bytes are what a DSSE
signature covers.
"""

from __future__ import annotations

import platform
from importlib import metadata
from typing import Any

import gcv
from gcv.contract.canonical import sha256_hex
from gcv.evidence.collect import (BUNDLE_FORMAT, NOT_SUBJECTS, Evidence, as_json, as_json_value, pretty_json,
                                  run_label)
from gcv.evidence.merkle import ALGORITHM, LEAF_ENCODING, merkle_root
from gcv.evidence.versions import evidence_version

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "https://gcv.dev/evidence-bundle/v1"


def subjects(files: dict[str, bytes]) -> list[dict[str, Any]]:
    names = sorted((n for n in files if n not in NOT_SUBJECTS), key=lambda n: n.encode("utf-8"))
    return [{"name": n, "digest": {"sha256": sha256_hex(files[n])}} for n in names]


def subject_pairs(subject_list: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(s["name"], s["digest"]["sha256"]) for s in subject_list]


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def tool_versions() -> dict[str, Any]:
    """What produced the bundle; frame bytes depend on Pillow (charts are gcv's own SVG)."""
    return {"name": "gcv", "version": gcv.__version__, "python": platform.python_version(),
            "numpy": _version("numpy"), "pillow": _version("pillow")}


def engines_used(ev: Evidence) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    for round_no in [None, *[e.round for e in ev.rounds()]]:
        tel = ev.telemetry(round_no)
        if tel and tel.get("engine") not in seen:
            seen.append(tel["engine"])
    return seen


def predicate(ev: Evidence, subject_list: list[dict[str, Any]], *, bundle_name: str | None = None) -> dict[str, Any]:
    state = ev.state
    settings = state.settings
    events = ev.events()  # the records as written: their times and hashes, byte for byte
    rounds = state.rounds
    last_gate = next((r.gate for r in reversed(rounds) if r.gate), None)
    labels = sorted({t["player"] for t in (ev.telemetry(r) for r in [None, *[e.round for e in ev.rounds()]])
                     if t and "player" in t})
    auth = state.authorization
    root = merkle_root(subject_pairs(subject_list))
    return {
        "bundle_format": BUNDLE_FORMAT,
        "workflow": {
            "id": state.id, "status": str(state.status), "terminal_reason": as_json_value(state.terminal_reason),
            "terminal_message": state.terminal_message, "request": state.request,
            "created_at": state.created_at, "last_event_at": events[-1]["at"] if events else None,
            "rounds": len(rounds), "baseline_source": state.baseline_source,
        },
        "engine": {"requested": settings.engine, "runs": engines_used(ev)},
        "seed": settings.seed,
        "players": {"specs": [settings.player], "labels": labels},
        "provider": settings.provider,
        "budgets": as_json(settings.budgets),
        "usage": as_json(state.usage),
        "authorization": {"actor": auth.actor, "via": auth.via, "at": auth.at} if auth else None,
        "final_decision": {
            "status": str(state.status),
            "requirement": state.requirement.decision if state.requirement else None,
            "review_gate": str(last_gate.outcome) if last_gate else None,
            "final_candidate_hash": state.final_candidate_hash,
            "best_round": state.best_round,
            "final_candidate_file": f"configs/{run_label(state.best_round)}.json" if state.best_round else None,
            "human_decision": as_json(state.human_decision),
        },
        "event_chain": {"events": len(events), "head": events[-1]["hash"] if events else None},
        "evidence_version": evidence_version(ev.history(), str(state.status)).as_dict(),
        "redactions": as_json(ev.index.redactions),
        "report": {"file": "report.html", "bundle_name": bundle_name},
        "tool": tool_versions(),
        "merkle": {"algorithm": ALGORITHM, "leaf": LEAF_ENCODING, "leaves": len(subject_list), "root": root},
        "merkle_root": root,
    }


def build_manifest(ev: Evidence, files: dict[str, bytes], *, bundle_name: str | None = None) -> dict[str, Any]:
    subject_list = subjects(files)
    return {"_type": STATEMENT_TYPE, "subject": subject_list, "predicateType": PREDICATE_TYPE,
            "predicate": predicate(ev, subject_list, bundle_name=bundle_name)}


def manifest_bytes(manifest: dict[str, Any]) -> bytes:
    return pretty_json(manifest)
