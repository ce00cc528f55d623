"""Frame renderer: the arena at one tick as a PNG, byte-identical for identical input.

Used for before/after frames in reports and for capture ticks of python-sim runs. It draws
from integer state only (positions are Q16.16), with integer pixel coordinates, so the
same snapshot always produces the same bytes with the same Pillow version.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from gcv.sim.engine import Snapshot

PX_PER_UNIT = 32
HUD_HEIGHT = 30
BACKGROUND = (14, 16, 28)
ARENA = (24, 28, 46)
GRID = (34, 39, 62)
BOSS = (236, 72, 153)
PLAYER = (96, 230, 160)
PLAYER_INVULNERABLE = (250, 250, 250)
HIT = (255, 70, 70)
TEXT = (226, 232, 240)
PHASE_COLORS = [(250, 204, 21), (56, 189, 248), (251, 113, 133), (167, 139, 250),
                (52, 211, 153), (251, 146, 60)]


def _font() -> Any:
    try:
        return ImageFont.load_default(size=14)
    except TypeError:  # Pillow without FreeType: bitmap font
        return ImageFont.load_default()


def render_frame(program: dict[str, Any], snap: Snapshot) -> Image.Image:
    arena = program["arena"]
    hw, hh = arena["half_width"], arena["half_height"]
    width = (2 * hw * PX_PER_UNIT) >> 16
    height = (2 * hh * PX_PER_UNIT) >> 16
    img = Image.new("RGB", (width, height + HUD_HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(img)

    def to_px(x: int, y: int) -> tuple[int, int]:
        return ((x + hw) * PX_PER_UNIT) >> 16, HUD_HEIGHT + (((hh - y) * PX_PER_UNIT) >> 16)

    draw.rectangle([0, HUD_HEIGHT, width - 1, HUD_HEIGHT + height - 1], fill=ARENA)
    for gx in range(0, width, PX_PER_UNIT * 2):
        draw.line([gx, HUD_HEIGHT, gx, HUD_HEIGHT + height], fill=GRID)
    for gy in range(HUD_HEIGHT, HUD_HEIGHT + height, PX_PER_UNIT * 2):
        draw.line([0, gy, width, gy], fill=GRID)
    bx, by = to_px(program["boss"]["x"], program["boss"]["y"])
    draw.ellipse([bx - 14, by - 14, bx + 14, by + 14], fill=BOSS)
    for x, y, ph in zip(snap.x.tolist(), snap.y.tolist(), snap.phase.tolist()):
        px, py = to_px(x, y)
        color = PHASE_COLORS[ph % len(PHASE_COLORS)]
        draw.ellipse([px - 4, py - 4, px + 4, py + 4], fill=color)
    px, py = to_px(snap.player_x, snap.player_y)
    graze = (program["player"]["graze_radius"] * PX_PER_UNIT) >> 16
    hit = max(2, (program["player"]["hit_radius"] * PX_PER_UNIT) >> 16)
    draw.ellipse([px - graze, py - graze, px + graze, py + graze], outline=GRID, width=1)
    color = PLAYER_INVULNERABLE if snap.invulnerable else PLAYER
    draw.polygon([(px, py - 16), (px - 12, py + 12), (px + 12, py + 12)], fill=color)
    draw.ellipse([px - hit, py - hit, px + hit, py + hit], outline=HIT if snap.hit_this_tick else TEXT,
                 width=2)
    if snap.hit_this_tick:
        draw.ellipse([px - 16, py - 16, px + 16, py + 16], outline=HIT, width=3)
    phase_id = program["phases"][snap.phase_index]["phase_id"]
    seconds = snap.tick // 60
    hundredths = (snap.tick % 60) * 100 // 60
    hud = (f"t {seconds}.{hundredths:02d}s  tick {snap.tick}  {phase_id}  "
           f"alive {snap.x.size}  boss {snap.boss_health}")
    draw.text((8, 7), hud, fill=TEXT, font=_font())
    return img


def png_bytes(program: dict[str, Any], snap: Snapshot) -> bytes:
    buf = io.BytesIO()
    render_frame(program, snap).save(buf, format="PNG", optimize=False, compress_level=6)
    return buf.getvalue()


def write_frame(path: Path, program: dict[str, Any], snap: Snapshot) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(png_bytes(program, snap))
    tmp.replace(path)
