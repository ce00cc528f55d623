"""The authorized repair scope and the smaller change offered as a trade-off (gcv.repair.scope)."""

from __future__ import annotations

from gcv.contract.goal import DesignerConstraints, Goal, ParameterEdit, with_targets
from gcv.repair.intents import INTENT_FIELD
from gcv.repair.scope import default_scope, in_scope, raise_targets, requested_pairs, smaller_change, whole_fight
from tests.support.evalutil import base, base_telemetry, edit, evaluation, too_many_hits, variant


def test_requested_pairs_are_where_the_request_changed_the_baseline() -> None:
    requested = variant(base(), "phase_2", bullet_speed=2.0, bullets_per_wave=14)
    assert requested_pairs(base(), requested) == {("phase_2", "bullet_speed"), ("phase_2", "bullets_per_wave")}
    assert requested_pairs(base(), base()) == frozenset()


def test_the_default_scope_is_the_named_phases_and_the_changed_fields() -> None:
    goal = Goal(target_phase_ids=["phase_2"], edits=[ParameterEdit(field="bullet_speed", operation="set", value=2)])
    scope = default_scope(goal, base(), variant(base(), "phase_2", bullet_speed=2.0))
    assert (scope.phases, scope.fields) == (["phase_2"], ["bullet_speed"])
    assert in_scope(scope, "REDUCE_BULLET_SPEED", "phase_2")
    assert not in_scope(scope, "REDUCE_BULLETS_PER_WAVE", "phase_2") and not in_scope(scope, "REDUCE_BULLET_SPEED", "phase_1")
    assert not in_scope(scope, "STOP", "phase_2") and not in_scope(scope, None, "phase_2")
    assert default_scope(None, base(), None).phases == []


def test_the_whole_fight_is_every_phase_and_every_repair_field() -> None:
    scope = whole_fight(base())
    assert scope.phases == ["phase_1", "phase_2", "phase_3"] and scope.fields == sorted(set(INTENT_FIELD.values()))


def test_a_smaller_change_moves_back_a_share_of_each_step_keeping_its_direction() -> None:
    old = base().phase("phase_2").pattern
    requested = variant(base(), "phase_2", bullets_per_wave=old.bullets_per_wave + 5, bullet_speed=old.bullet_speed + 1)
    half = smaller_change(base(), requested, "1/2")
    assert half is not None
    p = half.phase("phase_2").pattern
    assert p.bullets_per_wave == old.bullets_per_wave + 3  # 2.5 rounded away from the baseline
    assert p.bullet_speed == round(old.bullet_speed + 0.5, 2)
    quarter = smaller_change(base(), requested, "1/4").phase("phase_2").pattern  # type: ignore[union-attr]
    assert quarter.bullets_per_wave == old.bullets_per_wave + 2 and quarter.bullet_speed == round(old.bullet_speed + 0.25, 2)
    assert smaller_change(base(), base(), "1/2") is None  # nothing moved


# --- raise_targets: keep the change, raise what it misses ------------------------------------

def _lenient_base():
    b = base()
    return b.model_copy(update={"limits": b.limits.model_copy(update={"max_player_hits": 6, "max_alive_bullets": 350})})


def test_a_miss_of_hits_only_raises_the_hits_target_to_what_was_measured() -> None:
    b = _lenient_base()
    goal = Goal(target_phase_ids=["phase_2"], edits=[ParameterEdit(field="bullet_speed", operation="scale", value=1.4)])
    ev = evaluation(too_many_hits(5), goal=goal, baseline=b)
    assert raise_targets(ev, goal, b) == {"max_player_hits": 5}


def test_nothing_is_raised_past_a_limit_for_a_stated_target_or_beside_another_failure() -> None:
    b = _lenient_base()
    goal = Goal(target_phase_ids=["phase_2"])
    assert raise_targets(evaluation(too_many_hits(7), goal=goal, baseline=b), goal, b) == {}  # past the limit 6
    stated = Goal(target_phase_ids=["phase_2"], constraints=DesignerConstraints(max_player_hits=3))
    assert raise_targets(evaluation(too_many_hits(5), goal=stated, baseline=b), stated, b) == {}  # the words win
    died = edit(too_many_hits(5), status="player_died")
    assert raise_targets(evaluation(died, goal=goal, baseline=b), goal, b) == {}  # run_status fails too
    assert raise_targets(evaluation(base_telemetry(), goal=goal, baseline=b), goal, b) == {}  # nothing fails


def test_with_targets_states_the_raised_target_as_the_designers() -> None:
    goal = Goal(target_phase_ids=["phase_2"])
    raised = with_targets(goal, {"max_player_hits": 5})
    assert raised.constraints.max_player_hits == 5 and goal.constraints.max_player_hits is None
    assert with_targets(goal, {}) is goal
