"""``gcv bundle``, ``gcv verify`` and ``gcv report``: evidence for reviewers.

Exit codes: ``bundle`` / ``report`` 0 on success, 2 for an unknown workflow or an export
that is refused (bad signing key, a secret that would leak). ``verify`` 0 only when every
check holds, 1 when a check fails (the first failing check is named), 2 when the input is
not a readable, safe bundle.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any, Optional

import typer
from rich.markup import escape
from rich.text import Text

from gcv.cli.browser import open_in_browser
from gcv.cli.failures import raise_if_environment
from gcv.cli.tables import Col, print_table

from gcv.cli.output import console, emit_json, fail_usage

STATUS_MARK = {"passed": "[green]ok[/]", "failed": "[bold red]FAIL[/]", "skipped": "[dim]skip[/]"}


def _workspace():
    from gcv.store.paths import workspace_root
    from gcv.store.catalog import Workspace

    return Workspace(workspace_root())


def _require_workflow(ws: Any, wf_id: str, json_mode: bool) -> None:
    try:
        known = ws.exists(wf_id)
    except Exception:  # noqa: BLE001 - an odd id is a usage error, whatever the store says
        known = False
    if not known:
        fail_usage(f"no workflow {wf_id!r} in {ws.root}", json_mode=json_mode, hint="see `gcv list`")


def _with_status(text: str, json_mode: bool, work: Any) -> Any:
    err = console(stderr=True)
    if json_mode or not err.is_terminal:
        return work()
    with err.status(text):
        return work()


def _manifest_of(path: Path) -> dict[str, Any]:
    if path.is_dir():
        manifest = json.loads((path / "manifest.json").read_bytes())
        signed = (path / "manifest.dsse.json").is_file()
        files = sum(1 for p in path.rglob("*") if p.is_file())
        size = sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    else:
        with zipfile.ZipFile(path) as zf:
            manifest = json.loads(zf.read("manifest.json"))
            names = zf.namelist()
        signed = "manifest.dsse.json" in names
        files = len(names)
        size = path.stat().st_size
    version = manifest["predicate"].get("evidence_version") or {}
    return {"files": files, "bytes": size, "merkle_root": manifest["predicate"]["merkle_root"], "signed": signed,
            "evidence_version": version.get("number"), "interim": bool(version.get("interim"))}


app = typer.Typer()


@app.command("bundle")
def bundle(
    wf_id: str = typer.Argument(..., metavar="WF"),
    out: Optional[Path] = typer.Option(None, "-o", "--out", metavar="FILE.zip",
                                       help="where to write (default: workflows/WF/evidence/ in the workspace)"),
    as_dir: bool = typer.Option(False, "--dir", help="write a folder instead of a zip"),
    json_mode: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Export a workflow's current evidence version as a bundle (signed when a key is configured).

    Without -o: workflows/WF/evidence/WF.evidence.vN.zip (and WF.evidence.zip, the latest copy)."""
    from gcv.evidence.bundle import default_bundle_path, export_bundle
    from gcv.evidence.collect import EvidenceError
    from gcv.evidence.finalize import finalize_evidence

    ws = _workspace()
    _require_workflow(ws, wf_id, json_mode)
    target = out or default_bundle_path(ws, wf_id)
    if as_dir and out is None:
        target = target.with_name(target.name.removesuffix(".zip"))

    def write() -> Path:
        if out is None and not as_dir:  # the workspace's own copy: a new numbered version
            return finalize_evidence(ws, wf_id).bundle
        return export_bundle(ws, wf_id, target, as_dir=as_dir)

    try:
        path = _with_status("writing the evidence bundle...", json_mode, write)
    except EvidenceError as exc:
        fail_usage(str(exc), json_mode=json_mode)
    except OSError as exc:
        raise_if_environment(exc, target)  # a full or read-only disk: exit 70
        fail_usage(f"cannot write {target}: {exc.strerror or exc}", json_mode=json_mode)
    info = _manifest_of(path)
    if json_mode:
        emit_json({"workflow_id": wf_id, "bundle": str(path), "format": "dir" if as_dir else "zip", **info,
                   "verify": f"gcv verify {path} --replay", "exit_code": 0})
        return
    con = console()
    con.print(f"wrote {path}", markup=False, soft_wrap=True)
    con.print(f"  evidence version {info['evidence_version']}{' (interim)' if info['interim'] else ''}, "
              f"{info['files']} files, {info['bytes'] // 1024} KiB, merkle root {info['merkle_root'][:16]}..., "
              f"{'signed' if info['signed'] else 'unsigned'}", markup=False, soft_wrap=True)
    con.print(f"  verify with: gcv verify {path} --replay", markup=False, soft_wrap=True)

