"""Effective targets: what a candidate is held to, from the baseline and the goal only.

A candidate cannot move its own goalposts, so nothing here reads the candidate. For each
target, the designer's stated constraint (``goal.constraints``) replaces the baseline's own
target when given, and the baseline's hard limit then caps it:

| target             | rule                                                                        |
|--------------------|-----------------------------------------------------------------------------|
| max_alive_bullets  | min(limits.max_alive_bullets, designer if stated else targets.max_alive_bullets) |
| max_player_hits    | min(limits.max_player_hits, designer if stated else targets.max_player_hits)     |
| min_low_fps        | max(limits.min_low_fps, designer if stated else targets.min_low_fps)             |
| min_survival_ticks | round_half_up(targets.min_survival_seconds * 60), exact rationals                |
| require_all_phases | targets.require_all_phases                                                  |
| require_dodgeable  | targets.require_dodgeable or the designer's "keep it dodgeable"             |

``sources`` records which of ``designer``, ``baseline.targets`` or ``limits`` the value
came from. On a tie with the limit, the designer's or baseline's target is named (the limit
did not have to act).
"""

from __future__ import annotations

import math
from fractions import Fraction

from gcv.contract.goal import Goal
from gcv.contract.models import BulletHellConfig
from gcv.evaluation.models import EffectiveTargets, TargetSource
from gcv.sim.fixed import TICK_HZ, exact


def round_half_up(x: Fraction) -> int:
    """floor(x + 1/2): ties go up (never banker's rounding)."""
    return math.floor(x + Fraction(1, 2))


def _fmt(value: float | int) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _bounded(field: str, stated: float | int | None, own: float | int, limit: float | int,
             tighter: int) -> tuple[float | int, TargetSource, str]:
    """Pick the stated (or own) target, capped by the limit.

    ``tighter`` is -1 when lower is stricter (maxima), +1 when higher is (minima).
    """
    if stated is not None:
        value, source = stated, "designer"
    else:
        value, source = own, "baseline.targets"
    looser = (exact(value) - exact(limit)) * tighter < 0
    pick = "min" if tighter < 0 else "max"
    text = f"{pick}(limits.{field} {_fmt(limit)}, {source} {_fmt(value)})"
    if looser:
        return limit, "limits", f"{text} = {_fmt(limit)}"
    return value, source, f"{text} = {_fmt(value)}"  # type: ignore[return-value]


def effective_targets(baseline: BulletHellConfig, goal: Goal | None = None) -> EffectiveTargets:
    t, lim = baseline.targets, baseline.limits
    c = goal.constraints if goal is not None else None
    alive, alive_src, alive_why = _bounded(
        "max_alive_bullets", c.max_alive_bullets if c else None, t.max_alive_bullets,
        lim.max_alive_bullets, -1)
    hits, hits_src, hits_why = _bounded(
        "max_player_hits", c.max_player_hits if c else None, t.max_player_hits,
        lim.max_player_hits, -1)
    fps, fps_src, fps_why = _bounded(
        "min_low_fps", c.min_low_fps if c else None, t.min_low_fps, lim.min_low_fps, +1)
    survival_ticks = round_half_up(exact(t.min_survival_seconds) * TICK_HZ)
    dodge_stated = bool(c is not None and c.require_dodgeable)
    dodgeable = t.require_dodgeable or dodge_stated
    dodge_src: TargetSource = "designer" if dodge_stated and not t.require_dodgeable else "baseline.targets"
    return EffectiveTargets(
        max_alive_bullets=int(alive),
        max_player_hits=int(hits),
        min_low_fps=float(fps),
        min_survival_seconds=t.min_survival_seconds,
        min_survival_ticks=survival_ticks,
        require_all_phases=t.require_all_phases,
        require_dodgeable=dodgeable,
        phase_count=len(baseline.phases),
        sources={
            "max_alive_bullets": alive_src,
            "max_player_hits": hits_src,
            "min_low_fps": fps_src,
            "min_survival_ticks": "baseline.targets",
            "require_all_phases": "baseline.targets",
            **({"require_dodgeable": dodge_src} if dodgeable else {}),
        },
        derivation={
            "max_alive_bullets": alive_why,
            "max_player_hits": hits_why,
            "min_low_fps": fps_why,
            "min_survival_ticks": (f"round_half_up(targets.min_survival_seconds "
                                   f"{_fmt(t.min_survival_seconds)} * 60) = {survival_ticks}"),
            "require_all_phases": f"targets.require_all_phases = {str(t.require_all_phases).lower()}",
            **({"require_dodgeable": (f"targets.require_dodgeable = {str(t.require_dodgeable).lower()} or "
                                      f"designer = {str(dodge_stated).lower()}")} if dodgeable else {}),
        },
    )
