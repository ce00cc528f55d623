"""``/api/baselines``: the registry (``gcv baselines list / show / rollback``)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool

from gcv.console import actions
from gcv.console.deps import ConsoleDep, SignedIn, Writer
from gcv.console.models import BaselineList, BaselineVersion, RollbackBody, RolledBack
from gcv.console.routes.strict import StrictJSONRoute
from gcv.workflow.baselines import ensure_registry

router = APIRouter(prefix="/api", tags=["baselines"], route_class=StrictJSONRoute)


@router.get("/baselines", response_model=BaselineList, summary="Baseline versions (gcv baselines list --json)")
def baselines(console: ConsoleDep, caller: SignedIn) -> dict[str, Any]:
    return {"baselines": ensure_registry(console.ws, console.config.clock())}


@router.get("/baselines/{version}", response_model=BaselineVersion,
            summary="One baseline version (gcv baselines show V --json)")
def baseline(console: ConsoleDep, caller: SignedIn, version: str) -> dict[str, Any]:
    return actions.baseline_version(console, version)


@router.post("/baselines/rollback", response_model=RolledBack, summary="Make an earlier version active (audited)")
async def post_rollback(console: ConsoleDep, caller: Writer, body: RollbackBody) -> dict[str, Any]:
    actor = console.actor(caller, "rollback_baseline", body.actor, required=True)
    return await run_in_threadpool(actions.rollback_baseline, console, body, actor)


__all__ = ["router"]
