"""The console's languages: gettext message catalogs read with Babel, the locale of each
request, and the words a page reads in it (issue 32.3).

* **Catalogs.** ``gcv/console/locale/<locale>/LC_MESSAGES/messages.po``, committed as text
  (the template, ``messages.pot``, is written by ``python -m gcv.console.catalogs --write``).
  A catalog is compiled once per process, in memory: Babel reads the ``.po`` and writes the
  ``.mo`` into a buffer that ``babel.support.Translations`` reads; no ``.mo`` file exists.
  English is the messages themselves (the msgids), so a missing translation reads English.
* **The locale of a request** (:func:`choose`): the user's own choice (the ``gcv_lang``
  cookie the console's Language form sets), else the browser's ``Accept-Language``
  negotiated by Babel against the catalogs there are, else English. :class:`LocaleMiddleware`
  chooses it before any route runs and holds it in a context variable for the request, so
  a route's helpers (``gcv.console.views``) and the templates (Jinja2's ``i18n`` extension,
  whose ``gettext`` is :func:`gettext` here) read the same one.
* **Machine output stays English**: the JSON API never calls these functions on what it
  returns (the live stream's titles are replaced in the page by its own translated ones).
"""

from __future__ import annotations

import datetime as dt
import gettext as gettext_module
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from io import BytesIO
from pathlib import Path
from typing import Any

from babel.core import Locale, UnknownLocaleError, get_global, negotiate_locale
from babel.dates import format_timedelta
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal
from babel.support import Translations
from starlette.requests import Request

LOCALE_DIR = Path(__file__).with_name("locale")
DOMAIN = "messages"
DEFAULT_LOCALE = "en"  # the msgids' own language
LANG_COOKIE = "gcv_lang"  # the user's choice (the Language form in the page header)
LANG_COOKIE_SECONDS = 365 * 86_400
MAX_ACCEPT_LANGUAGE = 40  # entries of the header read; a longer one is cut, never an error

_LOCALE: ContextVar[str] = ContextVar("gcv_console_locale", default=DEFAULT_LOCALE)


class CatalogError(ValueError):
    """A committed catalog cannot be used (the message names the file and the entry)."""


def catalog_path(locale: str) -> Path:
    return LOCALE_DIR / locale / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def catalog_locales() -> tuple[str, ...]:
    """The locales with a committed catalog (``zh_Hans``), sorted."""
    if not LOCALE_DIR.is_dir():
        return ()
    return tuple(sorted(p.name for p in LOCALE_DIR.iterdir() if catalog_path(p.name).is_file()))


def locales() -> tuple[str, ...]:
    """Every locale the console speaks: English first, then each catalog's."""
    return (DEFAULT_LOCALE, *[c for c in catalog_locales() if c != DEFAULT_LOCALE])


@cache
def translations(locale: str) -> gettext_module.NullTranslations:
    """The compiled catalog of ``locale`` (cached per process); English is the msgids."""
    if locale == DEFAULT_LOCALE:
        return gettext_module.NullTranslations()
    if locale not in catalog_locales():
        raise CatalogError(f"no catalog for the locale {locale!r}; there are: {', '.join(locales())}")
    path = catalog_path(locale)
    with path.open("rb") as f:
        catalog = read_po(f, locale=locale, domain=DOMAIN)
    fuzzy = [m.id for m in catalog if m.id and m.fuzzy]
    if fuzzy:  # a guess of msgmerge is not a translation: write it or leave it empty
        raise CatalogError(f"{path}: fuzzy entry {fuzzy[0]!r}; review it and drop the fuzzy flag")
    buffer = BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    buffer.seek(0)
    return Translations(buffer, domain=DOMAIN)


# ---------------------------------------------------------------------- the request's locale
def current() -> str:
    """The locale of the request being answered (English outside of one)."""
    return _LOCALE.get()


@contextmanager
def using(locale: str) -> Iterator[str]:
    """Speak ``locale`` inside the block (a request; a test)."""
    token = _LOCALE.set(locale if locale in locales() else DEFAULT_LOCALE)
    try:
        yield _LOCALE.get()
    finally:
        _LOCALE.reset(token)


def preferred(header: str | None) -> list[str]:
    """The language tags of an ``Accept-Language`` header, most wanted first (``q`` weights;
    equal weights keep their order; ``q=0`` and ``*`` are left out)."""
    if not header:
        return []
    tags: list[tuple[float, int, str]] = []
    for i, part in enumerate(header.split(",")[:MAX_ACCEPT_LANGUAGE]):
        tag, _, params = part.strip().partition(";")
        tag = tag.strip()
        q = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if tag and tag != "*" and q > 0:
            tags.append((-q, i, tag))
    return [tag for _, _, tag in sorted(tags)]


