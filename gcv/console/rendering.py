"""The console's HTML: one Jinja2 environment (autoescaped) and the page context every
template gets (who is signed in, what they may do, the CSRF token)."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.templating import Jinja2Templates
from pydantic import ValidationError

from gcv.console import views
from gcv.console.context import Console
from gcv.console.security import Caller
from gcv.console.users import ROLE_OF_ACTION
from gcv.contract.status import FINAL, Status
from gcv.contract.names import field_label, names_in, value_with_unit
from gcv.contract.request_intent import LEAD
from gcv.evaluation.display import survival_text, ticks_text
from gcv.workflow.states import NOTE_REQUIRED
from gcv.workflow.words import decision_words, offline, trace_text, usage_words

TEMPLATES = Path(__file__).with_name("templates")


def templates() -> Jinja2Templates:
    t = Jinja2Templates(directory=str(TEMPLATES))
    t.env.globals.update(Status=Status, FINAL=FINAL, NOTE_REQUIRED=NOTE_REQUIRED, utc=views.utc,
                         status_view=views.status_view, field_label=field_label, value_with_unit=value_with_unit,
                         decision_words=decision_words, usage_words=usage_words, offline=offline, intent_lead=LEAD)
    # what a person reads (issue 31.2): the review's step as the agent's, ticks with their seconds
    t.env.filters["said"] = trace_text
    t.env.filters["ticks"] = ticks_text
    t.env.filters["named"] = names_in
    t.env.filters["survival"] = survival_text
    t.env.filters["pct"] = lambda v: "" if v is None else f"{v:+.1f}%"
    return t


TPL = templates()


def page(console: Console, request: Request, name: str, caller: Caller, **context: Any) -> HTMLResponse:
    user = caller.user
    may = {a: bool(user and user.may(a)) for a in ROLE_OF_ACTION}
    return TPL.TemplateResponse(request, name, {"me": user, "may": may, "csrf": console.csrf_for(caller),
                                                "users_mode": console.users is not None, **context})


def back(path: str, **query: str) -> RedirectResponse:
    """Post/Redirect/Get: back to a page, with an error to show when there is one."""
    return RedirectResponse(path + (("?" + urlencode(query)) if query else ""), status_code=303)


def first_error(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "input"
    return f"{where}: {first['msg']}"


__all__ = ["templates", "TPL", "page", "back", "first_error", "TEMPLATES"]
