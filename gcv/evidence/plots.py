"""The report's charts, drawn with matplotlib and returned as SVG text.

Deterministic by construction: the object-oriented API (no pyplot, no global backend),
the SVG canvas, a fixed ``svg.hashsalt`` (clip-path ids are otherwise random), no
``Date`` metadata, text kept as text (``svg.fonttype = none``), fixed sizes and colours.
The same telemetry gives the same bytes, so a report inside a bundle hashes the same
each time it is rebuilt.
"""

from __future__ import annotations

import io
import json
from typing import Any

BASE_COLOR = "#64748b"
CAND_COLOR = "#2563eb"
OTHER_COLOR = "#93c5fd"
LIMIT_COLOR = "#dc2626"
RC = {
    "svg.hashsalt": "gcv-evidence-report",
    "svg.fonttype": "none",
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.edgecolor": "#94a3b8",
    "axes.grid": True,
    "grid.color": "#e2e8f0",
    "grid.linewidth": 0.6,
    "axes.titlesize": 10,
    "axes.titleweight": "bold",
    "legend.frameon": False,
    "legend.fontsize": 8,
}


def available() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _figure(width: float, height: float, **margins: float) -> Any:
    """Fixed margins instead of a layout engine: one draw instead of several (a plot is
    rendered for every report and bundle, so this halves export time)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100)
    fig.subplots_adjust(**{"left": 0.12, "right": 0.98, "top": 0.9, "bottom": 0.16, **margins})
    return fig


def _svg(fig: Any) -> str:
    from matplotlib.backends.backend_svg import FigureCanvasSVG

    FigureCanvasSVG(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    return buf.getvalue().decode("utf-8")


def _with_rc(draw: Any) -> Any:
    """Run ``draw`` under the report's rc settings; identical inputs reuse the SVG."""
    cache: dict[str, str] = {}

    def render(*args: Any, **kwargs: Any) -> str:
        import matplotlib

        with matplotlib.rc_context(RC):
            return draw(*args, **kwargs)

    def wrapper(*args: Any, **kwargs: Any) -> str:
        key = json.dumps([args, kwargs], sort_keys=True, default=str)
        if key not in cache:
            if len(cache) > 64:
                cache.clear()
            cache[key] = render(*args, **kwargs)
        return cache[key]

    wrapper.render = render  # type: ignore[attr-defined]  # uncached, for determinism tests
    wrapper.__doc__ = draw.__doc__
    return wrapper


@_with_rc
def alive_plot(series: list[tuple[str, list[int], str]], limit: int | None) -> str:
    """Alive bullets per second: (label, values, role) with role baseline|final|other."""
    fig = _figure(5.4, 3.0)
    ax = fig.add_subplot()
    for label, values, role in series:
        xs = list(range(1, len(values) + 1))
        color = {"baseline": BASE_COLOR, "final": CAND_COLOR}.get(role, OTHER_COLOR)
        style = "--" if role == "other" else "-"
        ax.plot(xs, values, style, color=color, linewidth=2 if role == "final" else 1.4, label=label)
    if limit is not None:
        ax.axhline(limit, color=LIMIT_COLOR, linestyle=":", linewidth=1.4, label=f"limit {limit}")
    ax.set_title("Alive bullets over time")
    ax.set_xlabel("second")
    ax.set_ylabel("alive bullets")
    top = max([limit or 0, *[max(values, default=0) for _, values, _ in series]])
    ax.set_ylim(0, max(top, 1) * 1.3)  # headroom for the legend above the limit line
    ax.legend(loc="upper left", ncols=2)
    return _svg(fig)


