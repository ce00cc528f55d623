"""The baseline registry's page (with the audited rollback form); the batches are ``pages_batches``."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from gcv.console import actions
from gcv.console.deps import ConsoleDep, PageCaller, PageForm
from gcv.console.models import RollbackBody
from gcv.console.refusals import message_of
from gcv.console.rendering import back, first_error, page
from gcv.service.errors import Refusal
from gcv.workflow.baselines import ensure_registry, history

router = APIRouter(include_in_schema=False)


@router.get("/baselines")
def baselines(request: Request, console: ConsoleDep, caller: PageCaller, error: str = "") -> HTMLResponse:
    rows = ensure_registry(console.ws, console.config.clock())
    return page(console, request, "baselines.html", caller, rows=rows, activations=history(console.ws, 0.0)[::-1],
                error=error)


@router.post("/baselines/rollback")
async def baselines_rollback(console: ConsoleDep, caller: PageCaller, form: PageForm) -> Response:
    actor = console.actor(caller, "rollback_baseline", None, required=True)
    try:
        body = RollbackBody(to=form.get("to") or None, note=form.get("note", ""))
    except ValidationError as exc:
        return back("/baselines", error=first_error(exc))
    try:
        await run_in_threadpool(actions.rollback_baseline, console, body, actor)
    except Refusal as exc:
        return back("/baselines", error=message_of(exc))
    return back("/baselines")


__all__ = ["router"]
