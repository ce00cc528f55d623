"""What ``gcv run``, ``resume``, ``answer`` and ``decide`` (and the console) do when a workflow
stops: write the next evidence version, report and bundle (``gcv.evidence.versions``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from gcv.evidence.bundle import assemble, default_bundle_path, write_zip
from gcv.evidence.collect import REPORT_NAME, Evidence, as_workspace, collect
from gcv.evidence.report import default_report_path
from gcv.evidence.versions import Version, bundle_name, evidence_version, report_name
from gcv.store.atomic import atomic_write_bytes
from gcv.store.catalog import Workspace


@dataclass(frozen=True)
class Written:
    """One evidence version as written: its own files and the unnumbered latest copies."""

    version: Version
    report: Path  # evidence/report.vN.html
    bundle: Path  # evidence/<wf>.evidence.vN.zip
    latest_report: Path  # evidence/report.html (the same bytes)
    latest_bundle: Path  # evidence/<wf>.evidence.zip (the same bytes)

    def paths(self) -> dict[str, str]:
        return {"report": str(self.report), "bundle": str(self.bundle), "latest_report": str(self.latest_report),
                "latest_bundle": str(self.latest_bundle)}


def version_of(ev: Evidence) -> Version:
    return evidence_version(ev.history(), str(ev.state.status))


def write_version_files(ws: Workspace, wf_id: str, version: Version, files: Mapping[str, bytes], *,
                        bundle: bool = True) -> Written:
    """Write version ``version``'s report (and bundle) and make them the latest copies. The
    numbered files are written first, so a reader of the unnumbered ones never sees a version
    whose own files are missing."""
    latest_bundle = default_bundle_path(ws, wf_id)
    latest_report = default_report_path(ws, wf_id)
    report = latest_report.with_name(report_name(version.number))
    zipped = latest_bundle.with_name(bundle_name(wf_id, version.number))
    atomic_write_bytes(report, files[REPORT_NAME])
    if bundle:
        write_zip(files, zipped)
        atomic_write_bytes(latest_bundle, zipped.read_bytes())
    atomic_write_bytes(latest_report, files[REPORT_NAME])
    return Written(version, report, zipped, latest_report, latest_bundle)


def finalize_evidence(workspace: Workspace | Path | str, wf_id: str, *,
                      environ: Mapping[str, str] | None = None) -> Written:
    """Write the workflow's current evidence version under ``workflows/<wf>/evidence/``.

    Signs the bundle when a key is configured (GCV_SIGNING_KEY_ED25519 / _HMAC). The report
    is rendered once and is byte-identical to the bundle's ``report.html``; earlier versions'
    files are left as they are. Raises ``gcv.evidence.collect.EvidenceError`` when the
    workflow cannot be exported (missing or corrupted records, a bundle that would fail
    ``gcv verify``, a bad signing key, or a file that would leak a secret); the workflow
    itself is never modified.
    """
    ws = as_workspace(workspace)
    ev = collect(ws, wf_id, environ=environ)
    version = version_of(ev)
    files = assemble(ev, bundle_name(wf_id, version.number), None, environ)
    return write_version_files(ws, wf_id, version, files)


def report_version(workspace: Workspace | Path | str, wf_id: str, out: Path | None = None, *,
                   environ: Mapping[str, str] | None = None) -> tuple[Version, Path]:
    """``gcv report``: the current version's report, checked as its bundle would be (a workflow
    whose records disagree is refused), to ``out`` or as ``report.vN.html`` and ``report.html``."""
    ws = as_workspace(workspace)
    ev = collect(ws, wf_id, environ=environ)
    version = version_of(ev)
    files = assemble(ev, bundle_name(wf_id, version.number), False, environ)
    if out is not None:
        atomic_write_bytes(Path(out), files[REPORT_NAME])
        return version, Path(out)
    return version, write_version_files(ws, wf_id, version, files, bundle=False).report
