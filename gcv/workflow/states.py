"""The workflow state machine: every legal transition, and nothing else.

An illegal transition is an error (never a silent overwrite), and a human decision on a
finished workflow cannot be overwritten.
"""

from __future__ import annotations

TRANSITIONS: dict[str, frozenset[str]] = {
    "proposed": frozenset({"awaiting_authorization", "needs_clarification", "out_of_scope",
                           "no_change", "blocked", "failed", "budget_exhausted"}),
    "awaiting_authorization": frozenset({"authorized", "rolled_back"}),
    "authorized": frozenset({"running_baseline"}),
    "running_baseline": frozenset({"running_candidate", "failed", "budget_exhausted"}),
    "running_candidate": frozenset({"reviewing", "failed", "budget_exhausted"}),
    "reviewing": frozenset({"evidence_ready", "repairing", "blocked", "budget_exhausted", "failed"}),
    "repairing": frozenset({"running_candidate", "blocked", "budget_exhausted", "failed"}),
    "evidence_ready": frozenset({"accepted", "revision_requested", "rolled_back"}),
    "budget_exhausted": frozenset({"revision_requested", "rolled_back"}),
    "blocked": frozenset({"revision_requested", "rolled_back"}),
    "failed": frozenset({"revision_requested", "rolled_back"}),
    "needs_clarification": frozenset(),
    "out_of_scope": frozenset(),
    "no_change": frozenset(),
    "accepted": frozenset(),
    "revision_requested": frozenset(),
    "rolled_back": frozenset(),
}
STATES = tuple(TRANSITIONS)
# The loop stops here and waits for a person.
LOOP_END = frozenset({"evidence_ready", "budget_exhausted", "blocked", "failed",
                      "needs_clarification", "out_of_scope", "no_change"})
HUMAN_DECISIONS = frozenset({"accepted", "revision_requested", "rolled_back"})
FINAL = HUMAN_DECISIONS | frozenset({"needs_clarification", "out_of_scope", "no_change"})
WAITING = frozenset({"awaiting_authorization"}) | LOOP_END


class IllegalTransition(Exception):
    def __init__(self, current: str, target: str) -> None:
        allowed = ", ".join(sorted(TRANSITIONS.get(current, ()))) or "none (final)"
        super().__init__(f"cannot go from {current!r} to {target!r}; allowed from {current!r}: {allowed}")
        self.current, self.target = current, target


def check_transition(current: str, target: str) -> None:
    if current not in TRANSITIONS:
        raise IllegalTransition(current, target)
    if target not in TRANSITIONS[current]:
        raise IllegalTransition(current, target)
