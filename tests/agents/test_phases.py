"""Phase references (gcv.agents.offline_requirement.handlers.phases)."""

from __future__ import annotations

from gcv.agents.offline_requirement.handlers import phases
from tests.support.readerutil import read_clause as read



def test_numbers_and_lists_of_phases() -> None:
    left, r, clause = read(phases.read, "make phase 2 and phase 3 slower")
    assert r.phase_positions == [2, 3] and clause.phases == [2, 3] and left.split() == ["make", "slower"]
    assert read(phases.read, "第二阶段更密集")[1].phase_positions == [2]
    assert read(phases.read, "phase_3")[1].phase_positions == [3]
    assert read(phases.read, "最后阶段")[1].phase_positions == [3]


def test_a_phase_the_fight_does_not_have_is_asked_about() -> None:
    _, r, _ = read(phases.read, "phase 9 slower")
    assert r.bad_phase and r.phase_positions == []
    assert r.questions[0].startswith("The fight has 3 phases (phase_1 (ring, 'Opening ring')")
    assert r.questions[0].endswith("there is no phase 9. Which phase did you mean?")


def test_all_phases_and_the_whole_fight() -> None:
    _, r, clause = read(phases.read, "all phases")
    assert r.all_phases and clause.phases == [1, 2, 3]
    _, r, clause = read(phases.read_whole_fight, "the whole fight should be harder")
    assert r.whole_fight and clause.phases == [1, 2, 3]


def test_groups_by_position() -> None:
    _, r, clause = read(phases.read_groups, "the last two phases slower")
    assert r.phase_positions == [2, 3] and clause.phases == [2, 3]


def test_the_closer_and_the_finale_are_the_last_phase() -> None:
    from gcv.agents.offline_requirement import decide
    from gcv.contract.loading import load_config
    from tests.conftest import BASELINE_PATH

    base = load_config(BASELINE_PATH)
    for text, phases in (("the opener and the closer: 10% slower bullets", ["phase_1", "phase_3"]),
                         ("give the finale one more layer", ["phase_3"]),
                         ("收尾阶段子弹速度降低10%", ["phase_3"])):
        d = decide(text, base)
        assert d.decision == "accepted" and d.goal is not None, (text, d.questions)
        assert d.goal.target_phase_ids == phases, text


def test_the_first_and_the_last_one_in_chinese() -> None:
    from gcv.agents.offline_requirement import decide
    from gcv.contract.loading import load_config
    from tests.conftest import BASELINE_PATH

    d = decide("第一个和最后一个阶段的子弹速度降低10%", load_config(BASELINE_PATH))
    assert d.decision == "accepted" and d.goal is not None and d.goal.target_phase_ids == ["phase_1", "phase_3"]
    assert [e.field for e in d.goal.edits] == ["bullet_speed"]
