"""The console's layout in a real headless Chromium (Debian's, driven by Playwright), at a desktop
width (1440 px) and a phone width (390 px), issue 31 items 1 and 5.

Every page (sign-in, workflows, new change, one workflow, its review, baselines, batches) has no
page-level horizontal scroll: ``document.documentElement.scrollWidth <= window.innerWidth`` (a
wide table scrolls inside its own box). At 390 px the navigation collapses behind a menu button
whose links and sign-out then fit the screen, and the fight viewer shows one side at a time with
a baseline/candidate toggle. The review page reads in the order a reviewer decides (verdict, what
changed, checks, fight viewer, fairness, report, then the decision) and no decision is chosen for
the reviewer.

Skipped when chromium or Playwright is missing, and failed instead under GCV_REQUIRE_TOOLCHAINS=1.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.console.conftest import TOKENS, free_port
from tests.console.test_browser import _chromium, _playwright
from tests.console.test_browser_trust import gcv, run_workflow
from tests.console.test_restart import Served

pytestmark = [pytest.mark.slow, pytest.mark.toolchain]

WIDTHS = (1440, 390)
REVIEW_ORDER = ["verdict", "change", "checks", "viewer", "fair", "report", "evidence", "decide"]
OVERFLOW = """() => ({scroll: document.documentElement.scrollWidth, inner: window.innerWidth,
  wide: Array.from(document.querySelectorAll("body *")).filter(e => {
    const r = e.getBoundingClientRect(); return r.width > 0 && r.right > window.innerWidth + 1;
  }).filter(e => !e.closest(".scroll")).slice(0, 5).map(e => e.tagName + (e.id ? "#" + e.id : "")
    + (e.className && typeof e.className === "string" ? "." + e.className.split(" ").join(".") : ""))})"""
ORDER = """(ids) => ids.map(id => document.getElementById(id)).every((el, i, all) =>
  el && (i === 0 || (all[i - 1].compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING)))"""
INSIDE = """(sel) => { const r = document.querySelector(sel).getBoundingClientRect();
  return r.width > 0 && r.height > 0 && r.left >= 0 && r.right <= window.innerWidth; }"""


def _visible(page, selector: str) -> bool:
    return page.locator(selector).first.is_visible()


@pytest.fixture()
def populated(workspace: Path, tmp_path: Path, repo_root: Path) -> dict[str, str]:
    """A workspace with every page's content: an accepted and promoted workflow (two baseline
    versions), one whose evidence waits for review, and a batch result."""
    accepted, _ = run_workflow(workspace)
    done = gcv(workspace, "decide", accepted, "accept", "--actor", "rita", "--note", "reads well", "--promote")
    assert done.returncode == 0, done.stderr[-2000:]
    ready, _ = run_workflow(workspace)
    spec = tmp_path / "phone_width_batch.toml"
    spec.write_text(f'configs = ["{repo_root / "artifacts/baselines/shrine_trial.json"}"]\nseeds = 2\n'
                    'players = ["scripted", "bot:average"]\n', encoding="utf-8")
    batch = gcv(workspace, "batch", str(spec), "--json")
    assert batch.returncode == 0, batch.stderr[-2000:]
    return {"accepted": accepted, "ready": ready}


def test_no_page_scrolls_sideways_at_desktop_and_phone_width(tmp_path: Path, workspace: Path, users_file: Path,
                                                             populated: dict[str, str]) -> None:
    chromium = _chromium()
    sync_playwright = _playwright()
    wf = populated["ready"]
    pages = {"workflows": "/workflows", "new change": "/new", "workflow": f"/workflows/{wf}",
             "review": f"/workflows/{wf}/review", "accepted review": f"/workflows/{populated['accepted']}/review",
             "baselines": "/baselines", "batches": "/batches"}
    server = Served(workspace, free_port(), "--users", str(users_file))
    url = server.url
    widths: dict[int, dict[str, int]] = {}
    wide: dict[str, list[str]] = {}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, headless=True,
                                         args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
            try:
                for width in WIDTHS:
                    errors: list[str] = []
                    page = browser.new_context(viewport={"width": width, "height": 900}, locale="en-US").new_page()
                    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
                    page.on("pageerror", lambda e: errors.append(str(e)))
                    measured = widths.setdefault(width, {})

                    def measure(name: str) -> None:
                        got = page.evaluate(OVERFLOW)
                        measured[name] = got["scroll"]
                        if got["scroll"] > got["inner"]:
                            wide[f"{name} at {width}"] = got["wide"]
                        page.screenshot(path=str(tmp_path / f"{name.replace(' ', '_')}-{width}.png"), full_page=True)

                    page.goto(f"{url}/login")
                    measure("sign-in")
                    page.fill("#token", TOKENS["all"])  # every role: the widest header
                    page.click("button[type=submit]")
                    page.wait_for_url(f"{url}/workflows")
                    for name, path in pages.items():
                        page.goto(url + path)
                        if "review" in name:
                            page.wait_for_selector(".viewer[data-ready='1']", timeout=60_000)
                        measure(name)

                    # the navigation: inline at a desktop width; behind a menu button at a phone's
                    page.goto(f"{url}/workflows")
                    if width >= 1024:
                        assert not _visible(page, "#menu-toggle")
                        assert _visible(page, "header nav a[href='/baselines']")
                    else:
                        assert _visible(page, "#menu-toggle")
                        assert not _visible(page, "header nav a[href='/baselines']")
                        page.click("#menu-toggle")
                        assert page.get_attribute("#menu-toggle", "aria-expanded") == "true"
                    for sel in ("header nav a[href='/baselines']", "header nav a[href='/batches']",
                                "header nav a[href='/new']", "header .who button"):
                        assert page.evaluate(INSIDE, sel), f"{sel} is cut off at {width} px"
                    assert page.evaluate(OVERFLOW)["scroll"] <= width
                    page.click("header nav a[href='/baselines']")
                    page.wait_for_url(f"{url}/baselines")

                    # the review page: the reviewer's order, nothing decided for them
                    page.goto(f"{url}/workflows/{wf}/review")
                    assert page.evaluate(ORDER, REVIEW_ORDER), [
                        s.get_attribute("id") for s in page.query_selector_all("main > section[id]")]
                    radios = page.query_selector_all("#decide input[name=decision]")
                    assert [r.get_attribute("value") for r in radios] == ["accept", "revise", "rollback"]
                    assert not any(r.is_checked() for r in radios)
                    assert "a note is required for accept and rollback" in page.inner_text("#decide").lower()
                    page.click("#decide button[type=submit]")  # nothing chosen: the browser does not send it
                    assert page.url == f"{url}/workflows/{wf}/review"
                    page.check("#decide input[value=accept]")
                    assert page.evaluate("() => document.getElementById('note').required")
                    page.fill("#note", "   ")  # the browser takes blanks; the server does not
                    page.click("#decide button[type=submit]")
                    page.wait_for_url(f"{url}/workflows/{wf}/review?error=*")
                    assert "accept needs a note" in page.inner_text("[role=alert]")
                    assert not any(r.is_checked() for r in page.query_selector_all("#decide input[name=decision]"))
                    page.check("#decide input[value=revise]")
                    assert not page.evaluate("() => document.getElementById('note').required")

                    # the fight viewer: both sides side by side, or one at a time with a toggle
                    base, cand = "figure[data-side=baseline]", "figure[data-side=candidate]"
                    if width >= 1024:
                        assert not _visible(page, "#v-sides")
                        assert _visible(page, base) and _visible(page, cand)
                    else:
                        assert _visible(page, "#v-sides")
                        assert _visible(page, cand) and not _visible(page, base)
                        page.click("#v-sides button[data-side=baseline]")
                        assert _visible(page, base) and not _visible(page, cand)
                        assert page.get_attribute("#v-sides button[data-side=baseline]", "aria-pressed") == "true"
                        assert page.evaluate(INSIDE, "#frame-baseline")
                        page.click("#v-sides button[data-side=candidate]")
                        assert _visible(page, cand) and not _visible(page, base)
                    # 'Ready for review' and 'Accepted' do not look alike
                    ready_bg = page.eval_on_selector(".head .badge", "b => getComputedStyle(b).backgroundColor")
                    page.goto(f"{url}/workflows/{populated['accepted']}")
                    accepted_bg = page.eval_on_selector(".head .badge", "b => getComputedStyle(b).backgroundColor")
                    assert ready_bg != accepted_bg
                    assert not errors, errors
                    page.context.close()
            finally:
                browser.close()
    finally:
        server.kill()
    print("page widths (document scrollWidth, px):", widths)
    assert not wide, f"pages wider than the window: {wide}; widths {widths}"
