"""The frame renderer is stable (same snapshot, same bytes) and draws what happened."""

from __future__ import annotations

import hashlib
import io

from PIL import Image

from gcv.sim.engine import Simulation
from gcv.simio.render import png_bytes
from tests.support.simutil import baseline_program


def _frames(ticks: tuple[int, ...]) -> list[bytes]:
    program = baseline_program()
    result = Simulation(program, {"kind": "scripted"}).run(seed=1, capture_ticks=ticks)
    return [png_bytes(program, snap) for snap in result.snapshots]


def test_png_is_byte_identical_across_runs() -> None:
    first, second = _frames((600, 1800)), _frames((600, 1800))
    assert [hashlib.sha256(b).hexdigest() for b in first] == [hashlib.sha256(b).hexdigest() for b in second]


def test_frame_shows_arena_bullets_and_hud() -> None:
    (data,) = _frames((900,))
    img = Image.open(io.BytesIO(data)).convert("RGB")
    assert img.size == (448, 640 + 30)
    colors = img.getcolors(maxcolors=1 << 16)
    assert colors is not None and len(colors) > 20  # not blank: arena, bullets, text
    # phase_2 bullets (light blue) are on screen at 15 s
    assert any(c == (56, 189, 248) for _, c in colors)


def test_capture_after_the_end_gives_no_frame() -> None:
    assert _frames((5000,)) == []
