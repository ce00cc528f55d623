"""Which failures call for which repair intents (gcv.repair.intents)."""

from __future__ import annotations

from gcv.contract.intents import REPAIR_INTENTS
from gcv.repair.intents import CHECK_FAMILY, FAMILY_INTENTS, INTENT_FIELD, family_of, intents_for


def test_load_and_danger_families() -> None:
    assert family_of("peak_alive_bullets") == "load" and family_of("low_fps") == "load"
    assert family_of("player_hits") == "danger" and family_of("fair_fight") == "danger"
    assert family_of("phase_coverage") is None and family_of("intent.spawn_rate") is None


def test_the_intents_each_family_allows() -> None:
    assert intents_for("player_hits")[0] == "REDUCE_BULLET_SPEED"
    assert "REDUCE_BULLET_SPEED" not in intents_for("peak_alive_bullets")  # slower bullets stay on screen longer
    assert "REDUCE_BULLET_LIFETIME" in intents_for("low_fps") and "REDUCE_BULLET_LIFETIME" not in intents_for("survival")
    assert intents_for("phase_coverage") == ()  # needs a human


def test_every_repair_intent_moves_one_field_and_every_family_uses_known_intents() -> None:
    assert set(INTENT_FIELD) == set(REPAIR_INTENTS)
    assert INTENT_FIELD["INCREASE_WAVE_INTERVAL"] == "wave_interval_ms"
    assert all(set(v) <= set(REPAIR_INTENTS) for v in FAMILY_INTENTS.values())
    assert set(CHECK_FAMILY.values()) == set(FAMILY_INTENTS)
