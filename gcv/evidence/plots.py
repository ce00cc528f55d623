"""The report's charts, drawn as SVG text by ``gcv.svg_chart`` (no matplotlib).

Deterministic by construction: the same telemetry gives the same bytes (fixed sizes and
colours, numbers rounded to two decimals, clip-path ids from the chart's name, no date), so
a report inside a bundle hashes the same each time it is rebuilt. Each chart keeps what a
reviewer reads: title, axis labels, ticks, grid, a legend, and the limit as a dotted line.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Sequence

from gcv.svg_chart import Axes, Chart

BASE_COLOR = "#64748b"
CAND_COLOR = "#2563eb"
OTHER_COLOR = "#93c5fd"
LIMIT_COLOR = "#dc2626"
LIMIT_DASH = "1.5,3"
OTHER_DASH = "6,3"


def _cached(draw: Callable[..., str]) -> Any:
    """Identical inputs reuse the SVG (a report and its bundle draw the same charts)."""
    cache: dict[str, str] = {}

    def wrapper(*args: Any, **kwargs: Any) -> str:
        key = json.dumps([args, kwargs], sort_keys=True, default=str)
        if key not in cache:
            if len(cache) > 64:
                cache.clear()
            cache[key] = draw(*args, **kwargs)
        return cache[key]

    wrapper.render = draw  # type: ignore[attr-defined]  # uncached, for determinism tests
    wrapper.__doc__ = draw.__doc__
    wrapper.__name__ = draw.__name__
    return wrapper


def _row(chart: Chart, n: int, *, left: float, right: float, top: float, bottom: float, wspace: float) -> list[Axes]:
    """``n`` axes side by side; ``wspace`` is the gap as a fraction of one axes' width."""
    width = (right - left) / (n + (n - 1) * wspace)
    return [chart.add_axes(left + k * width * (1 + wspace), top, left + k * width * (1 + wspace) + width, bottom)
            for k in range(n)]


def _xlim_with_margin(ax: Axes, lo: float, hi: float, margin: float = 0.05) -> None:
    span = hi - lo if hi > lo else 1.0
    ax.set_xlim(lo - span * margin, hi + span * margin)


def _style(role: str) -> dict[str, Any]:
    return {"color": {"baseline": BASE_COLOR, "final": CAND_COLOR}.get(role, OTHER_COLOR),
            "dash": OTHER_DASH if role == "other" else None,
            "width": 2.0 if role == "final" else 1.4}


@_cached
def alive_plot(series: list[tuple[str, list[int], str]], limit: int | None) -> str:
    """Alive bullets per second: (label, values, role) with role baseline|final|other."""
    chart = Chart(540, 300, salt="alive")
    ax = chart.add_axes(0.12, 0.1, 0.98, 0.84)
    longest = max((len(values) for _, values, _ in series), default=1)
    _xlim_with_margin(ax, 1, max(longest, 2))
    top = max([limit or 0, *[max(values, default=0) for _, values, _ in series]])
    ax.set_ylim(0, max(top, 1) * 1.3)  # headroom for the legend above the limit line
    for label, values, role in series:
        ax.line(list(range(1, len(values) + 1)), values, label=label, **_style(role))
    if limit is not None:
        ax.hline(limit, color=LIMIT_COLOR, dash=LIMIT_DASH, label=f"limit {limit}")
    ax.title, ax.xlabel, ax.ylabel = "Alive bullets over time", "second", "alive bullets"
    ax.legend("upper left", ncols=2)
    return chart.svg()


@_cached
def hits_plot(series: list[tuple[str, list[int], int, str]], max_hits: int | None, tick_hz: int = 60) -> str:
    """Cumulative player hits: (label, hit ticks, run length in ticks, role)."""
    chart = Chart(540, 300, salt="hits")
    ax = chart.add_axes(0.12, 0.1, 0.98, 0.84)
    longest = max((ticks for _, _, ticks, _ in series), default=tick_hz) / tick_hz
    _xlim_with_margin(ax, 0, max(longest, 1.0))
    top = max([max_hits or 0, *[len(hit_ticks) for _, hit_ticks, _, _ in series]])
    ax.set_ylim(0, max(top, 1) * 1.45 + 0.5)
    ax.integer_y = True
    for label, hit_ticks, ticks, role in series:
        xs = [0.0] + [t / tick_hz for t in hit_ticks] + [ticks / tick_hz]
        ys = [0] + list(range(1, len(hit_ticks) + 1)) + [len(hit_ticks)]
        ax.step_post(xs, ys, label=f"{label} ({len(hit_ticks)})", **_style(role))
    if max_hits is not None:
        ax.hline(max_hits, color=LIMIT_COLOR, dash=LIMIT_DASH, label=f"max hits {max_hits}")
    ax.title, ax.xlabel, ax.ylabel = "Player hits over time (cumulative)", "second", "hits"
    ax.legend("upper left", ncols=2)
    return chart.svg()


