"""Golden vectors: the Python reference reproduces every committed vector exactly."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest

from gcv.sim.engine import Simulation
from gcv.simio import golden
from gcv.simio.golden import BOUNDARY_TICKS, build_vectors, vector_filename
from gcv.sim.program import program_hash
from gcv.sim.telemetry import gameplay_view
from tests.support.simutil import VECTORS, load_vector


def test_there_are_enough_vectors_covering_the_spec() -> None:
    vectors = [load_vector(p) for p in VECTORS]
    assert len(vectors) >= 16
    patterns = {ph["pattern"] for v in vectors for ph in v["request"]["program"]["phases"]}
    assert patterns == {"ring", "spiral", "aimed_fan", "petal", "scatter"}
    players = {v["request"]["player_label"].split(":")[0] if v["request"]["player"]["kind"] == "inputs"
               else v["request"]["player_label"] for v in vectors}
    assert {"scripted", "bot:novice", "bot:average", "bot:expert", "inputs"} <= players
    statuses = {v["expected"]["status"] for v in vectors}
    assert statuses == {"completed", "died"}
    assert any(len({s[2] for s in ph["slots"]}) == 2 for v in vectors for ph in v["request"]["program"]["phases"])
    assert any(ph["wave_interval_ticks"] == 6 for v in vectors for ph in v["request"]["program"]["phases"])
    assert any(len(ph["slots"]) == 512 for v in vectors for ph in v["request"]["program"]["phases"])


@pytest.mark.parametrize("path", VECTORS, ids=[p.stem for p in VECTORS])
def test_python_reproduces_vector(path) -> None:
    vector = load_vector(path)
    request = vector["request"]
    assert program_hash(request["program"]) == request["program_hash"]
    sim = Simulation(request["program"], request["player"])
    telemetry = sim.run(seed=request["seed"]).telemetry
    telemetry["player"] = request["player_label"]
    assert gameplay_view(telemetry) == vector["expected"]


@pytest.mark.slow
def test_committed_vectors_are_what_the_generator_produces() -> None:
    """A semantics change that forgot to regenerate the vectors fails here."""
    built = build_vectors()
    assert [vector_filename(i, v) for i, v in enumerate(built, start=1)] == [p.name for p in VECTORS]
    for vector, path in zip(built, VECTORS):
        assert vector == load_vector(path), f"{path.name} is stale: run python -m gcv.simio.golden_files --write artifacts/vectors"


# ---------------------------------------------------------------------------- directed vectors
def _directed(name: str) -> dict:
    (path,) = [p for p in VECTORS if p.stem.endswith(name)]
    return load_vector(path)


def _ticks_with_next_positions(request: dict) -> dict[int, tuple[list[int], int, int, int]]:
    """Step the reference; per tick t: the squared distances that step 7 compared for the
    bullets that existed before t (and did not expire in it), and px, py, grazes after t."""
    sim = Simulation(request["program"], request["player"])
    sim.reset(seed=request["seed"])
    out = {}
    while True:
        t = sim.tick
        moved = [(int(x + vx), int(y + vy)) for x, y, vx, vy, death in
                 zip(sim.X, sim.Y, sim.VX, sim.VY, sim.DEATH) if death > t]
        more = sim.step()
        out[t] = ([(x - sim.px) ** 2 + (y - sim.py) ** 2 for x, y in moved], sim.px, sim.py, sim.grazes)
        if not more:
            return out


@pytest.mark.parametrize("name, radius, tick_key", [
    ("boundary_hit_radius", "hit_radius", "first_hit"),
    ("boundary_graze_radius", "hit_radius", "first_hit"),
    ("boundary_graze_radius", "graze_radius", "first_graze"),
    ("boundary_arena_clamp", "hit_radius", "first_hit"),
    ("boundary_death_same_tick", "hit_radius", "death"),
    ("boundary_invulnerability", "hit_radius", "second_hit"),
])
def test_directed_vector_meets_its_radius_exactly(name: str, radius: str, tick_key: str) -> None:
    """On the named tick some bullet is exactly `radius` from the player, and no nearer one."""
    vector = _directed(name)
    request = vector["request"]
    tick = BOUNDARY_TICKS[name][tick_key]
    r = request["program"]["player"][radius]
    d2s = _ticks_with_next_positions(request)[tick][0]
    assert min(d2s) == r * r, f"{name}: nearest d2 on tick {tick} is {min(d2s)}, not {radius}^2 = {r * r}"
    if radius == "hit_radius":
        assert tick in vector["expected"]["hit_ticks"]
        assert tick - 1 not in vector["expected"]["hit_ticks"]


def test_directed_graze_is_counted_on_the_boundary_tick_only() -> None:
    request = _directed("boundary_graze_radius")["request"]
    grazes = {t: g for t, (_, _, _, g) in _ticks_with_next_positions(request).items()}
    first = BOUNDARY_TICKS["boundary_graze_radius"]["first_graze"]
    assert grazes[first - 1] == 0 and grazes[first] == 1


def test_directed_clamp_reaches_the_wall_exactly() -> None:
    request = _directed("boundary_arena_clamp")["request"]
    hw = request["program"]["arena"]["half_width"]
    hh = request["program"]["arena"]["half_height"]
    wall = BOUNDARY_TICKS["boundary_arena_clamp"]["wall"]
    ticks = _ticks_with_next_positions(request)
    px = {t: x for t, (_, x, _, _) in ticks.items()}
    py = {t: y for t, (_, _, y, _) in ticks.items()}
    assert px[wall] == hw and px[wall - 1] == hw - request["program"]["player"]["speed"]
    assert all(px[t] == hw for t in range(wall, 100))  # pressing right (then down) against it
    assert min(py.values()) == -hh and min(px.values()) == -hw  # the corner, on both axes


def test_directed_lifetime_and_despawn_end_on_their_ticks() -> None:
    request = _directed("boundary_lifetime")["request"]
    sim = Simulation(request["program"], request["player"])
    sim.reset(seed=1)
    sim.step()  # tick 0: the first wave
    assert [int(d) for d in sim.DEATH] == [BOUNDARY_TICKS["boundary_lifetime"]["expiry"]] * 2
    request = _directed("boundary_despawn_margin")["request"]
    program = request["program"]
    sim = Simulation(program, request["player"])
    sim.reset(seed=1)
    sim.step()
    ticks = BOUNDARY_TICKS["boundary_despawn_margin"]
    assert [int(d) for d in sim.DEATH] == [ticks[k] for k in ("right", "left", "up", "down", "down_inexact")]
    # on the tick before removal each exact bullet lies on its margin, not beyond it
    margins = {"right": (0, program["arena"]["despawn_x"]), "left": (0, -program["arena"]["despawn_x"]),
               "up": (1, program["arena"]["despawn_y"]), "down": (1, -program["arena"]["despawn_y"])}
    boss = (program["boss"]["x"], program["boss"]["y"])
    for i, side in enumerate(("right", "left", "up", "down")):
        axis, margin = margins[side]
        moves = ticks[side] - 1
        v = (int(sim.VX[i]), int(sim.VY[i]))
        assert boss[axis] + moves * v[axis] == margin


def test_directed_phase_triggers_switch_at_the_exact_health() -> None:
    vector = _directed("boundary_phase_trigger")
    starts = [p["start_tick"] for p in vector["expected"]["phase_results"]]
    ticks = BOUNDARY_TICKS["boundary_phase_trigger"]
    assert starts == [0, ticks["phase_2"], ticks["phase_3"]]
    program = vector["request"]["program"]
    fire = program["player"]["auto_fire_interval_ticks"]
    damage = program["player"]["auto_fire_damage"]
    health = program["boss"]["max_health"]
    for tick, trigger in ((ticks["phase_2"], 500_000), (ticks["phase_3"], 250_000)):
        left = health - damage * (tick // fire + 1)
        assert left * 1_000_000 == trigger * health  # exactly on the ratio, not past it
    assert vector["expected"]["end_reason"] == "boss_defeated" and vector["expected"]["ticks"] == ticks["boss_dead"] + 1


def test_directed_death_beats_boss_death_on_the_same_tick() -> None:
    expected = _directed("boundary_death_same_tick")["expected"]
    tick = BOUNDARY_TICKS["boundary_death_same_tick"]["death"]
    assert expected["status"] == "died" and expected["end_reason"] == "player_died"
    assert expected["boss_health_remaining"] == 0 and expected["hit_ticks"] == [tick]


def test_directed_whole_thousandths_are_whole() -> None:
    """The writers' boundary: Python writes these figures with a trailing .0."""
    vector = _directed("boundary_whole_thousandths")
    request = vector["request"]
    telemetry = Simulation(request["program"], request["player"]).run(seed=request["seed"]).telemetry
    assert telemetry["phase_results"][0]["mean_alive_bullets"] == 16.0
    assert (telemetry["average_fps"], telemetry["low_fps"], telemetry["worst_frame_ms"]) == (100.0, 100.0, 10.0)
    assert '"mean_alive_bullets": 16.0' in json.dumps(telemetry, indent=1, sort_keys=True)


