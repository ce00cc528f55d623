"""Random and exotic (program, seed, player) cases for the parity tests of the C++ core,
as a harness (test_harness_cpp) and in process (test_native)."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import strategies as st

from gcv.contract.models import BulletHellConfig
from gcv.sim.program import compile_program
from tests.support.simutil import BASELINE_PATH
from tests.support.strategies import decimals, valid_configs

PLAYERS = [{"kind": "scripted"}] + [{"kind": "bot", "skill": s} for s in ("novice", "average", "expert")]
MAX_SEED = (1 << 63) - 1


@st.composite
def _valid_config_program(draw: Any) -> dict[str, Any]:
    """A random valid config (tests/support/strategies.py). Half the time the boss's health is raised
    (inside the contract's range) so that the fight lasts dozens of auto-fire shots at least:
    minimal random configs often end on the first tick, which exercises little."""
    config = draw(valid_configs())
    if draw(st.booleans()):
        damage = config.player.auto_fire_damage
        health = min(100_000_000, damage * draw(st.integers(30, 3000)))
        config = config.model_copy(update={"boss": config.boss.model_copy(update={"max_health": health})})
    return compile_program(config)


@st.composite
def _pattern_fields(draw: Any) -> dict[str, Any]:
    """Any pattern inside the contract's field ranges (cross-field rules not enforced: the
    simulator must be exact for any program, as the golden vectors that break them show)."""
    return {
        "type": draw(st.sampled_from(["ring", "spiral", "aimed_fan", "petal", "scatter"])),
        "bullets_per_wave": draw(st.integers(1, 64)),
        "wave_interval_ms": draw(st.integers(100, 5000)),
        "bullet_speed": draw(decimals(0.5, 12)),
        "bullet_lifetime_seconds": draw(decimals(0.5, 12)),
        "rotation_per_wave_deg": draw(decimals(-180, 180)),
        "spread_angle_deg": draw(decimals(1, 360)),
        "layer_count": draw(st.integers(1, 4)),
        "bidirectional": draw(st.booleans()),
    }


@st.composite
def _baseline_variant_program(draw: Any) -> dict[str, Any]:
    """The committed baseline (a real 36 s fight) with random patterns in some phases."""
    data = json.loads(BASELINE_PATH.read_text(encoding="utf-8"))
    for phase in data["phases"]:
        if draw(st.booleans()):
            phase["pattern"] = draw(_pattern_fields())
    return compile_program(BulletHellConfig.model_validate(data))


@st.composite
def parity_cases(draw: Any) -> tuple[dict[str, Any], int, dict[str, Any]]:
    """(program, seed, player): random valid configs, or baseline variants."""
    program = draw(st.one_of(_valid_config_program(), _baseline_variant_program()))
    seed = draw(st.one_of(st.sampled_from([0, 1, MAX_SEED]), st.integers(0, MAX_SEED)))
    player = draw(st.sampled_from(PLAYERS))
    return program, seed, player


def _exotic(change: Any) -> Any:
    def apply(program: dict[str, Any]) -> dict[str, Any]:
        program = copy.deepcopy(program)
        change(program)
        return program
    return apply


def _set_all_slots(program: dict[str, Any], index: int, fn: Any) -> None:
    for phase in program["phases"]:
        for slot in phase["slots"]:
            slot[index] = fn(slot[index])


# Programs no valid config compiles to, each aimed at a place where C++ and Python integer
# semantics differ (negative shifts and divisions, masks, argmax ties, odd gates). Every one
# is inside the program bounds (gcv/sim/program_model.py), which all three readers share.
EXOTIC = {
    "hit_radius_above_graze_radius": _exotic(lambda p: p["player"].update(hit_radius=3 * 65536, graze_radius=65536)),
    "boss_outside_despawn_margin": _exotic(lambda p: p["boss"].update(x=-800_000, y=1_000_000)),
    "negative_slot_speeds": _exotic(lambda p: _set_all_slots(p, 1, lambda v: -v)),
    "huge_angle_offsets": _exotic(lambda p: _set_all_slots(p, 0, lambda v: v * 977 - (1 << 38))),
    "negative_scripted_rates": _exotic(lambda p: p["scripted"].update(rate_x=-p["scripted"]["rate_x"],
                                                                     rate_y=-3 * p["scripted"]["rate_y"])),
    "unsorted_triggers_reenter_phases": _exotic(lambda p: [ph.update(trigger_micro=t) for ph, t in
                                                          zip(p["phases"], (400_000, 900_000, 100_000))]),
    "odd_state_hash_interval": _exotic(lambda p: p.update(state_hash_interval=7)),
    "bot_with_one_tick_lookahead_and_no_home": _exotic(lambda p: [p["bot"].update(home_shift=0)] +
                                                       [s.update(lookahead_ticks=1, reaction_ticks=1)
                                                        for s in p["bot"]["skills"].values()]),
    "negative_start_and_zero_invulnerability": _exotic(lambda p: p["player"].update(
        start_x=-400_000, start_y=-650_000, invulnerability_ticks=0, max_health=40)),
}
