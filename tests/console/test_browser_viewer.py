"""The fight viewer, the trace history and the New change page in a real headless Chromium
(Debian's, driven by Playwright), issue 31 items 6, 7 and 8.

* The viewer plays in the browser from the positions JSON: the canvas changes over time, the
  speed control changes the playback rate (measured in ticks per second of the page's clock
  against the fight's 60 Hz), and a run with hits has its hit marks on the timeline and the red
  ring where the bullet touched the player.
* The workflow page and the evidence report show the same history: each step with its start
  (UTC), its time since the workflow was created and its duration.
* The New change page lists what a change can touch (each phase's pattern fields with human
  names, today's value and the allowed range; the targets, stricter only) beside a picture of
  the current fight, and shows the engine set-up to operators only.
* None of these pages scrolls sideways at 390 px.

Skipped when chromium or Playwright is missing, and failed instead under GCV_REQUIRE_TOOLCHAINS=1.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.console.conftest import TOKENS, USERS_TOML, free_port
from tests.console.test_browser import _chromium, _playwright
from tests.console.test_browser_trust import run_workflow
from tests.console.test_restart import Served

pytestmark = [pytest.mark.slow, pytest.mark.toolchain]

OVERFLOW = "() => document.documentElement.scrollWidth <= window.innerWidth"
# the rate the viewer plays at: ticks the page shows per second of its own clock, over `ms`
RATE = """async (ms) => {
  const root = document.querySelector('.viewer');
  const t0 = performance.now(), k0 = parseInt(root.dataset.tick, 10);
  await new Promise(r => setTimeout(r, ms));
  const t1 = performance.now(), k1 = parseInt(root.dataset.tick, 10);
  return (k1 - k0) / ((t1 - t0) / 1000);
}"""
PIXEL = """([sel, x, y]) => Array.from(document.querySelector(sel).getContext('2d').getImageData(x, y, 1, 1).data)"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    root = tmp_path_factory.mktemp("viewer_browser")
    workspace = root / "ws"
    users = root / "users.toml"
    users.write_text(USERS_TOML, encoding="utf-8")
    wf, _ = run_workflow(workspace)
    server = Served(workspace, free_port(), "--users", str(users))
    try:
        yield {"url": server.url, "wf": wf}
    finally:
        server.kill()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    chromium = _chromium()
    sync_playwright = _playwright()
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium, headless=True,
                               args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        try:
            yield b
        finally:
            b.close()


def _signed_in(browser, url: str, name: str, width: int = 1280):
    context = browser.new_context(viewport={"width": width, "height": 900}, locale="en-US")
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{url}/login")
    page.fill("#token", TOKENS[name])
    page.click("button[type=submit]")
    page.wait_for_url(f"{url}/workflows")
    page.errors = errors  # type: ignore[attr-defined]
    return page


