"""One segment as the numeric handlers see it (gcv.agents.offline_requirement.handlers.segment)."""

from __future__ import annotations

import pytest

from gcv.agents.offline_requirement import decide
from gcv.contract.loading import load_config
from tests.conftest import BASELINE_PATH

from gcv.agents.offline_requirement.handlers.segment import Segment
from gcv.agents.offline_requirement.numbers import normalize
from gcv.agents.offline_requirement.state import Clause, Context, Reading
from tests.support.evalutil import base

BASE = load_config(BASELINE_PATH)

CTX = Context(base())


def _segment(text: str) -> Segment:
    return Segment(CTX, normalize(text), Reading(text=text), Clause())


def test_seconds_are_an_interval_or_a_lifetime_by_context() -> None:
    assert _segment("bullets last 4 s").time_field() == "bullet_lifetime_seconds"
    assert _segment("every 2 s").time_field() == "wave_interval_ms"
    assert _segment("2 s").time_field() is None  # unclear: asked


def test_units_name_their_field() -> None:
    seg = _segment("every 2 s")
    assert (seg.unit_field("bullets"), seg.unit_field("ms"), seg.unit_field("layers"), seg.unit_field("层")) == (
        "bullets_per_wave", "wave_interval_ms", "layer_count", "layer_count")
    assert seg.unit_field("s") == "wave_interval_ms" and seg.unit_field("") is None
    assert _segment("2 s").unit_field("s") is None
    assert _segment("rotate 30 degrees").unit_field("degrees") == "rotation_per_wave_deg"


def test_rate_words() -> None:
    assert _segment("raise the fire rate").rate_said and _segment("射速提高").rate_said
    assert not _segment("20 bullets").rate_said


@pytest.mark.parametrize("text, phase, field, value", [
    ("the ring's bullets should last 1200 ms", "phase_1", "bullet_lifetime_seconds", 1.2),
    ("第二阶段子弹存活时间改成2500毫秒", "phase_2", "bullet_lifetime_seconds", 2.5),
    ("phase 3 fires every 650 ms", "phase_3", "wave_interval_ms", 650),  # an interval stays in ms
])
def test_milliseconds_of_a_lifetime_are_seconds(text: str, phase: str, field: str, value: float) -> None:
    d = decide(text, BASE)
    assert d.decision == "accepted" and d.candidate is not None, (text, d.questions)
    assert getattr(d.candidate.phase(phase).pattern, field) == value
