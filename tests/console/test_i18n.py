"""The console in Chinese through its message catalogs (issue 32.3): every message translated,
the catalogs as the code makes them, the locale chosen by the user's setting, then the browser's
Accept-Language, then English, and no English left on the Chinese pages."""

from __future__ import annotations

import re
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from gcv.console import catalogs, i18n
from gcv.service import batches
from gcv.store.catalog import Workspace
from gcv.workflow.baselines import active_baseline
from tests.console.conftest import BASE, REQUEST, csrf_of

ZH = "zh_Hans"
PLACEHOLDER = re.compile(r"%\((\w+)\)s|\{(\w+)\}")
TAG = re.compile(r"</?([a-z]+)[^>]*>")


def _messages(locale: str):
    with i18n.catalog_path(locale).open("rb") as f:
        return [m for m in read_po(f, locale=locale) if m.id]


def _ids(message) -> list[str]:
    return list(message.id) if isinstance(message.id, tuple) else [message.id]


def _strings(message) -> list[str]:
    return list(message.string) if isinstance(message.string, tuple) else [message.string]


# ---------------------------------------------------------------------- the catalogs
def test_the_template_and_every_catalog_are_what_the_code_makes_of_them() -> None:
    """A message added to a template or a view (or a status added to the vocabulary) without
    ``make catalogs`` fails here."""
    assert catalogs.stale() == [], "run: python -m gcv.console.catalogs --write (make catalogs)"


def test_every_message_has_a_chinese_translation_and_no_guess() -> None:
    assert ZH in i18n.catalog_locales()
    messages = _messages(ZH)
    template = {m.id for m in read_po(catalogs.TEMPLATE.open("rb")) if m.id}
    assert {m.id for m in messages} == template
    untranslated = [m.id for m in messages if not all(s.strip() for s in _strings(m))]
    assert not untranslated, untranslated[:10]
    assert not [m.id for m in messages if m.fuzzy], "a fuzzy entry is a guess, not a translation"
    text = i18n.catalog_path(ZH).read_text(encoding="utf-8")
    assert "\n#~ " not in text and not text.startswith("#~"), "obsolete entries are dropped, not kept"
    # and the Chinese is Chinese: most translations hold CJK characters
    han = sum(1 for m in messages if re.search(r"[\u4e00-\u9fff]", _strings(m)[0]))
    assert han >= 0.9 * len(messages), f"only {han} of {len(messages)} translations have Chinese characters"


def test_placeholders_and_markup_are_the_same_in_each_message_and_its_translation() -> None:
    for m in _messages(ZH):
        wanted = {tuple(sorted(PLACEHOLDER.findall(i))) for i in _ids(m)}
        for s in _strings(m):
            assert tuple(sorted(PLACEHOLDER.findall(s))) in wanted, (m.id, s)
            assert sorted(TAG.findall(s)) == sorted(TAG.findall(_ids(m)[0])), (m.id, s)
            assert s.count("%%") == _ids(m)[0].count("%%"), (m.id, s)


def test_a_fuzzy_entry_is_refused_at_start_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    po = tmp_path / "xx" / "LC_MESSAGES" / "messages.po"
    po.parent.mkdir(parents=True)
    po.write_text('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=utf-8\\n"\n\n'
                  '#, fuzzy\nmsgid "Workflows"\nmsgstr "Flux"\n', encoding="utf-8")
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)
    i18n.catalog_locales.cache_clear()
    i18n.translations.cache_clear()
    try:
        with pytest.raises(i18n.CatalogError, match="fuzzy entry 'Workflows'"):
            i18n.translations("xx")
        with pytest.raises(i18n.CatalogError, match="no catalog for the locale 'yy'"):
            i18n.translations("yy")
    finally:
        monkeypatch.undo()
        i18n.catalog_locales.cache_clear()
        i18n.translations.cache_clear()


