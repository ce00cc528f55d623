"""``gcv fair`` through the real command line on the fights it proves unfair (issue 29).

The command used to die with exit 70 (an IndexError drawing the "tightest moment") on every
fight it proved unfair whose wall closes before the opening spread is over: the tightest tick
was taken after the unfair tick, where no per-tick data is kept. Solid ring walls are exactly
such fights, whatever their generator's parameters.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import pytest

from tests.hostile.conftest import Ran
from tests.support.fairutil import ring_wall


@pytest.mark.parametrize("wall", [
    ring_wall(),  # unfair at tick 34, the opening spread lasts 150 ticks
    ring_wall(width=8, bullets=64, hit_radius=0.6, speed=1.5, player_speed=2.0, start_y=-1.0),
    ring_wall(width=5, bullets=48, hit_radius=0.5, speed=3.0, player_speed=5.0, start_y=-2.0),
], ids=["default", "wide-slow-ring", "fast-player"])
def test_an_unfair_wall_prints_its_verdict_and_exits_1(gcv: Callable[..., Ran], tmp_path: Path,
                                                        wall: dict) -> None:
    config = tmp_path / "wall.json"
    config.write_text(json.dumps(wall), encoding="utf-8")
    ran = gcv("fair", str(config), timeout=120).clean(1)
    assert "UNFAIR" in ran.stdout and "every position reachable without a hit is hit" in ran.stdout
    frames = list((tmp_path / "home" / "fair").glob("*/unfair_tick_*.png"))
    assert len(frames) == 1 and frames[0].read_bytes().startswith(b"\x89PNG")
    doc = gcv("fair", str(config), "--json", timeout=120).clean(1).json()
    report = doc["report"]
    assert report["verdict"] == "unfair" and doc["exit_code"] == 1
    # the tightest moment of an unfair fight is its wall, never a tick after it
    assert report["safe_area"]["tightest_tick"] == report["unfair"]["tick"]
    assert report["effort"]["stopped_by"] == "complete"
