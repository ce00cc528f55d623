"""gcv/agents/offline_requirement/handlers/copies.py: a value taken from another phase."""

from __future__ import annotations

import pytest

from gcv.agents.offline_requirement import decide
from gcv.contract.loading import load_config
from tests.conftest import BASELINE_PATH

BASE = load_config(BASELINE_PATH)


@pytest.mark.parametrize("text, phase, field, source", [
    ("make the petal bullets as quick as the spiral's", "phase_3", "bullet_speed", "phase_2"),
    ("phase 2 should fire as many bullets as phase 1", "phase_2", "bullets_per_wave", "phase_1"),
    ("phase 1: the same interval as phase 3", "phase_1", "wave_interval_ms", "phase_3"),
    ("第三阶段的子弹和第一阶段一样快", "phase_3", "bullet_speed", "phase_1"),
])
def test_a_value_from_another_phase_is_set_and_the_other_phase_is_untouched(text: str, phase: str, field: str,
                                                                           source: str) -> None:
    d = decide(text, BASE)
    assert d.decision == "accepted" and d.candidate is not None and d.goal is not None, (text, d.questions)
    assert d.goal.target_phase_ids == [phase] and d.goal.pattern_type is None  # never a pattern switch
    assert getattr(d.candidate.phase(phase).pattern, field) == getattr(BASE.phase(source).pattern, field)
    assert d.candidate.phase(source) == BASE.phase(source)


def test_a_copy_whose_value_is_unclear_asks() -> None:
    d = decide("phase 1 the same as phase 2", BASE)
    assert d.decision == "needs_clarification" and "which value of which phase" in d.questions[-1]