def test_the_viewer_plays_from_json_at_the_chosen_speed_and_marks_the_hit(served: dict[str, str], browser) -> None:
    url, wf = served["url"], served["wf"]
    page = _signed_in(browser, url, "rita")
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(f"{url}/workflows/{wf}/review")
    page.wait_for_selector(".viewer[data-ready='1']", timeout=60_000)
    assert any(u.endswith("/positions/baseline.json") for u in requested)
    assert any(u.endswith("/positions/candidate.json") for u in requested)
    assert not any(u.endswith(".png") and "/frames/" in u for u in requested)  # no server-drawn frames
    canvas = "#frame-candidate"
    assert page.get_attribute(canvas, "data-tick") == "0"
    still = page.evaluate("(sel) => document.querySelector(sel).toDataURL()", canvas)

    # plays: the canvas changes as the clock runs, at the fight's real rate at 1x
    page.select_option("#v-speed", "1")
    page.click("#v-play")
    assert page.get_attribute(".viewer", "data-playing") == "1"
    at_1x = page.evaluate(RATE, 1500)
    moving = page.evaluate("(sel) => document.querySelector(sel).toDataURL()", canvas)
    assert moving != still, "the canvas did not change while playing"
    assert 60 * 0.75 <= at_1x <= 60 * 1.25, f"1x plays at {at_1x:.1f} ticks/s, not 60"
    # the speed control changes the rate (without stopping)
    page.select_option("#v-speed", "4")
    at_4x = page.evaluate(RATE, 1000)
    page.select_option("#v-speed", "0.25")
    at_quarter = page.evaluate(RATE, 2000)
    assert at_4x >= 3 * at_1x, (at_1x, at_4x)
    assert at_quarter <= 0.4 * at_1x and at_quarter > 0, (at_1x, at_quarter)
    page.click("#v-play")  # pause
    assert page.get_attribute(".viewer", "data-playing") == "0"
    paused = page.get_attribute(".viewer", "data-tick")
    page.wait_for_timeout(300)
    assert page.get_attribute(".viewer", "data-tick") == paused

    # the hit: a mark on the timeline per hit tick, and the red ring where the bullet touched
    data = page.evaluate("(u) => fetch(u).then(r => r.json())", f"/workflows/{wf}/positions/baseline.json")
    assert data["hits"], "the committed baseline's fight has hits"
    marks = page.query_selector_all(".marks .mark.side-baseline")
    assert [int(m.get_attribute("data-tick")) for m in marks] == data["hit_ticks"]
    assert all(m.is_visible() for m in marks)
    hit = data["hits"][0]
    page.click(f"button.hit[data-tick='{hit['tick']}']")
    page.wait_for_function("t => document.querySelector('#frame-baseline').dataset.tick === t", arg=str(hit["tick"]))
    ppu, hw, hh = data["draw"]["px_per_unit"], data["arena"]["half_width"], data["arena"]["half_height"]
    cx, cy = ((hit["x"][0] + hw) * ppu) >> 16, 30 + (((hh - hit["y"][0]) * ppu) >> 16)
    ring = page.evaluate(PIXEL, ["#frame-baseline", cx + 9, cy])
    assert ring[0] > 200 and ring[1] < 120 and ring[2] < 120, ring  # the hit ring's red (255, 70, 70)
    centre = page.evaluate(PIXEL, ["#frame-baseline", cx, cy])
    assert min(centre[:3]) > 200, centre  # the bullet that hit, white, where it touched
    # a tick before the hit, the bullet that will hit is drawn white among the phase colours
    page.fill("#v-tick-n", str(hit["tick"] - 1))
    page.press("#v-tick-n", "Enter")
    page.wait_for_function("t => document.querySelector('#frame-baseline').dataset.tick === t",
                           arg=str(hit["tick"] - 1))
    b, i = data["bullets"], hit["bullets"][0]
    bx = data["boss"]["x"] + b["vx"][i] * (hit["tick"] - 1 - b["spawn"][i])
    by = data["boss"]["y"] + b["vy"][i] * (hit["tick"] - 1 - b["spawn"][i])
    before = page.evaluate(PIXEL, ["#frame-baseline", ((bx + hw) * ppu) >> 16, 30 + (((hh - by) * ppu) >> 16)])
    assert min(before[:3]) > 200, before
    assert not page.errors, page.errors  # type: ignore[attr-defined]

    # at a phone's width: one side at a time with the toggle, nothing wider than the screen
    phone = _signed_in(browser, url, "rita", width=390)
    phone.goto(f"{url}/workflows/{wf}/review")
    phone.wait_for_selector(".viewer[data-ready='1']", timeout=60_000)
    assert phone.is_visible("#v-sides") and phone.is_visible("#frame-candidate")
    assert not phone.is_visible("#frame-baseline")
    phone.click("#v-sides button[data-side=baseline]")
    assert phone.is_visible("#frame-baseline") and not phone.is_visible("#frame-candidate")
    assert phone.evaluate(OVERFLOW), phone.evaluate("() => document.documentElement.scrollWidth")
    assert not phone.errors, phone.errors  # type: ignore[attr-defined]


# the step as shown (its first line), then the start, the time since created and the duration (their text:
# at a phone's width the console leaves the UTC start out of the layout)
HISTORY = """(sel) => Array.from(document.querySelectorAll(sel + ' tbody tr')).map(tr =>
  Array.from(tr.children).map((td, i) => i === 0 ? td.innerText.trim() : td.textContent.trim()))"""


