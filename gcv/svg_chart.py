"""A small SVG chart writer: axes, ticks, grid, labels, legend, title (no matplotlib).

Pure Python and deterministic: the same calls give the same bytes (no ids from a random
source, no dates, numbers rounded to two decimals), so a report inside a bundle hashes the
same each time it is rebuilt. It draws exactly what the report needs (lines, post-steps,
horizontal reference lines, grouped bars with value labels and error bars) and nothing
more; ``gcv.evidence.plots`` composes the report's charts from it and
``gcv.analysis.frames`` the safe-area chart of ``gcv fair``. It imports nothing of gcv (the
lowest layer), so any layer may draw with it. Text stays text (a font
stack, no outlines), as the report's charts always were.

Coordinates: a ``Chart`` is ``width`` x ``height`` SVG pixels; an ``Axes`` is a box inside
it with data limits that are set before anything is drawn (``set_xlim``/``set_ylim``), and
maps data to pixels (y grows upwards in data, downwards in SVG).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, Sequence

FONT_FAMILY = "DejaVu Sans, Verdana, Arial, sans-serif"
TEXT_COLOR = "#1f2937"
SPINE_COLOR = "#94a3b8"
GRID_COLOR = "#e2e8f0"
CHAR_WIDTH = 0.58  # average advance of DejaVu Sans in ems: enough to lay out a legend

_STEPS = (1.0, 2.0, 2.5, 5.0, 10.0)
_INTEGER_STEPS = (1.0, 2.0, 5.0, 10.0)


def esc(text: object) -> str:
    """Text for an SVG element or attribute."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def num(value: float) -> str:
    """A coordinate: at most two decimals, no trailing zeros, never ``-0``."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def nice_ticks(lo: float, hi: float, *, max_ticks: int = 6, integer: bool = False) -> list[float]:
    """Tick values inside ``[lo, hi]`` at a step of 1, 2, 2.5 or 5 times a power of ten (1, 2
    or 5 with ``integer``, never below 1): the finest such step that gives at most
    ``max_ticks`` + 1 ticks; where that step leaves fewer than two, the next finer one (an
    axis always shows at least two values)."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise ValueError(f"tick range must be finite, got [{lo}, {hi}]")
    if max_ticks < 2:
        raise ValueError(f"max_ticks must be at least 2, got {max_ticks}")
    if hi < lo:
        lo, hi = hi, lo
    if hi == lo:
        hi = lo + 1
    exponent = math.floor(math.log10((hi - lo) / (max_ticks - 1)))
    if integer:
        steps = sorted({m * 10.0 ** e for e in range(max(exponent - 2, 0), max(exponent, 0) + 2)
                        for m in _INTEGER_STEPS[:-1]})
    else:
        steps = sorted({m * 10.0 ** e for e in range(exponent - 2, exponent + 2) for m in _STEPS[:-1]})

    tol = 1e-9 * (hi - lo)  # float rounding at the edges of the range

    def ticks_for(step: float) -> list[float]:
        first, last = math.ceil((lo - tol) / step), math.floor((hi + tol) / step)
        return [round(k * step, 10) for k in range(first, last + 1)]

    chosen: list[float] = []
    for step in steps:  # finest first
        ticks = ticks_for(step)
        if len(ticks) <= max_ticks + 1:
            if len(ticks) >= 2 or not chosen:
                chosen = ticks
            break
        chosen = ticks
    return chosen


def tick_label(value: float) -> str:
    """``3`` for whole numbers, otherwise the shortest of up to four decimals."""
    if abs(value - round(value)) < 1e-9:
        return str(int(round(value)))
    return f"{value:.4f}".rstrip("0").rstrip(".")


def text_width(text: str, size: float) -> float:
    """An estimate of the rendered width (for layout only)."""
    return len(text) * size * CHAR_WIDTH


@dataclass(frozen=True)
class LegendEntry:
    label: str
    color: str
    kind: Literal["line", "patch"]
    width: float = 1.5
    dash: str | None = None


