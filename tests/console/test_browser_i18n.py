"""The console in Chinese in a real headless Chromium (Debian's, driven by Playwright; nothing is
downloaded), issue 32.3: a browser whose language is zh-CN gets the pages in Chinese. A designer
writes a Chinese request on the new-change page, authorizes it, watches the live progress (the
words console.js writes come from the page) and reads the workflows list: no English word of the
catalog is left on the list, the workflow page or the new-change page (code, paths, ids and a
person's text aside), the Chinese is drawn in real glyphs (the CJK font check of
test_browser.py), and the user's language setting then beats the browser's.

Skipped when chromium or Playwright is missing, and failed instead under GCV_REQUIRE_TOOLCHAINS=1.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.console.test_browser import GLYPHS, _chromium, _playwright, assert_real_content
from tests.console.test_i18n import leftover_english, workspace_data

pytestmark = [pytest.mark.slow, pytest.mark.toolchain]

REQUEST_ZH = "把第三阶段的子弹变得更密"

# what a person reads on the page as the browser shows it (script-made text included), less
# what the console does not word: code, paths and ids (code, pre, .mono), a person's text
# (dir=auto), the loop's recorded lines and other-language diagnostics (translate=no)
SHOWN = """() => {
  const skip = (el) => el.closest("code, pre, script, style, textarea, .mono, [dir=auto], [translate=no]");
  const out = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const el = n.parentElement;
    if (!el || skip(el) || !el.getClientRects().length && el.tagName !== "OPTION") continue;
    out.push(n.textContent);
  }
  document.querySelectorAll("[title], [placeholder], [aria-label], [alt]").forEach((el) => {
    if (skip(el)) return;
    ["title", "placeholder", "aria-label", "alt"].forEach((a) => {
      const v = el.getAttribute(a);
      if (v && !v.startsWith("$.")) out.push(v);
    });
  });
  return out.join(" ").split(/\\s+/).join(" ");
}"""


def test_the_console_in_chinese_in_chromium(tmp_path: Path, workspace: Path, live_local) -> None:
    chromium = _chromium()
    sync_playwright = _playwright()
    url = live_local.url
    shots = tmp_path / "shots"
    shots.mkdir()
    errors: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True,
                                     args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")
            page = context.new_page()
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{url}/workflows")
            assert page.get_attribute("html", "lang") == "zh-Hans"
            page.fill("#name", "李雷")
            page.click("button[type=submit]")
            page.wait_for_url(f"{url}/workflows")
            data = workspace_data(workspace)

            def no_english(name: str) -> None:
                assert page.get_attribute("html", "lang") == "zh-Hans", name
                left = leftover_english(page.evaluate(SHOWN), data)
                shown = page.evaluate(SHOWN)
                assert left == [], f"{name}: English left on the Chinese page: {left} in {shown}"
                path = shots / f"{name}.png"
                page.screenshot(path=str(path), full_page=True)
                assert_real_content(path)
                assert not errors, errors

            # ---- the new-change page, then a Chinese request through it
            page.click("text=新改动")
            page.wait_for_url(f"{url}/new")
            no_english("new")
            page.fill("#request", REQUEST_ZH)
            page.click("button:has-text('提交提案')")
            page.wait_for_url(f"{url}/workflows/wf-*")
            wf = page.url.rsplit("/", 1)[1]
            assert page.inner_text("#status-badge") == "等待授权"
            no_english("workflow-awaiting")
            # ---- authorized here: the live stream's words are the page's (console.js)
            page.click("#approve")
            page.wait_for_url(f"{url}/workflows/{wf}")
            ended = ("evidence_ready", "awaiting_choice", "budget_exhausted", "blocked", "failed")
            page.wait_for_function("(ended) => ended.includes(document.querySelector('#live').dataset.status)",
                                   arg=list(ended), timeout=120_000)
            page.wait_for_load_state("load")
            badge = page.inner_text("#status-badge")
            assert badge in ("证据已就绪，待审核", "等待设计师选择", "预算已用尽"), badge
            assert page.inner_text("#history tbody tr:first-child td:first-child").startswith("已提案")
            assert "运行基线" in page.inner_text("#history")
            no_english("workflow-ended")
            glyphs = page.evaluate(GLYPHS, "blockquote.request")
            assert glyphs["text"] == REQUEST_ZH
            assert glyphs["distinct"] and glyphs["notMissing"] and glyphs["inked"], glyphs
            # ---- the list, its heading drawn in real CJK glyphs too
            page.goto(f"{url}/workflows")
            no_english("workflows")
            assert page.inner_text("h1").startswith("工作流")
            glyphs = page.evaluate(GLYPHS, "h1")
            assert glyphs["distinct"] and glyphs["notMissing"] and glyphs["inked"], glyphs
            # ---- the user's setting beats the browser's language, and stays
            page.click("#language button[value=en]")
            page.wait_for_url(f"{url}/workflows")
            assert page.get_attribute("html", "lang") == "en" and page.inner_text("h1").startswith("Workflows")
            page.goto(f"{url}/workflows/{wf}")
            assert page.get_attribute("html", "lang") == "en" and "Progress" in page.inner_text("#live h2")
            page.click("#language button[value='']")
            page.wait_for_url(f"{url}/workflows/{wf}")
            assert page.get_attribute("html", "lang") == "zh-Hans" and page.inner_text("#live h2") == "进度"
            assert not errors, errors
        finally:
            browser.close()
