"""A workflow's evidence: the review page, the report and the bundle, the fight viewer's
positions and the fairness files."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from gcv.console import actions, views
from gcv.console.context import ConsoleError
from gcv.console.deps import ConsoleDep, PageCaller
from gcv.console.models import ViewerMeta
from gcv.console.rendering import page
from gcv.console.viewer import ViewerError
from gcv.evidence.bundle import default_bundle_path
from gcv.evidence.report import default_report_path
from gcv.evidence.versions import EVIDENCE_VERSION_HEADER, latest
from gcv.workflow.states import decisions_allowed

REPORT_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; frame-ancestors 'self'"
FAIR_FILES = {"safe_area.svg": "image/svg+xml", "tightest.png": "image/png", "report.json": "application/json"}

router = APIRouter(include_in_schema=False)


@router.get("/workflows/{wf_id}/review")
def review(request: Request, console: ConsoleDep, caller: PageCaller, wf_id: str, error: str = "") -> HTMLResponse:
    d, state = actions.load(console, wf_id)
    verify = views.verify_result(console.ws, d, wf_id)
    return page(console, request, "review.html", caller, s=state, st=views.status_view(state.status),
                r=views.review(d, state), viewer=console.viewer.meta(d, state), verify=verify,
                trust=views.trust(verify),
                current=views.evidence_current(verify, state),
                has_report=default_report_path(console.ws, wf_id).is_file(),
                decisions=decisions_allowed(state.status), plan=views.authorization_plan(state),
                decide_from="review", error=error)


@router.get("/workflows/{wf_id}/report")
def report(console: ConsoleDep, caller: PageCaller, wf_id: str) -> Response:
    actions.load(console, wf_id)
    newest = latest(default_report_path(console.ws, wf_id).parent, wf_id, "report")
    if newest.path is None:
        raise ConsoleError(404, f"{wf_id} has no evidence report yet")
    return FileResponse(newest.path, media_type="text/html; charset=utf-8",
                        headers={"content-security-policy": REPORT_CSP, "cache-control": "no-store",
                                 EVIDENCE_VERSION_HEADER: str(newest.number or "unversioned")})


@router.get("/workflows/{wf_id}/bundle")
def bundle(console: ConsoleDep, caller: PageCaller, wf_id: str) -> Response:
    actions.load(console, wf_id)
    newest = latest(default_bundle_path(console.ws, wf_id).parent, wf_id, "bundle")
    if newest.path is None:
        raise ConsoleError(404, f"{wf_id} has no evidence bundle yet")
    # the latest version, named by its number (WF.evidence.vN.zip)
    return FileResponse(newest.path, media_type="application/zip", filename=newest.path.name,
                        headers={"cache-control": "no-store",
                                 EVIDENCE_VERSION_HEADER: str(newest.number or "unversioned")})


@router.get("/workflows/{wf_id}/viewer.json", response_model=ViewerMeta)
def viewer_meta(console: ConsoleDep, caller: PageCaller, wf_id: str) -> dict[str, Any]:
    d, state = actions.load(console, wf_id)
    return console.viewer.meta(d, state)


@router.get("/workflows/{wf_id}/positions/{side}.json")
async def positions(console: ConsoleDep, caller: PageCaller, wf_id: str, side: str) -> Response:
    """Every tick of a run (player, bullets, hits) for the viewer's canvas (gcv/console/viewer.py)."""
    if side not in ("baseline", "candidate"):
        raise ConsoleError(404, "side is baseline or candidate")
    d, state = actions.load(console, wf_id)
    try:
        data = await run_in_threadpool(console.viewer.positions, d, state, side)
    except ViewerError as exc:
        raise ConsoleError(404, str(exc)) from None
    # not cached by the browser: a later round makes another final candidate under the same address
    return Response(data, media_type="application/json", headers={"cache-control": "no-cache"})


@router.get("/workflows/{wf_id}/fair/{side}/{name}")
async def fair_file(console: ConsoleDep, caller: PageCaller, wf_id: str, side: str, name: str) -> Response:
    if side not in ("baseline", "candidate") or name not in FAIR_FILES:
        raise ConsoleError(404, "no such fairness file")
    d, state = actions.load(console, wf_id)
    folder = await run_in_threadpool(console.fair.get, d, state, side)
    if folder is None or not (folder / name).is_file():
        raise ConsoleError(404, f"no {name} for the {side} of {wf_id}")
    return FileResponse(folder / name, media_type=FAIR_FILES[name])


__all__ = ["router", "REPORT_CSP"]
