"""Frames and charts: byte-identical for identical input, showing what the report says."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from gcv.analysis import run_analysis
from gcv.analysis.frames import (COVERED, LEGEND, LEGEND_HEIGHT, REACH_HIT, SAFE, png_bytes, safe_area_svg,
                                 sparkline)
from gcv.simio.render import BOSS
from tests.support.fairutil import baseline_data, falling_wall


@pytest.fixture(scope="module")
def wall():
    return run_analysis(falling_wall(), seed=1, budget_seconds=30)


def _colours(png: bytes, *, legend: bool = False) -> set[tuple[int, int, int]]:
    """The colours of the arena (HUD included), or of the legend band under it."""
    img = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    img = img[-LEGEND_HEIGHT:] if legend else img[:-LEGEND_HEIGHT]
    return {tuple(int(c) for c in px) for px in img.reshape(-1, 3)}


def test_frames_carry_a_legend_of_every_colour(wall) -> None:
    """Issue 29: the frame did not say what the green, the halos and the dots mean."""
    png = png_bytes(wall.unfair_frame())
    legend = _colours(png, legend=True)
    assert {SAFE, REACH_HIT, COVERED, BOSS} <= legend
    assert len(LEGEND) == 6 and any("hit radius" in words for _, words in LEGEND)
    assert SAFE not in _colours(png)  # the legend's green swatch is not in the arena


def test_unfair_frame_is_deterministic_and_shows_the_hit_reachable_area(wall) -> None:
    a, b = png_bytes(wall.unfair_frame()), png_bytes(wall.unfair_frame())
    assert a == b
    img = Image.open(io.BytesIO(a))
    assert img.size[0] >= 480  # a 4-unit arena is drawn large enough to read
    colours = _colours(a)
    assert REACH_HIT in colours and COVERED in colours
    assert SAFE not in colours  # nothing reachable is safe at the unfair tick


def test_tightest_frame_of_a_fair_fight_shows_safe_area() -> None:
    analysis = run_analysis(baseline_data(), seed=1, budget_seconds=120)
    png = png_bytes(analysis.tightest_frame())
    assert SAFE in _colours(png)
    assert analysis.unfair_frame() is None
    assert png == png_bytes(analysis.tightest_frame())


def test_chart_is_deterministic_svg(wall) -> None:
    svg = safe_area_svg(wall.report)
    assert svg == safe_area_svg(wall.report)
    assert svg.startswith("<?xml") and "<svg" in svg
    assert "drop" in svg and "Falling wall" in svg  # phase label and title are text


def test_sparkline() -> None:
    assert sparkline([]) == ""
    assert sparkline([0, 1000]) == " █"
    line = sparkline(list(range(1001)), width=10)
    assert len(line) == 10 and line[0] == " " and line[-1] in "▇█"
    assert sparkline([1000] * 5 + [0] + [1000] * 5, width=3)[1] == " "  # a dip is never averaged away
