"""Repair calculators: the only code that writes a repaired number into a candidate.

The reviewer agent names an intent; a calculator here turns it into one field change on the
phase that failed, scaled by how far the failed figure missed its target. All arithmetic is
on exact rationals (``Fraction`` of the shortest decimal text of each config value), with
explicit ``floor``/``ceil``; Python's ``round()`` (half to even) is never used. Every result
stays inside the contract's ranges, and only ``phases[phase].pattern.<field>`` changes.

**Miss ratio r** (0 < r < 1: the factor the load or danger must shrink by). Among the failed
hard checks on the repaired phase that call for the intent, the smallest r wins:

| failed check        | r                                                            |
|---------------------|--------------------------------------------------------------|
| peak_alive_bullets  | target / actual (e.g. 350 / 420)                             |
| low_fps             | actual / target (frame time must shrink by target / actual)  |
| player_hits, survival, run_status | clamp((max_hits + 1) / (hits + 1), 0.6, 0.9), hits = the run's total |

(r is floored at 1/1000, so a report of 0 FPS cannot divide by zero; the range clamps decide.)

**Calculators** (n, ms, life, speed, layers = the phase's current values):

| intent                   | new value                                                              | bounds |
|--------------------------|------------------------------------------------------------------------|--------|
| REDUCE_BULLETS_PER_WAVE  | max(1, min(n - 1, floor(n * r)))                                       | 1..64  |
| INCREASE_WAVE_INTERVAL   | min(5000, max(ms + 50, ceil(ms / r)))                                  | 100..5000 ms |
| REDUCE_BULLET_LIFETIME   | max(0.5, min(life - 0.25, floor(100 * life * r) / 100))                 | 0.5..12 s |
| REDUCE_BULLET_SPEED      | max(0.5, floor(100 * speed * f) / 100), f = clamp(r_danger, 0.6, 0.9)   | 0.5..12 |
| REDUCE_PATTERN_LAYERS    | layers - 1                                                             | 1..4   |

Examples: 24 bullets at peak 420 vs 350 -> floor(24 * 350 / 420) = 20; 500 ms at peak 420
vs 350 -> ceil(500 * 420 / 350) = 600; life 5.2 s -> min(4.95, floor(433.33..) / 100) = 4.33;
5 hits vs 3 allowed -> f = clamp(4 / 6, 0.6, 0.9) = 2/3, speed 3.6 -> floor(240) / 100 = 2.4.

**Refusals** (``ok=False``, with the reason): the value is already at its bound (nothing would
change); the goal explicitly edits the field on this phase (a repair would undo the
designer's request); REDUCE_PATTERN_LAYERS on one layer, or on a petal at two layers (a petal
needs its second, faster layer to read as petals); no failed check on the phase calls for
the intent.

**Pressure increase** (the phase is a goal target and ``goal.pressure == "increase"``): the
repaired pattern must keep, at config level, against the baseline's same phase:

* spawn rate = slots * 60 / interval_ticks bullets/s strictly higher, where
  slots = bullets_per_wave * layer_count * (2 if bidirectional else 1) and
  interval_ticks = max(1, rha(ms * 60 / 1000)) (as the compiler computes it);
* alive capacity = slots * lifetime_ticks / interval_ticks strictly higher (a heuristic
  guard for the mean-alive intent check: bullets that could be alive at once if none left
  the arena; the re-run's intent checks remain the authority).

Compared by cross-multiplying integers. When the formula's value breaks the guard, the
calculator takes the smallest change toward it that keeps the guard (the minimum steps
n - 1, +50 ms and -0.25 s give way; the compiled ticks must still change); when no change
keeps it, the repair is refused.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from gcv.contract.goal import Goal
from gcv.contract.models import BulletHellConfig, Pattern
from gcv.contract.patterns import PATTERNS
from gcv.contract.ranges import PATTERN_RANGES
from gcv.evaluation.models import Check, Evaluation
from gcv.contract.intents import (
    INCREASE_WAVE_INTERVAL, REDUCE_BULLET_LIFETIME, REDUCE_BULLET_SPEED, REDUCE_BULLETS_PER_WAVE,
    REDUCE_PATTERN_LAYERS,
)
from gcv.repair.intents import INTENT_FIELD, family_of, intents_for
from gcv.repair.models import RepairOutcome
from gcv.sim.fixed import TICK_HZ, exact, ms_to_ticks, round_half_away
from gcv.validation.diff import diff_configs

# Contract ranges, read from the models (gcv.contract.ranges): a repair never leaves them.
BULLETS_MIN = int(PATTERN_RANGES["bullets_per_wave"][0])
INTERVAL_MAX_MS = int(PATTERN_RANGES["wave_interval_ms"][1])
LIFETIME_MIN = PATTERN_RANGES["bullet_lifetime_seconds"][0]
SPEED_MIN = PATTERN_RANGES["bullet_speed"][0]
LAYERS_MIN = int(PATTERN_RANGES["layer_count"][0])
# Minimum steps, so that every repair makes progress.
INTERVAL_MIN_STEP_MS = 50
LIFETIME_MIN_STEP = Fraction(1, 4)
# The danger factor's clamp.
DANGER_MIN = Fraction(3, 5)
DANGER_MAX = Fraction(9, 10)
HUNDREDTH = Fraction(1, 100)
# A floor on the miss ratio, so a 0 FPS report cannot divide by zero (the range clamps act first).
MIN_RATIO = Fraction(1, 1000)


# --- exact arithmetic -----------------------------------------------------------------

def floor_hundredths(x: Fraction) -> Fraction:
    """Floor to 0.01 (toward minus infinity), exactly."""
    return Fraction(math.floor(x * 100), 100)


def clamp(x: Fraction, lo: Fraction, hi: Fraction) -> Fraction:
    return max(lo, min(hi, x))


def danger_factor(hits: int, max_hits: int) -> Fraction:
    """clamp((max_hits + 1) / (hits + 1), 0.6, 0.9)."""
    return clamp(Fraction(max_hits + 1, hits + 1), DANGER_MIN, DANGER_MAX)


def reduce_bullets_per_wave(n: int, r: Fraction) -> int:
    return max(BULLETS_MIN, min(n - 1, math.floor(n * r)))


def increase_wave_interval(ms: int, r: Fraction) -> int:
    return min(INTERVAL_MAX_MS, max(ms + INTERVAL_MIN_STEP_MS, math.ceil(ms / r)))


def reduce_bullet_lifetime(life: Fraction, r: Fraction) -> Fraction:
    return max(LIFETIME_MIN, min(life - LIFETIME_MIN_STEP, floor_hundredths(life * r)))


def reduce_bullet_speed(speed: Fraction, factor: Fraction) -> Fraction:
    return max(SPEED_MIN, floor_hundredths(speed * clamp(factor, DANGER_MIN, DANGER_MAX)))


def reduce_pattern_layers(layers: int) -> int:
    return max(LAYERS_MIN, layers - 1)


# --- config-level pressure ------------------------------------------------------------

@dataclass(frozen=True)
class PatternLoad:
    """The integers a pattern's pressure follows, as the compiler computes them."""

    slots: int  # bullets_per_wave * layer_count * (2 if bidirectional else 1)
    interval_ticks: int  # max(1, rha(ms * 60 / 1000))
    lifetime_ticks: int  # max(1, rha(seconds * 60))

    @classmethod
    def of(cls, p: Pattern, field: str | None = None, value: Fraction | int | None = None) -> PatternLoad:
        """The load of ``p``, or of ``p`` with ``field`` set to ``value``."""
        v: dict[str, Any] = {"bullets_per_wave": p.bullets_per_wave, "layer_count": p.layer_count,
                             "wave_interval_ms": p.wave_interval_ms,
                             "bullet_lifetime_seconds": exact(p.bullet_lifetime_seconds)}
        if field in v:
            v[field] = value
        return cls(
            slots=int(v["bullets_per_wave"]) * int(v["layer_count"]) * (2 if p.bidirectional else 1),
            interval_ticks=max(1, ms_to_ticks(int(v["wave_interval_ms"]))),
            lifetime_ticks=max(1, round_half_away(Fraction(v["bullet_lifetime_seconds"]) * TICK_HZ)),
        )

    @property
    def spawn_rate(self) -> Fraction:
        """Bullets per second: slots * 60 / interval_ticks."""
        return Fraction(self.slots * TICK_HZ, self.interval_ticks)

    @property
    def alive_capacity(self) -> Fraction:
        """Bullets alive at once if none left the arena early: slots * lifetime_ticks / interval_ticks."""
        return Fraction(self.slots * self.lifetime_ticks, self.interval_ticks)


