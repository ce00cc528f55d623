"""The console in a real headless Chromium (Debian's, driven by Playwright; nothing is downloaded).

A designer submits a Chinese request that needs clarification and answers it, an operator
authorizes it while a second operator page watches the rounds stream in, a reviewer opens
the review page, scrubs the fight viewer, accepts and promotes. Every page is screenshotted
and checked for real content and for console errors; the Chinese request is checked to be
drawn in real glyphs, not in boxes of a missing font.

Skipped when chromium or Playwright is missing, and failed instead under
GCV_REQUIRE_TOOLCHAINS=1 (as CI runs it).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import httpx

import pytest
from PIL import Image

from tests.console.conftest import TOKENS, free_port
from tests.console.test_restart import Served, wait_status

REQUEST_ZH = "把子弹速度降低20%"
ANSWER_ZH = "第二阶段"

pytestmark = [pytest.mark.slow, pytest.mark.toolchain]


def _missing(reason: str) -> None:
    if os.environ.get("GCV_REQUIRE_TOOLCHAINS") == "1":
        pytest.fail(f"required toolchain missing: {reason}")
    pytest.skip(reason)


def _chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    _missing("chromium is not installed (apt-get install -y chromium)")
    raise AssertionError  # unreachable


def _playwright():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright (Python) is not installed (pip install -e '.[dev]')")
    return sync_playwright


def assert_real_content(path: Path) -> None:
    """Not blank: many colours, and no single colour covering almost everything."""
    img = Image.open(path).convert("RGB")
    small = img.resize((img.width // 4 or 1, img.height // 4 or 1))
    colours = small.getcolors(maxcolors=1 << 20) or []
    assert len(colours) > 40, f"{path.name}: only {len(colours)} colours, looks blank"
    top = max(count for count, _ in colours)
    assert top < 0.97 * small.width * small.height, f"{path.name}: one colour covers the page"


GLYPHS = """(sel) => {
  const el = document.querySelector(sel);
  const style = getComputedStyle(el);
  const c = document.createElement("canvas");
  c.width = 120; c.height = 60;
  const ctx = c.getContext("2d");
  ctx.font = style.fontSize + " " + style.fontFamily;
  const draw = (ch) => { ctx.clearRect(0, 0, 120, 60); ctx.fillText(ch, 10, 44);
                         return Array.from(ctx.getImageData(0, 0, 120, 60).data).join(","); };
  const a = draw("\u5b50"), b = draw("\u5f39"), missing = draw("\\uffff");
  return {text: el.textContent, distinct: a !== b, notMissing: a !== missing && b !== missing,
          inked: a.split(",").some((v, i) => i % 4 === 3 && v !== "0")};
}"""

# Runs in every document before the page's own script (CDP: no CSP applies): reports each trace
# line the page's event stream adds, across reloads.
WATCH = """
document.addEventListener("DOMContentLoaded", () => {
  const trace = document.getElementById("trace");
  if (!trace) return;
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes)
      if (n.classList && n.classList.contains("new")) window.reportLine(n.textContent);
  }).observe(trace, {childList: true});
});
"""


def test_designer_operator_reviewer_in_chromium(tmp_path: Path, workspace: Path, users_file: Path) -> None:
    chromium = _chromium()
    sync_playwright = _playwright()
    shots = tmp_path / "shots"
    shots.mkdir()
    port = free_port()
    server = Served(workspace, port, "--users", str(users_file))
    url = server.url
    auth = {"authorization": f"Bearer {TOKENS['rita']}"}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, headless=True,
                                         args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
            errors: list[str] = []

            def person(name: str):
                context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
                page = context.new_page()
                page.on("console", lambda m: errors.append(f"{name}: {m.text}") if m.type == "error" else None)
                page.on("pageerror", lambda e: errors.append(f"{name}: {e}"))
                page.goto(f"{url}/workflows")
                assert page.url.startswith(f"{url}/login")
                page.fill("#token", TOKENS[name])
                page.click("button[type=submit]")
                page.wait_for_url(f"{url}/workflows")
                return context, page

            def shot(page, name: str) -> None:
                path = shots / f"{name}.png"
                page.screenshot(path=str(path), full_page=True)
                assert_real_content(path)
                assert not errors, errors

            # ---- the designer: a Chinese request that needs clarification, answered in place
            _, designer = person("dana")
            shot(designer, "workflows")
            designer.click("text=New change")
            designer.fill("#request", REQUEST_ZH)
            designer.click("button:has-text('Propose')")
            designer.wait_for_selector("#questions textarea")
            wf = designer.url.rsplit("/", 1)[1]
            assert "Needs clarification" in designer.inner_text("#status-badge")
            glyphs = designer.evaluate(GLYPHS, "blockquote.request")
            assert glyphs["text"] == REQUEST_ZH
            assert glyphs["distinct"] and glyphs["notMissing"] and glyphs["inked"], glyphs
            shot(designer, "clarification")
            designer.fill("#answer-1", ANSWER_ZH)
            designer.click("button:has-text('Answer and continue')")
            designer.wait_for_selector("#proposal .diff")
            assert designer.url.endswith(f"/workflows/{wf}")  # the same request continued
            assert "Awaiting authorization" in designer.inner_text("#status-badge")
            assert "bullet_speed" in designer.inner_text("#proposal") and "-20.0%" in designer.inner_text("#proposal")
            assert designer.query_selector("#authorize button#approve") is None  # not the designer's to do
            shot(designer, "proposal")

            # ---- operators: one watches, one authorizes; the rounds stream into the watching page
            _, watcher = person("omar")
            streamed: list[str] = []
            watcher.expose_function("reportLine", lambda line: streamed.append(line))
            watcher.add_init_script(WATCH)
            watcher.goto(f"{url}/workflows/{wf}")
            watcher.wait_for_timeout(500)  # the event stream is connected
            _, operator = person("omar")
            operator.goto(f"{url}/workflows/{wf}")
            assert "1 baseline run + up to 3 candidate runs" in operator.inner_text("#authorize")
            shot(operator, "authorize")
            operator.click("#approve")
            # the passing repair moves what the request did not name: the designer picks a trade-off (issue 26)
            wait_status(url, wf, {"awaiting_choice"}, timeout=120, headers=auth)
            for _ in range(10):  # the page may be reloading itself on the new status: go once it settled
                try:
                    designer.goto(f"{url}/workflows/{wf}")
                    break
                except Exception:  # noqa: BLE001 - playwright's net::ERR_ABORTED while the page navigates
                    designer.wait_for_timeout(300)
            designer.wait_for_selector("#tradeoffs #option-1")
            assert "predicted" in designer.inner_text("#option-1") and "every check passes" in designer.inner_text("#option-1")
            shot(designer, "tradeoffs")
            # the designer asked for 20% slower: they keep it (a smaller change of a stated number
            # would not read as what was asked, and the second reading sends it back)
            keep = next(n for n in range(1, 6) if designer.query_selector(f"#option-{n}") is not None
                        and "keep the requested change" in designer.inner_text(f"#option-{n}"))
            designer.click(f"#choose-{keep}")
            wait_status(url, wf, {"evidence_ready"}, timeout=120, headers=auth)
            # the watching page reloads itself when the final status arrives (wait for that, not for the
            # link: a report written at an earlier stop already shows it while the stream is behind)
            watcher.wait_for_selector("#status-badge:has-text('Evidence ready for review')", timeout=30_000)
            watcher.wait_for_selector("a:has-text('Review the evidence')", timeout=30_000)
            # round 1 arrived while the loop ran (the page's stream added it; the last line may come in the
            # same message as the final status, whose reload can beat the observer's report)
            assert any(line.startswith("[round 1]") for line in streamed), streamed
            assert "Evidence ready for review" in watcher.inner_text("#status-badge")
            # the review's step is worded as the agent's, not a person's acceptance (issue 31.2)
            assert watcher.inner_text("#trace").strip().endswith("| review passed (agent)")
            assert "offline rules, no tokens" in watcher.inner_text("#live")
            assert not [line for line in streamed if line.endswith("| accept")], streamed  # the stream words it too
            shot(watcher, "progress")

            # ---- the reviewer: the review page, the fight viewer, the decision
            _, reviewer = person("rita")
            reviewer.goto(f"{url}/workflows/{wf}/review")
            for _ in range(120):  # the loop's end is recorded before its evidence is written
                if reviewer.get_attribute("#evidence", "data-current") == "1":
                    break
                assert reviewer.query_selector("#stale") is not None  # and meanwhile the page says so
                reviewer.wait_for_timeout(250)
                reviewer.reload()
            assert reviewer.get_attribute("#evidence", "data-current") == "1"
            assert "gcv verify: OK" in reviewer.inner_text("#verify-result")
            assert "not requested" in reviewer.inner_text("#change") or "requested" in reviewer.inner_text("#change")
            img = "#frame-candidate"
            reviewer.wait_for_selector(".viewer[data-ready='1']", timeout=60_000)  # the runs' positions are in

            def frame_at(tick: int) -> bytes:
                reviewer.fill("#v-tick-n", str(tick))
                reviewer.press("#v-tick-n", "Enter")
                reviewer.wait_for_function("([sel, t]) => document.querySelector(sel).dataset.tick === String(t)",
                                           arg=[img, tick], timeout=30_000)
                return reviewer.locator(img).screenshot()

            a, b = frame_at(300), frame_at(900)
            assert a != b  # scrubbing shows another moment of the fight
            assert "15.00 s" == reviewer.inner_text("#v-time")
            hits = reviewer.query_selector_all("button.hit")
            assert hits, "the runs have hits to jump to"
            hit_tick = hits[0].get_attribute("data-tick")
            hits[0].click()
            reviewer.wait_for_function("t => document.getElementById('v-tick').value === t", arg=hit_tick)
            reviewer.click("#v-fwd")
            assert reviewer.input_value("#v-tick-n") == str(int(hit_tick) + 1)
            reviewer.click("#v-play")
            reviewer.wait_for_function("t => parseInt(document.getElementById('v-tick').value) > t",
                                       arg=int(hit_tick) + 1, timeout=30_000)
            reviewer.click("#v-play")  # pause
            reviewer.wait_for_function("() => { const i = document.querySelector('#fair img'); "
                                       "return i.complete && i.naturalWidth > 0; }", timeout=60_000)
            reviewer.wait_for_timeout(300)
            shot(reviewer, "review")
            reviewer.check("#decide input[value=accept]")  # nothing is chosen for the reviewer (issue 31.1)
            reviewer.check("#promote")
            reviewer.fill("#note", "reads well; ship it")
            reviewer.click("button:has-text('Record the decision')")
            reviewer.wait_for_selector("text=promoted to baseline")
            assert "Accepted" in reviewer.inner_text("#status-badge")
            shot(reviewer, "decided")
            reviewer.click("text=Baselines")
            assert "v2" in reviewer.inner_text("table.list") and wf in reviewer.inner_text("table.list")
            shot(reviewer, "baselines")
            reviewer.click("header >> text=Batches")
            shot(reviewer, "batches")
            browser.close()
        assert httpx.get(f"{url}/api/workflows/{wf}", headers=auth, timeout=10).json()["human_decision"]["actor"] == "rita"
    finally:
        server.kill()
