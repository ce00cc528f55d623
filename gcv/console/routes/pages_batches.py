"""The batches pages: every ``gcv batch`` output of the workspace with its intervals and files,
one group's rows, one row's fight in the viewer, and the operator's form that starts a batch
from a committed spec (``gcv.service.batches``; the thread is ``gcv.console.batch_jobs``)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from gcv.batch import figures
from gcv.console import views
from gcv.console.context import ConsoleError
from gcv.console.deps import ConsoleDep, PageCaller, PageForm, SignedIn
from gcv.console.refusals import message_of
from gcv.console.rendering import back, page
from gcv.console.viewer import ViewerError
from gcv.service import batches
from gcv.service.errors import Refusal
from gcv.sim.fixed import TICK_HZ

router = APIRouter(include_in_schema=False)


@router.get("/batches")
def batches_page(request: Request, console: ConsoleDep, caller: PageCaller, error: str = "") -> HTMLResponse:
    return page(console, request, "batches.html", caller, batches=batches.list_batches(console.ws.root),
                specs=batches.committed_specs(), job=console.batch_jobs.last, tables=batches.TABLES,
                figures=figures, now=console.config.clock(), ago=views.ago, error=error)


@router.post("/batches/start")
async def start(console: ConsoleDep, caller: PageCaller, form: PageForm) -> Response:
    actor = console.actor(caller, "start_batch", None, required=True)
    try:
        await run_in_threadpool(console.batch_jobs.start, form.get("spec", ""), actor=actor,
                                overwrite=form.get("overwrite") == "1")
    except Refusal as exc:
        return back("/batches", error=message_of(exc))
    return back("/batches")


@router.get("/batches/{name}/files/{filename}")
def batch_file(console: ConsoleDep, caller: SignedIn, name: str, filename: str) -> Response:
    """A table of the batch (CSV, Parquet, JUnit...): only the files of its own folder."""
    path = batches.batch_file(console.ws.root, name, filename)
    return FileResponse(path, media_type=batches.media_type(path), filename=f"{name}.{filename}",
                        headers={"cache-control": "no-store"})


@router.get("/batches/{name}/groups/{index}")
def group(request: Request, console: ConsoleDep, caller: PageCaller, name: str, index: int) -> HTMLResponse:
    rows = batches.group_rows(console.ws.root, name, index)
    return page(console, request, "batch_group.html", caller, g=rows, m=rows.group["metrics"], figures=figures,
                listing=batches.listing(console.ws.root, name))


@router.get("/batches/{name}/runs/{cell_id}")
def run(request: Request, console: ConsoleDep, caller: PageCaller, name: str, cell_id: str,
        attempt: int | None = None) -> HTMLResponse:
    found = batches.row_run(console.ws, name, cell_id, attempt)
    groups = (batches.listing(console.ws.root, name).summary or {}).get("summary") or []
    index = next((i for i, g in enumerate(groups) if (g["config_hash"], g["player"], g["engine"])
                  == (found.row["config_hash"], found.row["player"], found.row["engine"])), None)
    return page(console, request, "batch_run.html", caller, batch=name, run=found, group_index=index,
                tick_hz=TICK_HZ)


@router.get("/batches/{name}/runs/{cell_id}/positions.json")
async def positions(console: ConsoleDep, caller: PageCaller, name: str, cell_id: str,
                    attempt: int | None = None) -> Response:
    """Every tick of a batch row's run for the viewer's canvas (gcv/console/viewer.py)."""
    found = batches.row_run(console.ws, name, cell_id, attempt)
    if not found.viewable:
        raise ConsoleError(404, found.reason or "this run cannot be shown")
    assert found.program is not None and found.player is not None and found.seed is not None
    try:
        data = await run_in_threadpool(console.viewer.run_positions, found.program, found.player, found.seed,
                                       recorded=found.row, what=f"row {cell_id} of batch {name}")
    except ViewerError as exc:
        raise ConsoleError(404, str(exc)) from None
    return Response(data, media_type="application/json", headers={"cache-control": "no-cache"})


__all__ = ["router"]
