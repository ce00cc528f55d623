"""Evaluation: the candidate's telemetry against the effective targets, plus the goal's intent.

Pure: no I/O, no clock. Targets come from ``effective_targets(baseline, goal)``, never from
the candidate (a candidate that loosens its own ``targets`` is still held to the baseline's).

Hard checks (all ``hard=True``), in this order:

| name                | field                | op   | expected                     | culprit phase                 |
|---------------------|----------------------|------|------------------------------|-------------------------------|
| run_status          | status               | ==   | "completed"                  | the phase the player died in  |
| peak_alive_bullets  | peak_alive_bullets   | <=   | targets.max_alive_bullets    | the phase with the highest peak |
| player_hits         | player_hits          | <=   | targets.max_player_hits      | the phase with the most hits  |
| survival            | survival_ticks       | >=   | targets.min_survival_ticks   | the phase the player died in  |
| low_fps             | low_fps              | >=   | targets.min_low_fps          | the phase with the highest peak (frame time follows the bullet count) |
| phase_coverage      | phases_reached       | ==   | number of baseline phases    | the first phase not reached   |

``phase_coverage`` runs only when the baseline requires all phases. Ties between phases go
to the earlier phase. The death phase is the reached phase whose ``end_tick`` equals the
run's ``ticks`` (the phase active when the run ended).

Intent checks (also hard; one set per goal target phase, ``phase_id`` = that phase):

| name                   | when                     | passes when                                           |
|------------------------|--------------------------|-------------------------------------------------------|
| intent.pattern_type    | goal.pattern_type set    | the candidate phase has that pattern type             |
| intent.bidirectional   | goal.bidirectional set   | the candidate phase has that flag                     |
| intent.reverse_rotation| goal.reverse_rotation    | sign(rotation) == -sign(baseline rotation) != 0       |
| intent.spawn_rate      | pressure increase/decrease | bullets_spawned/ticks is higher (lower) than the baseline run's same phase; by at least QUALITATIVE_MIN_SHARE (10%) when no edit gives the density a number |
| intent.mean_alive      | pressure increase/decrease | alive_tick_sum/ticks is higher (lower) than the baseline run's same phase  |

Rates compare as exact rationals by cross-multiplying integers
(``c_spawned * b_ticks > b_spawned * c_ticks``). A phase that one of the runs did not reach
fails the pressure checks with a detail naming the run. ``expected``/``actual`` of the
pressure checks are shown per second (spawn rate) or as mean bullets, in thousandths
rounded half up; the comparison never uses those rounded figures.

Miss score (the stagnation guard's measure): the sum over failed checks of the relative miss,
exact rationals, converted to float once at the end:

* ``<=``: (actual - expected) / max(expected, 1)
* ``>=``: (expected - actual) / max(expected, 1)
* ``>``/``<`` (pressure): |baseline - candidate| / baseline (1 when the baseline figure is 0)
* ``==`` and any check without a numeric actual: 1
* every failed check counts at least 1/1000, so a failed check never scores 0.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, TypeGuard

from gcv.contract.goal import DENSITY_FIELDS, QUALITATIVE_MIN_SHARE, Goal
from gcv.contract.loading import json_path
from gcv.contract.models import BulletHellConfig
from gcv.evaluation.models import Check, CheckOp, EffectiveTargets, Evaluation
from gcv.evaluation.targets import effective_targets
from gcv.sim.fixed import TICK_HZ, exact
from gcv.sim.telemetry import milli_ratio

MIN_FAILED_MISS = Fraction(1, 1000)


# --- helpers --------------------------------------------------------------------------

def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _phases(telemetry: dict[str, Any]) -> list[dict[str, Any]]:
    phases = telemetry.get("phase_results")
    return [p for p in phases if isinstance(p, dict)] if isinstance(phases, list) else []


def _phase_result(telemetry: dict[str, Any], phase_id: str) -> dict[str, Any] | None:
    return next((p for p in _phases(telemetry) if p.get("phase_id") == phase_id), None)


def _reached(result: dict[str, Any] | None) -> bool:
    return bool(result and result.get("reached") and _is_number(result.get("ticks"))
                and result["ticks"] > 0)


def _argmax_phase(telemetry: dict[str, Any], key: str, *, positive: bool) -> str | None:
    """The reached phase with the highest ``key`` (earliest on a tie)."""
    best: tuple[Any, str] | None = None
    for p in _phases(telemetry):
        value = p.get(key)
        if not p.get("reached") or not _is_number(value):
            continue
        if positive and value <= 0:
            continue
        if best is None or value > best[0]:
            best = (value, str(p.get("phase_id")))
    return best[1] if best else None


def death_phase(telemetry: dict[str, Any]) -> str | None:
    """The phase the player died in (None unless the run's status is ``died``)."""
    if telemetry.get("status") != "died":
        return None
    reached = [p for p in _phases(telemetry) if p.get("reached")]
    ticks = telemetry.get("ticks")
    for p in reached:
        if p.get("end_tick") == ticks:
            return str(p.get("phase_id"))
    starts = [p for p in reached if _is_number(p.get("start_tick"))]
    if starts:
        return str(max(starts, key=lambda p: p["start_tick"]).get("phase_id"))
    return None


def _miss(op: CheckOp, expected: Any, actual: Any, passed: bool) -> Fraction:
    if passed:
        return Fraction(0)
    if not (_is_number(expected) and _is_number(actual)) or op == "==":
        return Fraction(1)
    e, a = exact(expected), exact(actual)
    if op == "<=":
        rel = (a - e) / max(e, Fraction(1))
    elif op == ">=":
        rel = (e - a) / max(e, Fraction(1))
    else:  # strict comparisons are pressure checks, scored by the caller
        rel = Fraction(1)
    return max(rel, MIN_FAILED_MISS)


def _compare(op: CheckOp, actual: Any, expected: Any) -> bool:
    if op == "==":
        if isinstance(actual, bool) or isinstance(expected, bool):
            return type(actual) is type(expected) and actual == expected
        return actual is not None and actual == expected
    if not (_is_number(actual) and _is_number(expected)):
        return False
    a, e = exact(actual), exact(expected)
    return {"<=": a <= e, ">=": a >= e, "<": a < e, ">": a > e}[op]


def _check(name: str, field: str, op: CheckOp, expected: Any, actual: Any, *, phase_id: str | None,
           detail: str, passed: bool | None = None, miss: Fraction | None = None) -> tuple[Check, Fraction]:
    ok = _compare(op, actual, expected) if passed is None else passed
    m = _miss(op, expected, actual, ok) if miss is None else (Fraction(0) if ok else max(miss, MIN_FAILED_MISS))
    return Check(name=name, field=field, op=op, expected=expected, actual=actual, passed=ok,
                 phase_id=phase_id, detail=detail, miss=float(m)), m


def _missing(field: str) -> str:
    return f"the telemetry has no numeric '{field}'"


# --- hard checks ----------------------------------------------------------------------

def _hard_checks(tel: dict[str, Any], targets: EffectiveTargets) -> list[tuple[Check, Fraction]]:
    out: list[tuple[Check, Fraction]] = []
    died_in = death_phase(tel)
    status = tel.get("status")
    out.append(_check(
        "run_status", "status", "==", "completed", status, phase_id=died_in,
        detail=("the run completed" if status == "completed" else
                f"the run ended '{status}' ({tel.get('end_reason')}) at tick "
                f"{tel.get('survival_ticks') if status == 'died' else tel.get('ticks')}"
                + (f" in {died_in}" if died_in else ""))))

    peak = tel.get("peak_alive_bullets")
    peak_phase = _argmax_phase(tel, "peak_alive_bullets", positive=False)
    out.append(_check(
        "peak_alive_bullets", "peak_alive_bullets", "<=", targets.max_alive_bullets, peak,
        phase_id=peak_phase,
        detail=(f"peak {peak} alive (highest in {peak_phase}); target "
                f"{targets.max_alive_bullets} from {targets.sources['max_alive_bullets']}"
                if _is_number(peak) else _missing("peak_alive_bullets"))))

    hits = tel.get("player_hits")
    hits_phase = _argmax_phase(tel, "player_hits", positive=True)
    out.append(_check(
        "player_hits", "player_hits", "<=", targets.max_player_hits, hits, phase_id=hits_phase,
        detail=(f"{hits} hits" + (f" (most in {hits_phase})" if hits_phase else "")
                + f"; target {targets.max_player_hits} from {targets.sources['max_player_hits']}"
                if _is_number(hits) else _missing("player_hits"))))

    surv = tel.get("survival_ticks")
    if not _is_number(surv):
        surv_detail = _missing("survival_ticks")
    elif died_in:
        surv_detail = (f"the player died at tick {surv} in {died_in}; needs "
                       f"{targets.min_survival_ticks} ticks ({targets.min_survival_seconds:g} s)")
    else:
        surv_detail = (f"survived {surv} ticks; needs {targets.min_survival_ticks} "
                       f"({targets.min_survival_seconds:g} s)")
    out.append(_check("survival", "survival_ticks", ">=", targets.min_survival_ticks, surv,
                      phase_id=died_in, detail=surv_detail))

    low = tel.get("low_fps")
    source = tel.get("fps_source")
    out.append(_check(
        "low_fps", "low_fps", ">=", targets.min_low_fps, low, phase_id=peak_phase,
        detail=(f"1% low {low:g} FPS ({source}); target {targets.min_low_fps:g} from "
                f"{targets.sources['min_low_fps']}; attributed to {peak_phase}, the phase with "
                "the most bullets alive" if _is_number(low) else _missing("low_fps"))))

    if targets.require_all_phases:
        reached = tel.get("phases_reached")
        missing = [str(p.get("phase_id")) for p in _phases(tel) if not p.get("reached")]
        first_missing = missing[0] if missing else None
        if not _is_number(reached):
            detail = _missing("phases_reached")
        elif missing:
            detail = (f"{reached} of {targets.phase_count} phases reached; not reached: "
                      f"{', '.join(missing)}")
        else:
            detail = f"{reached} of {targets.phase_count} phases reached"
        expected = targets.phase_count
        ok = _is_number(reached) and reached == expected
        miss = (Fraction(expected - reached) / max(expected, 1) if _is_number(reached)
                and reached < expected else Fraction(1))
        out.append(_check("phase_coverage", "phases_reached", "==", expected, reached,
                          phase_id=first_missing, detail=detail, passed=ok, miss=miss))
    return out


# --- intent checks --------------------------------------------------------------------

def _sign(value: float) -> int:
    v = exact(value)
    return (v > 0) - (v < 0)


def _pressure_checks(goal: Goal, phase_id: str, base_tel: dict[str, Any],
                     cand_tel: dict[str, Any]) -> list[tuple[Check, Fraction]]:
    higher = goal.pressure == "increase"
    word = "higher" if higher else "lower"
    # no number given: "denser" keeps at least QUALITATIVE_MIN_SHARE of the baseline's spawn rate
    # (a density edit that is itself a word without a number, "more bullets", gives no number)
    qualitative = not any(e.field in DENSITY_FIELDS and not e.qualitative for e in goal.edits)
    b, c = _phase_result(base_tel, phase_id), _phase_result(cand_tel, phase_id)
    out: list[tuple[Check, Fraction]] = []
    specs = (("intent.spawn_rate", "bullets_spawned", "spawn rate (bullets/s)"),
             ("intent.mean_alive", "alive_tick_sum", "mean alive bullets"))
    for name, key, label in specs:
        field = f"phase_results[{phase_id}].{key}/ticks"
        share = QUALITATIVE_MIN_SHARE if qualitative and key == "bullets_spawned" else Fraction(0)
        op: CheckOp = (">=" if higher else "<=") if share else (">" if higher else "<")
        not_reached = [run for run, r in (("baseline", b), ("candidate", c)) if not _reached(r)]
        if not_reached:
            out.append(_check(
                name, field, op, None, None, phase_id=phase_id, passed=False, miss=Fraction(1),
                detail=(f"pressure {goal.pressure} on {phase_id} cannot be shown: the "
                        f"{' and '.join(not_reached)} run{'s' if len(not_reached) > 1 else ''} "
                        f"never reached {phase_id}")))
            continue
        assert b is not None and c is not None
        bn, bt, cn, ct = int(b[key]), int(b["ticks"]), int(c[key]), int(c["ticks"])
        factor = 1 + share if higher else 1 - share
        # exact rationals by cross-multiplication: cn/ct vs (bn/bt) * factor
        left, right = cn * bt * factor.denominator, bn * ct * factor.numerator
        ok = (left >= right if higher else left <= right) if share else (left > right if higher else left < right)
        scale = TICK_HZ if key == "bullets_spawned" else 1
        expected = milli_ratio(bn * scale * factor.numerator, bt * factor.denominator) / 1000
        actual = milli_ratio(cn * scale, ct) / 1000
        base_rate, cand_rate = Fraction(bn, bt) * factor, Fraction(cn, ct)
        miss = abs(base_rate - cand_rate) / base_rate if base_rate else Fraction(1)
        need = (f"at least {'+' if higher else '-'}{float(share * 100):g}% of the baseline's (a qualitative "
                f"'{goal.pressure}' keeps that share, docs/repair.md)" if share else f"strictly {word}")
        if ok:
            tail = ""
        elif share:
            change = (Fraction(cn * bt, bn * ct) - 1) * 100 if bn else Fraction(0)
            tail = f" (it is {float(change):+.1f}%)"
        else:
            tail = f" (it is {'equal' if cn * bt == bn * ct else 'not ' + word})"
        out.append(_check(
            name, field, op, expected, actual, phase_id=phase_id, passed=ok, miss=miss,
            detail=(f"{label} in {phase_id}: candidate {cn}/{ct} ticks vs baseline {bn}/{bt} ticks; "
                    f"pressure {goal.pressure} needs it {need}{tail}")))
    return out


def _intent_checks(goal: Goal, baseline: BulletHellConfig, candidate: BulletHellConfig,
                   base_tel: dict[str, Any], cand_tel: dict[str, Any]) -> list[tuple[Check, Fraction]]:
    out: list[tuple[Check, Fraction]] = []
    for phase_id in dict.fromkeys(goal.target_phase_ids):  # each phase once, in goal order
        index = next((i for i, p in enumerate(candidate.phases) if p.phase_id == phase_id), None)
        base_phase = baseline.phase(phase_id)
        if index is None:
            for name in _config_intents(goal):
                out.append(_check(name, "$.phases", "==", None, None, phase_id=phase_id,
                                  passed=False, detail=f"the candidate has no phase '{phase_id}'"))
        else:
            pat = candidate.phases[index].pattern
            path: list[str | int] = ["phases", index, "pattern"]
            if goal.pattern_type is not None:
                out.append(_check(
                    "intent.pattern_type", json_path([*path, "type"]), "==", goal.pattern_type,
                    pat.type, phase_id=phase_id,
                    detail=f"the goal asks {phase_id} to be a {goal.pattern_type}; it is a {pat.type}"))
            if goal.bidirectional is not None:
                out.append(_check(
                    "intent.bidirectional", json_path([*path, "bidirectional"]), "==",
                    goal.bidirectional, pat.bidirectional, phase_id=phase_id,
                    detail=(f"the goal asks bidirectional = {str(goal.bidirectional).lower()} on "
                            f"{phase_id}; it is {str(pat.bidirectional).lower()}")))
            if goal.reverse_rotation:
                field = json_path([*path, "rotation_per_wave_deg"])
                if base_phase is None:
                    out.append(_check("intent.reverse_rotation", field, "==", None,
                                      _sign(pat.rotation_per_wave_deg), phase_id=phase_id,
                                      passed=False,
                                      detail=f"the baseline has no phase '{phase_id}' to reverse"))
                else:
                    b_sign = _sign(base_phase.pattern.rotation_per_wave_deg)
                    c_sign = _sign(pat.rotation_per_wave_deg)
                    ok = b_sign != 0 and c_sign == -b_sign
                    why = ("the baseline phase does not rotate, so there is nothing to reverse"
                           if b_sign == 0 else
                           f"baseline {base_phase.pattern.rotation_per_wave_deg:g} deg/wave, "
                           f"candidate {pat.rotation_per_wave_deg:g} deg/wave")
                    out.append(_check("intent.reverse_rotation", field, "==", -b_sign, c_sign,
                                      phase_id=phase_id, passed=ok,
                                      detail=f"rotation sign must be the opposite of the baseline's: {why}"))
        if goal.pressure in ("increase", "decrease"):
            out.extend(_pressure_checks(goal, phase_id, base_tel, cand_tel))
    return out


def _config_intents(goal: Goal) -> list[str]:
    names = []
    if goal.pattern_type is not None:
        names.append("intent.pattern_type")
    if goal.bidirectional is not None:
        names.append("intent.bidirectional")
    if goal.reverse_rotation:
        names.append("intent.reverse_rotation")
    return names


# --- entry point ----------------------------------------------------------------------

def evaluate(*, baseline: BulletHellConfig, goal: Goal | None, baseline_telemetry: dict[str, Any],
             candidate: BulletHellConfig, candidate_telemetry: dict[str, Any]) -> Evaluation:
    """Hold the candidate's run to the baseline's targets and the goal's intent."""
    targets = effective_targets(baseline, goal)
    hard = _hard_checks(candidate_telemetry, targets)
    intent = (_intent_checks(goal, baseline, candidate, baseline_telemetry, candidate_telemetry)
              if goal is not None else [])
    checks = [c for c, _ in hard]
    intent_checks = [c for c, _ in intent]
    score = sum((m for _, m in (*hard, *intent)), Fraction(0))
    return Evaluation(
        passed=all(c.passed for c in (*checks, *intent_checks)),
        targets=targets,
        checks=checks,
        intent_checks=intent_checks,
        miss_score=float(score),
        fps_source=candidate_telemetry.get("fps_source"),
    )