def test_a_catalog_is_compiled_in_memory_once_and_no_mo_file_exists() -> None:
    assert i18n.translations(ZH) is i18n.translations(ZH)
    assert not list(i18n.LOCALE_DIR.rglob("*.mo"))
    with i18n.using(ZH):
        assert i18n.gettext("Workflows") == "工作流"
        assert i18n.ngettext("1 baseline run + up to %(count)s candidate run",
                             "1 baseline run + up to %(count)s candidate runs", 3) % {"count": 3} \
            == "1 次基线运行 + 最多 3 次候选运行"
        assert i18n.tr("not a message") == "not a message"  # a word the catalog lacks stays as it is
    assert i18n.gettext("Workflows") == "Workflows"  # outside a request: English


# ---------------------------------------------------------------------- the locale of a request
@pytest.mark.parametrize("header, locale", [
    ("zh-CN,zh;q=0.9,en;q=0.8", ZH), ("zh", ZH), ("zh-Hans-CN", ZH), ("zh-SG", ZH), ("ZH-cn", ZH),
    ("en-US,en;q=0.9", "en"), ("fr-FR, zh-CN;q=0.5", ZH), ("en;q=0.5, zh-CN;q=0.9", ZH),
    ("zh-TW", None), ("zh-Hant-HK", None), ("fr", None), ("", None), (None, None), ("*", None),
    ("zh-CN;q=0", None), ("x-klingon, ;;, zh;q=abc", None),
])
def test_the_browsers_language_is_negotiated_against_the_catalogs(header: str | None, locale: str | None) -> None:
    assert i18n.negotiate(header) == locale


def test_the_users_choice_comes_first_then_the_browsers_then_english() -> None:
    assert i18n.choose("en", "zh-CN") == "en"
    assert i18n.choose(ZH, "en-US") == ZH
    assert i18n.choose("", "zh-CN") == ZH
    assert i18n.choose("klingon", "zh-CN") == ZH  # a choice the console does not have is no choice
    assert i18n.choose(None, "fr") == "en"
    assert i18n.preferred("a;q=0.2, b, c;q=0.7, d") == ["b", "d", "c", "a"]


def test_relative_times_are_babels_in_chinese_and_the_consoles_own_in_english() -> None:
    now = 1_800_000_000.0
    assert [i18n.ago(now - s, now) for s in (10, 300, 3 * 3600, 2 * 86_400)] == \
        ["just now", "5 min ago", "3 h ago", "2 days ago"]
    with i18n.using(ZH):
        assert [i18n.ago(now - s, now) for s in (10, 300, 3 * 3600, 2 * 86_400)] == \
            ["刚刚", "5分钟前", "3小时前", "2天前"]
        assert i18n.ago(now - 90 * 86_400, now) == time.strftime("%Y-%m-%d", time.gmtime(now - 90 * 86_400))
        assert i18n.number(1234567) == "1,234,567"


# ---------------------------------------------------------------------- pages
class Visible(HTMLParser):
    """The text a person reads on a page, and the attributes read aloud or shown on hover, without
    what is recorded or typed rather than worded by the console: code, paths, ids (``code``,
    ``pre``, ``.mono``), a person's text (``dir="auto"``), the loop's own lines
    (``translate="no"``), the form's typed values and the words block of console.js."""

    SKIP_TAGS = {"code", "pre", "script", "style", "textarea"}
    VOID = {"br", "img", "input", "meta", "link", "hr", "source", "wbr", "col", "area", "base"}
    ATTRS = ("title", "placeholder", "aria-label", "alt")

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[bool] = []
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        skip = (bool(self.stack and self.stack[-1]) or tag in self.SKIP_TAGS or a.get("translate") == "no"
                or a.get("dir") == "auto" or "mono" in (a.get("class") or "").split())
        if not skip:
            # (a field's title is its contract path: a machine name, shown for tools)
            self.parts.extend(str(a[k]) for k in self.ATTRS if a.get(k) and not str(a[k]).startswith("$."))
        if tag not in self.VOID:
            self.stack.append(skip)

    def handle_endtag(self, tag: str) -> None:
        if tag not in self.VOID and self.stack:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        if not (self.stack and self.stack[-1]):
            self.parts.append(data)


