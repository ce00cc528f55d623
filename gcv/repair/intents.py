"""Which failures call for which repair intents, and which pattern field each intent moves.

The intent names live in ``gcv.contract.intents``. One table shared by the policy (what the evidence allows), the calculators (which failed
figure scales a repair) and the offline reviewer (what to try first). Two failure families:

* ``load``: too many bullets on screen (``peak_alive_bullets``) or too slow a frame
  (``low_fps``, whose modeled frame time grows with the bullet count). Fix by emitting less
  or keeping bullets alive for less time.
* ``danger``: the player got hurt (``player_hits``), died (``run_status``) or did not
  survive long enough (``survival``). Fix by slowing bullets or emitting less.

``phase_coverage`` and the intent checks belong to no family: no calculator can make the
boss reach a phase or restore what the designer asked for; those need a human.
"""

from __future__ import annotations

from typing import Literal

from gcv.contract.intents import (INCREASE_WAVE_INTERVAL, REDUCE_BULLET_LIFETIME, REDUCE_BULLET_SPEED,
                                  REDUCE_BULLETS_PER_WAVE, REDUCE_PATTERN_LAYERS, REQUEST_HUMAN, STOP)

Family = Literal["load", "danger"]

CHECK_FAMILY: dict[str, Family] = {
    "peak_alive_bullets": "load",
    "low_fps": "load",
    "player_hits": "danger",
    "survival": "danger",
    "run_status": "danger",
    # population evidence (gcv.evaluation.population): seeded bots hurt or killed
    "population_survival_rate": "danger",
    "population_hits_mean": "danger",
    "population_hits_p50": "danger",
    "population_hits_p90": "danger",
    "population_peak_alive_p50": "load",
    "population_peak_alive_p90": "load",
    # the fair-fight analysis (gcv.analysis): a tick where every reachable position is hit
    "fair_fight": "danger",
}

# The intents the evidence allows for each family (policy), in no particular preference.
FAMILY_INTENTS: dict[Family, tuple[str, ...]] = {
    "load": (REDUCE_BULLETS_PER_WAVE, INCREASE_WAVE_INTERVAL, REDUCE_BULLET_LIFETIME,
             REDUCE_PATTERN_LAYERS),
    "danger": (REDUCE_BULLET_SPEED, REDUCE_BULLETS_PER_WAVE, INCREASE_WAVE_INTERVAL,
               REDUCE_PATTERN_LAYERS),
}

# The pattern field each repair intent moves (the only field it may touch).
INTENT_FIELD: dict[str, str] = {
    REDUCE_BULLETS_PER_WAVE: "bullets_per_wave",
    INCREASE_WAVE_INTERVAL: "wave_interval_ms",
    REDUCE_BULLET_SPEED: "bullet_speed",
    REDUCE_BULLET_LIFETIME: "bullet_lifetime_seconds",
    REDUCE_PATTERN_LAYERS: "layer_count",
}


def family_of(check_name: str) -> Family | None:
    return CHECK_FAMILY.get(check_name)


def intents_for(check_name: str) -> tuple[str, ...]:
    family = family_of(check_name)
    return FAMILY_INTENTS[family] if family else ()
