"""``/api/health``, ``/api/me``, ``/api/engines``, ``/api/agents``: the console and what it can run."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from gcv.console import views
from gcv.console.deps import ConsoleDep, SignedIn
from gcv.console.models import EngineList, Health, Me, ProviderList
from gcv.console.routes.strict import StrictJSONRoute

router = APIRouter(prefix="/api", tags=["console"], route_class=StrictJSONRoute)


@router.get("/health", response_model=Health, response_model_exclude_unset=True,
            summary="Is the console up (and, to a signed-in caller, on which workspace)")
def health(request: Request, console: ConsoleDep) -> dict[str, Any]:
    out: dict[str, Any] = {"ok": True, "users": console.users is not None}
    if console.caller(request).via != "anonymous":
        out.update(workspace=str(console.ws.root), workflows=console.ws.count_workflows())
    return out


@router.get("/me", response_model=Me, summary="Who the caller is and what they may do")
def me(caller: SignedIn) -> dict[str, Any]:
    return {"via": caller.via, "user": caller.user.as_dict() if caller.user else None}


@router.get("/engines", response_model=EngineList, summary="Engine runners and whether each can run here (gcv engines)")
def engines(caller: SignedIn, console: ConsoleDep) -> dict[str, Any]:
    return {"engines": views.usable_engines(console.ws.root)}


@router.get("/agents", response_model=ProviderList, summary="Agent providers and whether each can be used (gcv agents)")
def agents(caller: SignedIn) -> dict[str, Any]:
    return {"providers": views.usable_providers()}


__all__ = ["router"]