def spawn_rate(p: Pattern) -> Fraction:
    return PatternLoad.of(p).spawn_rate


def keeps_pressure(new: PatternLoad, base: PatternLoad) -> str | None:
    """None when ``new`` still out-presses ``base`` at config level, else the reason it does not."""
    # spawn rate, cross-multiplied: new.slots / new.interval > base.slots / base.interval
    if not new.slots * base.interval_ticks > base.slots * new.interval_ticks:
        return (f"spawn rate {new.slots}*60/{new.interval_ticks} = {float(new.spawn_rate):g}/s would "
                f"not stay above the baseline's {base.slots}*60/{base.interval_ticks} = "
                f"{float(base.spawn_rate):g}/s")
    if not (new.slots * new.lifetime_ticks * base.interval_ticks
            > base.slots * base.lifetime_ticks * new.interval_ticks):
        return (f"alive capacity {new.slots}*{new.lifetime_ticks}/{new.interval_ticks} = "
                f"{float(new.alive_capacity):g} would not stay above the baseline's "
                f"{base.slots}*{base.lifetime_ticks}/{base.interval_ticks} = {float(base.alive_capacity):g}")
    return None


# --- the miss ratio -------------------------------------------------------------------

def miss_ratio(check: Check, evaluation: Evaluation) -> Fraction | None:
    """The factor (0 < r < 1) this failed check asks the phase's load or danger to shrink by."""
    family = family_of(check.name)
    if family == "load":
        a, e = check.actual, check.expected
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, e)):
            return None
        if check.name == "peak_alive_bullets":
            return max(MIN_RATIO, Fraction(int(e), int(a))) if a > 0 else None
        return max(MIN_RATIO, exact(a) / exact(e)) if e > 0 else None  # low_fps
    if family == "danger":
        hits = evaluation.check("player_hits")
        if hits is None or not isinstance(hits.actual, int) or isinstance(hits.actual, bool):
            return DANGER_MAX
        return danger_factor(hits.actual, evaluation.targets.max_player_hits)
    return None


