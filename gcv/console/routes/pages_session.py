"""Signing in and out (``/login``, ``/logout``), the user's language (``/language``) and the home
redirect."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from gcv.console import i18n
from gcv.console.deps import ConsoleDep, PageCaller, PageForm
from gcv.console.rendering import TPL, back, localized
from gcv.console.security import SESSION_COOKIE
from gcv.console.users import clean_name

router = APIRouter(include_in_schema=False)


def safe_next(target: str | None) -> str:
    """Only a path on this server (never //host or a scheme): no open redirect."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/workflows"
    return target


@router.get("/")
def home() -> RedirectResponse:
    return back("/workflows")


@router.get("/login")
def login_form(request: Request, console: ConsoleDep, next: str = "/workflows", error: str = "") -> HTMLResponse:
    return localized(TPL.TemplateResponse(request, "login.html", {
        "me": None, "may": {}, "csrf": "", "next": safe_next(next), "error": error,
        "users_mode": console.users is not None}))


@router.post("/login")
async def login(request: Request, console: ConsoleDep) -> Response:
    form = await request.form()
    target = safe_next(str(form.get("next") or "/workflows"))
    if console.users is None:
        try:
            name = clean_name(str(form.get("name") or ""))
        except ValueError as exc:
            return back("/login", next=target, error=i18n._("name: %(problem)s") % {"problem": i18n.tr(str(exc))})
    else:
        user = console.users.find(str(form.get("token") or "").strip())
        if user is None:
            return back("/login", next=target, error=i18n._("unknown token"))
        name = user.name
    response = RedirectResponse(target, status_code=303)
    cookie = await run_in_threadpool(console.sessions.new, name)
    response.set_cookie(SESSION_COOKIE, cookie, max_age=console.config.session_seconds, httponly=True,
                        samesite="strict", path="/", secure=console.config.tls)
    return response


@router.post("/logout")
async def logout(console: ConsoleDep, caller: PageCaller, form: PageForm) -> Response:
    await run_in_threadpool(console.sign_out, caller)  # the cookie is void on the server, not only forgotten
    response = back("/login")
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict", secure=console.config.tls)
    return response


@router.post("/language")
async def language(console: ConsoleDep, caller: PageCaller, form: PageForm) -> Response:
    """The signed-in user's language: kept in a cookie of this browser (``gcv_lang``), the
    browser's own (``Accept-Language``) when none is chosen; back to the page the form was on."""
    chosen = form.get("lang", "").strip()
    target = safe_next(form.get("next"))
    if chosen and chosen not in i18n.locales():
        return back("/workflows", error=i18n._("lang: %(given)s is not a language of this console; allowed: "
                                               "%(allowed)s") % {"given": chosen[:40],
                                                                 "allowed": ", ".join(i18n.locales())})
    response = RedirectResponse(target, status_code=303)
    if chosen:
        response.set_cookie(i18n.LANG_COOKIE, chosen, max_age=i18n.LANG_COOKIE_SECONDS, httponly=True,
                            samesite="strict", path="/", secure=console.config.tls)
    else:
        response.delete_cookie(i18n.LANG_COOKIE, path="/", httponly=True, samesite="strict",
                               secure=console.config.tls)
    return response


__all__ = ["router", "safe_next", "language"]