def visible_text(html: str) -> str:
    parser = Visible()
    parser.feed(html)
    return " ".join(" ".join(parser.parts).split())


def english_fragments() -> list[str]:
    """The English of the catalog as it would show on a page: each message's words between its
    placeholders and tags, where they hold a word of three letters or more and the Chinese differs."""
    out: set[str] = set()
    for m in _messages(ZH):
        if _strings(m)[0] == _ids(m)[0]:
            continue  # the same in both (FPS)
        for text in _ids(m):
            text = re.sub(r"<code>.*?</code>", " ", text.replace("%%", "%"))  # commands and paths stay
            for piece in re.split(r"%\(\w+\)s|\{\w+\}|<[^>]+>|&\w+;", text):
                piece = " ".join(piece.split()).strip(" .,:;·()[]+-")
                if re.search(r"[A-Za-z]{3,}", piece):
                    out.add(piece)
    return sorted(out, key=len, reverse=True)


def leftover_english(text: str, data: tuple[str, ...] = ()) -> list[str]:
    """The catalog's English fragments found in ``text`` (whole words, case as written); ``data``:
    strings of the workspace shown as they are (phase titles, engine names) taken out first."""
    for d in data:
        text = text.replace(d, " ")
    found = []
    for piece in english_fragments():
        if re.search(r"(?<![A-Za-z0-9_])" + re.escape(piece) + r"(?![A-Za-z0-9_])", text):
            found.append(piece)
            text = text.replace(piece, " ")
    return found


def workspace_data(workspace: Path) -> tuple[str, ...]:
    """What the workspace and the installation name (shown as written, in any language): the
    fight's phase titles, the baseline's source, the committed batch specs' titles."""
    config, source = active_baseline(Workspace(workspace), 0.0)
    specs = [sp.title for sp in batches.committed_specs() if sp.title]
    return (*[p.title for p in config.phases], str(source), *specs)


def _zh(client) -> None:
    client.headers["accept-language"] = "zh-CN,zh;q=0.9,en;q=0.5"


def test_accept_language_zh_gives_chinese_pages_and_en_english(local_browser, workspace: Path) -> None:
    local_browser.headers["accept-language"] = "en-US,en;q=0.9"
    en = local_browser.get("/workflows")
    assert en.status_code == 200 and '<html lang="en">' in en.text and ">Workflows<" in en.text
    assert en.headers["content-language"] == "en" and "Accept-Language" in en.headers["vary"]
    assert {"Workflows", "any status", "no workflows"} <= set(leftover_english(visible_text(en.text)))  # the scan sees English
    _zh(local_browser)
    zh = local_browser.get("/workflows")
    assert zh.status_code == 200 and '<html lang="zh-Hans">' in zh.text and zh.headers["content-language"] == "zh-Hans"
    assert ">工作流<" in zh.text and "新改动" in zh.text and "任意状态" in zh.text
    assert "本工作区共 0 个" in zh.text and "没有工作流" in zh.text
    assert leftover_english(visible_text(zh.text)) == []


def test_the_users_setting_beats_the_browsers_language(local_browser) -> None:
    _zh(local_browser)
    form = {"csrf": local_browser.csrf, "next": "/baselines?x=1"}
    r = local_browser.post("/language", data={**form, "lang": "en"})
    assert r.status_code == 303 and r.headers["location"] == "/baselines?x=1"
    assert "gcv_lang=en" in r.headers["set-cookie"] and "HttpOnly" in r.headers["set-cookie"]
    page = local_browser.get("/baselines")
    assert '<html lang="en">' in page.text and ">Baselines<" in page.text
    assert 'value="en" lang="en" aria-pressed="true"' in page.text
    local_browser.headers["accept-language"] = "en-US"
    local_browser.post("/language", data={**form, "lang": ZH})
    assert '<html lang="zh-Hans">' in local_browser.get("/workflows").text
    # "auto": the cookie is gone and the browser's language counts again
    r = local_browser.post("/language", data={**form, "lang": ""})
    assert 'gcv_lang=""' in r.headers["set-cookie"] or "Max-Age=0" in r.headers["set-cookie"]
    local_browser.cookies.delete("gcv_lang")
    assert '<html lang="en">' in local_browser.get("/workflows").text


