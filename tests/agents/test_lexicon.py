"""The lexicon and grammar classes of issue 27, on sentences of our own (none is in the labeled set).

Each row is a class of phrasing the reader learnt; the held-out part (heldout2.jsonl) measures
the same classes on sentences written before the reader changed.
"""

from __future__ import annotations

from typing import Any

import pytest

from gcv.agents.offline_requirement import decide
from gcv.agents.offline_requirement.lexicon import before_lower, script
from gcv.agents.offline_requirement.numbers import normalize
from gcv.contract.loading import load_config
from tests.conftest import BASELINE_PATH

BASE = load_config(BASELINE_PATH)


def _pattern(text: str, phase: str, follow_ups: tuple[str, ...] = ()) -> Any:
    d = decide(text, BASE, follow_ups=follow_ups)
    assert d.decision == "accepted", (text, d.decision, d.questions, d.rationale)
    assert d.candidate is not None
    cand = d.candidate.phase(phase)
    assert cand is not None
    return cand.pattern


BASE_P = {p.phase_id: p.pattern for p in BASE.phases}


@pytest.mark.parametrize("text, phase, field, value", [
    # amounts to add or cut, never the new value
    ("trim 100 ms off phase 3's wave interval", "phase_3", "wave_interval_ms", 750),
    ("take 1 s off the phase 2 bullet lifetime", "phase_2", "bullet_lifetime_seconds", 4.2),
    ("phase 1: throw in 6 extra bullets", "phase_1", "bullets_per_wave", 22),
    ("第三阶段寿命延长 2 秒", "phase_3", "bullet_lifetime_seconds", 7),
    ("第一阶段每波多给两发", "phase_1", "bullets_per_wave", 18),
    # rates: waves per second are an interval; N times as often scales it
    ("phase 2: 4 waves per second", "phase_2", "wave_interval_ms", 250),
    ("phase 3 should fire four times as often", "phase_3", "wave_interval_ms", 213),
    ("第一阶段每秒打四波", "phase_1", "wave_interval_ms", 250),
    # rotation verbs: the rotation, never the bullet speed
    ("make phase 3 spin a little faster", "phase_3", "rotation_per_wave_deg", 13.2),
    ("第三阶段转速降低 50%", "phase_3", "rotation_per_wave_deg", 5.5),
    # phases by group, position and nickname
    ("the final phase: 3 layers", "phase_3", "layer_count", 3),
    ("the swirly one: speed 4.4", "phase_2", "bullet_speed", 4.4),
    ("flower bit lifetime 3 s", "phase_3", "bullet_lifetime_seconds", 3),
    ("第二介段子弹速度 4", "phase_2", "bullet_speed", 4),
    # units: hyphens, camelCase, misspelt units, from A to B
    ("phase 2 needs an 800-ms interval", "phase_2", "wave_interval_ms", 800),
    ("phase 3 waveIntervalMs 650", "phase_3", "wave_interval_ms", 650),
    ("phase 1 lifetime 3 secondes", "phase_1", "bullet_lifetime_seconds", 3),
    ("phase 2 lifetime from 5.2 s to 4 s", "phase_2", "bullet_lifetime_seconds", 4),
    ("第三阶段间隔从 0.85 秒缩短到 0.7 秒", "phase_3", "wave_interval_ms", 700),
    # number words, fractions, traditional characters
    ("phase 3: a dozen bullets", "phase_3", "bullets_per_wave", 12),
    ("phase 1 bullets thirty-two per wave", "phase_1", "bullets_per_wave", 32),
    ("phase 2 lifetime two and a half seconds", "phase_2", "bullet_lifetime_seconds", 2.5),
    ("第一階段彈速三點二", "phase_1", "bullet_speed", 3.2),
    ("第三阶段间隔缩短四分之一", "phase_3", "wave_interval_ms", 638),
    # jargon and colloquial words of one field
    ("phase 2 TTL 3s", "phase_2", "bullet_lifetime_seconds", 3),
    ("phase 3 volley size 10", "phase_3", "bullets_per_wave", 10),
])
def test_a_class_of_phrasing_reaches_the_field(text: str, phase: str, field: str, value: float) -> None:
    assert getattr(_pattern(text, phase), field) == value


