"""The console as an ASGI app: ``create_app(ConsoleConfig(...))``; ``gcv serve`` runs it with uvicorn.

Errors never show internals: a ``ConsoleError`` is its status and message, a use case's
refusal (``gcv.service.errors``) is the status its type maps to (``gcv.console.refusals``)
with its message and kind, a malformed body is 422 naming the field, anything unexpected is
a plain 500 ("internal error") with the details in the server's log only. API paths answer
JSON; pages answer a small HTML page.

The routers are module-level, one per area (``gcv.console.routes``); their dependencies
find this app's ``Console`` in ``app.state.console`` (``gcv.console.deps``).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

import gcv
from gcv.console.context import Console, ConsoleConfig, ConsoleError
from gcv.console.deps import LoginNeeded
from gcv.console.gate import RequestGate
from gcv.console.refusals import body_of, http_status, message_of
from gcv.console.rendering import TPL
from gcv.console.routes import (api_baselines, api_system, api_workflows, pages_evidence, pages_registry,
                                pages_session, pages_workflows)
from gcv.console.security import SecurityMiddleware
from gcv.service.errors import Refusal

STATIC = Path(__file__).with_name("static")
log = logging.getLogger("gcv.console")


def create_app(config: ConsoleConfig) -> FastAPI:
    console = Console(config)
    app = FastAPI(title="GCV console", version=gcv.__version__, docs_url=None, redoc_url=None,
                  openapi_url="/api/openapi.json",
                  description="The JSON API of `gcv serve`: the same objects as the CLI's --json.")
    app.state.console = console
    tpl = TPL

    def wants_json(request: Request) -> bool:
        return request.url.path.startswith("/api/") or "application/json" in request.headers.get("accept", "")

    def error(request: Request, status: int, message: str, **extra: Any) -> Response:
        if wants_json(request):
            return JSONResponse({"error": message, **extra}, status_code=status)
        caller = None
        try:
            caller = console.caller(request)
        except ConsoleError:
            pass
        user = caller.user if caller else None
        return tpl.TemplateResponse(request, "error.html", {"status": status, "message": message, "me": user,
                                                            "may": {}, "csrf": "", "users_mode": console.users is not None},
                                    status_code=status)

    @app.exception_handler(ConsoleError)
    async def on_console_error(request: Request, exc: ConsoleError) -> Response:
        return error(request, exc.status, exc.message, **exc.extra)

    @app.exception_handler(Refusal)
    async def on_refusal(request: Request, exc: Refusal) -> Response:
        return error(request, http_status(exc), message_of(exc), **body_of(exc))

    @app.exception_handler(LoginNeeded)
    async def on_login(request: Request, exc: LoginNeeded) -> Response:
        return RedirectResponse("/login?" + _q({"next": exc.target}), status_code=303)

    @app.exception_handler(RequestValidationError)
    async def on_invalid(request: Request, exc: RequestValidationError) -> Response:
        first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid input"}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "body"
        return error(request, 422, f"{where}: {first.get('msg', 'invalid input')}", field=where)

    @app.exception_handler(StarletteHTTPException)
    async def on_http(request: Request, exc: StarletteHTTPException) -> Response:
        message = {404: "not found", 405: "method not allowed"}.get(exc.status_code, str(exc.detail))
        return error(request, exc.status_code, message)

    @app.exception_handler(Exception)
    async def on_crash(request: Request, exc: Exception) -> Response:
        log.exception("internal error on %s %s", request.method, request.url.path)
        return error(request, 500, "internal error; the server's log says more")

    for router in (api_system.router, api_workflows.router, api_baselines.router, pages_session.router,
                   pages_workflows.router, pages_evidence.router, pages_registry.router):
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
    # then who is asking, CSRF and the body's size, from the headers, before any body is read
    app.add_middleware(RequestGate, console=console)
    # outermost: Host/Origin are checked before anything else runs
    app.add_middleware(SecurityMiddleware, origins=console.origins)
    return app


def _q(params: dict[str, str]) -> str:
    return urlencode(params)


__all__ = ["create_app", "ConsoleConfig"]