def test_a_language_the_console_lacks_is_refused_with_the_allowed_ones(local_browser) -> None:
    r = local_browser.post("/language", data={"csrf": local_browser.csrf, "lang": "klingon", "next": "/new"})
    assert r.status_code == 303 and "set-cookie" not in r.headers
    page = local_browser.get(r.headers["location"]).text
    assert "lang: klingon is not a language of this console; allowed: en, zh_Hans" in page


def test_the_language_form_needs_the_csrf_token(local_browser) -> None:
    r = local_browser.post("/language", data={"csrf": "0" * 64, "lang": ZH, "next": "/workflows"})
    assert r.status_code == 403 and "set-cookie" not in r.headers


def test_a_workflows_pages_in_chinese_leave_no_english_ui_word(local_browser, workspace: Path) -> None:
    """The workflow page (awaiting authorization: its proposal, the authorize form, the progress
    and history), the new-change page, the list, baselines, batches and sign-in, all in Chinese."""
    _zh(local_browser)
    r = local_browser.post("/new", data={"csrf": local_browser.csrf, "request": REQUEST, "engine": "python-sim",
                                         "provider": "offline"})
    assert r.status_code == 303, r.text
    wf = r.headers["location"]
    data = workspace_data(workspace)
    for path in ("/workflows", wf, "/new", "/baselines", "/batches", "/workflows?needs=me", "/workflows?q=nothing",
                 "/compare"):
        html = local_browser.get(path).text
        assert '<html lang="zh-Hans">' in html, path
        assert leftover_english(visible_text(html), data) == [], path
    page = local_browser.get(wf).text
    assert "等待授权" in page and "以 ana 的身份批准" in page and "第3阶段 · 每波子弹数" in page
    assert "需求智能体阅读请求" in page and "候选运行次数" in page and "请求要求的内容" in page  # the intent
    signin = local_browser.get("/login").text
    assert "登录" in signin and leftover_english(visible_text(signin)) == []


def test_the_english_pages_are_unchanged_words(local_browser) -> None:
    """The default (no header, no cookie) is English, word for word the msgids."""
    page = local_browser.get("/new").text
    assert '<html lang="en">' in page and "What a change can touch" in page and "Phase 2 · Turning spiral" in page
    assert "<td>bullets per wave</td>" in page and "0.5 units/s to 12 units/s" in page
    assert "lower only (down to 1); the hard limit is 350" in page and "Propose" in page


def test_the_json_api_stays_english_and_machine(local_browser) -> None:
    _zh(local_browser)
    r = local_browser.post("/new", data={"csrf": local_browser.csrf, "request": REQUEST, "engine": "python-sim",
                                         "provider": "offline"})
    wf = r.headers["location"].rsplit("/", 1)[1]
    api = local_browser.get(f"/api/workflows/{wf}", headers={"accept": "application/json"})
    assert api.status_code == 200
    body = api.text
    assert "Awaiting authorization" in body or "awaiting_authorization" in body
    assert not re.search(r"[\u4e00-\u9fff]", body), "the API answered in Chinese"
    missing = local_browser.get("/api/workflows/wf-nope", headers={"accept": "application/json"})
    assert missing.status_code == 404 and not re.search(r"[\u4e00-\u9fff]", missing.text)


def test_an_error_page_is_in_the_requests_language(local_browser) -> None:
    _zh(local_browser)
    page = local_browser.get("/workflows/wf-nope/nowhere")
    assert page.status_code == 404 and '<html lang="zh-Hans">' in page.text and "返回工作流列表" in page.text


def test_the_sign_in_page_follows_the_browser(local_app) -> None:
    from starlette.testclient import TestClient

    with TestClient(local_app, base_url=BASE, headers={"accept-language": "zh-CN"}) as client:
        page = client.get("/login").text
    assert '<html lang="zh-Hans">' in page and "你的名字" in page
    assert csrf_of(page) == ""
