"""The compare page in a real headless Chromium at 1440 and 390 px (issue 32 item 4): every
chart overlays one curve per series (A's candidate, B's candidate, the baseline), the figures
table shows, the picker's form navigates to the comparison it names, and no page scrolls
sideways (a wide table scrolls in its own box).

Skipped when chromium or Playwright is missing, and failed instead under GCV_REQUIRE_TOOLCHAINS=1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gcv.console.app import create_app
from gcv.console.context import ConsoleConfig
from gcv.console.users import load_users
from gcv.service import compare
from tests.console.conftest import TOKENS, ThreadServer, free_port
from tests.console.test_browser import _chromium, _playwright
from tests.console.test_browser_layout import OVERFLOW
from tests.console.test_pages_compare import home  # noqa: F401  (the module's workspace fixture)

pytestmark = [pytest.mark.slow, pytest.mark.toolchain]

WIDTHS = (1440, 390)
# per chart: the curves drawn (polylines in the plot area), and the width it is shown at
CHARTS = """() => Array.from(document.querySelectorAll("figure.compare-chart")).map(f => ({
  id: f.id, curves: f.querySelectorAll("svg g[clip-path] polyline").length,
  colours: Array.from(new Set(Array.from(f.querySelectorAll("svg g[clip-path] polyline")).map(p => p.getAttribute("stroke")))),
  width: f.querySelector("svg").getBoundingClientRect().width}))"""


def test_the_compare_page_at_desktop_and_phone_width(tmp_path: Path, home: dict[str, Any]) -> None:  # noqa: F811
    chromium = _chromium()
    sync_playwright = _playwright()
    a, b = home["a"], home["b"]
    figures = compare.compare_workflows(home["ws"], a, b).result["figures"]
    port = free_port()
    app = create_app(ConsoleConfig(workspace=home["ws"].root, host="127.0.0.1", port=port,
                                   users=load_users(home["users"]), secret=b"s" * 32))
    wide: dict[str, list[str]] = {}
    with ThreadServer(app, port) as server, sync_playwright() as pw:
        url = server.url
        browser = pw.chromium.launch(executable_path=chromium, headless=True,
                                     args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        try:
            for width in WIDTHS:
                errors: list[str] = []
                page = browser.new_context(viewport={"width": width, "height": 900}, locale="en-US").new_page()
                page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
                page.on("pageerror", lambda e: errors.append(str(e)))

                def measure(name: str) -> None:
                    got = page.evaluate(OVERFLOW)
                    page.screenshot(path=str(tmp_path / f"{name}-{width}.png"), full_page=True)
                    if got["scroll"] > got["inner"]:
                        wide[f"{name} at {width}"] = got["wide"]

                page.goto(f"{url}/login")
                page.fill("#token", TOKENS["dana"])  # a designer: reading needs no other role
                page.click("button[type=submit]")
                page.wait_for_url(f"{url}/workflows")
                # the workflow page's link opens the picker with A chosen; the form names B
                page.goto(f"{url}/workflows/{a}")
                page.click("#compare-with")
                page.wait_for_url(f"{url}/compare?a={a}")
                assert page.locator("#pick-a").input_value() == a
                measure("picker")
                page.select_option("#pick-b", b)
                page.click("#pick-workflows button[type=submit]")
                page.wait_for_url(f"{url}/compare?a={a}&b={b}")
                charts = {c["id"]: c for c in page.evaluate(CHARTS)}
                assert set(charts) == {"chart-alive", "chart-hits", "chart-safe_area"}
                for key in ("chart-alive", "chart-hits"):  # baseline, A's candidate, B's candidate
                    assert charts[key]["curves"] == 3 and len(charts[key]["colours"]) == 3, charts[key]
                assert charts["chart-safe_area"]["curves"] == 2  # B's analyses only (A asked for none)
                for c in charts.values():  # each chart as wide as the screen lets it be, and readable
                    assert 300 <= c["width"] <= width, c
                rows = page.locator("#figures tbody tr")
                assert rows.count() == len(figures)
                assert page.locator("[data-side=A] .request").inner_text().startswith("make phase 3 much denser <script>")
                measure("workflows")
                # the batch picker navigates too
                page.select_option("#pick-batch-a", "one")
                page.select_option("#pick-batch-b", "two")
                page.click("#pick-batches button[type=submit]")
                page.wait_for_url(f"{url}/compare?batch_a=one&batch_b=two")
                assert page.locator("#cells tbody tr").count() >= 1
                assert page.locator("#config-changes table").count() == 1
                measure("batches")
                assert not errors, errors
                # a refusal is the page itself, naming the parameter
                answer = page.goto(f"{url}/compare?a={a}&b=wf-nope")
                assert answer is not None and answer.status == 404
                assert page.locator("[role=alert]").inner_text().startswith("b: no workflow 'wf-nope'")
                measure("refused")
                # the browser logs the 404 answer itself, and nothing else
                assert all("status of 404" in e for e in errors), errors
        finally:
            browser.close()
    assert not wide, f"pages wider than the screen: {wide}"
