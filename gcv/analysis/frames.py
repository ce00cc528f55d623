"""Pictures of an analysis: the arena at one tick with the covered area drawn, and the
safe-area chart. Both are byte-identical for identical input (integer state, fixed sizes,
no timestamps), so they can live in a content-addressed evidence bundle.

The frame is drawn at the simulator renderer's scale (``gcv.simio.render``) and colours, with
the bound's cells painted underneath: where a not-yet-hit player could be and is safe
(green), where it could be but every position is hit (red), and the rest of the covered area
(dark red). Cells are painted per pixel from the exact cell of the pixel's centre. A legend
band under the arena says what the colours, the white box, the dots and rings and the boss mean.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from gcv.analysis.grid import Grid
from gcv.analysis.report import FairnessReport
from gcv.simio.render import ARENA, BACKGROUND, BOSS, GRID, HUD_HEIGHT, PHASE_COLORS, PX_PER_UNIT, TEXT
from gcv.svg_chart import Chart

SAFE = (40, 150, 90)
REACH_HIT = (235, 60, 60)
COVERED = (90, 30, 40)
OUTLINE = (250, 250, 250)
MAX_SIDE_PX = 1024
MIN_SIDE_PX = 480
CHART_SALT = "gcv-fairness-chart"
LEGEND_HEIGHT = 44  # a band under the arena that says what the colours mean
LEGEND = (  # (what is drawn, its meaning); the swatches are drawn as in the arena
    ("safe", "reachable, not hit"),
    ("reach_hit", "reachable, hit this tick"),
    ("covered", "hit, unreachable anyway"),
    ("box", "where an unhit player can be"),
    ("bullet", "bullet (phase colour), ring = hit radius"),
    ("boss", "boss"),
)


def _font() -> Any:
    try:
        return ImageFont.load_default(size=14)
    except TypeError:  # Pillow without FreeType: bitmap font
        return ImageFont.load_default()


def _scale(program: dict[str, Any]) -> int:
    """Pixels per world unit: the simulator's 32, unless the arena would be drawn smaller than
    MIN_SIDE_PX or larger than MAX_SIDE_PX on its longer side."""
    arena = program["arena"]
    longest = max(2 * max(arena["half_width"], arena["half_height"]), 1)
    ppu = PX_PER_UNIT
    if (longest * ppu) >> 16 < MIN_SIDE_PX:
        ppu = min(8 * PX_PER_UNIT, -(-(MIN_SIDE_PX << 16) // longest))
    return max(2, min(ppu, (MAX_SIDE_PX << 16) // longest))


def cover_frame(program: dict[str, Any], grid: Grid, tick: int, bullets: tuple[np.ndarray, np.ndarray, np.ndarray],
                reach_before: np.ndarray, covered: np.ndarray, safe: np.ndarray, caption: str) -> Image.Image:
    """The arena at ``tick``: bullets (x, y, phase index), the boss, and the bound's cells.

    ``reach_before`` = post(F[tick - 1]) (where an unhit player could be before the tick's
    bullets are tested), ``covered`` = the certainly-hit cells, ``safe`` = F[tick]; all
    (ny, nx) booleans.
    """
    arena = program["arena"]
    hw, hh = arena["half_width"], arena["half_height"]
    ppu = _scale(program)
    width = (2 * hw * ppu) >> 16
    height = (2 * hh * ppu) >> 16
    # the cell under each pixel's centre (y grows downwards in the image)
    xs = ((np.arange(width) * 2 + 1) << 16) // (2 * ppu) - hw
    ys = hh - ((np.arange(height) * 2 + 1) << 16) // (2 * ppu)
    ci = np.clip(grid.cell_x(xs), 0, grid.nx - 1)
    cj = np.clip(grid.cell_y(ys), 0, grid.ny - 1)
    state = np.zeros((grid.ny, grid.nx), dtype=np.uint8)
    state[covered] = 1
    state[reach_before & covered] = 2
    state[safe] = 3
    palette = np.array([ARENA, COVERED, REACH_HIT, SAFE], dtype=np.uint8)
    cells = palette[state[cj][:, ci]]
    img = Image.new("RGB", (width, height + HUD_HEIGHT + LEGEND_HEIGHT), BACKGROUND)
    img.paste(Image.fromarray(cells, "RGB"), (0, HUD_HEIGHT))
    draw = ImageDraw.Draw(img)

    def to_px(x: int, y: int) -> tuple[int, int]:
        return ((x + hw) * ppu) >> 16, HUD_HEIGHT + (((hh - y) * ppu) >> 16)

    for gx in range(0, width, ppu * 2):
        draw.line([gx, HUD_HEIGHT, gx, HUD_HEIGHT + height], fill=GRID)
    for gy in range(HUD_HEIGHT, HUD_HEIGHT + height, ppu * 2):
        draw.line([0, gy, width, gy], fill=GRID)
    bx, by = to_px(program["boss"]["x"], program["boss"]["y"])
    boss_r = max(3, min(14, 14 * ppu // PX_PER_UNIT))
    draw.ellipse([bx - boss_r, by - boss_r, bx + boss_r, by + boss_r], fill=BOSS)
    hit_px = max(1, (program["player"]["hit_radius"] * ppu) >> 16)
    x, y, phase = bullets
    for bxq, byq, ph in zip(x.tolist(), y.tolist(), phase.tolist()):
        px, py = to_px(bxq, byq)
        if py < HUD_HEIGHT:  # above the arena: keep the caption readable
            continue
        colour = PHASE_COLORS[ph % len(PHASE_COLORS)]
        draw.ellipse([px - 3, py - 3, px + 3, py + 3], fill=colour)
        draw.ellipse([px - hit_px, py - hit_px, px + hit_px, py + hit_px], outline=colour, width=1)
    if reach_before.any():  # outline where the not-yet-hit player could be (small sets are easy to miss)
        rows, cols = np.flatnonzero(reach_before.any(axis=1)), np.flatnonzero(reach_before.any(axis=0))
        x0, y1 = to_px(int(grid.lo_x[cols[0]]), int(grid.lo_y[rows[0]]))
        x1, y0 = to_px(int(grid.hi_x[cols[-1]]), int(grid.hi_y[rows[-1]]))
        draw.rectangle([x0 - 2, y0 - 2, x1 + 2, y1 + 2], outline=OUTLINE, width=1)
    draw.text((8, 7), caption, fill=TEXT, font=_font())
    _legend(draw, width, HUD_HEIGHT + height)
    return img


def _legend(draw: ImageDraw.ImageDraw, width: int, top: int) -> None:
    """Two rows of swatch + words under the arena, three entries per row."""
    font = _small_font()
    col_w = max(1, width // 3)
    for k, (kind, words) in enumerate(LEGEND):
        x = 6 + (k % 3) * col_w
        y = top + 4 + (k // 3) * 20
        box = [x, y + 2, x + 12, y + 14]
        if kind == "safe":
            draw.rectangle(box, fill=SAFE)
        elif kind == "reach_hit":
            draw.rectangle(box, fill=REACH_HIT)
        elif kind == "covered":
            draw.rectangle(box, fill=COVERED)
        elif kind == "box":
            draw.rectangle(box, outline=OUTLINE, width=1)
        elif kind == "bullet":
            colour = PHASE_COLORS[0]
            draw.ellipse([x + 3, y + 5, x + 9, y + 11], fill=colour)
            draw.ellipse(box, outline=colour, width=1)
        else:
            draw.ellipse(box, fill=BOSS)
        draw.text((x + 17, y + 1), words, fill=TEXT, font=font)


def _small_font() -> Any:
    try:
        return ImageFont.load_default(size=11)
    except TypeError:  # Pillow without FreeType: bitmap font
        return ImageFont.load_default()


def png_bytes(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False, compress_level=6)
    return buf.getvalue()


def safe_area_svg(report: FairnessReport) -> str:
    """The safe-area curve as SVG: phases shaded, each phase's minimum marked, the unfair tick
    (if any) drawn as a red line. Deterministic (no date, no random ids, text as text)."""
    sa = report.safe_area
    chart = Chart(800, 320, font_size=12, salt=CHART_SALT)
    ax = chart.add_axes(0.08, 0.2, 0.98, 0.84)
    ax.set_xlim(0, max(report.fight_ticks, 1) / 60)
    ax.set_ylim(0, 100)
    for k, ph in enumerate(sa.phases):
        colour = "#%02x%02x%02x" % PHASE_COLORS[k % len(PHASE_COLORS)]
        ax.vspan(ph.start_tick / 60, ph.end_tick / 60, color=colour, opacity=0.12)
        ax.text((ph.start_tick + ph.end_tick) / 120, 100, ph.phase_id, dy=-4, size=10.5)
        if ph.ticks_considered:
            ax.marker(ph.min_tick / 60, ph.min_milli / 10, color="#b91c1c", size=6)
            ax.text(ph.min_tick / 60, ph.min_milli / 10, f"{ph.min_milli / 10:.1f}%", dy=13, size=9.5,
                    color="#b91c1c")
    if sa.warmup_ticks:
        ax.vspan(0, min(sa.warmup_ticks, len(sa.curve_milli)) / 60, color="#94a3b8", opacity=0.18)
    ax.line([t / 60 for t in range(len(sa.curve_milli))], [v / 10 for v in sa.curve_milli], color="#2563eb",
            width=1.0)
    if report.unfair is not None:
        ax.vline(report.unfair.tick / 60, color="#dc2626", width=1.2)
    ax.xlabel, ax.ylabel = "fight time (s)", "safe area (% of arena)"
    ax.title = f"{report.config_name}: reachable and not hit ({report.verdict})"
    ax.title_pad = 22.0  # above the phase names
    return chart.svg()


def sparkline(values: list[int], width: int = 48, lo: int = 0, hi: int = 1000) -> str:
    """A one-line chart of thousandths for the console, ``lo`` .. ``hi`` mapped onto nine
    block heights (the minimum of each bucket, so dips show)."""
    if not values:
        return ""
    blocks = " ▁▂▃▄▅▆▇█"
    n = len(values)
    cols = min(width, n)
    span = max(hi - lo, 1)
    out = []
    for k in range(cols):
        a, b = k * n // cols, (k + 1) * n // cols
        v = min(max(min(values[a:max(b, a + 1)]), lo), hi)
        out.append(blocks[min(8, (v - lo) * 9 // (span + 1))])
    return "".join(out)
