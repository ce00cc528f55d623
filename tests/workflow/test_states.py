"""Every legal transition is allowed and every other one refused."""

from __future__ import annotations

import itertools

import pytest

from gcv.workflow.states import FINAL, STATES, TRANSITIONS, IllegalTransition, check_transition

LEGAL = [(a, b) for a, targets in TRANSITIONS.items() for b in sorted(targets)]
ILLEGAL = [(a, b) for a, b in itertools.product(STATES, STATES) if b not in TRANSITIONS[a]]


@pytest.mark.parametrize("current,target", LEGAL)
def test_legal_transition(current: str, target: str) -> None:
    check_transition(current, target)


@pytest.mark.parametrize("current,target", ILLEGAL)
def test_illegal_transition_is_an_error(current: str, target: str) -> None:
    with pytest.raises(IllegalTransition) as info:
        check_transition(current, target)
    assert current in str(info.value) and target in str(info.value)


def test_final_states_have_no_way_out() -> None:
    for state in FINAL:
        assert TRANSITIONS[state] == frozenset()


def test_accept_is_only_reachable_from_evidence_ready() -> None:
    assert [a for a, b in LEGAL if b == "accepted"] == ["evidence_ready"]


def test_nothing_runs_before_authorization() -> None:
    assert TRANSITIONS["awaiting_authorization"] == frozenset({"authorized", "rolled_back"})
    assert [a for a, b in LEGAL if b == "running_baseline"] == ["authorized"]


def test_unknown_state_is_refused() -> None:
    with pytest.raises(IllegalTransition):
        check_transition("dreaming", "accepted")


def test_the_message_names_statuses_by_value_not_by_enum_repr() -> None:
    from gcv.contract.status import Status

    with pytest.raises(IllegalTransition) as info:
        check_transition(Status.ACCEPTED, Status.BLOCKED)
    assert str(info.value) == "cannot go from 'accepted' to 'blocked'; allowed from 'accepted': none (final)"
