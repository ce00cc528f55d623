"""The report's SVG chart writer: nice ticks, exact data-to-pixel mapping, well-formed and
deterministic documents, escaped text, and charts that carry title, axis labels, ticks,
legend and the limit line (read back from the SVG, not from the writer's own state)."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gcv.evidence import plots
from gcv.svg_chart import Chart, esc, nice_ticks, num, tick_label

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    assert svg.startswith("<?xml")
    return ET.fromstring(svg.encode("utf-8"))


def texts(root: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]


@settings(max_examples=300, deadline=None)
@given(lo=st.floats(-1e6, 1e6, allow_nan=False), span=st.floats(1e-3, 1e7, allow_nan=False),
       max_ticks=st.integers(2, 12), integer=st.booleans())
def test_nice_ticks_cover_the_range_at_a_nice_step(lo: float, span: float, max_ticks: int, integer: bool) -> None:
    hi = lo + span
    ticks = nice_ticks(lo, hi, max_ticks=max_ticks, integer=integer)
    assert ticks == sorted(ticks)
    if not integer or hi - lo >= 2:
        assert len(ticks) >= 2  # an axis shows at least two values
    assert len(ticks) <= max(max_ticks + 1, 5)  # more than max_ticks + 1 only to reach two
    slack = 1e-8 * (hi - lo) + 1e-9 * max(abs(lo), abs(hi))  # rounding at the edges
    assert all(lo - slack <= t <= hi + slack for t in ticks)
    if len(ticks) >= 2:
        step = ticks[1] - ticks[0]
        mantissa = step / 10 ** math.floor(math.log10(step) + 1e-12)
        assert any(math.isclose(mantissa, m, rel_tol=1e-6) for m in (1, 2, 2.5, 5, 10))
        assert all(math.isclose(b - a, step, rel_tol=1e-6, abs_tol=1e-9) for a, b in zip(ticks, ticks[1:]))
        # the ticks span most of the range: no half-empty axis
        assert ticks[-1] - ticks[0] >= (hi - lo) / 2 - step
    if integer:
        assert all(t == int(t) for t in ticks)


def test_nice_ticks_known_values() -> None:
    assert nice_ticks(0, 455) == [0, 100, 200, 300, 400]
    assert nice_ticks(0, 1.05, max_ticks=4) == [0, 0.25, 0.5, 0.75, 1.0]
    assert nice_ticks(0, 1.05, max_ticks=3) == [0, 0.5, 1.0]
    assert nice_ticks(0, 1.05, max_ticks=6) == [0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert nice_ticks(0, 3.4, max_ticks=7, integer=True) == [0, 1, 2, 3]
    # a wide integer range never tries a step of 1 (that was ten million candidate ticks)
    assert nice_ticks(0, 1e7, integer=True) == [0, 2e6, 4e6, 6e6, 8e6, 1e7]
    assert nice_ticks(5, 5, max_ticks=2) == [5, 5.5, 6]  # an empty range still gets an axis
    with pytest.raises(ValueError, match="finite"):
        nice_ticks(0, math.inf)


def test_numbers_and_text() -> None:
    assert [num(1.0), num(-0.001), num(2.345), num(10)] == ["1", "0", "2.35", "10"]
    assert [tick_label(3.0), tick_label(0.25), tick_label(1e-5)] == ["3", "0.25", "0"]
    assert esc('a<b & "c">') == "a&lt;b &amp; &quot;c&quot;&gt;"


def test_axes_map_data_to_the_box_exactly() -> None:
    chart = Chart(500, 300)
    ax = chart.add_axes(0.1, 0.1, 0.9, 0.9)
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 100)
    assert (ax.px(0), ax.px(10), ax.px(5)) == (50, 450, 250)
    assert (ax.py(0), ax.py(100), ax.py(50)) == (270, 30, 150)  # y grows upwards
    with pytest.raises(ValueError, match="lo < hi"):
        ax.set_ylim(3, 3)
    with pytest.raises(ValueError, match="inside the chart"):
        chart.add_axes(0.5, 0.1, 1.2, 0.9)


def test_drawing_needs_limits_and_matching_lengths() -> None:
    ax = Chart(100, 100).add_axes(0.1, 0.1, 0.9, 0.9)
    with pytest.raises(RuntimeError, match="set_xlim"):
        ax.line([1], [1], color="#000")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    with pytest.raises(ValueError, match="2 x values but 1 y values"):
        ax.line([0, 1], [0], color="#000")


def test_a_line_chart_is_complete_and_escaped() -> None:
    chart = Chart(540, 300, salt="t")
    ax = chart.add_axes(0.12, 0.1, 0.98, 0.84)
    ax.set_xlim(0, 4)
    ax.set_ylim(0, 10)
    ax.line([0, 2, 4], [1, 9, 3], color="#2563eb", label="<candidate & co>")
    ax.hline(5, color="#dc2626", label="limit 5")
    ax.step_post([0, 1, 3], [0, 1, 2], color="#64748b", label="steps")
    ax.title, ax.xlabel, ax.ylabel = "A title", "second", "bullets"
    ax.legend("upper left", ncols=2)
    root = parse(chart.svg())
    words = texts(root)
    assert {"A title", "second", "bullets", "<candidate & co>", "limit 5", "steps"} <= set(words)
    assert {"0", "2", "4", "6", "8", "10"} <= set(words)  # y tick labels
    lines = list(root.iter(f"{SVG}polyline"))
    assert len(lines) == 2
    assert lines[0].get("points") == f"{num(ax.px(0))},{num(ax.py(1))} {num(ax.px(2))},{num(ax.py(9))} " \
                                     f"{num(ax.px(4))},{num(ax.py(3))}"
    # post-steps hold each value until the next x
    assert lines[1].get("points").split() == [f"{num(ax.px(x))},{num(ax.py(y))}"
                                              for x, y in [(0, 0), (1, 0), (1, 1), (3, 1), (3, 2)]]
    limit = [e for e in root.iter(f"{SVG}line") if e.get("stroke") == "#dc2626"][0]
    assert limit.get("y1") == limit.get("y2") == num(ax.py(5)) and limit.get("stroke-dasharray")


def test_bars_with_value_labels_and_error_bars() -> None:
    chart = Chart(400, 200)
    ax = chart.add_axes(0.1, 0.1, 0.9, 0.8)
    ax.set_xlim(-0.5, 1.5)
    ax.set_ylim(0, 10)
    ax.set_xticks([0, 1], ["p1", "p2"])
    ax.bars([0, 1], [4, 8], 0.4, color="#123456", label="baseline", value_labels=True, yerr=([1, 2], [1, 1]))
    ax.legend()
    root = parse(chart.svg())
    rects = [r for r in root.iter(f"{SVG}rect") if r.get("fill") == "#123456"]
    assert len(rects) == 3  # two bars and the legend patch
    bar = rects[1]
    assert float(bar.get("height")) == pytest.approx(ax.py(0) - ax.py(8), abs=0.01)
    assert float(bar.get("y")) == pytest.approx(ax.py(8), abs=0.01)
    assert {"p1", "p2", "4", "8", "baseline"} <= set(texts(root))
    errs = [p for p in root.iter(f"{SVG}path") if p.get("stroke") == "#334155"]
    assert len(errs) == 2 and f"V{num(ax.py(9))}" in errs[1].get("d") and f"M{num(ax.px(1))},{num(ax.py(6))}" in errs[1].get("d")


def test_report_charts_carry_their_reading_and_are_deterministic() -> None:
    alive = [("baseline", [10, 40, 60], "baseline"), ("candidate 1", [20, 400, 80], "other"),
             ("candidate 2", [15, 300, 70], "final")]
    one = plots.alive_plot.render(alive, 350)
    assert one == plots.alive_plot.render(alive, 350)  # a fresh drawing, the same bytes
    root = parse(one)
    assert {"Alive bullets over time", "second", "alive bullets", "baseline", "candidate 1", "candidate 2",
            "limit 350"} <= set(texts(root))
    assert len(list(root.iter(f"{SVG}polyline"))) == 3
    hits = parse(plots.hits_plot.render([("baseline", [30, 90], 200, "baseline")], 3))
    assert {"baseline (2)", "max hits 3", "hits"} <= set(texts(hits))
    y_ticks = ["".join(t.itertext()) for t in hits.iter(f"{SVG}text") if t.get("text-anchor") == "end"]
    assert y_ticks and all(t.isdigit() for t in y_ticks)  # hits are counted in whole numbers
    bars = parse(plots.phase_bars.render(["p1", "p2"], {"spawned": [1, 2], "peak": [3, 4]},
                                         {"spawned": [5, 6], "peak": [7, 8]}, "candidate 1"))
    assert {"Bullets spawned per phase", "Peak alive bullets per phase", "p1", "p2", "candidate 1"} <= set(texts(bars))
    clip_ids = [c.get("id") for c in bars.iter(f"{SVG}clipPath")]
    assert len(clip_ids) == len(set(clip_ids)) == 2


def test_population_chart_has_three_panels_with_intervals() -> None:
    stats = {s: {"survival_rate": r, "survival_interval": [r - 0.1, r + 0.05], "hits_mean": 2.0,
                 "hits_mean_interval": [1.5, 2.5], "hits_p90": 4.0, "hits_p90_interval": [3.0, None]}
             for s, r in (("novice", 0.4), ("expert", 0.9))}
    root = parse(plots.population_plot.render(["novice", "expert"], stats, stats, "candidate 2"))
    assert {"Survival rate", "Hits per run (mean)", "Hits per run (p90)", "bot:novice", "bot:expert"} <= set(texts(root))
    errs = [p for p in root.iter(f"{SVG}path") if p.get("stroke") == "#334155"]
    assert len(errs) == 3 * 2 * 2  # every bar of every panel has its interval


def test_no_module_imports_matplotlib() -> None:
    """matplotlib is no longer a dependency (a fresh install lacks it): nothing may import it."""
    import ast
    from pathlib import Path

    repo = Path(__file__).resolve().parents[1]
    offenders = []
    for path in sorted((repo / "gcv").rglob("*.py")) + sorted((repo / "engine_runners").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            offenders += [f"{path.relative_to(repo)}:{node.lineno}" for n in names if n.split(".")[0] == "matplotlib"]
    assert not offenders, offenders
