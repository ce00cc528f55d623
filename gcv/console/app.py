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
from collections.abc import Awaitable, Callable
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
from gcv.console.deps import LoginNeeded, get_console
from gcv.console.gate import RequestGate
from gcv.console.refusals import body_of, http_status, message_of
from gcv.console.i18n import LocaleMiddleware, locales, request_locale, translations, using
from gcv.console.rendering import TPL, localized
from gcv.console.routes import (api_baselines, api_system, api_workflows, pages_batches, pages_compare,
                                pages_evidence, pages_registry, pages_session, pages_workflows)
from gcv.console.security import SecurityMiddleware
from gcv.service.errors import Refusal

STATIC = Path(__file__).with_name("static")
log = logging.getLogger("gcv.console")


ROUTERS = (api_system.router, api_workflows.router, api_baselines.router, pages_session.router,
           pages_workflows.router, pages_evidence.router, pages_registry.router, pages_batches.router,
           pages_compare.router)


def create_app(config: ConsoleConfig) -> FastAPI:
    console = Console(config)
    for locale in locales():  # every catalog compiled now (once per process): a broken one stops the start
        translations(locale)
    app = FastAPI(title="GCV console", version=gcv.__version__, docs_url=None, redoc_url=None,
                  openapi_url="/api/openapi.json",
                  description="The JSON API of `gcv serve`: the same objects as the CLI's --json.")
    app.state.console = console  # what every dependency of the routers reads (gcv.console.deps)
    for kind, handler in HANDLERS.items():
        app.add_exception_handler(kind, handler)
    for router in ROUTERS:
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
    # then who is asking, CSRF and the body's size, from the headers, before any body is read
    app.add_middleware(RequestGate, console=console)
    # the request's language, from its headers (the user's cookie, Accept-Language): gcv.console.i18n
    app.add_middleware(LocaleMiddleware)
    # outermost: Host/Origin are checked before anything else runs
    app.add_middleware(SecurityMiddleware, origins=console.origins)
    return app


# ---------------------------------------------------------------------- errors
def wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/") or "application/json" in request.headers.get("accept", "")


def error(request: Request, status: int, message: str, **extra: Any) -> Response:
    """JSON for the API (and a client asking for it), else the small error page."""
    if wants_json(request):
        return JSONResponse({"error": message, **extra}, status_code=status)
    console = get_console(request)
    caller = None
    try:
        caller = console.caller(request)
    except ConsoleError:
        pass
    user = caller.user if caller else None
    # in the request's language also for the last-resort handler, which runs outside LocaleMiddleware
    with using(request_locale(request)):
        return localized(TPL.TemplateResponse(request, "error.html", {
            "status": status, "message": message, "me": user, "may": {}, "csrf": "",
            "users_mode": console.users is not None}, status_code=status))


async def on_console_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ConsoleError)
    return error(request, exc.status, exc.message, **exc.extra)


async def on_refusal(request: Request, exc: Exception) -> Response:
    """A use case's refusal: the status its type maps to, its message and its kind."""
    assert isinstance(exc, Refusal)
    return error(request, http_status(exc), message_of(exc), **body_of(exc))


async def on_login(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, LoginNeeded)
    return RedirectResponse("/login?" + _q({"next": exc.target}), status_code=303)


async def on_invalid(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid input"}
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "body"
    return error(request, 422, f"{where}: {first.get('msg', 'invalid input')}", field=where)


async def on_http(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    message = {404: "not found", 405: "method not allowed"}.get(exc.status_code, str(exc.detail))
    return error(request, exc.status_code, message)


async def on_crash(request: Request, exc: Exception) -> Response:
    log.exception("internal error on %s %s", request.method, request.url.path)
    return error(request, 500, "internal error; the server's log says more")


HANDLERS: dict[type[Exception], Callable[[Request, Exception], Awaitable[Response]]] = {
    ConsoleError: on_console_error, Refusal: on_refusal, LoginNeeded: on_login, RequestValidationError: on_invalid,
    StarletteHTTPException: on_http, Exception: on_crash,
}


def _q(params: dict[str, str]) -> str:
    return urlencode(params)


__all__ = ["create_app", "ConsoleConfig"]
