"""JUnit XML: what a CI system's test tab reads (Jenkins, GitLab, TeamCity, GitHub).

Two producers, one writer:

- a batch (``gcv batch --junit FILE``): one ``testsuite`` per group (config x player x
  engine); each cell's final row is a ``testcase`` (an error row is an ``error``, a cell
  never run is ``skipped``), and each gate rule judged on the group is a ``testcase`` too,
  a ``failure`` carrying the figures when the rule holds;
- a workflow (``gcv run --junit FILE``, ``gcv resume --junit FILE``): one ``testsuite`` with
  a ``testcase`` per check of the chosen candidate (hard checks, intent checks), and one for
  the workflow's outcome: passed only at ``evidence_ready``, ``skipped`` while it waits for a
  person (an answer, an authorization), a ``failure`` for any other end.

The file is the common JUnit form (``testsuites`` > ``testsuite`` > ``testcase`` with
``failure`` / ``error`` / ``skipped`` / ``system-out``); characters XML 1.0 cannot hold (most
control characters) become U+FFFD, so a request holding them still gives a readable file.
"""

from __future__ import annotations

import re
import socket
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Iterable

from gcv.batch.job import BatchOutcome
from gcv.batch.results import final_rows
from gcv.store.atomic import atomic_write_bytes

# XML 1.0's Char production: tab, newline, carriage return and U+0020.. except the surrogates
# and U+FFFE/U+FFFF
_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")

#: statuses where a workflow waits for a person: skipped in a test tab, not failed
WAITING = frozenset({"needs_clarification", "awaiting_authorization", "awaiting_choice"})


def _text(value: Any) -> str:
    return _NOT_XML.sub("\ufffd", "" if value is None else str(value))


def _seconds(ms: Any) -> str:
    return f"{(ms or 0) / 1000:.3f}"


class _Suite:
    """A ``testsuite`` under construction, counting what it holds."""

    def __init__(self, name: str, properties: dict[str, Any] | None = None) -> None:
        self.element = ET.Element("testsuite", name=_text(name))
        self.tests = self.failures = self.errors = self.skipped = 0
        self.time_ms = 0
        if properties:
            props = ET.SubElement(self.element, "properties")
            for key, value in properties.items():
                if value is not None:
                    ET.SubElement(props, "property", name=_text(key), value=_text(value))

    def case(self, name: str, classname: str, *, time_ms: int = 0, failure: str | None = None,
             error: tuple[str, str] | None = None, skipped: str | None = None, detail: str = "",
             out: str = "") -> None:
        case = ET.SubElement(self.element, "testcase", name=_text(name), classname=_text(classname),
                             time=_seconds(time_ms))
        self.tests += 1
        self.time_ms += time_ms or 0
        if error is not None:
            kind, message = error
            ET.SubElement(case, "error", message=_text(message), type=_text(kind)).text = _text(detail or message)
            self.errors += 1
        elif failure is not None:
            ET.SubElement(case, "failure", message=_text(failure), type="gcv").text = _text(detail or failure)
            self.failures += 1
        elif skipped is not None:
            ET.SubElement(case, "skipped", message=_text(skipped))
            self.skipped += 1
        if out:
            ET.SubElement(case, "system-out").text = _text(out)

    def close(self, timestamp: str) -> ET.Element:
        self.element.set("tests", str(self.tests))
        self.element.set("failures", str(self.failures))
        self.element.set("errors", str(self.errors))
        self.element.set("skipped", str(self.skipped))
        self.element.set("time", _seconds(self.time_ms))
        self.element.set("timestamp", timestamp)
        self.element.set("hostname", _text(socket.gethostname()))
        return self.element


def _document(name: str, suites: Iterable[_Suite]) -> bytes:
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
    root = ET.Element("testsuites", name=_text(name))
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    total_ms = 0
    for suite in suites:
        root.append(suite.close(stamp))
        for key in totals:
            totals[key] += getattr(suite, key)
        total_ms += suite.time_ms
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("time", _seconds(total_ms))
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


def _figures(values: dict[str, Any]) -> str:
    return ", ".join(f"{k} = {'unknown' if v is None else (f'{v:g}' if isinstance(v, float) else v)}"
                     for k, v in values.items())