def _with_script(tag: str) -> list[str]:
    """``zh-CN`` -> ``zh_Hans``, ``zh`` -> ``zh_Hans`` (CLDR's likely script), ``zh-TW`` ->
    ``zh_Hant``, ``en-US`` -> ``en``: the forms a catalog's locale is named in."""
    try:
        loc = Locale.parse(tag.replace("-", "_"))
    except (ValueError, TypeError, UnknownLocaleError):
        return []
    script = loc.script
    if script is None:
        likely = get_global("likely_subtags")
        full = likely.get(f"{loc.language}_{loc.territory}" if loc.territory else loc.language) \
            or likely.get(loc.language)
        if full:
            script = Locale.parse(full).script
    return ([f"{loc.language}_{script}"] if script else []) + [loc.language]


def negotiate(header: str | None) -> str | None:
    """The catalog the browser's ``Accept-Language`` asks for most, by Babel's negotiation, or
    ``None`` when it names none the console has."""
    wanted = [form for tag in preferred(header) for form in _with_script(tag)]
    found = negotiate_locale(wanted, list(locales()), sep="_")
    return next((loc for loc in locales() if found is not None and loc.lower() == found.lower()), None)


def choose(chosen: str | None, accept_language: str | None) -> str:
    """The user's choice (when it is a locale the console has), else the browser's, else English."""
    if chosen in locales():
        assert chosen is not None
        return chosen
    return negotiate(accept_language) or DEFAULT_LOCALE


def request_locale(request: Request) -> str:
    """The locale :class:`LocaleMiddleware` chose for ``request`` (chosen again when it did not
    run, as for the server's last-resort error page)."""
    known = request.scope.get("state", {}).get("gcv_locale")
    if isinstance(known, str):
        return known
    return choose(request.cookies.get(LANG_COOKIE), request.headers.get("accept-language"))


class LocaleMiddleware:
    """Pure ASGI: choose the request's locale from its headers, then answer it in that locale."""

    def __init__(self, app: Callable[..., Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Callable[..., Awaitable[Any]],
                       send: Callable[..., Awaitable[None]]) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        locale = request_locale(Request(scope))
        scope.setdefault("state", {})["gcv_locale"] = locale
        with using(locale):
            await self.app(scope, receive, send)


# ---------------------------------------------------------------------- words
def gettext(message: str) -> str:
    """``message`` (a msgid) in the request's language."""
    return translations(current()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return translations(current()).ngettext(singular, plural, n)


_ = gettext


def N_(message: str) -> str:
    """Marks ``message`` for the catalog where it is defined; it is translated where it is shown."""
    return message


def tr(message: Any) -> str:
    """A vocabulary word made elsewhere (a status title, a field's name) in the request's
    language, when the catalog has it (the catalog tool adds the vocabularies); else as it is.
    Plain text: the page escapes it like any other value."""
    text = "" if message is None else str(message)
    return gettext(text) if text else text


def html_lang(locale: str | None = None) -> str:
    """The BCP 47 tag of ``<html lang>``: ``zh-Hans``, ``en``."""
    return (locale or current()).replace("_", "-")


def language_name(locale: str) -> str:
    """A locale named in its own language (``中文 (简体)``, ``English``), as a picker shows it."""
    return Locale.parse(locale).get_display_name(locale) or locale


def choices() -> list[tuple[str, str]]:
    """The Language form's options: the browser's choice, then each locale in its own name."""
    return [("", gettext("auto")), *[(loc, language_name(loc)) for loc in locales()]]


def ago(ts: float | None, now: float) -> str:
    """How long ago, in the words a person reads: in English "just now", "5 min ago", "3 h ago",
    "2 days ago"; in another language Babel's CLDR words ("5分钟前"); beyond 60 days, the date."""
    if ts is None:
        return "-"
    gone = max(0.0, now - ts)
    if gone < 45:
        return gettext("just now")
    days = max(1, round(gone / 86_400))
    if gone >= 86_400 - 1800 and days >= 60:
        return time.strftime("%Y-%m-%d", time.gmtime(ts))
    locale = current()
    if locale != DEFAULT_LOCALE:
        return format_timedelta(dt.timedelta(seconds=-gone), add_direction=True, format="long", locale=locale)
    if gone < 3600 - 30:
        return f"{max(1, round(gone / 60))} min ago"
    if gone < 86_400 - 1800:
        return f"{round(gone / 3600)} h ago"
    return f"{days} day{'s' if days != 1 else ''} ago"


def number(value: Any) -> str:
    """A count or a figure with the locale's grouping (``1,234,567``)."""
    return format_decimal(value, locale=current())


__all__ = ["LOCALE_DIR", "DOMAIN", "DEFAULT_LOCALE", "LANG_COOKIE", "LANG_COOKIE_SECONDS", "CatalogError",
           "catalog_path", "catalog_locales", "locales", "translations", "current", "using", "preferred",
           "negotiate", "choose", "request_locale", "LocaleMiddleware", "gettext", "ngettext", "_", "N_", "tr",
           "html_lang", "language_name", "choices", "ago", "number"]
