"""The batches pages in a real headless Chromium at 1440 and 390 px (issue 32 item 5): the list
with its intervals and tables, a group's rows, one row's fight in the viewer, and the
operator's start form; no page scrolls sideways (a wide table scrolls in its own box).

Skipped when chromium or Playwright is missing, and failed instead under GCV_REQUIRE_TOOLCHAINS=1.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gcv.service import batches
from gcv.store.catalog import Workspace
from tests.console.conftest import TOKENS, ThreadServer, free_port
from tests.console.test_browser import _chromium, _playwright
from tests.console.test_browser_layout import OVERFLOW

pytestmark = [pytest.mark.slow, pytest.mark.toolchain]

WIDTHS = (1440, 390)
DRAWN = """(sel) => { const c = document.querySelector(sel); const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
  const seen = new Set(); for (let i = 0; i < d.length; i += 4 * 97) seen.add(d[i] + "," + d[i + 1] + "," + d[i + 2]); return seen.size; }"""


def test_batches_list_drill_down_and_viewer_at_desktop_and_phone_width(tmp_path: Path, workspace: Path,
                                                                       users_file: Path) -> None:
    chromium = _chromium()
    sync_playwright = _playwright()
    from gcv.console.app import create_app
    from gcv.console.context import ConsoleConfig
    from gcv.console.users import load_users

    batches.start_batch(Workspace(workspace), "smoke.toml")
    port = free_port()
    app = create_app(ConsoleConfig(workspace=workspace, host="127.0.0.1", port=port, users=load_users(users_file),
                                   secret=b"s" * 32))
    wide: dict[str, object] = {}
    with ThreadServer(app, port) as server, sync_playwright() as pw:
        url = server.url
        browser = pw.chromium.launch(executable_path=chromium, headless=True,
                                     args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        try:
            for width in WIDTHS:
                errors: list[str] = []
                page = browser.new_context(viewport={"width": width, "height": 900}, locale="en-US").new_page()
                page.on("pageerror", lambda e: errors.append(str(e)))

                def measure(name: str) -> None:
                    got = page.evaluate(OVERFLOW)
                    page.screenshot(path=str(tmp_path / f"{name}-{width}.png"), full_page=True)
                    if got["scroll"] > got["inner"]:
                        wide[f"{name} at {width}"] = got["wide"]

                page.goto(f"{url}/login")
                page.fill("#token", TOKENS["omar"])  # an operator: the start form shows
                page.click("button[type=submit]")
                page.wait_for_url(f"{url}/workflows")
                page.goto(f"{url}/batches")
                assert page.locator("#batch-smoke td.survival").count() == 2
                assert page.locator("#batch-smoke a.file", has_text="Parquet").is_visible()
                assert page.locator("#start select#spec").is_visible()
                measure("batches")
                page.click("#batch-smoke a.rows >> nth=0")
                page.wait_for_url(f"{url}/batches/smoke/groups/0")
                assert page.locator("table.rows tbody tr").count() == 2
                measure("group")
                page.click("table.rows a.view >> nth=0")
                page.wait_for_selector(".viewer[data-ready='1']", timeout=60_000)
                assert page.evaluate(DRAWN, "#frame-run") > 3, "the fight is not drawn"
                assert page.locator("#v-hits button.hit").count() == 2  # the scripted player's two hits
                page.click("#v-hits button.hit >> nth=0")
                assert page.get_attribute(".viewer", "data-tick") == page.locator("#v-hits button.hit").first.get_attribute("data-tick")
                measure("run")
                if width == 1440:  # the form starts a batch; the page says it ran
                    page.goto(f"{url}/batches")
                    page.check("input[name=overwrite]")
                    page.click("#start button[type=submit]")
                    page.wait_for_url(f"{url}/batches")
                    job = app.state.console.batch_jobs.wait(timeout=120)
                    assert job is not None and job.error is None
                    page.goto(f"{url}/batches")
                    assert "passed" in page.locator("#batch-job").inner_text()
                assert not errors, errors
        finally:
            browser.close()
    assert not wide, f"pages wider than the screen: {wide}"