# ---------------------------------------------------------------------------- rounding ties (issue 25.12)
def test_directed_half_thousandths_end_every_phase_on_a_tie() -> None:
    """Every phase's mean is exactly k + 1/2 thousandths, rounded half up; the phases switch on
    exact trigger ties (the boss health times 10^6 equals trigger_micro times its maximum)."""
    vector = _directed("boundary_half_thousandths")
    ticks = BOUNDARY_TICKS["boundary_half_thousandths"]
    phases = vector["expected"]["phase_results"]
    assert [p["start_tick"] for p in phases] == ticks["phase_starts"]
    for p, milli in zip(phases, ticks["milli"], strict=True):
        s, t = p["alive_tick_sum"], p["ticks"]
        assert (2000 * s) % (2 * t) == t, f"{p['phase_id']}: {s}/{t} is not a half-thousandth"
        assert (2000 * s + t) // (2 * t) == milli and p["mean_alive_bullets"] == milli / 1000
    assert phases[-1]["mean_alive_bullets"] == 1.0  # 999.5 thousandths carry into a whole number
    program = vector["request"]["program"]
    fire, damage = program["player"]["auto_fire_interval_ticks"], program["player"]["auto_fire_damage"]
    health = program["boss"]["max_health"]
    for start, phase in zip(ticks["phase_starts"][1:], program["phases"][1:]):
        left = health - damage * (start // fire + 1)
        assert left * 1_000_000 == phase["trigger_micro"] * health


def _half_down(numerator: int, denominator: int) -> int:
    return (2000 * numerator + denominator - 1) // (2 * denominator)


def _half_even(numerator: int, denominator: int) -> int:
    return round(Fraction(1000 * numerator, denominator))  # Python's round: ties to even


@pytest.mark.parametrize("rounding", [_half_down, _half_even], ids=["half-down", "half-even"])
def test_a_planted_thousandths_rounding_error_is_caught(monkeypatch: pytest.MonkeyPatch, rounding: Any) -> None:
    """The planted bug of issue 25.12 in the Python reference (the C++ and C# cores get the same
    plant in test_harness_cpp.py / test_harness_csharp.py): the directed vector fails, while the
    other vectors, none of which ends on a tie, would all have passed."""
    import gcv.sim.telemetry as telemetry

    vector = _directed("boundary_half_thousandths")
    request = vector["request"]
    monkeypatch.setattr(telemetry, "milli_ratio", rounding)
    got = Simulation(request["program"], request["player"]).run(seed=request["seed"]).telemetry
    got["player"] = request["player_label"]
    assert gameplay_view(got) != vector["expected"]
    changed = [p["phase_id"] for p, e in zip(got["phase_results"], vector["expected"]["phase_results"])
               if p["mean_alive_bullets"] != e["mean_alive_bullets"]]
    assert changed == (["p1", "p2", "p3", "p4"] if rounding is _half_down else ["p2"])


def test_directed_compiler_ties_are_exact_halves_rounded_away_from_zero() -> None:
    """The config's seconds and milliseconds are exact half ticks; the program holds them rounded up."""
    vector = _directed("boundary_compiler_ties")
    program = vector["request"]["program"]
    wanted = BOUNDARY_TICKS["boundary_compiler_ties"]
    got = {"duration_ticks": program["duration_ticks"], "wave_interval_ticks": program["phases"][0]["wave_interval_ticks"],
           "lifetime_ticks": program["phases"][0]["lifetime_ticks"],
           "invulnerability_ticks": program["player"]["invulnerability_ticks"],
           "auto_fire_interval_ticks": program["player"]["auto_fire_interval_ticks"]}
    assert got == wanted
    config = next(c for c in golden._directed_cases() if c[0] == "boundary_compiler_ties")[2]
    exact_ticks = [Fraction(str(config["scenario"]["duration_seconds"])) * 60,
                   Fraction(config["phases"][0]["pattern"]["wave_interval_ms"] * 60, 1000),
                   Fraction(str(config["phases"][0]["pattern"]["bullet_lifetime_seconds"])) * 60,
                   Fraction(str(config["player"]["invulnerability_seconds"])) * 60,
                   Fraction(str(config["player"]["auto_fire_interval_seconds"])) * 60]
    assert all(x.denominator == 2 for x in exact_ticks)
    assert [x + Fraction(1, 2) for x in exact_ticks] == list(wanted.values())
    assert vector["expected"]["end_reason"] == "time_up" and vector["expected"]["ticks"] == wanted["duration_ticks"]
    assert len(vector["expected"]["hit_ticks"]) > 1  # hits exactly invulnerability_ticks + 1 apart: the window matters
    gaps = [b - a for a, b in zip(vector["expected"]["hit_ticks"], vector["expected"]["hit_ticks"][1:])]
    assert min(gaps) == wanted["invulnerability_ticks"] + 1


def test_a_planted_compiler_rounding_error_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """round_half_away planted as half down: the compiler ties vector no longer reproduces."""
    import math

    import gcv.sim.fixed as fixed
    import gcv.sim.program as program_module

    def half_down(x: Fraction) -> int:
        n = math.ceil(abs(x) - Fraction(1, 2))
        return -n if x < 0 else n

    case = next(c for c in golden._directed_cases() if c[0] == "boundary_compiler_ties")
    expected = _directed("boundary_compiler_ties")
    monkeypatch.setattr(fixed, "round_half_away", half_down)
    monkeypatch.setattr(program_module, "round_half_away", half_down)
    program_module._slots_of.cache_clear()
    try:
        assert golden.build_vector(*case) != expected
    finally:
        program_module._slots_of.cache_clear()


def _quarter_sin_ties() -> list[int]:
    """Every x whose quarter sine meets an exact half before its final rounding."""
    from gcv.sim.fixed import SIN_C

    c0, c1, c2, c3, c4 = SIN_C
    ties = []
    for x in range(16385):
        u = x << 16
        u2 = (u * u) >> 30
        t = c0 - ((u2 * (c1 - ((u2 * (c2 - ((u2 * (c3 - ((u2 * c4) >> 30))) >> 30))) >> 30))) >> 30)
        if ((u * t) >> 30) & 0x3FFF == 8192:
            ties.append(x)
    return ties


def test_directed_trig_ties_meet_every_sine_tie_and_an_atan_tie() -> None:
    """The aim is atan of exactly 1/2 (a tie of the octant polynomial) and the aimed emission
    angles read every tie of the quarter sine, in the y and the x velocity."""
    from gcv.sim.fixed import QUARTER, icos, isin

    assert list(golden.SIN_TIES) == _quarter_sin_ties()
    vector = _directed("boundary_trig_ties")
    ticks = BOUNDARY_TICKS["boundary_trig_ties"]
    program, request = vector["request"]["program"], vector["request"]
    dx = program["player"]["start_x"] - program["boss"]["x"]
    dy = program["player"]["start_y"] - program["boss"]["y"]
    r = (abs(dy) << 16) // abs(dx)
    assert abs(dx) >= abs(dy) and r == ticks["atan_ratio"]
    p, q = (r * (65536 - r)) >> 16, 2552 + ((692 * r) >> 16)
    assert (8192 * r + p * q) & 0xFFFF == 32768  # atan's octant meets an exact half here
    sim = Simulation(program, request["player"])
    sim.reset(seed=request["seed"])
    sim.step()  # tick 0: the one wave
    angles = [(slot[0] + ticks["aim"]) & 0xFFFF for slot in program["phases"][0]["slots"]]
    assert angles == ticks["angles"]
    read = set()
    for a, vx, vy in zip(angles, sim.VX, sim.VY, strict=True):
        assert (int(vx), int(vy)) == (icos(a), isin(a))  # one unit a tick: the table value itself
        for b in (a, (a + QUARTER) & 0xFFFF):  # the sine entry of vy, then of vx
            x = b & (QUARTER - 1) if (b >> 14) % 2 == 0 else QUARTER - (b & (QUARTER - 1))
            if x in golden.SIN_TIES:
                read.add(x)
    assert read == set(golden.SIN_TIES)


def test_a_planted_trig_rounding_error_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Half down in the quarter sine's final rounding, planted in the reference's tables: the
    trig ties vector fails (C++ and C# get the same plant, and one in atan, as mutation tests)."""
    import numpy as np

    import gcv.sim.engine as engine

    sin = engine.SIN_TABLE.copy()
    for x in golden.SIN_TIES:
        for a, sign in ((x, 1), (2 * 16384 - x, 1), (2 * 16384 + x, -1), (4 * 16384 - x, -1)):
            sin[a % 65536] -= sign  # the tie rounded down in magnitude
    monkeypatch.setattr(engine, "SIN_TABLE", sin)
    monkeypatch.setattr(engine, "COS_TABLE", np.roll(sin, -16384))
    monkeypatch.setattr(engine, "SIN_LIST", sin.tolist())
    vector = _directed("boundary_trig_ties")
    request = vector["request"]
    got = Simulation(request["program"], request["player"]).run(seed=request["seed"]).telemetry
    got["player"] = request["player_label"]
    assert gameplay_view(got)["state_hashes"] != vector["expected"]["state_hashes"]