def _driving_checks(evaluation: Evaluation, intent: str, phase_id: str) -> list[Check]:
    return [c for c in evaluation.checks
            if not c.passed and c.phase_id == phase_id and intent in intents_for(c.name)]


def _value_text(x: Fraction | int) -> str:
    if isinstance(x, int) or x.denominator == 1:
        return str(int(x))
    return f"{float(x):g}"


def _to_field(x: Fraction | int) -> float | int:
    return x if isinstance(x, int) else float(x)  # shortest decimal of a <= 6-place rational


# --- apply ----------------------------------------------------------------------------

def _refuse(intent: str, phase_id: str | None, error: str, **detail: Any) -> RepairOutcome:
    return RepairOutcome(ok=False, intent=intent, phase_id=phase_id, error=error,
                         explanation=f"{intent} on {phase_id}: refused: {error}", detail=detail)


def apply_repair(*, candidate: BulletHellConfig, intent: str, phase_id: str | None,
                 evaluation: Evaluation, goal: Goal | None, baseline: BulletHellConfig,
                 ratio: Fraction | None = None) -> RepairOutcome:
    """Apply one repair intent to one failed phase, or say exactly why it cannot be done.

    ``ratio``: a magnitude from the repair search's ladder (``gcv.repair.search``) in place of
    the failed figure's miss ratio; every bound, minimum step and guard applies the same way."""
    if intent not in INTENT_FIELD:
        return _refuse(intent, phase_id, f"{intent} is not a repair intent")
    field = INTENT_FIELD[intent]
    if phase_id is None:
        return _refuse(intent, phase_id, "no phase named; a repair acts on the phase that failed")
    index = next((i for i, p in enumerate(candidate.phases) if p.phase_id == phase_id), None)
    if index is None:
        return _refuse(intent, phase_id, f"the candidate has no phase '{phase_id}'")
    driving = _driving_checks(evaluation, intent, phase_id)
    if not driving:
        return _refuse(intent, phase_id, f"no failed check on {phase_id} calls for {intent}")
    ratios = [(r, c) for c in driving if (r := miss_ratio(c, evaluation)) is not None]
    if not ratios and intent != REDUCE_PATTERN_LAYERS:
        return _refuse(intent, phase_id, "the failed figures are missing from the telemetry")
    r, by = min(ratios, key=lambda rc: rc[0]) if ratios else (Fraction(1), driving[0])
    if ratio is not None:
        r = ratio
    pat = candidate.phases[index].pattern
    is_target = goal is not None and phase_id in goal.target_phase_ids

    # never undo what the designer asked for explicitly
    if is_target and goal is not None and any(e.field == field for e in goal.edits):
        return _refuse(intent, phase_id,
                       f"the goal explicitly edits {field} on {phase_id}; {intent} would undo "
                       "the designer's request", field=field)
    if intent == REDUCE_PATTERN_LAYERS:
        if pat.layer_count <= LAYERS_MIN:
            return _refuse(intent, phase_id, f"{phase_id} already has 1 layer (the contract's minimum)",
                           field=field, before=pat.layer_count)
        if pat.type == "petal" and pat.layer_count == PATTERNS["petal"].min_layers:
            return _refuse(intent, phase_id,
                           f"{phase_id} is a petal at 2 layers; a petal needs its second, faster "
                           "layer to read as petals", field=field, before=pat.layer_count)

    before: Fraction | int
    after: Fraction | int
    if family_of(by.name) == "danger":
        fig = f"{by.name} failed; danger factor clamp((max_hits + 1) / (hits + 1), 0.6, 0.9)"
    else:
        fig = f"{by.name} {by.actual} vs {by.expected}"
    if intent == REDUCE_BULLETS_PER_WAVE:
        before = pat.bullets_per_wave
        after = reduce_bullets_per_wave(before, r)
        formula = f"max(1, min(n - 1, floor({before} * {r}))) = {after}"
    elif intent == INCREASE_WAVE_INTERVAL:
        before = pat.wave_interval_ms
        after = increase_wave_interval(before, r)
        formula = f"min(5000, max({before} + 50, ceil({before} / ({r})))) = {after} ms"
    elif intent == REDUCE_BULLET_LIFETIME:
        before = exact(pat.bullet_lifetime_seconds)
        after = reduce_bullet_lifetime(before, r)
        formula = (f"max(0.5, min({_value_text(before)} - 0.25, floor(100 * {_value_text(before)} "
                   f"* {r}) / 100)) = {_value_text(after)} s")
    elif intent == REDUCE_BULLET_SPEED:
        before = exact(pat.bullet_speed)
        after = reduce_bullet_speed(before, r)
        formula = (f"max(0.5, floor(100 * {_value_text(before)} * {r}) / 100) = "
                   f"{_value_text(after)}")
    else:  # REDUCE_PATTERN_LAYERS
        before = pat.layer_count
        after = reduce_pattern_layers(before)
        formula = f"{before} - 1 = {after}"
    if after == before:
        return _refuse(intent, phase_id,
                       f"{field} on {phase_id} is already at its bound ({_value_text(before)}); "
                       "the repair would change nothing", field=field, before=_to_field(before))
    detail: dict[str, Any] = {"field": field, "before": _to_field(before), "formula_value": _to_field(after),
                              "ratio": str(r), "driven_by": by.name}

    # keep a requested pressure increase (config-level guard against the baseline phase)
    base_phase = baseline.phase(phase_id)
    note = ""
    if is_target and goal is not None and goal.pressure == "increase" and base_phase is not None:
        base = PatternLoad.of(base_phase.pattern)
        kept = _keep_pressure(intent, pat, base, after)
        if kept is None:
            why = keeps_pressure(PatternLoad.of(pat, field, after), base)
            return _refuse(intent, phase_id,
                           f"the goal asks for more pressure on {phase_id} and no {intent} step "
                           f"keeps it: {why}", field=field, before=_to_field(before))
        if kept != after:
            note = (f"; limited to {_value_text(kept)} (formula gave {_value_text(after)}) to keep "
                    f"the requested pressure increase above the baseline's {phase_id}")
            detail["intent_bound"] = _to_field(kept)
            after = kept

    data = candidate.model_dump(mode="json")
    data["phases"][index]["pattern"][field] = _to_field(after)
    repaired = BulletHellConfig.model_validate(data)
    changes = diff_configs(candidate, repaired)
    prefix = f"$.phases[{index}].pattern."
    assert changes and all(c.path.startswith(prefix) for c in changes), changes
    detail["after"] = _to_field(after)
    explanation = (f"{intent} on {phase_id} ({fig}, r = {r}): {field} {_value_text(before)} -> "
                   f"{_value_text(after)}; {formula}{note}")
    return RepairOutcome(ok=True, intent=intent, phase_id=phase_id, candidate=repaired,
                         changes=changes, explanation=explanation, detail=detail)


