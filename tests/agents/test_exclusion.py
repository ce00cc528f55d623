"""gcv/agents/offline_requirement/handlers/exclusion.py: phases named to be left out."""

from __future__ import annotations

import pytest

from gcv.agents.offline_requirement import decide
from gcv.contract.loading import load_config
from tests.conftest import BASELINE_PATH

BASE = load_config(BASELINE_PATH)


@pytest.mark.parametrize("text, changed", [
    ("every phase apart from the swirl gets 10% slower bullets", ["phase_1", "phase_3"]),
    ("all stages but stage 3: one more bullet per wave", ["phase_1", "phase_2"]),
    ("phase 1 and phase 2 quicker, but not phase 2", ["phase_1"]),
    ("除第三阶段外，所有阶段弹速降低10%", ["phase_1", "phase_2"]),
    ("花瓣那段除外，全部子弹速度提高一成", ["phase_1", "phase_2"]),
])
def test_phases_left_out_are_never_changed(text: str, changed: list[str]) -> None:
    d = decide(text, BASE)
    assert d.decision == "accepted" and d.candidate is not None and d.goal is not None, (text, d.questions)
    assert d.goal.target_phase_ids == changed
    assert [p.phase_id for p in d.candidate.phases if p != BASE.phase(p.phase_id)] == changed


def test_deleting_a_phase_is_no_exclusion() -> None:
    assert decide("删除第三阶段", BASE).decision == "blocked"  # the 除 of 删除 leaves nothing out


def test_an_exclusion_that_names_no_phase_asks() -> None:
    d = decide("every phase except phase 9 should be denser", BASE)
    assert d.decision == "needs_clarification" and "names no single phase" in d.questions[-1]


@pytest.mark.parametrize("text, changed", [
    ("the petal phase looks fine, just give the spiral 10% faster bullets", ["phase_2"]),
    ("leave phase 2 untouched and make the rest 10% slower", ["phase_1", "phase_3"]),
    ("don't touch the ring; everything else gets one more bullet per wave", ["phase_2", "phase_3"]),
    ("第三阶段保持原样，其余阶段弹速降低10%", ["phase_1", "phase_2"]),
])
def test_a_phase_said_to_stay_as_it_is_is_left_out(text: str, changed: list[str]) -> None:
    d = decide(text, BASE)
    assert d.decision == "accepted" and d.goal is not None, (text, d.questions)
    assert d.goal.target_phase_ids == changed


@pytest.mark.parametrize("text", ["leave the ring as it is", "第二阶段保持不变"])
def test_keeping_a_phase_and_nothing_else_is_no_change(text: str) -> None:
    assert decide(text, BASE).decision == "no_change"


def test_a_field_of_a_phase_kept_is_no_exclusion_of_the_phase() -> None:
    d = decide("don't change phase 3's speed, give it 2 more bullets per wave", BASE)
    assert d.decision == "accepted" and d.goal is not None and d.goal.target_phase_ids == ["phase_3"]