@_with_rc
def hits_plot(series: list[tuple[str, list[int], int, str]], max_hits: int | None, tick_hz: int = 60) -> str:
    """Cumulative player hits: (label, hit ticks, run length in ticks, role)."""
    fig = _figure(5.4, 3.0)
    ax = fig.add_subplot()
    for label, hit_ticks, ticks, role in series:
        xs = [0.0] + [t / tick_hz for t in hit_ticks] + [ticks / tick_hz]
        ys = [0] + list(range(1, len(hit_ticks) + 1)) + [len(hit_ticks)]
        color = {"baseline": BASE_COLOR, "final": CAND_COLOR}.get(role, OTHER_COLOR)
        style = "--" if role == "other" else "-"
        ax.step(xs, ys, style, where="post", color=color, linewidth=2 if role == "final" else 1.4,
                label=f"{label} ({len(hit_ticks)})")
    if max_hits is not None:
        ax.axhline(max_hits, color=LIMIT_COLOR, linestyle=":", linewidth=1.4, label=f"max hits {max_hits}")
    ax.set_title("Player hits over time (cumulative)")
    ax.set_xlabel("second")
    ax.set_ylabel("hits")
    top = max([max_hits or 0, *[len(hit_ticks) for _, hit_ticks, _, _ in series]])
    ax.set_ylim(0, max(top, 1) * 1.45 + 0.5)
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.legend(loc="upper left", ncols=2)
    return _svg(fig)


@_with_rc
def phase_bars(phases: list[str], base: dict[str, list[int]], cand: dict[str, list[int]],
               cand_label: str) -> str:
    """Per-phase bullets spawned and peak alive, baseline vs the final candidate."""
    fig = _figure(10.5, 2.8, left=0.06, right=0.99, wspace=0.15)
    axes = fig.subplots(1, 2)
    width = 0.38
    xs = list(range(len(phases)))
    for ax, key, title in ((axes[0], "spawned", "Bullets spawned per phase"),
                           (axes[1], "peak", "Peak alive bullets per phase")):
        b = ax.bar([x - width / 2 for x in xs], base[key], width, color=BASE_COLOR, label="baseline")
        c = ax.bar([x + width / 2 for x in xs], cand[key], width, color=CAND_COLOR, label=cand_label)
        ax.bar_label(b, fontsize=7, padding=1)
        ax.bar_label(c, fontsize=7, padding=1)
        ax.set_xticks(xs, phases)
        ax.set_title(title)
        ax.grid(axis="x", visible=False)
        ax.margins(y=0.15)
    axes[0].legend(loc="upper left")
    return _svg(fig)


@_with_rc
def population_plot(skills: list[str], base: dict[str, dict[str, Any]], cand: dict[str, dict[str, Any]],
                    cand_label: str) -> str:
    """Bot populations side by side: survival rate and hits (mean, p90), with 95% intervals."""
    fig = _figure(10.5, 2.8, left=0.06, right=0.99, wspace=0.18)
    axes = fig.subplots(1, 3)
    width = 0.38
    xs = list(range(len(skills)))
    panels = (("survival_rate", "survival_interval", "Survival rate", (0, 1.05)),
              ("hits_mean", "hits_mean_interval", "Hits per run (mean)", None),
              ("hits_p90", "hits_p90_interval", "Hits per run (p90)", None))
    for ax, (key, interval, title, ylim) in zip(axes, panels):
        for offset, data, color, label in ((-width / 2, base, BASE_COLOR, "baseline"),
                                           (width / 2, cand, CAND_COLOR, cand_label)):
            values = [float(data[s].get(key) or 0) for s in skills]
            lows = [v - float(data[s].get(interval, [None, None])[0] if data[s].get(interval, [None])[0] is not None else v)
                    for v, s in zip(values, skills)]
            highs = [float(data[s].get(interval, [None, None])[1] if data[s].get(interval, [None, None])[1] is not None else v) - v
                     for v, s in zip(values, skills)]
            ax.bar([x + offset for x in xs], values, width, color=color, label=label,
                   yerr=[[max(0.0, v) for v in lows], [max(0.0, v) for v in highs]], capsize=3,
                   error_kw={"elinewidth": 0.8, "ecolor": "#334155"})
        ax.set_xticks(xs, [f"bot:{s}" for s in skills])
        ax.set_title(title)
        ax.grid(axis="x", visible=False)
        if ylim:
            ax.set_ylim(*ylim)
        else:
            ax.margins(y=0.2)
    axes[0].legend(loc="lower left")
    return _svg(fig)
