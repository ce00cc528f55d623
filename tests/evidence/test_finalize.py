"""Writing a workflow's evidence when it stops (gcv.evidence.finalize): the numbered report and
bundle, the latest copies with the same bytes, and ``gcv report`` to a path."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from gcv.evidence.collect import EvidenceError, collect
from gcv.evidence.finalize import finalize_evidence, report_version, version_of
from gcv.evidence.verify import verify_bundle
from gcv.store.catalog import Workspace
from gcv.workflow.baselines import active_baseline
from gcv.workflow.loop import WorkflowLoop
from gcv.workflow.state import Settings
from tests.support.simutil import Clock


def _blocked(root: Path) -> tuple[Workspace, str]:
    loop = WorkflowLoop(Workspace(root), clock=Clock())
    baseline, source = active_baseline(loop.ws, 0.0)
    wf = loop.create("make the boss health 9000", baseline, Settings(), baseline_source=source)
    loop.advance(wf)
    return loop.ws, wf


def test_finalize_writes_version_1_and_the_latest_copies(tmp_path: Path) -> None:
    ws, wf = _blocked(tmp_path)
    written = finalize_evidence(ws, wf)
    assert (written.version.number, written.version.interim) == (1, False)
    assert written.report.name == "report.v1.html" and written.bundle.name == f"{wf}.evidence.v1.zip"
    assert written.latest_report.read_bytes() == written.report.read_bytes()
    assert written.latest_bundle.read_bytes() == written.bundle.read_bytes()
    with zipfile.ZipFile(written.bundle) as z:
        assert "manifest.json" in z.namelist() and z.read("report.html") == written.report.read_bytes()
    assert version_of(collect(ws, wf)).number == 1
    assert set(written.paths()) == {"report", "bundle", "latest_report", "latest_bundle"}


def test_the_written_bundle_verifies(tmp_path: Path) -> None:
    ws, wf = _blocked(tmp_path)
    result = verify_bundle(finalize_evidence(ws, wf).bundle)
    assert result.ok, [c for c in result.checks if c.status == "failed"]


def test_report_version_to_a_path(tmp_path: Path) -> None:
    ws, wf = _blocked(tmp_path / "ws")
    version, path = report_version(ws, wf, tmp_path / "out.html")
    assert version.number == 1 and path == tmp_path / "out.html" and b"<html" in path.read_bytes()[:500].lower()
    with pytest.raises(EvidenceError, match="no workflow"):
        finalize_evidence(ws, "wf-none")
