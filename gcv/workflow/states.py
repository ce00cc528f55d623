"""The workflow state machine: every legal transition, and nothing else.

An illegal transition is an error (never a silent overwrite), and a human decision on a
finished workflow cannot be overwritten. The statuses themselves (their exit codes, tones
and titles) are ``gcv.contract.status.Status``.
"""

from __future__ import annotations

from gcv.contract.status import FINAL, HUMAN_DECISIONS, LOOP_END, WAITING, Status

S = Status
TRANSITIONS: dict[Status, frozenset[Status]] = {
    S.PROPOSED: frozenset({S.AWAITING_AUTHORIZATION, S.NEEDS_CLARIFICATION, S.OUT_OF_SCOPE, S.NO_CHANGE,
                           S.BLOCKED, S.FAILED, S.BUDGET_EXHAUSTED}),
    S.AWAITING_AUTHORIZATION: frozenset({S.AUTHORIZED, S.ROLLED_BACK}),
    S.AUTHORIZED: frozenset({S.RUNNING_BASELINE}),
    S.RUNNING_BASELINE: frozenset({S.RUNNING_CANDIDATE, S.FAILED, S.BUDGET_EXHAUSTED}),
    S.RUNNING_CANDIDATE: frozenset({S.REVIEWING, S.FAILED, S.BUDGET_EXHAUSTED}),
    S.REVIEWING: frozenset({S.EVIDENCE_READY, S.REPAIRING, S.AWAITING_CHOICE, S.BLOCKED, S.BUDGET_EXHAUSTED,
                            S.FAILED}),
    # no repair within the authorized scope: the designer picks a trade-off (a new round) or decides
    S.AWAITING_CHOICE: frozenset({S.RUNNING_CANDIDATE, S.REVISION_REQUESTED, S.ROLLED_BACK}),
    S.REPAIRING: frozenset({S.RUNNING_CANDIDATE, S.BLOCKED, S.BUDGET_EXHAUSTED, S.FAILED}),
    S.EVIDENCE_READY: frozenset({S.ACCEPTED, S.REVISION_REQUESTED, S.ROLLED_BACK}),
    S.BUDGET_EXHAUSTED: frozenset({S.REVISION_REQUESTED, S.ROLLED_BACK}),
    S.BLOCKED: frozenset({S.REVISION_REQUESTED, S.ROLLED_BACK}),
    S.FAILED: frozenset({S.REVISION_REQUESTED, S.ROLLED_BACK}),
    # the designer answers the questions: the same request goes back to the requirement agent
    S.NEEDS_CLARIFICATION: frozenset({S.PROPOSED}),
    S.OUT_OF_SCOPE: frozenset(),
    S.NO_CHANGE: frozenset(),
    S.ACCEPTED: frozenset(),
    S.REVISION_REQUESTED: frozenset(),
    S.ROLLED_BACK: frozenset(),
}
STATES = tuple(TRANSITIONS)
assert set(STATES) == set(Status), "every status has its row"

# What a person may decide on a workflow in each status (the CLI and the console offer
# exactly these; anything else is refused by ``check_transition``).
DECISION_TARGET = {"accept": S.ACCEPTED, "revise": S.REVISION_REQUESTED, "rollback": S.ROLLED_BACK}
# The decisions that must say why (``gcv decide --note``, the console's note): accepting puts the
# change forward, a rollback throws the work away; asking for a revision may go without a word.
NOTE_REQUIRED = frozenset({"accept", "rollback"})


def decisions_allowed(status: Status) -> list[str]:
    return [name for name, target in DECISION_TARGET.items() if target in TRANSITIONS[status]]


class IllegalTransition(Exception):
    def __init__(self, current: str, target: str) -> None:
        allowed = ", ".join(sorted(TRANSITIONS.get(current, ()))) or "none (final)"  # type: ignore[call-overload]
        now, to = str(current), str(target)  # the value, never the enum's repr
        super().__init__(f"cannot go from {now!r} to {to!r}; allowed from {now!r}: {allowed}")
        self.current, self.target = current, target


def check_transition(current: str, target: str) -> None:
    try:
        allowed = TRANSITIONS[Status(current)]
    except ValueError:
        raise IllegalTransition(current, target) from None
    if target not in allowed:
        raise IllegalTransition(current, target)


__all__ = ["TRANSITIONS", "STATES", "LOOP_END", "HUMAN_DECISIONS", "FINAL", "WAITING", "DECISION_TARGET",
           "NOTE_REQUIRED", "IllegalTransition", "check_transition", "decisions_allowed"]
