"""The report's charts (gcv.evidence.plots): SVG text with the title, axes, legend and limit a
reviewer reads, the same bytes for the same inputs."""

from __future__ import annotations

import re

from gcv.evidence.plots import (CAND_COLOR, LIMIT_COLOR, OTHER_DASH, alive_plot, hits_plot, phase_bars,
                               population_plot, safe_area_plot)

SERIES = [("baseline", [1, 5, 3], "baseline"), ("final", [2, 6, 4], "final")]


def _texts(svg: str) -> list[str]:
    return re.findall(r"<text[^>]*>([^<]*)</text>", svg)


def test_alive_plot_names_what_it_shows_and_draws_the_limit() -> None:
    svg = alive_plot(SERIES, 5)
    assert svg.startswith('<?xml version="1.0"') and 'width="540" height="300"' in svg
    texts = _texts(svg)
    for text in ("Alive bullets over time", "second", "alive bullets", "baseline", "final", "limit 5"):
        assert text in texts
    assert LIMIT_COLOR in svg and LIMIT_COLOR not in alive_plot(SERIES, None)


def test_the_same_inputs_give_the_same_bytes() -> None:
    assert alive_plot(SERIES, 5) == alive_plot.render(SERIES, 5) == alive_plot.render(SERIES, 5)
    assert alive_plot(SERIES, 5) != alive_plot([("baseline", [1, 5, 4], "baseline")], 5)


def test_hits_plot_counts_each_runs_hits_in_its_legend() -> None:
    texts = _texts(hits_plot([("baseline", [60, 600], 2160, "baseline"), ("final", [], 2160, "final")], 3))
    assert "Player hits over time (cumulative)" in texts
    assert "baseline (2)" in texts and "final (0)" in texts and "max hits 3" in texts


def test_phase_bars_and_population_plot() -> None:
    svg = phase_bars(["phase_1", "phase_2"], {"spawned": [10, 20], "peak": [5, 8]},
                     {"spawned": [12, 18], "peak": [6, 7]}, "round 1")
    texts = _texts(svg)
    assert {"phase_1", "Bullets spawned per phase", "Peak alive bullets per phase", "round 1"} <= set(texts)
    stats = {"survival_rate": 0.9, "survival_interval": [0.7, 0.97], "hits_mean": 1.0, "hits_mean_interval": [0.5, 1.5],
             "hits_p90": 2, "hits_p90_interval": [1, 3]}
    pop = population_plot(["average"], {"average": stats}, {"average": stats}, "round 1")
    assert {"bot:average", "Survival rate", "Hits per run (mean)", "Hits per run (p90)"} <= set(_texts(pop))
    assert pop == population_plot.render(["average"], {"average": stats}, {"average": stats}, "round 1")


def test_safe_area_plot_overlays_one_polyline_per_curve_in_percent_of_the_arena() -> None:
    # thousandths of the arena per tick: 120 ticks (2 s), the second curve dips to 25 %
    base = [1000] * 120
    dip = [1000] * 60 + [250] * 60
    svg = safe_area_plot([("baseline", base, "baseline"), ("A candidate", dip, "final"), ("B candidate", base, "other")])
    assert {"Safe area over time", "% of the arena", "baseline", "A candidate", "B candidate"} <= set(_texts(svg))
    lines = re.findall(r'<polyline points="([^"]*)"[^>]*stroke="([^"]*)"[^>]*/>', svg)
    assert len(lines) == 3 and lines[1][1] == CAND_COLOR and f'stroke-dasharray="{OTHER_DASH}"' in svg
    ys = [[float(p.split(",")[1]) for p in points.split()] for points, _ in lines]
    assert len(ys[0]) == len(ys[1]) == 120  # one point per tick
    assert len(set(ys[0])) == 1 and ys[1][-1] > ys[1][0]  # the dip is drawn lower (SVG y grows downwards)
    assert svg == safe_area_plot.render([("baseline", base, "baseline"), ("A candidate", dip, "final"),
                                         ("B candidate", base, "other")])
