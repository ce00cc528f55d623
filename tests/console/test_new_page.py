"""The New change page (issue 31.8): what a change can touch, a picture of the current fight,
and the run set-up for operators only."""

from __future__ import annotations

import re

from gcv.console.views import changeable
from gcv.contract.models import BulletHellConfig
from gcv.contract.ranges import PATTERN_RANGES
from tests.console.test_viewer import BASELINE


def test_what_can_change_is_each_phases_pattern_and_the_targets_in_human_names() -> None:
    config = BulletHellConfig.model_validate_json(BASELINE.read_text(encoding="utf-8"))
    can = changeable(config)
    assert [p["name"] for p in can["phases"]] == ["Phase 1", "Phase 2", "Phase 3"]
    rows = {f["path"]: f for p in can["phases"] for f in p["fields"]}
    speed = rows["$.phases[1].pattern.bullet_speed"]
    assert speed["label"] == "bullet speed" and speed["now"] == "3.6 units/s"
    lo, hi = PATTERN_RANGES["bullet_speed"]
    assert speed["allowed"] == f"{float(lo):g} units/s to {float(hi):g} units/s"
    assert rows["$.phases[0].pattern.wave_interval_ms"]["allowed"] == "100 ms to 5000 ms"
    assert "aimed fan" in rows["$.phases[0].pattern.type"]["allowed"]
    # only what the safety layer lets a candidate change: no player, boss, arena or limits
    assert all(path.startswith("$.phases[") and ".pattern." in path for path in rows)
    targets = {t["path"]: t for t in can["targets"]}
    assert targets["$.targets.max_alive_bullets"]["allowed"].startswith("lower only")
    assert targets["$.targets.min_low_fps"]["allowed"].startswith("higher only")


def test_a_designer_sees_no_engine_set_up_and_an_operator_does(browser_as) -> None:
    designer = browser_as("dana").get("/new").text
    assert "What a change can touch" in designer and "Phase 2 · Turning spiral" in designer
    assert 'data-path="$.phases[1].pattern.bullets_per_wave"' in designer and '<img src="/new/baseline.png"' in designer
    assert 'id="engine-settings"' not in designer and "<select" not in designer
    assert "Agent provider" not in designer and "not available here" not in designer
    # the request still names the set-up the pickers would offer first (hidden, not shown)
    assert re.search(r'<input type="hidden" name="engine" value="python-sim">', designer)
    operator = browser_as("omar").get("/new").text  # an operator who may not submit: the set-up, read-only
    assert 'id="engine-settings"' in operator and "python-sim" in operator and "What a change can touch" in operator
    everyone = browser_as("all").get("/new").text
    assert '<select id="engine" name="engine">' in everyone and '<select id="provider" name="provider">' in everyone
    png = browser_as("dana").get("/new/baseline.png")
    assert png.status_code == 200 and png.headers["content-type"] == "image/png" and png.content[:4] == b"\x89PNG"
