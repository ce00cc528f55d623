"""The console's FastAPI dependencies: which console, who is asking, and the checked form.

Routes declare what they need (``console: ConsoleDep``, ``caller: Writer``...) instead of
closing over a console built in a factory; the app keeps its ``Console`` in
``app.state.console`` and every dependency reads it from there, so the routers are plain
module-level ``APIRouter`` objects.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from gcv.console.context import Console
from gcv.console.security import CSRF_FIELD, Caller


class LoginNeeded(Exception):
    """A page asked for without a browser session: the app redirects to the sign-in page."""

    def __init__(self, target: str) -> None:
        super().__init__(target)
        self.target = target


def get_console(request: Request) -> Console:
    console = request.app.state.console
    assert isinstance(console, Console)
    return console


ConsoleDep = Annotated[Console, Depends(get_console)]


def api_caller(request: Request, console: ConsoleDep) -> Caller:
    """Anyone signed in (a session, a Bearer token, a loopback script): else 401."""
    return console.signed_in(request)


async def api_writer(request: Request, console: ConsoleDep) -> Caller:
    """Signed in, and CSRF / JSON checked, before the body is even read."""
    caller = console.signed_in(request)
    await console.check_write(request, caller)
    return caller


def page_caller(request: Request, console: ConsoleDep) -> Caller:
    """A browser session; else to the sign-in page, coming back here afterwards."""
    caller = console.caller(request)
    if caller.via != "browser":
        raise LoginNeeded(request.url.path + (f"?{request.url.query}" if request.url.query else ""))
    return caller


SignedIn = Annotated[Caller, Depends(api_caller)]
Writer = Annotated[Caller, Depends(api_writer)]
PageCaller = Annotated[Caller, Depends(page_caller)]


async def page_form(request: Request, console: ConsoleDep, caller: PageCaller) -> dict[str, str]:
    """The posted form's text fields, once its CSRF token is checked."""
    form = await request.form()
    data = {k: str(v) for k, v in form.items() if isinstance(v, str)}
    await console.check_write(request, caller, data.get(CSRF_FIELD))
    return data


PageForm = Annotated[dict[str, str], Depends(page_form)]

__all__ = ["LoginNeeded", "get_console", "ConsoleDep", "SignedIn", "Writer", "PageCaller", "PageForm"]