def batch_junit(outcome: BatchOutcome, *, name: str) -> bytes:
    """The batch as JUnit XML (see the module docstring)."""
    finals = final_rows(outcome.rows)
    by_group: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for row in finals.values():
        by_group.setdefault((row["config_hash"], row["player"], row["engine"]), []).append(row)
    judged: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for ev in outcome.gate.evaluations:
        judged.setdefault((ev["config_hash"], ev["player"], ev["engine"]), []).append(ev)
    suites = []
    for group in outcome.summary:
        key = (group["config_hash"], group["player"], group["engine"])
        label = f"{group['config_label']} / {group['player']} / {group['engine']}"
        classname = f"gcv.batch.{group['config_label']}.{group['player']}.{group['engine']}"
        suite = _Suite(label, {"config_hash": group["config_hash"], "cells": group["cells"]})
        for row in sorted(by_group.get(key, []), key=lambda r: (r["seed"], r["cell_id"])):
            figures = {k: row.get(k) for k in ("status", "end_reason", "player_hits", "peak_alive_bullets", "survival_ticks",
                                                 "low_fps")
                       if row.get(k) is not None}
            out = f"cell {row['cell_id']}, attempt {row['attempt']}: {_figures(figures)}"
            if row["status"] == "error":
                suite.case(f"seed {row['seed']}", classname, time_ms=row.get("duration_ms") or 0,
                           error=(row.get("error_kind") or "error", row.get("error_message") or "the run failed"),
                           out=out)
            else:
                suite.case(f"seed {row['seed']}", classname, time_ms=row.get("duration_ms") or 0, out=out)
        if group.get("pending"):
            suite.case(f"{group['pending']} cell(s) not run", classname,
                       skipped="the batch was interrupted before these cells ran; `gcv batch --resume` runs them")
        for ev in judged.get(key, []):
            said = _figures(ev["values"])
            if ev["failed"]:
                suite.case(f"gate: {ev['condition']}", f"{classname}.gate",
                           failure=f"gate failed: {ev['condition']} holds ({said})",
                           detail=f"{ev['origin']}: the group fails when `{ev['condition']}`; {said}")
            else:
                suite.case(f"gate: {ev['condition']}", f"{classname}.gate", out=said)
        suites.append(suite)
    return _document(f"gcv batch {name}", suites)


def workflow_junit(summary: dict[str, Any]) -> bytes:
    """A workflow's summary (``gcv.workflow.summary.summary_object``) as JUnit XML."""
    wf = summary["workflow_id"]
    classname = f"gcv.workflow.{wf}"
    suite = _Suite(f"gcv workflow {wf}", {
        "status": summary.get("status"), "terminal_reason": summary.get("terminal_reason"),
        "engine": summary.get("engine"), "provider": summary.get("provider"),
        "final_candidate_hash": summary.get("final_candidate_hash"), "runs_used": summary.get("runs_used")})
    evaluation = summary.get("evaluation") or {}
    for check in [*(evaluation.get("checks") or []), *(evaluation.get("intent_checks") or [])]:
        name = check.get("label") or check.get("name") or "check"
        said = (f"{check.get('field') or name}: {check.get('actual')} {check.get('op') or ''} "
                f"{check.get('expected')}".strip())
        phase = f" ({check['phase_id']})" if check.get("phase_id") else ""
        kind = "hard" if check.get("hard") else "soft"
        if check.get("passed"):
            suite.case(name, f"{classname}.checks", out=f"{kind}{phase}: {said}; {check.get('detail') or ''}")
        else:
            suite.case(name, f"{classname}.checks", failure=f"{name}{phase} failed: {said}",
                       detail=f"{kind} check: {check.get('detail') or said}")
    status = str(summary.get("status"))
    message = summary.get("terminal_message") or status
    unrequested = [c for c in summary.get("change") or [] if not c.get("requested")]
    out = "\n".join(f"not requested: {c['path']} {c.get('before')} -> {c.get('after')} ({c.get('origin')})"
                    for c in unrequested)
    if status == "evidence_ready":
        suite.case("workflow outcome", classname, out=f"evidence_ready: {message}\n{out}".strip())
    elif status in WAITING:
        suite.case("workflow outcome", classname, skipped=f"{status}: waiting for a person ({message})")
    else:
        suite.case("workflow outcome", classname, failure=f"{status}: {message}",
                   detail=f"the workflow ended {status} ({summary.get('terminal_reason')}): {message}\n{out}".strip())
    return _document(f"gcv workflow {wf}", [suite])


def write_junit(path: Path, data: bytes) -> Path:
    """Write atomically (a CI step never reads half a file)."""
    path = Path(path)
    atomic_write_bytes(path, data)
    return path


__all__ = ["batch_junit", "workflow_junit", "write_junit", "WAITING"]
