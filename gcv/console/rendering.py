"""The console's HTML: one Jinja2 environment (autoescaped, with Jinja2's ``i18n`` extension
speaking the request's language through ``gcv.console.i18n``) and the page context every
template gets (who is signed in, what they may do, the CSRF token)."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.templating import Jinja2Templates
from pydantic import ValidationError

from gcv.console import i18n, views
from gcv.console.context import Console
from gcv.console.security import Caller
from gcv.console.users import ROLE_OF_ACTION
from gcv.contract.status import FINAL, Status
from gcv.contract.names import field_label, names_in, value_with_unit
from gcv.contract.request_intent import LEAD
from gcv.evaluation.display import survival_text, ticks_text
from gcv.workflow.history import HistoryStep, duration_words, step_label
from gcv.workflow.states import NOTE_REQUIRED
from gcv.workflow.words import decision_words, offline, trace_text, usage_words

tr = i18n.tr


# the shared words of the lower layers (names, units, the review's words, a step's), each in the
# page's language: each takes the catalog's translator
def label_of(path: str, phase_ids: Any = None) -> str:
    return field_label(path, phase_ids, tr)


def with_unit(path: str, value: Any) -> str:
    return value_with_unit(path, value, tr)


def decided(decision: Any) -> str:
    return decision_words(decision, tr)


def usage(provider: str, model_calls: int, tokens: int) -> str:
    return usage_words(provider, model_calls, tokens, tr)


def step_words(h: HistoryStep) -> str:
    """A history row's label: the status's title, or the step's words."""
    return tr(Status(h.key).title) if h.kind == "status" and h.key in Status._value2member_map_ \
        else step_label(h.key, tr)


def since_words(h: HistoryStep) -> str:
    return "+" + duration_words(h.offset, tr)


def lasted_words(h: HistoryStep) -> str:
    return "—" if h.duration is None else duration_words(h.duration, tr)


def status_titles() -> dict[str, str]:
    """Each status's title in the page's language, for console.js to show the live stream's
    status (the API's title is English)."""
    return {st.value: tr(st.title) for st in Status}


def history_words() -> dict[str, Any]:
    """What console.js needs to word the live stream's history rows as the page words them
    (``step_label`` and ``duration_words``, the patterns in the page's language)."""
    return {"requirement": tr("requirement agent reads the request"),
            "requirement_n": tr("requirement agent reads the request (reading %(answer)s)"),
            "baseline": tr("run the baseline"), "candidate": tr("run candidate %(number)s"),
            "review": tr("review agent"), "review_n": tr("review agent judges round %(round)s"),
            "population": tr("bot population"), "population_n": tr("bot population (%(which)s)"),
            "units": {"s": tr("s"), "min": tr("min"), "h": tr("h"), "d": tr("d")}}


TEMPLATES = Path(__file__).with_name("templates")


def templates() -> Jinja2Templates:
    t = Jinja2Templates(directory=str(TEMPLATES))
    t.env.add_extension("jinja2.ext.i18n")
    # {% trans %} blocks read with their whitespace folded, as the catalog tool extracts them
    t.env.policies["ext.i18n.trimmed"] = True
    t.env.install_gettext_callables(i18n.gettext, i18n.ngettext, newstyle=True)  # type: ignore[attr-defined]
    t.env.globals.update(html_lang=i18n.html_lang, languages=i18n.choices, lang_cookie=i18n.LANG_COOKIE,
                         ago=i18n.ago, Status=Status, FINAL=FINAL, NOTE_REQUIRED=NOTE_REQUIRED, utc=views.utc,
                         status_view=views.status_view, field_label=label_of, value_with_unit=with_unit,
                         decision_words=decided, usage_words=usage, offline=offline, step_words=step_words,
                         since_words=since_words, lasted_words=lasted_words,
                         status_titles=status_titles, history_words=history_words, intent_lead=LEAD)
    # what a person reads (issue 31.2): the review's step as the agent's, ticks with their seconds
    t.env.filters["said"] = lambda line: trace_text(line, tr)
    t.env.filters["ticks"] = lambda ticks: ticks_text(ticks, tr)
    t.env.filters["named"] = lambda text: names_in(text, tr)
    t.env.filters["survival"] = lambda tel: survival_text(tel, tr)
    t.env.filters["pct"] = lambda v: "" if v is None else f"{v:+.1f}%"
    # a word of a vocabulary made elsewhere (a status title, a reason) in the page's language
    t.env.filters["tr"] = i18n.tr
    t.env.filters["number"] = i18n.number
    return t


TPL = templates()


def page(console: Console, request: Request, name: str, caller: Caller, **context: Any) -> HTMLResponse:
    user = caller.user
    may = {a: bool(user and user.may(a)) for a in ROLE_OF_ACTION}
    return localized(TPL.TemplateResponse(request, name, {"me": user, "may": may, "csrf": console.csrf_for(caller),
                                                          "users_mode": console.users is not None, **context}))


def localized(response: HTMLResponse) -> HTMLResponse:
    """A page says which language it is in, and that the language follows the request's
    ``Accept-Language`` and the language cookie (a cache keeps one copy per language)."""
    response.headers["content-language"] = i18n.html_lang()
    response.headers["vary"] = "Accept-Language, Cookie"
    return response


def back(path: str, **query: str) -> RedirectResponse:
    """Post/Redirect/Get: back to a page, with an error to show when there is one."""
    return RedirectResponse(path + (("?" + urlencode(query)) if query else ""), status_code=303)


def first_error(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "input"
    return f"{where}: {first['msg']}"


__all__ = ["templates", "TPL", "page", "localized", "back", "first_error", "TEMPLATES", "label_of", "with_unit",
           "step_words"]
