"""Evidence versions: each time a workflow stops, its evidence gets a new number.

A workflow's evidence is written when the loop stops (``evidence_ready``, ``blocked``,
``needs_clarification``...) and again when a person decides (accept, revise, rollback), so a
decision is part of the evidence a reviewer downloads. Version N is the evidence of the
workflow after its N-th stop; the number is a function of the recorded history (transitions
into a stop), so ``gcv verify`` recomputes it from the bundle's event log and the same
workflow always names the same version. A workflow that has not stopped since its last
version (running, awaiting authorization) is at an *interim* version N+1, which the
evidence of its next stop replaces.

Under ``workflows/<wf>/evidence/`` every version keeps its own files, and the unnumbered
names are the latest version's copy (what ``gcv run`` printed before versions existed)::

    <wf>.evidence.v1.zip  report.v1.html    the loop's end (human decision: pending)
    <wf>.evidence.v2.zip  report.v2.html    after the decision
    <wf>.evidence.zip     report.html       = the latest version, byte for byte
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gcv.contract.status import HUMAN_DECISIONS, LOOP_END, Status
from gcv.workflow.events import Event, transitions

# The console's download routes say which version they serve in this response header.
EVIDENCE_VERSION_HEADER = "x-gcv-evidence-version"
# Statuses after which the evidence is written (gcv run / resume / answer / decide, the console).
STOPS = LOOP_END | HUMAN_DECISIONS
_BUNDLE = re.compile(r"^(?P<wf>.+)\.evidence\.v(?P<n>[1-9][0-9]*)\.zip$")
_REPORT = re.compile(r"^report\.v(?P<n>[1-9][0-9]*)\.html$")


@dataclass(frozen=True)
class Version:
    """Which evidence version a state's evidence is."""

    number: int
    interim: bool  # the workflow has not stopped since: the next stop's evidence replaces it

    def as_dict(self) -> dict[str, Any]:
        return {"number": self.number, "interim": self.interim}

    @property
    def label(self) -> str:
        return f"v{self.number}" + (" (interim)" if self.interim else "")


def evidence_version(events: Iterable[Event], status: str) -> Version:
    """The version of the evidence of a workflow whose (typed) history is ``events`` and is ``status``."""
    stops = sum(1 for e in transitions(events) if e.target in STOPS)
    if Status(status) in STOPS:
        return Version(max(stops, 1), False)
    return Version(stops + 1, True)


def bundle_name(wf_id: str, number: int) -> str:
    return f"{wf_id}.evidence.v{number}.zip"


def report_name(number: int) -> str:
    return f"report.v{number}.html"


@dataclass(frozen=True)
class Latest:
    """The newest file of one kind in an evidence folder: its version (None for a file written
    before versions existed) and path (None when there is none)."""

    number: int | None
    path: Path | None


def latest(folder: Path, wf_id: str, kind: str) -> Latest:
    """The highest-numbered ``bundle`` or ``report`` in ``folder``; without numbered files, the
    unnumbered one (workflows evidenced before versions existed)."""
    pattern, plain = ((_BUNDLE, f"{wf_id}.evidence.zip") if kind == "bundle" else (_REPORT, "report.html"))
    found: dict[int, Path] = {}
    try:
        entries = list(folder.iterdir())
    except OSError:
        entries = []
    for path in entries:
        m = pattern.match(path.name)
        if m and m.groupdict().get("wf", wf_id) == wf_id and path.is_file():
            found[int(m["n"])] = path
    if found:
        top = max(found)
        return Latest(top, found[top])
    return Latest(None, folder / plain if (folder / plain).is_file() else None)
