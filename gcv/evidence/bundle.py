"""``export_bundle``: one workflow as a self-contained, verifiable evidence bundle.

Layout (a zip, or the same tree as a folder with ``as_dir=True``)::

    manifest.json              in-toto Statement v1: every other file + digest, Merkle root
    manifest.dsse.json         DSSE envelope over manifest.json (only when a key is configured)
    index.json                 which file is which round's config / run / evaluation / review
    report.html                the self-contained HTML report
    request.txt                the designer's words
    goal.json                  the structured goal
    workflow/state.json        the workflow state (paths relative, secrets scrubbed)
    workflow/events.jsonl      the hash-chained event log
    configs/baseline.json, configs/candidate_N.json
    diffs/candidate_N.json     baseline -> candidate field changes
    validation/candidate_N.json  the four validation layers
    runs/<baseline|candidate_N>/request.json, telemetry.json, frames/tick_NNNNNN.png, run.log
    evaluations/candidate_N.json
    populations/<baseline|candidate_N>.json   seeded bot population summaries (when run)
    agents/requirement.json, agents/review_round_N.json   decisions + raw AgentCall records
    reviews/round_N.json       allowed intents, verdict, policy-gate result
    repairs/round_N.json       the calculator's changes and explanation

The zip is deterministic: entries sorted by name, every timestamp 1980-01-01 00:00:00,
mode 0644, PNGs stored and everything else deflated at level 9; the same workflow (and key)
gives the same bytes. It is written to a temporary file beside the target and renamed,
so a reader never sees half a bundle.
"""

from __future__ import annotations

import os
import shutil
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from gcv.evidence.collect import (ENVELOPE_NAME, MANIFEST_NAME, REPORT_NAME, Evidence, EvidenceError,
                                  as_workspace, collect)
from gcv.evidence.manifest import build_manifest, manifest_bytes
from gcv.evidence.signing import Signer, SigningError, envelope_bytes, sign_envelope, signer_from_env
from gcv.evidence.report import render_report
from gcv.evidence.verify import verify_files
from gcv.store.catalog import Workspace
from gcv.store.safezip import limit_problems

FIXED_TIME = (1980, 1, 1, 0, 0, 0)
STORED_SUFFIXES = (".png",)


def default_bundle_path(workspace: Workspace | Path | str, wf_id: str) -> Path:
    """Where ``gcv bundle`` and ``gcv run`` put a bundle: the workspace, never the source tree."""
    return as_workspace(workspace).workflow_dir(wf_id).root / "evidence" / f"{wf_id}.evidence.zip"


def assemble(ev: Evidence, bundle_name: str, signer: Signer | Literal[False] | None = None,
             environ: Mapping[str, str] | None = None) -> dict[str, bytes]:
    """The bundle's files: the evidence, its report, the manifest and (optionally) the signature.

    ``bundle_name`` is the file name the report tells the reviewer to verify (and the
    manifest records, so ``verify --replay`` can re-render the report). ``signer``: None
    signs with the key configured in the environment (if any), False never signs.
    Refuses (EvidenceError) when any file would still contain a secret or a machine path.
    """
    if signer is None:
        try:
            signer = signer_from_env(environ)
        except SigningError as exc:
            raise EvidenceError(str(exc)) from None
    files = dict(ev.files)
    files[REPORT_NAME] = render_report(ev, bundle_name=bundle_name).encode("utf-8")
    too_big = limit_problems(files, stored=STORED_SUFFIXES)
    if too_big:  # never write a bundle that `gcv verify` would refuse to read
        raise EvidenceError("the bundle would break the limits its reader applies: " + "; ".join(too_big[:3]))
    manifest = manifest_bytes(build_manifest(ev, files, bundle_name=bundle_name))
    files[MANIFEST_NAME] = manifest
    refuse_unverifiable(files)
    if signer:
        try:
            files[ENVELOPE_NAME] = envelope_bytes(sign_envelope(manifest, signer))
        except SigningError as exc:  # pragma: no cover - keys are checked when loaded
            raise EvidenceError(str(exc)) from None
    if ev.scrubber is not None:
        for name, data in files.items():
            leaks = ev.scrubber.leaks(data)
            if leaks:
                raise EvidenceError(f"refusing to write the bundle: {name} would contain {', '.join(leaks)}")
    return files


def refuse_unverifiable(files: Mapping[str, bytes]) -> None:
    """Never write a bundle that ``gcv verify`` would fail: run its integrity and consistency
    checks on the files about to be written (the signature, added after, is ours by
    construction). A workflow whose records disagree with each other (a state edited by hand,
    a log that lost events) is refused as damaged, naming the first failing check."""
    report = verify_files(dict(files), bundle="the bundle", environ={})
    first = report.first_failure
    if first is not None:
        raise EvidenceError(f"refusing to write a bundle that would fail `gcv verify`: {first.name}: {first.message}; "
                            "the workflow's records disagree with each other (nothing was written)", damaged=True)


def bundle_files(workspace: Workspace | Path | str, wf_id: str, *, bundle_name: str,
                 signer: Signer | Literal[False] | None = None, environ: Mapping[str, str] | None = None) -> dict[str, bytes]:
    """Every file of workflow ``wf_id``'s bundle, in memory."""
    return assemble(collect(workspace, wf_id, environ=environ), bundle_name, signer, environ)


def write_zip(files: Mapping[str, bytes], out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        with zipfile.ZipFile(tmp, "w") as zf:
            for name in sorted(files, key=lambda n: n.encode("utf-8")):
                info = zipfile.ZipInfo(name, date_time=FIXED_TIME)
                info.create_system = 3  # unix, so the mode below is meaningful
                info.external_attr = (0o100644 & 0xFFFF) << 16
                stored = name.endswith(STORED_SUFFIXES)
                info.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
                zf.writestr(info, files[name], compresslevel=None if stored else 9)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, out)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_dir(files: Mapping[str, bytes], out: Path) -> None:
    if out.exists() and not (out.is_dir() and (out / MANIFEST_NAME).is_file()):
        raise EvidenceError(f"{out} exists and is not an evidence bundle folder; choose another path")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    old = out.with_name(f".{out.name}.{os.getpid()}.old")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        for name, data in files.items():
            path = tmp.joinpath(*name.split("/"))
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        if out.exists():
            os.replace(out, old)
        os.replace(tmp, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)


def export_bundle(workspace: Workspace | Path | str, wf_id: str, out: Path, *, as_dir: bool = False,
                  signer: Signer | Literal[False] | None = None, environ: Mapping[str, str] | None = None) -> Path:
    """Write workflow ``wf_id``'s evidence bundle to ``out`` (a zip, or a folder).

    ``signer``: None signs with the key configured in the environment (if any; see
    ``gcv.evidence.signing``), False never signs, or a ``Signer``. Returns ``out``.
    """
    out = Path(out)
    files = bundle_files(workspace, wf_id, bundle_name=out.name, signer=signer, environ=environ)
    if as_dir:
        write_dir(files, out)
    else:
        write_zip(files, out)
    return out