def _keep_pressure(intent: str, pat: Pattern, base: PatternLoad,
                   after: Fraction | int) -> Fraction | int | None:
    """The value closest to ``after`` (toward the current one) that keeps the pressure guard."""
    field = INTENT_FIELD[intent]
    now = PatternLoad.of(pat)

    def ok(value: Fraction | int) -> bool:
        return keeps_pressure(PatternLoad.of(pat, field, value), base) is None

    if intent == REDUCE_BULLETS_PER_WAVE:
        return next((n for n in range(int(after), pat.bullets_per_wave) if ok(n)), None)
    if intent == INCREASE_WAVE_INTERVAL:
        return next((ms for ms in range(int(after), pat.wave_interval_ms, -1)
                     if PatternLoad.of(pat, field, ms).interval_ticks > now.interval_ticks and ok(ms)),
                    None)
    if intent == REDUCE_BULLET_LIFETIME:
        life, value = exact(pat.bullet_lifetime_seconds), Fraction(after)
        while value < life:
            if PatternLoad.of(pat, field, value).lifetime_ticks < now.lifetime_ticks and ok(value):
                return value
            value += HUNDREDTH
        return None
    if intent == REDUCE_BULLET_SPEED:
        return after  # slower bullets spawn as many and stay longer: pressure is kept
    return after if ok(after) else None  # REDUCE_PATTERN_LAYERS: one step or nothing