class Axes:
    """One plotting area. Set the limits first, then draw; ``Chart.svg`` renders it."""

    def __init__(self, chart: "Chart", left: float, top: float, right: float, bottom: float, index: int) -> None:
        self.chart = chart
        self.left, self.top, self.right, self.bottom = left, top, right, bottom
        self.index = index
        self.xlim: tuple[float, float] | None = None
        self.ylim: tuple[float, float] | None = None
        self.xticks: list[tuple[float, str]] | None = None
        self.integer_y = False
        self.grid_x = True
        self.grid_y = True
        self.title = ""
        self.title_pad = 8.0  # pixels between the plotting box and the title's baseline
        self.xlabel = ""
        self.ylabel = ""
        self.data: list[str] = []
        self.overlay: list[str] = []
        self.legend_entries: list[LegendEntry] = []
        self.legend_loc: Literal["upper left", "lower left"] | None = None
        self.legend_ncols = 1

    # -- limits and mapping -------------------------------------------------------------
    def set_xlim(self, lo: float, hi: float) -> None:
        if not hi > lo:
            raise ValueError(f"x limits need lo < hi, got ({lo}, {hi})")
        self.xlim = (float(lo), float(hi))

    def set_ylim(self, lo: float, hi: float) -> None:
        if not hi > lo:
            raise ValueError(f"y limits need lo < hi, got ({lo}, {hi})")
        self.ylim = (float(lo), float(hi))

    def px(self, x: float) -> float:
        if self.xlim is None:
            raise RuntimeError("set_xlim before drawing")
        lo, hi = self.xlim
        return self.left + (x - lo) / (hi - lo) * (self.right - self.left)

    def py(self, y: float) -> float:
        if self.ylim is None:
            raise RuntimeError("set_ylim before drawing")
        lo, hi = self.ylim
        return self.bottom - (y - lo) / (hi - lo) * (self.bottom - self.top)

    def set_xticks(self, positions: Sequence[float], labels: Sequence[str]) -> None:
        if len(positions) != len(labels):
            raise ValueError(f"{len(positions)} tick positions but {len(labels)} labels")
        self.xticks = [(float(p), str(label)) for p, label in zip(positions, labels)]

    # -- drawing ------------------------------------------------------------------------
    def _legend(self, label: str | None, entry: LegendEntry) -> None:
        if label:
            self.legend_entries.append(entry)

    def line(self, xs: Sequence[float], ys: Sequence[float], *, color: str, width: float = 1.5,
             dash: str | None = None, label: str | None = None) -> None:
        """A polyline through the points (nothing for an empty series; a dot for one point)."""
        if len(xs) != len(ys):
            raise ValueError(f"{len(xs)} x values but {len(ys)} y values")
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        if len(xs) == 1:
            self.data.append(f'<circle cx="{num(self.px(xs[0]))}" cy="{num(self.py(ys[0]))}" r="{num(width)}" '
                             f'fill="{color}"/>')
        elif xs:
            points = " ".join(f"{num(self.px(x))},{num(self.py(y))}" for x, y in zip(xs, ys))
            self.data.append(f'<polyline points="{points}" fill="none" stroke="{color}" stroke-width="{num(width)}"'
                             f'{dash_attr} stroke-linejoin="round" stroke-linecap="butt"/>')
        self._legend(label, LegendEntry(label or "", color, "line", width, dash))

    def step_post(self, xs: Sequence[float], ys: Sequence[float], **style: object) -> None:
        """Steps that hold each value until the next x (matplotlib's ``where="post"``)."""
        if len(xs) != len(ys):
            raise ValueError(f"{len(xs)} x values but {len(ys)} y values")
        px: list[float] = []
        py: list[float] = []
        for i, (x, y) in enumerate(zip(xs, ys)):
            if i:
                px.append(x)
                py.append(ys[i - 1])
            px.append(x)
            py.append(y)
        self.line(px, py, **style)  # type: ignore[arg-type]

    def hline(self, y: float, *, color: str, width: float = 1.4, dash: str | None = "2,3",
              label: str | None = None) -> None:
        """A horizontal reference line across the whole axes (a limit)."""
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        self.data.append(f'<line x1="{num(self.left)}" y1="{num(self.py(y))}" x2="{num(self.right)}" '
                         f'y2="{num(self.py(y))}" stroke="{color}" stroke-width="{num(width)}"{dash_attr}/>')
        self._legend(label, LegendEntry(label or "", color, "line", width, dash))

    def bars(self, xs: Sequence[float], heights: Sequence[float], width: float, *, color: str,
             label: str | None = None, value_labels: bool = False, value_size: float = 9.5,
             yerr: tuple[Sequence[float], Sequence[float]] | None = None, err_color: str = "#334155") -> None:
        """Bars centred on ``xs`` (``width`` in data units) from 0 up to each height; with
        ``value_labels`` the value above each bar, with ``yerr`` (below, above) error bars."""
        if len(xs) != len(heights):
            raise ValueError(f"{len(xs)} bar positions but {len(heights)} heights")
        base = self.py(0.0)
        for i, (x, h) in enumerate(zip(xs, heights)):
            x0, x1 = self.px(x - width / 2), self.px(x + width / 2)
            top = self.py(h)
            y, hh = min(top, base), abs(base - top)
            self.data.append(f'<rect x="{num(x0)}" y="{num(y)}" width="{num(x1 - x0)}" height="{num(hh)}" '
                             f'fill="{color}"/>')
            if yerr is not None:
                below, above = yerr[0][i], yerr[1][i]
                cx = (x0 + x1) / 2
                y_lo, y_hi = self.py(h - below), self.py(h + above)
                cap = min(3.0, (x1 - x0) / 2)
                self.overlay.append(
                    f'<path d="M{num(cx)},{num(y_lo)}V{num(y_hi)}M{num(cx - cap)},{num(y_lo)}H{num(cx + cap)}'
                    f'M{num(cx - cap)},{num(y_hi)}H{num(cx + cap)}" stroke="{err_color}" stroke-width="0.8" '
                    f'fill="none"/>')
            if value_labels:
                self.overlay.append(f'<text x="{num((x0 + x1) / 2)}" y="{num(min(top, base) - 2)}" '
                                    f'font-size="{num(value_size)}" text-anchor="middle">{esc(tick_label(h))}</text>')
        self._legend(label, LegendEntry(label or "", color, "patch"))

    def vspan(self, x0: float, x1: float, *, color: str, opacity: float = 0.15) -> None:
        """A shaded band over the whole height between two x values (a phase, a warm-up)."""
        a, b = sorted((self.px(x0), self.px(x1)))
        self.data.append(f'<rect x="{num(a)}" y="{num(self.top)}" width="{num(b - a)}" '
                         f'height="{num(self.bottom - self.top)}" fill="{color}" fill-opacity="{num(opacity)}"/>')

    def vline(self, x: float, *, color: str, width: float = 1.2, label: str | None = None) -> None:
        """A vertical line over the whole height (a moment)."""
        self.data.append(f'<line x1="{num(self.px(x))}" y1="{num(self.top)}" x2="{num(self.px(x))}" '
                         f'y2="{num(self.bottom)}" stroke="{color}" stroke-width="{num(width)}"/>')
        self._legend(label, LegendEntry(label or "", color, "line", width))

    def marker(self, x: float, y: float, *, color: str, size: float = 5.0) -> None:
        """A downward triangle with its tip on (x, y) (a minimum)."""
        cx, cy, h = self.px(x), self.py(y), size
        self.overlay.append(f'<path d="M{num(cx)},{num(cy)}L{num(cx - h / 2)},{num(cy - h)}'
                            f'L{num(cx + h / 2)},{num(cy - h)}Z" fill="{color}"/>')

    def text(self, x: float, y: float, content: str, *, dy: float = 0.0, size: float | None = None,
             color: str | None = None, anchor: Literal["start", "middle", "end"] = "middle") -> None:
        """Text at a data position, ``dy`` pixels below it (negative: above); not clipped."""
        size_attr = f' font-size="{num(size)}"' if size else ""
        fill_attr = f' fill="{color}"' if color else ""
        self.overlay.append(f'<text x="{num(self.px(x))}" y="{num(self.py(y) + dy)}" text-anchor="{anchor}"'
                            f'{size_attr}{fill_attr}>{esc(content)}</text>')

    def legend(self, loc: Literal["upper left", "lower left"] = "upper left", ncols: int = 1) -> None:
        self.legend_loc = loc
        self.legend_ncols = max(1, ncols)

    # -- rendering ----------------------------------------------------------------------
    def _yticks(self) -> list[float]:
        assert self.ylim is not None
        return nice_ticks(*self.ylim, max_ticks=7, integer=self.integer_y)

    def _xticks(self) -> list[tuple[float, str]]:
        if self.xticks is not None:
            return self.xticks
        assert self.xlim is not None
        return [(t, tick_label(t)) for t in nice_ticks(*self.xlim, max_ticks=8)]

    def render(self) -> list[str]:
        if self.xlim is None or self.ylim is None:
            raise RuntimeError("an axes needs both limits before it is rendered")
        size = self.chart.font_size
        out = [f'<g class="axes" id="axes-{self.index}">']
        clip = f"clip-{self.chart.salt}-{self.index}"
        out.append(f'<clipPath id="{clip}"><rect x="{num(self.left)}" y="{num(self.top)}" '
                   f'width="{num(self.right - self.left)}" height="{num(self.bottom - self.top)}"/></clipPath>')
        xticks, yticks = self._xticks(), self._yticks()
        grid = []
        if self.grid_y:
            grid += [f'M{num(self.left)},{num(self.py(t))}H{num(self.right)}' for t in yticks]
        if self.grid_x:
            grid += [f'M{num(self.px(t))},{num(self.top)}V{num(self.bottom)}' for t, _ in xticks]
        if grid:
            out.append(f'<path d="{"".join(grid)}" stroke="{GRID_COLOR}" stroke-width="0.6" fill="none"/>')
        out.append(f'<g clip-path="url(#{clip})">' + "".join(self.data) + "</g>")
        out.extend(self.overlay)
        # spines (left and bottom) and outward ticks
        out.append(f'<path d="M{num(self.left)},{num(self.top)}V{num(self.bottom)}H{num(self.right)}" '
                   f'stroke="{SPINE_COLOR}" stroke-width="0.8" fill="none"/>')
        marks = [f'M{num(self.left)},{num(self.py(t))}h-3.5' for t in yticks]
        marks += [f'M{num(self.px(t))},{num(self.bottom)}v3.5' for t, _ in xticks]
        out.append(f'<path d="{"".join(marks)}" stroke="{SPINE_COLOR}" stroke-width="0.8" fill="none"/>')
        for t in yticks:
            out.append(f'<text x="{num(self.left - 6)}" y="{num(self.py(t) + size * 0.35)}" '
                       f'text-anchor="end">{esc(tick_label(t))}</text>')
        for t, label in xticks:
            out.append(f'<text x="{num(self.px(t))}" y="{num(self.bottom + 5 + size)}" '
                       f'text-anchor="middle">{esc(label)}</text>')
        if self.title:
            out.append(f'<text x="{num((self.left + self.right) / 2)}" y="{num(self.top - self.title_pad)}" '
                       f'font-size="{num(size * 1.1)}" font-weight="bold" text-anchor="middle">{esc(self.title)}</text>')
        if self.xlabel:
            out.append(f'<text x="{num((self.left + self.right) / 2)}" y="{num(self.bottom + 8 + 2.2 * size)}" '
                       f'text-anchor="middle">{esc(self.xlabel)}</text>')
        if self.ylabel:
            widest = max((text_width(tick_label(t), size) for t in yticks), default=0.0)
            x = self.left - 10 - widest - size * 0.4
            y = (self.top + self.bottom) / 2
            out.append(f'<text x="{num(x)}" y="{num(y)}" transform="rotate(-90 {num(x)} {num(y)})" '
                       f'text-anchor="middle">{esc(self.ylabel)}</text>')
        out.extend(self._render_legend())
        out.append("</g>")
        return out

    def _render_legend(self) -> list[str]:
        if not self.legend_loc or not self.legend_entries:
            return []
        size = self.chart.font_size * 0.9
        sample, gap, pad, row_h = 22.0, 6.0, 8.0, size * 1.45
        ncols = min(self.legend_ncols, len(self.legend_entries))
        nrows = math.ceil(len(self.legend_entries) / ncols)
        widths = [0.0] * ncols
        for k, entry in enumerate(self.legend_entries):  # filled column by column, as matplotlib does
            col = k // nrows
            widths[col] = max(widths[col], sample + gap + text_width(entry.label, size))
        x_start = self.left + pad
        y_start = self.top + pad if self.legend_loc == "upper left" else self.bottom - pad - nrows * row_h
        box_w = sum(widths) + (ncols - 1) * 14.0 + 8.0
        out = [f'<g class="legend" font-size="{num(size)}">',
               f'<rect x="{num(x_start - 4)}" y="{num(y_start - 2)}" width="{num(box_w)}" '
               f'height="{num(nrows * row_h + 4)}" fill="#ffffff" fill-opacity="0.8"/>']
        for k, entry in enumerate(self.legend_entries):
            col, row = k // nrows, k % nrows
            x = x_start + sum(widths[:col]) + col * 14.0
            y = y_start + row * row_h + row_h / 2
            if entry.kind == "patch":
                out.append(f'<rect x="{num(x + 4)}" y="{num(y - size * 0.35)}" width="{num(sample - 8)}" '
                           f'height="{num(size * 0.7)}" fill="{entry.color}"/>')
            else:
                dash = f' stroke-dasharray="{entry.dash}"' if entry.dash else ""
                out.append(f'<line x1="{num(x)}" y1="{num(y)}" x2="{num(x + sample)}" y2="{num(y)}" '
                           f'stroke="{entry.color}" stroke-width="{num(entry.width)}"{dash}/>')
            out.append(f'<text x="{num(x + sample + gap)}" y="{num(y + size * 0.35)}">{esc(entry.label)}</text>')
        out.append("</g>")
        return out