def test_the_trace_is_a_history_with_durations_in_the_console_and_the_report(served: dict[str, str],
                                                                              browser) -> None:
    url, wf = served["url"], served["wf"]
    for width in (1280, 390):
        page = _signed_in(browser, url, "omar", width=width)
        page.goto(f"{url}/workflows/{wf}")
        rows = page.evaluate(HISTORY, "#history")
        assert len(rows) > 5, rows
        labels = [r[0].split("\n")[0] for r in rows]
        assert labels[0] == "Proposed" and any(label.startswith("run the baseline") for label in labels)
        assert "Awaiting authorization" in labels and labels[-1] == "Evidence ready for review"
        for label, start, since, duration in rows[:-1]:
            assert start.endswith("Z") and since.startswith("+") and since.endswith((" s", " min", " h")), since
            assert duration.endswith((" s", " min", " h")), (label, duration)
        assert rows[-1][3] == "—"
        assert page.evaluate(OVERFLOW), page.evaluate("() => document.documentElement.scrollWidth")
        # the duration is on the screen, not scrolled out of the table's box
        assert page.evaluate("""() => { const td = document.querySelector('#history tbody tr td.duration');
          const r = td.getBoundingClientRect(); return r.width > 0 && r.right <= window.innerWidth; }""")
        assert not page.errors, page.errors  # type: ignore[attr-defined]
        page.context.close()
        # the same rows in the evidence report, which is rendered from the bundle alone
        report = _signed_in(browser, url, "rita", width=width)
        report.goto(f"{url}/workflows/{wf}/report")
        in_report = report.evaluate(HISTORY, "table.history")
        assert [r[0].split("\n")[0] for r in in_report] == labels
        assert [r[1:] for r in in_report] == [r[1:] for r in rows]
        report.context.close()


def test_the_new_change_page_lists_what_can_change_and_hides_the_engine_from_a_designer(
        served: dict[str, str], browser, tmp_path: Path) -> None:
    url = served["url"]
    for width in (1280, 390):
        designer = _signed_in(browser, url, "dana", width=width)
        designer.goto(f"{url}/new")
        text = designer.inner_text("main")
        # what can be changed, by phase, in human names, with today's value and the allowed range
        for words in ("What a change can touch", "Phase 1 · Opening ring", "Phase 2 · Turning spiral",
                      "Phase 3 · Falling petals", "bullets per wave", "wave interval", "bullet speed",
                      "0.5 units/s to 12 units/s", "100 ms to 5000 ms", "1 to 64", "Targets", "stricter only",
                      "max alive bullets", "lower only"):
            assert words in text, words
        speed = designer.inner_text("tr[data-path='$.phases[1].pattern.bullet_speed']")
        assert "3.6 units/s" in speed and "$.phases" not in speed
        # a picture of the current fight, drawn
        designer.wait_for_function("() => { const i = document.getElementById('still'); "
                                   "return i.complete && i.naturalWidth > 0; }", timeout=30_000)
        assert designer.evaluate("() => document.getElementById('still').getBoundingClientRect().width") > 100
        # no engine set-up for a designer: no engine or provider picker, no executable, no provider kinds
        assert designer.query_selector("#engine-settings") is None
        assert not designer.is_visible("select#engine") and not designer.is_visible("select#provider")
        for jargon in ("Engine", "Agent provider", "python-sim", "offline:", "not available here", "executable",
                       "GCV_"):
            assert jargon not in text, jargon
        assert designer.evaluate(OVERFLOW), designer.evaluate("() => document.documentElement.scrollWidth")
        designer.screenshot(path=str(tmp_path / f"new-designer-{width}.png"), full_page=True)
        # the designer's request still goes in, on the set-up an operator would pick first
        if width == 1280:
            designer.fill("#request", "make phase 3 much denser")
            designer.click("button:has-text('Propose')")
            designer.wait_for_url(f"{url}/workflows/wf-*")
            assert "python-sim" in designer.inner_text("main")  # the workflow page says what it runs on
        assert not designer.errors, designer.errors  # type: ignore[attr-defined]
        designer.context.close()
        # an operator (here with every role, as a local console's user) sees the engine set-up
        everyone = _signed_in(browser, url, "all", width=width)
        everyone.goto(f"{url}/new")
        assert everyone.is_visible("#engine-settings") and everyone.is_visible("select#engine")
        assert "python-sim" in everyone.inner_text("#engine-settings")
        assert "What a change can touch" in everyone.inner_text("main")
        assert everyone.evaluate(OVERFLOW), everyone.evaluate("() => document.documentElement.scrollWidth")
        everyone.context.close()
        operator = _signed_in(browser, url, "omar", width=width)
        operator.goto(f"{url}/new")
        assert "python-sim" in operator.inner_text("#engine-settings")
        assert operator.evaluate(OVERFLOW)
        operator.context.close()
