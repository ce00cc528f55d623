"""Effective targets (gcv.evaluation.targets): the baseline's targets, the designer's stated
constraints capped by the limits, survival ticks rounded half up (moved here from
tests/evaluation/test_evaluate.py, which keeps the checks built on them)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from gcv.contract.goal import DesignerConstraints, Goal
from gcv.evaluation.targets import effective_targets, round_half_up
from tests.support.evalutil import base, with_targets


def goal(**kw) -> Goal:
    kw.setdefault("target_phase_ids", ["phase_2"])
    return Goal(**kw)


def constraints(**kw) -> Goal:
    return goal(constraints=DesignerConstraints(**kw))


def test_targets_default_to_the_baseline():
    t = effective_targets(base(), None)
    assert (t.max_alive_bullets, t.max_player_hits, t.min_low_fps) == (350, 3, 55.0)
    assert (t.min_survival_ticks, t.require_all_phases, t.phase_count) == (2160, True, 3)
    assert set(t.sources.values()) == {"baseline.targets"}
    assert t.derivation["max_alive_bullets"] == "min(limits.max_alive_bullets 350, baseline.targets 350) = 350"


@pytest.mark.parametrize(("stated", "field", "value", "source"), [
    ({"max_alive_bullets": 300}, "max_alive_bullets", 300, "designer"),
    ({"max_alive_bullets": 500}, "max_alive_bullets", 350, "limits"),
    ({"max_player_hits": 0}, "max_player_hits", 0, "designer"),
    ({"max_player_hits": 10}, "max_player_hits", 3, "limits"),
    ({"min_low_fps": 60}, "min_low_fps", 60.0, "designer"),
    ({"min_low_fps": 30}, "min_low_fps", 55.0, "limits"),
    ({"min_low_fps": 55}, "min_low_fps", 55.0, "designer"),  # a tie names the designer
])
def test_designer_constraints_are_capped_by_limits(stated, field, value, source):
    t = effective_targets(base(), constraints(**stated))
    assert getattr(t, field) == value
    assert t.sources[field] == source


def test_designer_may_loosen_a_baseline_target_up_to_the_limit():
    b = with_targets(base(), max_alive_bullets=200)
    assert effective_targets(b, None).max_alive_bullets == 200
    t = effective_targets(b, constraints(max_alive_bullets=300))
    assert (t.max_alive_bullets, t.sources["max_alive_bullets"]) == (300, "designer")


def test_survival_ticks_round_half_up_exactly():
    # 0.075 s * 60 = 4.5 ticks: half up gives 5 (banker's rounding would give 4)
    assert effective_targets(with_targets(base(), min_survival_seconds=0.075)).min_survival_ticks == 5
    assert effective_targets(with_targets(base(), min_survival_seconds=35.5)).min_survival_ticks == 2130
    assert round_half_up(Fraction(5, 2)) == 3 and round_half_up(Fraction(7, 2)) == 4


def test_keep_it_dodgeable_is_the_designers_when_the_baseline_does_not_ask() -> None:
    t = effective_targets(base(), constraints(require_dodgeable=True))
    assert t.require_dodgeable and t.sources["require_dodgeable"] == "designer"
    assert "require_dodgeable" not in effective_targets(base(), None).sources
    assert t.derivation["require_dodgeable"] == "targets.require_dodgeable = false or designer = true"