@_cached
def safe_area_plot(series: list[tuple[str, list[int], str]], tick_hz: int = 60) -> str:
    """The fair-fight analyses' safe-area curves overlaid: (label, thousandths of the arena per
    tick, role), as ``gcv.analysis.frames.safe_area_svg`` draws one (the share of the arena
    reachable and not hit)."""
    chart = Chart(540, 300, salt="safe")
    ax = chart.add_axes(0.12, 0.1, 0.98, 0.84)
    longest = max((len(curve) for _, curve, _ in series), default=tick_hz) / tick_hz
    _xlim_with_margin(ax, 0, max(longest, 1.0))
    ax.set_ylim(0, 130)  # 0-100 % of the arena, headroom for the legend
    for label, curve, role in series:
        ax.line([t / tick_hz for t in range(len(curve))], [v / 10 for v in curve], label=label, **_style(role))
    ax.title, ax.xlabel, ax.ylabel = "Safe area over time", "second", "% of the arena"
    ax.legend("upper left", ncols=2)
    return chart.svg()


def _categories(ax: Axes, labels: Sequence[str], width: float) -> list[int]:
    xs = list(range(len(labels)))
    _xlim_with_margin(ax, -width, max(len(labels) - 1, 0) + width)
    ax.set_xticks(xs, labels)
    ax.grid_x = False
    return xs


@_cached
def phase_bars(phases: list[str], base: dict[str, list[int]], cand: dict[str, list[int]],
               cand_label: str) -> str:
    """Per-phase bullets spawned and peak alive, baseline vs the final candidate."""
    chart = Chart(1050, 280, salt="phases")
    axes = _row(chart, 2, left=0.06, right=0.99, top=0.1, bottom=0.88, wspace=0.15)
    width = 0.38
    for ax, key, title in ((axes[0], "spawned", "Bullets spawned per phase"),
                           (axes[1], "peak", "Peak alive bullets per phase")):
        xs = _categories(ax, phases, width)
        top = max([*base[key], *cand[key], 1])
        ax.set_ylim(0, top * 1.15)
        ax.bars([x - width / 2 for x in xs], base[key], width, color=BASE_COLOR, label="baseline",
                value_labels=True)
        ax.bars([x + width / 2 for x in xs], cand[key], width, color=CAND_COLOR, label=cand_label,
                value_labels=True)
        ax.title = title
    axes[0].legend("upper left")
    return chart.svg()


def _interval_errors(values: list[float], data: dict[str, dict[str, Any]], skills: list[str],
                     interval: str) -> tuple[list[float], list[float]]:
    below, above = [], []
    for v, s in zip(values, skills):
        lo, hi = (list(data[s].get(interval) or []) + [None, None])[:2]
        below.append(max(0.0, v - float(lo)) if lo is not None else 0.0)
        above.append(max(0.0, float(hi) - v) if hi is not None else 0.0)
    return below, above


@_cached
def population_plot(skills: list[str], base: dict[str, dict[str, Any]], cand: dict[str, dict[str, Any]],
                    cand_label: str) -> str:
    """Bot populations side by side: survival rate and hits (mean, p90), with 95% intervals."""
    chart = Chart(1050, 280, salt="population")
    axes = _row(chart, 3, left=0.06, right=0.99, top=0.1, bottom=0.88, wspace=0.18)
    width = 0.38
    panels = (("survival_rate", "survival_interval", "Survival rate", (0.0, 1.05)),
              ("hits_mean", "hits_mean_interval", "Hits per run (mean)", None),
              ("hits_p90", "hits_p90_interval", "Hits per run (p90)", None))
    for ax, (key, interval, title, ylim) in zip(axes, panels):
        xs = _categories(ax, [f"bot:{s}" for s in skills], width)
        drawn = []
        for offset, data, color, label in ((-width / 2, base, BASE_COLOR, "baseline"),
                                           (width / 2, cand, CAND_COLOR, cand_label)):
            values = [float(data[s].get(key) or 0) for s in skills]
            below, above = _interval_errors(values, data, skills, interval)
            drawn.append(([x + offset for x in xs], values, color, label, (below, above)))
        top = max([v + hi for _, values, _, _, (_, above) in drawn for v, hi in zip(values, above)] + [0.0])
        ax.set_ylim(*(ylim or (0.0, max(top, 1.0) * 1.2)))
        for positions, values, color, label, yerr in drawn:
            ax.bars(positions, values, width, color=color, label=label, yerr=yerr)
        ax.title = title
    axes[0].legend("lower left")
    return chart.svg()
