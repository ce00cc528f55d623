"""Layer 3, rules: cross-field contract rules and the limits derived from the sim program.

The schema checks every field alone; these rules check fields against each other. Numbers
are compared exactly (``Fraction`` of the decimal as written), never as floats, so a value
on a boundary is judged the way a person reads it.

The program rules (the last three) compile the sim program and its emission schedule.
They run only when every cross-field rule passes: a program compiled from a broken config
(triggers out of order, a petal without layers, ...) describes a fight nobody asked for,
and its numbers would only confuse.

| rule id                            | checks                                                   |
|------------------------------------|----------------------------------------------------------|
| rules.phase_count                  | 1..6 phases                                              |
| rules.unique_phase_ids             | no two phases share a phase_id                           |
| rules.first_trigger                | the first phase starts at full health (trigger 1.0)      |
| rules.trigger_order                | triggers strictly decrease from phase to phase           |
| rules.target_max_alive_bullets     | targets.max_alive_bullets <= limits.max_alive_bullets    |
| rules.target_max_player_hits       | targets.max_player_hits <= limits.max_player_hits        |
| rules.target_min_low_fps           | targets.min_low_fps >= limits.min_low_fps                |
| rules.target_min_survival          | targets.min_survival_seconds <= scenario.duration_seconds|
| rules.graze_radius                 | player.graze_radius > player.hit_radius                  |
| rules.player_in_arena              | player.start_position inside the arena (per axis)        |
| rules.boss_in_arena                | boss.position inside the arena (per axis)                |
| rules.aimed_fan_spread             | an aimed_fan spreads at most 180 degrees                 |
| rules.petal_layers                 | a petal has layer_count >= 2                             |
| rules.bidirectional_needs_rotation | bidirectional only on a rotating spiral or petal         |
| rules.duplicate_bullets            | no two bullets of one wave share angle and speed         |
| rules.alive_bound                  | emission-schedule alive bound <= limits.max_alive_bullets|
| rules.spawn_rate                   | per phase, bullets/s <= limits.max_alive_bullets         |

Why a spawn-rate rule besides the alive bound: the alive bound is exact only for the
schedule this config plays (this boss health, this auto-fire damage). A phase that the
schedule reaches briefly, or not at all, still ships in the config and is reached as soon
as a repair or a designer changes the health or the triggers. A phase that emits more
bullets per second than the platform may hold alive at once exceeds the limit within one
second for any bullet lifetime of a second or more, and spends more per-frame spawn cost
than the frame budget was measured for. The rule is checked per phase, on every phase,
without relying on timing, so a repair can act on the phase that breaks it.

Duplicate bullets: a bullet's angle is ``offset + wave_index * rotation_per_wave * sign``
(``wave_index`` counts the waves fired since its phase started; for aimed patterns a common
aim angle is added, which cancels in the comparison). Two slots of one wave with the same
angle (mod 65536) and speed fly on top of each other for their whole life: the player sees
one bullet but is hit by two, and the alive budget pays twice. Slots of the same rotation
sign collide in every wave or in none (offsets equal); slots of opposite signs collide in
wave ``w`` iff ``2 * w * rotation ≡ offset_b - offset_a (mod 65536)``, which is solved for
all pairs and waves at once with numpy. Scatter draws its angles at run time and is skipped.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from gcv.contract.loading import json_path
from gcv.contract.models import BulletHellConfig
from gcv.contract.patterns import PATTERNS, ROTATING_KINDS
from gcv.sim.fixed import TICK_HZ, exact
from gcv.sim.program import compile_program
from gcv.sim.schedule import Schedule, emission_schedule
from gcv.validation.report import LayerResult, ValidationIssue, layer_result

ROTATING_TYPES = ROTATING_KINDS
MAX_PHASES = 6
MAX_AIMED_FAN_SPREAD = 180
MAX_SLOT_PAIRS_REPORTED = 20
_MASK = 0xFFFF


def _fmt(value: Fraction | float | int) -> str:
    """A decimal as a person writes it (3, 0.67, 12.5)."""
    frac = value if isinstance(value, Fraction) else exact(value)
    if frac.denominator == 1:
        return str(frac.numerator)
    return f"{float(frac):.10g}"


def _issue(rule: str, parts: list[str | int], actual: Any, allowed: Any, message: str,
           detail: dict[str, Any] | None = None) -> ValidationIssue:
    return ValidationIssue.make(rule, json_path(parts), actual, allowed, message, detail)


# --- cross-field rules ------------------------------------------------------------------------

def _phase_rules(cfg: BulletHellConfig) -> list[ValidationIssue]:
    issues: list[ValidationIssue] = []
    count = len(cfg.phases)
    if not 1 <= count <= MAX_PHASES:
        issues.append(_issue("rules.phase_count", ["phases"], count, f"1..{MAX_PHASES} phases",
                             f"the fight has {count} phases; it needs between 1 and {MAX_PHASES}"))
    first_use: dict[str, int] = {}
    for i, phase in enumerate(cfg.phases):
        if phase.phase_id in first_use:
            j = first_use[phase.phase_id]
            issues.append(_issue(
                "rules.unique_phase_ids", ["phases", i, "phase_id"], phase.phase_id,
                f"an id not used by another phase (already used by $.phases[{j}])",
                f"phase id '{phase.phase_id}' is used by phases {j} and {i}; goals, telemetry "
                "and repairs name phases by id, so each id must be unique"))
        else:
            first_use[phase.phase_id] = i
    if cfg.phases:
        first = exact(cfg.phases[0].trigger_boss_hp_below)
        if first != 1:
            issues.append(_issue(
                "rules.first_trigger", ["phases", 0, "trigger_boss_hp_below"],
                cfg.phases[0].trigger_boss_hp_below, 1.0,
                f"the first phase starts at boss health ratio {_fmt(first)}, but it must start "
                "at 1.0 (full health); otherwise the fight opens with no pattern at all"))
    for i in range(1, count):
        prev, cur = exact(cfg.phases[i - 1].trigger_boss_hp_below), exact(cfg.phases[i].trigger_boss_hp_below)
        if not cur < prev:
            issues.append(_issue(
                "rules.trigger_order", ["phases", i, "trigger_boss_hp_below"],
                cfg.phases[i].trigger_boss_hp_below, f"< {_fmt(prev)} (the trigger of $.phases[{i - 1}])",
                f"phase {i} ('{cfg.phases[i].phase_id}') triggers at {_fmt(cur)}, which is not below "
                f"the previous phase's {_fmt(prev)}; triggers must strictly decrease, or phase {i} "
                "could never start after phase " + str(i - 1)))
    for i, phase in enumerate(cfg.phases):
        pat = phase.pattern
        base: list[str | int] = ["phases", i, "pattern"]
        if pat.type == "aimed_fan" and exact(pat.spread_angle_deg) > MAX_AIMED_FAN_SPREAD:
            issues.append(_issue(
                "rules.aimed_fan_spread", [*base, "spread_angle_deg"], pat.spread_angle_deg,
                f"<= {MAX_AIMED_FAN_SPREAD} for aimed_fan",
                f"phase '{phase.phase_id}' is an aimed_fan spreading {_fmt(pat.spread_angle_deg)} "
                f"degrees; an aimed fan is at most {MAX_AIMED_FAN_SPREAD} degrees wide (at 360 its "
                "first and last bullets coincide); use a ring for a full circle"))
        if pat.type == "petal" and pat.layer_count < PATTERNS["petal"].min_layers:
            issues.append(_issue(
                "rules.petal_layers", [*base, "layer_count"], pat.layer_count, ">= 2 for petal",
                f"phase '{phase.phase_id}' is a petal with {pat.layer_count} layer; a petal is made "
                "of layers at different speeds, so it needs layer_count >= 2 (or use a spiral)"))
        rotating = pat.type in ROTATING_TYPES and exact(pat.rotation_per_wave_deg) != 0
        if pat.bidirectional and not rotating:
            if pat.type == "aimed_fan":
                why = ("for an aimed_fan the second direction's bullets coincide with the "
                       "first's, so every bullet would be fired twice")
            elif pat.type == "ring":
                why = ("for a ring the second direction is the same ring shifted half a step, "
                       "which never separates from the first: exactly what doubling "
                       "bullets_per_wave gives, and duplicate-prone")
            elif pat.type == "scatter":
                why = "for a scatter both directions draw random angles in the same spread"
            else:
                why = "with rotation_per_wave_deg = 0 both directions fire the same fixed pattern"
            issues.append(_issue(
                "rules.bidirectional_needs_rotation", [*base, "bidirectional"], True,
                "true only for spiral or petal with rotation_per_wave_deg != 0",
                f"phase '{phase.phase_id}' ({pat.type}, rotation {_fmt(pat.rotation_per_wave_deg)} "
                "deg/wave) is bidirectional, but a second direction only means something for a "
                "rotating pattern: without rotation it adds nothing a larger bullets_per_wave "
                f"would not; {why}"))
    return issues


def _target_rules(cfg: BulletHellConfig) -> list[ValidationIssue]:
    issues: list[ValidationIssue] = []
    t, lim = cfg.targets, cfg.limits
    if t.max_alive_bullets > lim.max_alive_bullets:
        issues.append(_issue(
            "rules.target_max_alive_bullets", ["targets", "max_alive_bullets"], t.max_alive_bullets,
            f"<= {lim.max_alive_bullets} (limits.max_alive_bullets)",
            f"targets.max_alive_bullets is {t.max_alive_bullets}, looser than the platform limit "
            f"{lim.max_alive_bullets}; a target may be stricter than a limit, never looser"))
    if t.max_player_hits > lim.max_player_hits:
        issues.append(_issue(
            "rules.target_max_player_hits", ["targets", "max_player_hits"], t.max_player_hits,
            f"<= {lim.max_player_hits} (limits.max_player_hits)",
            f"targets.max_player_hits is {t.max_player_hits}, looser than the limit "
            f"{lim.max_player_hits}; a target may be stricter than a limit, never looser"))
    if exact(t.min_low_fps) < exact(lim.min_low_fps):
        issues.append(_issue(
            "rules.target_min_low_fps", ["targets", "min_low_fps"], t.min_low_fps,
            f">= {_fmt(lim.min_low_fps)} (limits.min_low_fps)",
            f"targets.min_low_fps is {_fmt(t.min_low_fps)}, looser than the limit "
            f"{_fmt(lim.min_low_fps)}; a target may be stricter than a limit, never looser"))
    if exact(t.min_survival_seconds) > exact(cfg.scenario.duration_seconds):
        issues.append(_issue(
            "rules.target_min_survival", ["targets", "min_survival_seconds"], t.min_survival_seconds,
            f"<= {_fmt(cfg.scenario.duration_seconds)} (scenario.duration_seconds)",
            f"targets.min_survival_seconds is {_fmt(t.min_survival_seconds)}, but the fight lasts "
            f"only {_fmt(cfg.scenario.duration_seconds)} s, so no run could ever meet it"))
    return issues


def _geometry_rules(cfg: BulletHellConfig) -> list[ValidationIssue]:
    issues: list[ValidationIssue] = []
    p = cfg.player
    if not exact(p.graze_radius) > exact(p.hit_radius):
        issues.append(_issue(
            "rules.graze_radius", ["player", "graze_radius"], p.graze_radius,
            f"> {_fmt(p.hit_radius)} (player.hit_radius)",
            f"player.graze_radius {_fmt(p.graze_radius)} must exceed player.hit_radius "
            f"{_fmt(p.hit_radius)}: a graze is a near miss, so its circle lies outside the hit circle"))
    half = {"x": exact(cfg.scenario.arena_width) / 2, "y": exact(cfg.scenario.arena_height) / 2}
    for rule, parts, vec, who in (
        ("rules.player_in_arena", ["player", "start_position"], p.start_position, "the player's start"),
        ("rules.boss_in_arena", ["boss", "position"], cfg.boss.position, "the boss"),
    ):
        for axis in ("x", "y"):
            value = getattr(vec, axis)
            if abs(exact(value)) > half[axis]:
                size = "arena_width" if axis == "x" else "arena_height"
                issues.append(_issue(
                    rule, [*parts, axis], value, f"[-{_fmt(half[axis])}, {_fmt(half[axis])}]",
                    f"{who} is at {axis} = {_fmt(value)}, outside the arena (|{axis}| <= "
                    f"scenario.{size} / 2 = {_fmt(half[axis])})"))
    return issues


def cross_field_issues(cfg: BulletHellConfig) -> list[ValidationIssue]:
    return [*_phase_rules(cfg), *_target_rules(cfg), *_geometry_rules(cfg)]


# --- program rules ------------------------------------------------------------------------------

def _slot_name(k: int, bullets: int, layers: int) -> dict[str, int]:
    return {"slot": k, "direction": k // (bullets * layers), "layer": (k // bullets) % layers,
            "bullet": k % bullets}


def duplicate_bullets(program: dict[str, Any], schedule: Schedule) -> list[dict[str, Any]]:
    """Per phase that fires duplicates: the first such wave and its colliding slot pairs.

    Returns dicts with ``index``, ``phase_id``, ``wave_index``, ``tick``, ``slot_pairs``
    (all colliding pairs ``[k, l]``, ``k < l``, at that wave) and ``pair_events`` (colliding
    pairs summed over every wave the phase fires).

    Two slots of equal speed fly the same path from wave ``w`` on when their angles agree:
    ``off_k + s_k * w * rot == off_l + s_l * w * rot (mod 65536)``. Slots turning the same
    way agree at every wave or never (equal offsets); slots turning opposite ways agree
    when ``2 * w * rot == off_minus - off_plus``. So slots are grouped by speed, direction
    and offset, and only distinct offsets are paired: linear in the slots for one-way
    patterns, (distinct offsets)^2 at most for two-way ones.
    """
    found: list[dict[str, Any]] = []
    for window in schedule.windows:
        phase = program["phases"][window.index]
        waves = len(window.wave_ticks)
        if PATTERNS[phase["pattern"]].draws or waves == 0 or len(phase["slots"]) < 2:
            continue
        # the residues 2*w*rot (mod 65536) the waves reach: the first wave and count of each
        step = (2 * int(phase["rotation_per_wave"])) & _MASK
        first_wave: dict[int, int] = {}
        n_waves: dict[int, int] = {}
        residue = 0
        for w in range(waves):
            first_wave.setdefault(residue, w)
            n_waves[residue] = n_waves.get(residue, 0) + 1
            residue = (residue + step) & _MASK
        # speed -> direction -> offset -> slot indices (ascending)
        groups: dict[int, dict[int, dict[int, list[int]]]] = {}
        for k, (off, speed, sign) in enumerate(phase["slots"]):
            groups.setdefault(speed, {}).setdefault(sign, {}).setdefault(off & _MASK, []).append(k)
        events = 0
        always: list[tuple[int, int]] = []  # same direction, same offset: together from wave 0
        crossing: list[tuple[int, int, list[int], list[int]]] = []  # (first wave, residue, plus, minus)
        for by_sign in groups.values():
            for by_off in by_sign.values():
                for same in by_off.values():
                    pairs = [(a, b) for i, a in enumerate(same) for b in same[i + 1:]]
                    always += pairs
                    events += len(pairs) * waves
            plus, minus = by_sign.get(1, {}), by_sign.get(-1, {})
            for off_plus, ks in plus.items():
                for off_minus, ls in minus.items():
                    delta = (off_minus - off_plus) & _MASK
                    if delta in first_wave:
                        events += len(ks) * len(ls) * n_waves[delta]
                        crossing.append((first_wave[delta], delta, ks, ls))
        if not always and not crossing:
            continue
        w0 = 0 if always else min(c[0] for c in crossing)
        r0 = (w0 * step) & _MASK
        at_w0 = always + [(min(a, b), max(a, b)) for _, delta, ks, ls in crossing if delta == r0
                          for a in ks for b in ls]
        found.append({
            "index": window.index, "phase_id": window.phase_id, "wave_index": w0,
            "tick": int(window.wave_ticks[w0]), "slot_pairs": [list(p) for p in sorted(at_w0)],
            "pair_events": events,
        })
    return found


def alive_contributions(program: dict[str, Any], schedule: Schedule, tick: int) -> dict[int, int]:
    """Bullets alive at ``tick`` by phase index (emission bound), phases with none left out.

    The path of an alive-bound issue points at the largest contributor: bullets outlive their
    phase, so the phase active at the peak is not always the one to repair.
    """
    share: dict[int, int] = {}
    for window in schedule.windows:
        life = program["phases"][window.index]["lifetime_ticks"]
        waves = sum(1 for t in window.wave_ticks if t <= tick < t + life)
        if waves:
            share[window.index] = share.get(window.index, 0) + waves * window.slots
    return share


def _program_rules(cfg: BulletHellConfig) -> list[ValidationIssue]:
    issues: list[ValidationIssue] = []
    program = compile_program(cfg)
    schedule = emission_schedule(program)
    limit = cfg.limits.max_alive_bullets

    for dup in duplicate_bullets(program, schedule):
        pat = cfg.phases[dup["index"]].pattern
        pairs = dup["slot_pairs"]
        named = [[_slot_name(a, pat.bullets_per_wave, pat.layer_count),
                  _slot_name(b, pat.bullets_per_wave, pat.layer_count)]
                 for a, b in pairs[:MAX_SLOT_PAIRS_REPORTED]]
        shown = ", ".join(f"{a}&{b}" for a, b in pairs[:5]) + (" ..." if len(pairs) > 5 else "")
        issues.append(_issue(
            "rules.duplicate_bullets", ["phases", dup["index"], "pattern"], len(pairs),
            "0 bullets of one wave at the same angle and speed",
            f"phase '{dup['phase_id']}' fires duplicate bullets: in wave {dup['wave_index']} "
            f"(tick {dup['tick']}) slots {shown} leave at the same angle and speed and overlap for "
            f"their whole life ({dup['pair_events']} duplicate pairs over the phase); change "
            "bullets_per_wave, spread_angle_deg, layer_count or rotation_per_wave_deg",
            detail={"phase_id": dup["phase_id"], "wave_index": dup["wave_index"], "tick": dup["tick"],
                    "slot_pairs": pairs[:MAX_SLOT_PAIRS_REPORTED], "slots": named,
                    "pairs_in_wave": len(pairs), "pair_events": dup["pair_events"]}))

    bound, tick = schedule.alive_upper_bound, schedule.alive_upper_bound_tick
    if bound > limit:
        active = next((w for w in schedule.windows if w.start_tick <= tick < w.end_tick),
                      schedule.windows[-1])
        share = alive_contributions(program, schedule, tick)
        top = max(share, key=lambda index: share[index])  # first phase on ties
        top_id = program["phases"][top]["phase_id"]
        carried = (f"; phase '{top_id}' contributes {share[top]} of them"
                   if top != active.index else "")
        issues.append(_issue(
            "rules.alive_bound", ["phases", top, "pattern"], bound,
            f"<= {limit} (limits.max_alive_bullets)",
            f"the emission schedule can have {bound} bullets alive at once (tick {tick}, "
            f"{tick / TICK_HZ:.2f} s, during phase '{active.phase_id}'){carried}, above the limit "
            f"of {limit}; fewer bullets per wave, a longer wave interval or a shorter lifetime "
            "lowers it",
            detail={"alive_upper_bound": bound, "tick": tick, "seconds": round(tick / TICK_HZ, 6),
                    "phase_id": active.phase_id,
                    "contributions": {program["phases"][i]["phase_id"]: n for i, n in share.items()},
                    "limit": limit, "limit_path": "$.limits.max_alive_bullets"}))

    for i, phase in enumerate(program["phases"]):
        slots, interval = len(phase["slots"]), phase["wave_interval_ticks"]
        # bullets/s = slots * 60 / interval_ticks; compared in integers
        if slots * TICK_HZ > limit * interval:
            rate = Fraction(slots * TICK_HZ, interval)
            issues.append(_issue(
                "rules.spawn_rate", ["phases", i, "pattern"], round(float(rate), 3),
                f"<= {limit} bullets/s (limits.max_alive_bullets per second)",
                f"phase '{phase['phase_id']}' emits {float(rate):.1f} bullets/s ({slots} bullets every "
                f"{interval} ticks), more per second than the {limit} the platform may hold alive; "
                "it would break the limit within a second whenever it plays",
                detail={"phase_id": phase["phase_id"], "bullets_per_wave_total": slots,
                        "wave_interval_ticks": interval, "limit": limit}))
    return issues


def check_rules(cfg: BulletHellConfig) -> LayerResult:
    """All rules of this layer on a schema-valid config."""
    issues = cross_field_issues(cfg)
    notes: list[str] = []
    if issues:
        notes.append("program rules (rules.duplicate_bullets, rules.alive_bound, rules.spawn_rate) "
                     "were not checked: fix the cross-field errors first, a program compiled from a "
                     "broken config is meaningless")
    else:
        issues = _program_rules(cfg)
    return layer_result("rules", issues, notes)