@app.command("verify")
def verify(
    bundle_path: Path = typer.Argument(..., metavar="BUNDLE", help="an evidence bundle (.zip or folder)"),
    replay: bool = typer.Option(False, "--replay", help="also re-run simulations, evaluations, gate and repairs"),
    require_signature: bool = typer.Option(False, "--require-signature",
                                           help="fail when the bundle is unsigned"),
    json_mode: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Check a bundle's integrity and consistency (and, with --replay, reproduce it)."""
    from gcv.evidence.verify import verify_bundle

    report = _with_status("verifying..." if not replay else "verifying and replaying...", json_mode,
                          lambda: verify_bundle(bundle_path, replay=replay, require_signature=require_signature))
    if json_mode:
        data = report.as_dict()
        if report.unreadable:
            data["error"] = report.checks[0].message
        emit_json(data)
        raise typer.Exit(report.exit_code)
    if report.unreadable:
        fail_usage(report.checks[0].message, file=str(bundle_path), role="bundle")
    con = console()
    print_table(con, [Col("", "id"), Col("check", "id"), Col("result")],
                [[Text.from_markup(STATUS_MARK.get(check.status, check.status)), check.name, check.message]
                 for check in report.checks],
                title=f"{bundle_path.name}: {report.workflow_id or '?'} ({report.status or '?'})")
    trust = report.trust_statement()  # the same words as the console's review page
    colour = {"ok": "green", "warn": "yellow", "bad": "red"}[trust.tone]
    con.print(f"[{colour}]trust: {escape(trust.words)}[/]: {escape(trust.explanation)}")
    first = report.first_failure
    if first is None:
        extra = "" if replay else " (add --replay to re-run everything from the recorded inputs)"
        con.print(f"[bold green]verified[/]: every check holds{escape(extra)}")
    else:
        err = console(stderr=True)
        err.print(f"[bold red]not verified[/]: {escape(first.name)}: {escape(first.message)}")
        for name in report.failed()[1:]:
            err.print(f"  also failing: {name}", markup=False)
    raise typer.Exit(report.exit_code)

@app.command("report")
def report(
    wf_id: str = typer.Argument(..., metavar="WF"),
    out: Optional[Path] = typer.Option(None, "-o", "--out", metavar="report.html",
                                       help="where to write (default: workflows/WF/evidence/report.html)"),
    open_it: bool = typer.Option(False, "--open", help="open the report in a browser (honours BROWSER)"),
    json_mode: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Write the self-contained HTML report of a workflow's current evidence version.

    Without -o: workflows/WF/evidence/report.vN.html (and report.html, the latest copy)."""
    from gcv.evidence.collect import EvidenceError
    from gcv.evidence.finalize import report_version
    from gcv.evidence.report import default_report_path

    ws = _workspace()
    _require_workflow(ws, wf_id, json_mode)
    target = out or default_report_path(ws, wf_id)
    try:
        version, path = _with_status("writing the report...", json_mode, lambda: report_version(ws, wf_id, out))
    except EvidenceError as exc:
        fail_usage(str(exc), json_mode=json_mode)
    except OSError as exc:
        raise_if_environment(exc, target)  # a full or read-only disk: exit 70
        fail_usage(f"cannot write {target}: {exc.strerror or exc}", json_mode=json_mode)
    opened = open_in_browser(path) if open_it else None
    if json_mode:
        emit_json({"workflow_id": wf_id, "report": str(path), "bytes": path.stat().st_size,
                   "evidence_version": version.number, "interim": version.interim,
                   **({"opened": opened} if open_it else {}), "exit_code": 0})
        return
    interim = " (interim)" if version.interim else ""
    console().print(f"wrote {path} (evidence version {version.number}{interim}, {path.stat().st_size // 1024} KiB); "
                    + {None: "open it in any browser", True: "opened in a browser",
                       False: "no browser could be started here; open it in any browser"}[opened], markup=False)
