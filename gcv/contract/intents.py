"""The repair-intent vocabulary, defined once.

The Quality Review Agent names one of these; the policy gate (``gcv.repair.policy``) decides
whether the evidence allows it; a calculator (``gcv.repair.calculators``) does the
arithmetic. Which failures call for which intent, and which field each intent moves, live
with the repair code (``gcv.repair.intents``); only the names live here, so the agents, the
repair code, the strict tool schemas and the report all spell them the same way.
"""

from __future__ import annotations

from typing import Literal, get_args

REDUCE_BULLETS_PER_WAVE = "REDUCE_BULLETS_PER_WAVE"
INCREASE_WAVE_INTERVAL = "INCREASE_WAVE_INTERVAL"
REDUCE_BULLET_SPEED = "REDUCE_BULLET_SPEED"
REDUCE_BULLET_LIFETIME = "REDUCE_BULLET_LIFETIME"
REDUCE_PATTERN_LAYERS = "REDUCE_PATTERN_LAYERS"
REQUEST_HUMAN = "REQUEST_HUMAN"
STOP = "STOP"

Intent = Literal["REDUCE_BULLETS_PER_WAVE", "INCREASE_WAVE_INTERVAL", "REDUCE_BULLET_SPEED",
                 "REDUCE_BULLET_LIFETIME", "REDUCE_PATTERN_LAYERS", "REQUEST_HUMAN", "STOP"]
INTENTS: tuple[str, ...] = get_args(Intent)
# The intents a calculator carries out; the other two end the loop for a person.
REPAIR_INTENTS: tuple[str, ...] = INTENTS[:5]
NON_REPAIR_INTENTS: tuple[str, ...] = (REQUEST_HUMAN, STOP)

assert REPAIR_INTENTS == (REDUCE_BULLETS_PER_WAVE, INCREASE_WAVE_INTERVAL, REDUCE_BULLET_SPEED,
                          REDUCE_BULLET_LIFETIME, REDUCE_PATTERN_LAYERS)

__all__ = ["Intent", "INTENTS", "REPAIR_INTENTS", "NON_REPAIR_INTENTS", "REDUCE_BULLETS_PER_WAVE",
           "INCREASE_WAVE_INTERVAL", "REDUCE_BULLET_SPEED", "REDUCE_BULLET_LIFETIME", "REDUCE_PATTERN_LAYERS",
           "REQUEST_HUMAN", "STOP"]
