"""``gcv compare A B --html FILE``: curves overlaid, figures side by side, a narrow terminal
table; the page read in headless Chromium as a reviewer sees it."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gcv.cli.app import app
from gcv.service.compare import short_figure

HOSTILE = "make phase 2 denser <script>alert(1)</script> & \"quoted\""


def gcv(*args: str) -> tuple[int, Any]:
    result = CliRunner().invoke(app, [*args, "--json"])
    return result.exit_code, json.loads(result.stdout)


@pytest.fixture(scope="module")
def two(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    home = tmp_path_factory.mktemp("cmp")
    old = os.environ.get("GCV_HOME")
    os.environ["GCV_HOME"] = str(home)
    try:
        _, a = gcv("run", "make phase 2 a denser bidirectional spiral", "--yes")
        _, b = gcv("run", HOSTILE.replace("denser", "a bit denser"), "--yes")
    finally:
        if old is None:
            os.environ.pop("GCV_HOME")
        else:
            os.environ["GCV_HOME"] = old
    return home, a["workflow_id"], b["workflow_id"]


@pytest.fixture
def page(two: tuple[Path, str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, dict[str, Any]]:
    home, a, b = two
    monkeypatch.setenv("GCV_HOME", str(home))
    path = tmp_path / "compare.html"
    code, out = gcv("compare", a, b, "--html", str(path))
    assert code == 0 and out["html"] == str(path)
    return path, out


@pytest.mark.slow
def test_the_page_overlays_the_curves_and_escapes_the_designer_s_words(page: tuple[Path, dict[str, Any]]) -> None:
    path, out = page
    html = path.read_text(encoding="utf-8")
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert html.count("<svg") == 2  # alive bullets and cumulative hits
    for label in ("baseline", "A candidate", "B candidate"):
        assert label in html
    assert f'{out["a"]["workflow_id"]}' in html and 'id="figures"' in html
    assert out["figures"] and all(f"<td>{row['figure']}</td>" in html for row in out["figures"])


@pytest.mark.slow
def test_the_terminal_comparison_is_a_table_at_80_columns(two: tuple[Path, str, str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    home, a, b = two
    monkeypatch.setenv("GCV_HOME", str(home))
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("NO_COLOR", "1")
    result = CliRunner().invoke(app, ["compare", a, b])
    assert result.exit_code == 0
    assert "- figure:" not in result.stdout  # main: 8 figures as 48 `key: value` lines
    assert "phase_2 spawn/s" in result.stdout and "B - A" in result.stdout
    assert max(len(line) for line in result.stdout.splitlines()) <= 80


def test_short_figure_names() -> None:
    assert short_figure("phase_results[phase_2].bullets_spawned/ticks") == "phase_2 spawn/s"
    assert short_figure("phase_results[boss_rush].alive_tick_sum/ticks") == "boss_rush mean alive"
    assert short_figure("low_fps") == "low_fps"


@pytest.mark.slow
@pytest.mark.toolchain
def test_the_page_in_headless_chromium(page: tuple[Path, dict[str, Any]]) -> None:
    from tests.console.test_browser import _chromium, _playwright

    path, out = page
    with _playwright()() as pw:
        browser = pw.chromium.launch(executable_path=_chromium(), args=["--no-sandbox"])
        try:
            tab = browser.new_page(viewport={"width": 1000, "height": 900})
            errors: list[str] = []
            tab.on("pageerror", lambda exc: errors.append(str(exc)))
            tab.on("dialog", lambda dialog: errors.append(f"dialog: {dialog.message}"))  # an injected alert()
            tab.goto(path.resolve().as_uri())
            assert errors == []
            charts = tab.locator("figure svg")
            assert charts.count() == 2
            box = charts.first.bounding_box()
            assert box is not None and box["width"] > 300 and box["height"] > 150
            rows = tab.locator("#figures tbody tr")
            assert rows.count() == len(out["figures"])
            assert tab.locator("[data-side=B] .request").inner_text().startswith("make phase 2 a bit denser <script>")
        finally:
            browser.close()


def _side(alive: list[int], hits: list[int], safe: list[int] | None = None) -> dict[str, Any]:
    tel = {"alive_per_second": alive, "hit_ticks": hits, "ticks": 600}
    return {"baseline_telemetry": {"alive_per_second": [1, 1], "hit_ticks": [], "ticks": 600},
            "candidate_telemetry": tel, "baseline_safe_area": safe, "candidate_safe_area": safe}


def _polylines(svg: str) -> int:
    return svg.count("<polyline")


def test_curves_overlay_both_candidates_and_draw_a_shared_baseline_once() -> None:
    from gcv.evidence.compare_page import curves

    a, b = _side([3, 4, 5], [60]), _side([5, 6, 7], [60, 120])
    same = curves([a, b], True)
    assert set(same) == {"alive", "hits"}  # no fair-fight analysis: no safe-area chart
    assert all(svg.startswith("<svg") for svg in same.values())  # inline: no XML declaration
    assert _polylines(same["alive"]) == _polylines(same["hits"]) == 3  # baseline, A, B
    assert "A candidate (1)" in same["hits"] and "B candidate (2)" in same["hits"]
    apart = curves([a, b], False)
    assert _polylines(apart["alive"]) == 4 and "A baseline" in apart["alive"] and "B baseline" in apart["alive"]
    fair = curves([a, _side([5, 6, 7], [], [1000, 800, 600])], True)
    assert _polylines(fair["safe_area"]) == 2  # B's baseline and candidate analyses; A has none
    assert "B candidate" in fair["safe_area"] and "A candidate" not in fair["safe_area"]
