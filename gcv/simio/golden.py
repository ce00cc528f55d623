"""Golden vectors: self-contained cases that the Python, C# and C++ simulations must match.

Each vector file holds a complete run request (the integer program, seed, player, no
output directory) and the expected gameplay telemetry, state hashes included. Some cases
deliberately break the validation rules (say 512 bullets a wave): the simulator must be
exact for any program, not only for the ones GCV would let through.

Regenerate with ``python -m gcv.simio.golden_files --write artifacts/vectors`` after a change to
simulation semantics (and update docs/simulation.md and both ports in the same commit).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from gcv.contract.models import BulletHellConfig
from gcv.contract.patterns import PATTERN_NAMES, PATTERNS
from gcv.sim.engine import Simulation
from gcv.sim.fixed import QUARTER, iatan2
from gcv.sim.players import player_label
from gcv.sim.program import PROGRAM_ID, compile_program, program_hash
from gcv.sim.telemetry import gameplay_view

VECTOR_ID = "gcv.golden_vector/1"
REPO = Path(__file__).resolve().parents[2]
BASELINE = REPO / "artifacts" / "baselines" / "shrine_trial.json"

ZIGZAG_TRACE = {
    "format": "gcv.inputs/1",
    "tick_hz": 60,
    "source": "synthetic zigzag with focus bursts (golden vector)",
    "runs": [[45, 1, 0, 0], [30, -1, 1, 0], [60, -1, 0, 1], [20, 0, -1, 0], [90, 1, -1, 0],
             [15, 0, 0, 0], [120, 1, 1, 1], [75, -1, -1, 0], [200, -1, 0, 0], [300, 1, 0, 1],
             [40, 0, 1, 0], [500, 0, -1, 1], [100, 1, 1, 0]],
}


def _base() -> dict[str, Any]:
    return json.loads(BASELINE.read_text(encoding="utf-8"))


def _pattern(cfg: dict[str, Any], phase: int, **changes: Any) -> dict[str, Any]:
    cfg["phases"][phase]["pattern"].update(changes)
    return cfg


def _cases() -> list[tuple[str, str, dict[str, Any], int, dict[str, Any]]]:
    """(name, description, config, seed, player)."""
    cases = []
    scripted = {"kind": "scripted"}

    def add(name: str, desc: str, cfg: dict[str, Any], seed: int, player: dict[str, Any]) -> None:
        cases.append((name, desc, cfg, seed, player))

    add("baseline_scripted", "committed baseline, scripted player", _base(), 1, scripted)
    for seed, skill in ((7, "novice"), (11, "average"), (13, "expert")):
        add(f"baseline_bot_{skill}", f"baseline, bot {skill}", _base(), seed,
            {"kind": "bot", "skill": skill})
    add("ring_three_layers", "ring with 3 layers and a partial spread",
        _pattern(_base(), 0, bullets_per_wave=20, layer_count=3, spread_angle_deg=300), 3, scripted)
    add("spiral_bidirectional", "dense bidirectional spiral in phase 2",
        _pattern(_base(), 1, bullets_per_wave=18, wave_interval_ms=500, rotation_per_wave_deg=23,
                 bidirectional=True), 5, {"kind": "bot", "skill": "average"})
    add("spiral_negative_rotation", "spiral turning clockwise, novice bot",
        _pattern(_base(), 1, rotation_per_wave_deg=-37.5, bullet_speed=5.25), 17,
        {"kind": "bot", "skill": "novice"})
    add("aimed_fan_layers", "aimed fan, 2 layers, aimed at a moving player",
        _pattern(_base(), 0, type="aimed_fan", bullets_per_wave=5, spread_angle_deg=60,
                 layer_count=2, wave_interval_ms=400), 2, scripted)
    add("aimed_fan_single", "aimed fan of one bullet (n = 1)",
        _pattern(_base(), 0, type="aimed_fan", bullets_per_wave=1, spread_angle_deg=10,
                 wave_interval_ms=100, bullet_speed=9), 4, {"kind": "bot", "skill": "expert"})
    add("petal_four_layers_bidirectional", "petal, 4 layers, both directions",
        _pattern(_base(), 2, layer_count=4, bidirectional=True, rotation_per_wave_deg=-13), 9,
        scripted)
    add("scatter_average", "seeded scatter centred on the player, average bot",
        _pattern(_base(), 1, type="scatter", bullets_per_wave=10, spread_angle_deg=120,
                 wave_interval_ms=300), 21, {"kind": "bot", "skill": "average"})
    add("scatter_expert", "wide scatter, expert bot",
        _pattern(_base(), 0, type="scatter", bullets_per_wave=24, spread_angle_deg=360,
                 wave_interval_ms=250, bullet_speed=2.5), 22, {"kind": "bot", "skill": "expert"})
    death = _pattern(_base(), 0, type="aimed_fan", bullets_per_wave=9, spread_angle_deg=40,
                     wave_interval_ms=100, bullet_speed=7)
    death["player"]["max_health"] = 2
    death["player"]["invulnerability_seconds"] = 0
    add("scripted_death", "a fight the scripted player cannot survive", death, 1, scripted)
    fast = _pattern(_base(), 1, bullets_per_wave=16, wave_interval_ms=100, rotation_per_wave_deg=7)
    add("minimum_interval", "100 ms waves (the shortest interval)", fast, 8, scripted)
    big = _pattern(_base(), 0, type="petal", bullets_per_wave=64, layer_count=4, bidirectional=True,
                   wave_interval_ms=100, rotation_per_wave_deg=180, bullet_speed=12,
                   bullet_lifetime_seconds=12)
    big["scenario"]["duration_seconds"] = 6
    add("maximum_bullets", "64 bullets x 4 layers x 2 directions every 100 ms", big, 99,
        {"kind": "bot", "skill": "novice"})
    add("inputs_trace", "a recorded inputs trace (zigzag, focus bursts)", _base(), 3,
        {"kind": "inputs", "trace": ZIGZAG_TRACE})
    carry = _base()
    carry["boss"]["max_health"] = 1800
    for ph in carry["phases"]:
        ph["pattern"].update(bullet_speed=0.5, bullet_lifetime_seconds=12)
    add("phase_carryover", "slow long-lived bullets carried across phase changes", carry, 6,
        {"kind": "bot", "skill": "average"})
    six = _base()
    six["phases"] = []
    kinds = [*PATTERN_NAMES, "spiral"]  # every kind, then a second spiral
    for i, kind in enumerate(kinds):
        six["phases"].append({
            "phase_id": f"p{i + 1}", "title": f"Phase {i + 1}",
            "trigger_boss_hp_below": [1.0, 0.9, 0.75, 0.5, 0.3, 0.1][i],
            "pattern": {"type": kind, "bullets_per_wave": 6 + 3 * i, "wave_interval_ms": 300 + 70 * i,
                        "bullet_speed": 2.5 + 0.75 * i, "bullet_lifetime_seconds": 4 + 0.5 * i,
                        "rotation_per_wave_deg": -30 + 11 * i, "spread_angle_deg": 360 if kind != "aimed_fan" else 90,
                        "layer_count": 2 if kind == "petal" else 1 + i % 3,
                        "bidirectional": PATTERNS[kind].rotates},
        })
    add("six_phases", "every pattern type across six phases, expert bot", six, 12345,
        {"kind": "bot", "skill": "expert"})
    small = _base()
    small["scenario"].update(arena_width=6, arena_height=8, duration_seconds=20)
    small["player"].update(start_position={"x": 0, "y": -3}, move_speed=8.25, hit_radius=0.5,
                           graze_radius=1.25, auto_fire_interval_seconds=0.05)
    small["boss"]["position"] = {"x": 0.5, "y": 3}
    add("small_arena", "cramped arena, off-centre boss, fast auto-fire", small, 77,
        {"kind": "bot", "skill": "novice"})
    add("large_seed", "the largest seed", _base(), (1 << 63) - 1, {"kind": "bot", "skill": "expert"})
    return cases


# --------------------------------------------------------------------------- directed vectors
# Hand-built programs (no config compiles to them) in which every comparison of the spec is
# met exactly at its boundary on a known tick, so that an off-by-one in any implementation
# (`<` for `<=`, a clamp one unit short, a lifetime one tick long) changes a gameplay figure.
# Bullets fly along an axis (angle 0, 16384, 32768 or 49152: the sine table gives exactly 0
# and +-65536 there), so after k moves a bullet is exactly `boss + k * speed`, and the player
# stands still (an inputs trace with no runs) or moves at a speed that divides the distances.
UNIT = 65536
RIGHT, UP, LEFT, DOWN = 0, 16384, 32768, 49152
STILL_TRACE = {"format": "gcv.inputs/1", "tick_hz": 60, "source": "stands still (directed golden vector)",
               "runs": []}
STILL = {"kind": "inputs", "trace": STILL_TRACE}
CLAMP_TRACE = {
    "format": "gcv.inputs/1", "tick_hz": 60,
    "source": "presses into the right wall, then the bottom-left corner (directed golden vector)",
    "runs": [[70, 1, 0, 0], [30, 0, -1, 1], [60, -1, -1, 0], [200, -1, -1, 1], [40, 1, 1, 0]],
}
def _directed(*, slots: list[list[int]], duration: int, wave_interval: int, lifetime: int,
              boss: tuple[int, int] = (0, 7 * UNIT), start: tuple[int, int] = (0, -7 * UNIT),
              hit: int = 16384, graze: int = 52429, max_health: int = 5, invulnerability: int = 0,
              boss_health: int = 3600, fire_interval: int = 6, damage: int = 10,
              triggers: tuple[int, ...] = (1_000_000,), speed: int = 6007, focus_speed: int = 2703,
              despawn: tuple[int, int] | None = None, state_hash_interval: int = 60) -> dict[str, Any]:
    program = compile_program(BulletHellConfig.model_validate(_base()))
    program["duration_ticks"] = duration
    if despawn is not None:
        program["arena"].update(despawn_x=despawn[0], despawn_y=despawn[1])
    program["player"].update(max_health=max_health, speed=speed, focus_speed=focus_speed, hit_radius=hit,
                             graze_radius=graze, start_x=start[0], start_y=start[1],
                             invulnerability_ticks=invulnerability, auto_fire_damage=damage,
                             auto_fire_interval_ticks=fire_interval)
    program["boss"].update(max_health=boss_health, x=boss[0], y=boss[1])
    program["phases"] = [{
        "phase_id": f"p{i + 1}", "trigger_micro": trigger, "pattern": "ring", "pattern_code": 0,
        "bullets_per_wave": len(slots), "wave_interval_ticks": wave_interval, "lifetime_ticks": lifetime,
        "rotation_per_wave": 0, "aim": False, "scatter_span": 0, "slots": copy.deepcopy(slots),
    } for i, trigger in enumerate(triggers)]
    program["state_hash_interval"] = state_hash_interval
    return program


Case = tuple[str, str, dict[str, Any], int, dict[str, Any]]  # name, description, program, seed, player
# (bullets of the phase's one wave, their lifetime in ticks) of boundary_half_thousandths
HALF_THOUSANDTH_PHASES = ((1, 7), (3, 11), (3, 3), (1, 1999))
# The x in [0, 16384] at which the quarter sine's final rounding meets an exact half
# (tests/sim/test_golden.py checks these are all of them).
SIN_TIES = (3679, 6043, 8182)


def _directed_cases_and_ticks() -> tuple[list[Case], dict[str, dict[str, Any]]]:
    """The directed cases, and for each the ticks at which its boundary is met."""
    cases: list[Case] = []
    ticks_by_name: dict[str, dict[str, Any]] = {}

    def add(name: str, desc: str, program: dict[str, Any], player: dict[str, Any], **ticks: Any) -> None:
        cases.append((name, desc, program, 1, player))
        ticks_by_name[name] = ticks

    # Boss 14 units above the still player, one bullet a wave straight down at 1/8 unit a tick:
    # after 110 moves it is exactly hit_radius (1/4 unit) above the player. Every wave's bullet
    # touches on its spawn tick + 110; no invulnerability, so each is a hit, the fifth is death.
    add("boundary_hit_radius", "directed: d2 == hit_radius^2 exactly on the first touching tick "
        "(a bullet straight down at a still player; hits at 110, 140, ... and death at 230)",
        _directed(slots=[[DOWN, 8192, 1]], duration=300, wave_interval=30, lifetime=200), STILL,
        first_hit=110)
    # 3/4 unit a tick from 7.5 units up: after 18 moves the bullet is exactly graze_radius (1 unit)
    # away, after 19 exactly hit_radius (1/4 unit), after 20 it has passed (1/2 unit below). So a
    # strict graze test never grazes (the next position already touches) and a strict hit test
    # never hits (the next position is outside the hit radius again).
    add("boundary_graze_radius", "directed: d2 == graze_radius^2 on one tick and d2 == hit_radius^2 "
        "on the next (graze at 18, hit at 19 after each wave)",
        _directed(slots=[[DOWN, 49152, 1]], duration=240, wave_interval=40, lifetime=200, boss=(0, 7 * UNIT + 32768),
                  graze=UNIT, invulnerability=10), STILL,
        first_graze=18, first_hit=19)
    # The hit geometry above with a lifetime of exactly 110 ticks: the bullet is removed in step 4
    # of the tick it would touch (step 7), so nobody is ever hit.
    add("boundary_lifetime", "directed: a bullet's lifetime ends on the tick it would touch the "
        "player (removed before the collision test: no hits)",
        _directed(slots=[[DOWN, 8192, 1], [UP, 2048, 1]], duration=300, wave_interval=30, lifetime=110), STILL,
        expiry=110)
    # Boss at (1, 7) units, despawn margins 9 x 13 units, four bullets along the axes at 1/8 unit
    # a tick: right reaches x = 9 exactly after 64 moves, left x = -9 after 80, up y = 13 after 48,
    # down y = -13 after 160; each is still inside on that tick and removed on the next. A fifth
    # flies down at 10000 a tick (13 + 7 units is not a multiple: removed after 132 moves).
    add("boundary_despawn_margin", "directed: bullets exactly on the despawn margin after k moves "
        "(kept on that tick, removed on the next), on all four sides",
        _directed(slots=[[RIGHT, 8192, 1], [LEFT, 8192, 1], [UP, 8192, 1], [DOWN, 8192, 1], [DOWN, 10000, 1]],
                  duration=400, wave_interval=25, lifetime=1000, boss=(UNIT, 7 * UNIT), start=(-5 * UNIT, -7 * UNIT),
                  despawn=(9 * UNIT, 13 * UNIT)), STILL,
        right=65, left=81, up=49, down=161, down_inexact=132)
    # The player walks right at 1/8 unit a tick from x = 0 and reaches the wall (x = 7 units)
    # exactly on tick 55, then keeps pushing (clamped); bullets fall from (7, 7) at 1/4 unit a
    # tick and are exactly hit_radius above the pinned player 55 ticks after their wave. Then
    # focused down, diagonally into the bottom-left corner (clamped on both axes), and back.
    add("boundary_arena_clamp", "directed: a player reaching the arena edge exactly, then pressing "
        "into it (clamped), hit exactly at hit_radius while pinned; state hash every 10 ticks",
        _directed(slots=[[DOWN, 16384, 1]], duration=400, wave_interval=10, lifetime=200, boss=(7 * UNIT, 7 * UNIT),
                  speed=8192, focus_speed=4096, max_health=9, state_hash_interval=10),
        {"kind": "inputs", "trace": CLAMP_TRACE},
        wall=55, first_hit=55)
    # 1000 boss health, 10 damage every 3 ticks: 500 left after the 50th shot (tick 147) and 250
    # after the 75th (tick 222); triggers at exactly 1/2 and 1/4 switch on those ticks.
    add("boundary_phase_trigger", "directed: boss health exactly at the trigger ratios (1/2 and 1/4) "
        "on a known auto-fire tick",
        _directed(slots=[[UP, 8192, 1], [RIGHT, 4096, 1]], duration=400, wave_interval=20, lifetime=100,
                  boss_health=1000, fire_interval=3, triggers=(1_000_000, 500_000, 250_000)), STILL,
        phase_2=147, phase_3=222, boss_dead=297)
    # The hit geometry with one health point and a boss that dies on the same tick (1110 health,
    # 10 damage every tick: 0 after the tick-110 shot): a player death beats a boss death.
    add("boundary_death_same_tick", "directed: the player dies on the tick the boss dies (tick 110): "
        "player_died wins",
        _directed(slots=[[DOWN, 8192, 1]], duration=300, wave_interval=30, lifetime=200, max_health=1,
                  boss_health=1110, fire_interval=1), STILL,
        death=110)
    # The hit geometry with 29 ticks of invulnerability and waves every 30 ticks: each next bullet
    # touches exactly on the first tick the player can be hit again.
    add("boundary_invulnerability", "directed: a bullet touches on the exact tick invulnerability "
        "ends (hits at 110, 140, 170, ...)",
        _directed(slots=[[DOWN, 8192, 1]], duration=300, wave_interval=30, lifetime=200, invulnerability=29),
        STILL, first_hit=110, second_hit=140)
    # Not a comparison but the writers' boundary: figures that are a whole number of
    # thousandths (16 bullets always alive: a mean of 16.0; a flat 10 ms frame model: 100.0
    # FPS) must be written 16.0 by every engine, as Python's float repr writes them.
    whole = _directed(slots=[[RIGHT + i * 4096, 2048, 1] for i in range(16)], duration=240, wave_interval=30,
                      lifetime=30)
    whole["frame_model"] = {"fixed_us": 10000, "per_bullet_us": 0, "per_check_us": 0}
    add("boundary_whole_thousandths", "directed: a constant 16 bullets alive and a flat frame model: "
        "mean_alive_bullets 16.0, 100.0 FPS (written with the .0)", whole, STILL, mean_alive=16)
    # Exact half-thousandths (issue 25.12): every phase's mean_alive_bullets is k + 1/2 thousandths,
    # so rounding half down (or to even) changes a gameplay figure in every phase; the last one
    # rounds up into a whole number (999.5 thousandths -> 1.0, half down 0.999). Still bullets
    # (speed 0: they stay at the boss, never despawn, never touch) with exact lifetimes, one wave
    # per phase (emitted on the phase's first tick), and phases that switch on trigger ties: a
    # million boss health, 1000 damage every 4 ticks, triggers exactly at the health after the
    # 5th, 25th and 37th shots (ticks 16, 96, 144). Phase ticks and alive sums: 16 and 7
    # (437.5), 80 and 33 (412.5), 48 and 9 (187.5), 2000 and 1999 (999.5).
    half = _directed(slots=[[UP, 0, 1]], duration=2144, wave_interval=36000, lifetime=1, boss_health=1_000_000,
                     damage=1000, fire_interval=4, triggers=(1_000_000, 995_000, 975_000, 963_000))
    for phase, (count, lifetime) in zip(half["phases"], HALF_THOUSANDTH_PHASES):
        phase.update(slots=[[UP + 4096 * k, 0, 1] for k in range(count)], bullets_per_wave=count,
                     lifetime_ticks=lifetime)
    add("boundary_half_thousandths", "directed: every phase's mean_alive_bullets is an exact half-thousandth "
        "(437.5, 412.5, 187.5 and 999.5 thousandths: rounded half up to 0.438, 0.413, 0.188 and 1.0), "
        "phases switching on exact trigger ties", half, STILL,
        phase_starts=[0, 16, 96, 144], milli=[438, 413, 188, 1000])
    # The compiler's exact halves (seconds and milliseconds to ticks are the only conversions a
    # six-decimal config can put on a tie): 20.025 s, 125 ms, 2.525 s, 0.525 s and 0.025 s are
    # 1201.5, 7.5, 151.5, 31.5 and 1.5 ticks, rounded half away from zero to 1202, 8, 152, 32 and
    # 2. The auto-fire interval decides on which ticks the phase triggers are met.
    ties = _base()
    ties["scenario"]["duration_seconds"] = 20.025
    ties["player"].update(invulnerability_seconds=0.525, auto_fire_interval_seconds=0.025)
    ties["boss"]["max_health"] = 7000  # the fight reaches time_up (tick 1202, not 1201)
    ties["player"]["max_health"] = 40
    ties["phases"][0]["pattern"].update(type="aimed_fan", bullets_per_wave=9, spread_angle_deg=40, bullet_speed=7,
                                        wave_interval_ms=125, bullet_lifetime_seconds=2.525)
    cases.append(("boundary_compiler_ties", "directed: a config whose seconds and milliseconds fall on exact "
                  "half ticks (duration 20.025 s, 125 ms waves, 2.525 s lifetime, 0.525 s invulnerability, "
                  "0.025 s auto-fire): every one rounded half away from zero", ties, 1, {"kind": "scripted"}))
    ticks_by_name["boundary_compiler_ties"] = {"duration_ticks": 1202, "wave_interval_ticks": 8,
                                               "lifetime_ticks": 152, "invulnerability_ticks": 32,
                                               "auto_fire_interval_ticks": 2}
    # The integer trigonometry's exact halves (the same hole as the thousandths: no vector met
    # one). The quarter sine rounds half up at x = 3679, 6043 and 8182 only, atan's octant at
    # r = 32768 among a few: the player stands 4 units right of and 2 below the boss (dx = 2|dy|,
    # r = 1/2 exactly), every slot is aimed, and the offsets put the aimed angles on every tie of
    # the sine (y) and the cosine (x) in two quadrants. At one unit a tick a sine one off moves
    # the bullet one Q16 unit a tick, an aim one off moves it six: the state hashes see both.
    aim = iatan2(-2 * UNIT, 4 * UNIT)
    targets = [a & 0xFFFF for x in SIN_TIES for a in (x, 2 * QUARTER + x, x - QUARTER, QUARTER - x)]
    trig = _directed(slots=[[t - aim, UNIT, 1] for t in targets], duration=120, wave_interval=36000, lifetime=200,
                     boss=(0, 2 * UNIT), start=(4 * UNIT, 0), hit=0, graze=0,
                     despawn=(1 << 28, 1 << 28))
    trig["phases"][0].update(aim=True, pattern="aimed_fan", pattern_code=2)
    add("boundary_trig_ties", "directed: aimed bullets whose aim (atan of 1/2) and emission angles fall on "
        "the exact half-unit ties of the integer sine and atan (rounded half up)", trig, STILL,
        aim=aim, atan_ratio=32768, sine_ties=list(SIN_TIES), angles=targets)
    return cases, ticks_by_name


def _directed_cases() -> list[Case]:
    return _directed_cases_and_ticks()[0]


# Every directed vector names the tick at which its boundary is met; tests/sim/test_golden.py
# checks that the Python reference meets it there. Computed once, at import, from the cases
# themselves (never filled in as a side effect of building the vectors).
BOUNDARY_TICKS: dict[str, dict[str, Any]] = _directed_cases_and_ticks()[1]


def build_vector(name: str, description: str, cfg: dict[str, Any], seed: int,
                 player: dict[str, Any]) -> dict[str, Any]:
    """A vector from a config (compiled here) or, for directed vectors, from a program."""
    if cfg.get("program") == PROGRAM_ID:
        program = copy.deepcopy(cfg)
    else:
        program = compile_program(BulletHellConfig.model_validate(cfg))
    result = Simulation(program, player).run(seed=seed)
    request = {
        "run_request": "gcv.run_request/1",
        "run_id": name,
        "program": program,
        "program_hash": program_hash(program),
        "config_hash": program["config_hash"],
        "seed": seed,
        "player": copy.deepcopy(player),
        "player_label": player_label(player),
        "capture_ticks": [],
        "output_dir": ".",
    }
    return {"vector": VECTOR_ID, "name": name, "description": description, "request": request,
            "expected": gameplay_view(result.telemetry)}


def build_vectors() -> list[dict[str, Any]]:
    return [build_vector(*case) for case in _cases() + _directed_cases()]


def vector_filename(index: int, vector: dict[str, Any]) -> str:
    return f"{index:02d}_{vector['name']}.json"