class Chart:
    """A figure of one or more axes; ``svg()`` is the document."""

    def __init__(self, width: float, height: float, *, font_size: float = 12.0, salt: str = "c") -> None:
        if width <= 0 or height <= 0:
            raise ValueError(f"chart size must be positive, got {width} x {height}")
        self.width, self.height = float(width), float(height)
        self.font_size = font_size
        self.salt = "".join(ch for ch in salt if ch.isalnum()) or "c"  # clip ids unique per chart in one page
        self.axes: list[Axes] = []

    def add_axes(self, left: float, top: float, right: float, bottom: float) -> Axes:
        """An axes whose plotting box spans these fractions of the chart (top-left origin)."""
        if not (0 <= left < right <= 1 and 0 <= top < bottom <= 1):
            raise ValueError(f"axes box must lie inside the chart: {(left, top, right, bottom)}")
        ax = Axes(self, left * self.width, top * self.height, right * self.width, bottom * self.height,
                  len(self.axes))
        self.axes.append(ax)
        return ax

    def svg(self) -> str:
        body = [part for ax in self.axes for part in ax.render()]
        return ('<?xml version="1.0" encoding="utf-8" standalone="no"?>\n'
                f'<svg xmlns="http://www.w3.org/2000/svg" width="{num(self.width)}" height="{num(self.height)}" '
                f'viewBox="0 0 {num(self.width)} {num(self.height)}" font-family="{esc(FONT_FAMILY)}" '
                f'font-size="{num(self.font_size)}" fill="{TEXT_COLOR}">\n'
                f'<rect width="100%" height="100%" fill="#ffffff"/>\n'
                + "\n".join(body) + "\n</svg>\n")