@pytest.mark.parametrize("text, phase, way", [
    ("please go easy on phase 1", "phase_1", "down"),
    ("calm phase 3 down", "phase_3", "down"),
    ("第一阶段手下留情一点", "phase_1", "down"),
    ("crank phase 3 up a notch", "phase_3", "up"),
    ("第三阶段加点难度", "phase_3", "up"),
])
def test_easing_and_intensifying_words_are_pressure(text: str, phase: str, way: str) -> None:
    from gcv.agents.request_eval import bullets_per_second

    after, before = bullets_per_second(_pattern(text, phase)), bullets_per_second(BASE_P[phase])
    assert (after > before) if way == "up" else (after < before)


@pytest.mark.parametrize("text, phase, field, way", [
    ("phase 1 bullets should stick around longer", "phase_1", "bullet_lifetime_seconds", "up"),
    ("phase 3 waves closer together", "phase_3", "wave_interval_ms", "down"),
    ("phase 2 bullets snappier", "phase_2", "bullet_speed", "up"),
    ("phase 2 not faster, slower", "phase_2", "bullet_speed", "down"),
    ("phase 3 twist slower", "phase_3", "rotation_per_wave_deg", "down"),
])
def test_colloquial_and_negated_words_go_the_right_way(text: str, phase: str, field: str, way: str) -> None:
    after, before = getattr(_pattern(text, phase), field), getattr(BASE_P[phase], field)
    assert (after > before) if way == "up" else (after < before)
    if field == "rotation_per_wave_deg":
        assert _pattern(text, phase).bullet_speed == BASE_P[phase].bullet_speed


@pytest.mark.parametrize("text", [
    "phase 3 more and fewer layers",          # both directions of one field
    "第一阶段子弹更快又更慢",
    "phase 2 denser but also sparser",
    "phase 3: 40 bullets per second",          # per wave or per interval?
    "第二阶段每秒 30 发",
    "phase 1 15 bullets and phase 3 lifetime 3 s",  # two phases, two changes
])
def test_what_cannot_be_decided_is_asked_never_applied(text: str) -> None:
    d = decide(text, BASE)
    assert d.decision == "needs_clarification", (d.decision, d.rationale)
    assert d.asks and d.asks[0].text == d.questions[0]


def test_the_two_sides_of_a_contradiction_are_choices_and_each_one_decides() -> None:
    d = decide("phase 3 more and fewer layers", BASE)
    assert d.asks[0].kind == "contradiction"
    assert [c.answer for c in d.asks[0].choices] == ["more layers", "fewer layers"]
    assert _pattern("phase 3 more and fewer layers", "phase_3", ("more layers",)).layer_count == 3
    fewer = decide("phase 3 more and fewer layers", BASE, follow_ups=["fewer layers"])
    assert fewer.decision == "blocked"  # a petal needs two layers: the answer decided, the rules refused


@pytest.mark.parametrize("text, decision", [
    ("nah it's good, ship it", "no_change"),
    ("保持原封不动就行", "no_change"),
    ("will it snow tomorrow?", "out_of_scope"),
    ("午饭吃什么好", "out_of_scope"),
    ("let the player move 30% faster", "blocked"),
])
def test_no_op_off_topic_and_out_of_scope_phrasings(text: str, decision: str) -> None:
    assert decide(text, BASE).decision == decision


def test_the_script_layer() -> None:
    assert script("第二階段彈速") == "第二阶段弹速"
    assert script("第三阶断") == "第三阶段"
    assert before_lower("set bulletLifetimeSeconds on phase2") == "set bullet_lifetime_seconds on phase 2"
    assert "every 500 ms" in normalize("phase 1: 2 waves a second")
    assert "24 bullets" in normalize("twenty-four bullets")
