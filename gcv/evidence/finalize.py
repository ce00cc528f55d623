"""What ``gcv run`` (and ``gcv resume``) do at the end: write the report and the bundle."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from gcv.evidence.bundle import assemble, default_bundle_path, write_zip
from gcv.evidence.collect import as_workspace, collect
from gcv.evidence.report import default_report_path
from gcv.store.atomic import atomic_write_bytes
from gcv.store.catalog import Workspace


def finalize_evidence(workspace: Workspace | Path | str, wf_id: str, *,
                      environ: Mapping[str, str] | None = None) -> dict[str, Path]:
    """Write ``report.html`` and ``<wf>.evidence.zip`` under ``workflows/<wf>/evidence/``.

    Signs the bundle when a key is configured (GCV_SIGNING_KEY_ED25519 / _HMAC). The report
    is rendered once and is byte-identical to the bundle's ``report.html``. Returns
    ``{"report": path, "bundle": path}``. Raises ``gcv.evidence.collect.EvidenceError`` when
    the workflow cannot be exported (missing or corrupted artifacts, a bad signing key, or
    a file that would leak a secret); the workflow itself is never modified.
    """
    ws = as_workspace(workspace)
    bundle = default_bundle_path(ws, wf_id)
    report = default_report_path(ws, wf_id)
    files = assemble(collect(ws, wf_id, environ=environ), bundle.name, None, environ)
    atomic_write_bytes(report, files["report.html"])
    write_zip(files, bundle)
    return {"report": report, "bundle": bundle}
