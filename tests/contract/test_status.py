"""The one status vocabulary (gcv.contract.status): every status has an exit code, a tone and a
title; every terminal reason leads to exactly one status."""

from __future__ import annotations

import pytest

from gcv.contract.exits import ExitCode
from gcv.contract.status import (EXIT_INTERRUPTED, FINAL, HUMAN_DECISIONS, LOOP_END, WAITING, Reason, Status,
                                 requirement_reason)


def test_every_status_has_an_exit_code_a_tone_and_a_title() -> None:
    for status in Status:
        assert isinstance(status.exit_code, int) and status.tone and status.title.strip()
    assert Status.BLOCKED == "blocked" and Status("evidence_ready") is Status.EVIDENCE_READY


@pytest.mark.parametrize("status,code", [
    (Status.EVIDENCE_READY, 0), (Status.ACCEPTED, 0), (Status.NEEDS_CLARIFICATION, 3), (Status.NO_CHANGE, 3),
    (Status.BLOCKED, 4), (Status.BUDGET_EXHAUSTED, 5), (Status.FAILED, 6), (Status.AWAITING_AUTHORIZATION, 7),
    (Status.AWAITING_CHOICE, 7), (Status.RUNNING_CANDIDATE, 8), (Status.PROPOSED, 8),
])
def test_the_documented_exit_codes(status: Status, code: int) -> None:
    assert status.exit_code == code


def test_running_statuses_exit_as_interrupted_and_are_active() -> None:
    running = {s for s in Status if s.running}
    assert running == {Status.PROPOSED, Status.AUTHORIZED, Status.RUNNING_BASELINE, Status.RUNNING_CANDIDATE,
                       Status.REVIEWING, Status.REPAIRING}
    assert all(s.exit_code == EXIT_INTERRUPTED == ExitCode.LEFT_RUNNING and s.tone == "active" for s in running)
    assert not running & WAITING  # the loop never waits in a running status


def test_the_groups() -> None:
    assert HUMAN_DECISIONS <= FINAL and LOOP_END <= WAITING
    assert Status.AWAITING_AUTHORIZATION in WAITING and Status.AWAITING_AUTHORIZATION not in LOOP_END
    assert Status.EVIDENCE_READY.tone == "good" and Status.FAILED.tone == "bad"


def test_every_reason_leads_to_one_status_and_has_words() -> None:
    for reason in Reason:
        assert isinstance(reason.status, Status) and reason.title.strip()
    assert Reason.ACCEPTED_BY_REVIEW.status is Status.EVIDENCE_READY
    assert Reason.DEADLINE.status is Status.BUDGET_EXHAUSTED
    assert Reason.INTENT_UNREPAIRABLE.status is Status.BLOCKED


def test_requirement_reason() -> None:
    assert requirement_reason("blocked") is Reason.REQUIREMENT_BLOCKED
    assert requirement_reason("needs_clarification").status is Status.NEEDS_CLARIFICATION
    with pytest.raises(ValueError):
        requirement_reason("accepted")  # an accepted request does not end the loop
