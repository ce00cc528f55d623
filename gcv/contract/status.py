"""The one status vocabulary: every workflow status, with its exit code, tone and title.

Every consumer reads it from here: the state machine (``gcv.workflow.states``), the CLI's
exit codes, the HTML report's verdict banner, the console, and the agents' failure kinds.
A status is a ``str`` (``Status.BLOCKED == "blocked"``), so JSON files and the SQLite
catalog keep plain strings.

Exit codes (``gcv run`` / ``resume`` / ``answer`` / ``status``, documented in the README):
0 evidence ready or decided, 3 the request did not lead to a candidate (clarification,
out of scope, no change), 4 blocked, 5 budget exhausted, 6 failed, 7 waiting for a person
(an authorization, or the designer's choice among trade-offs), 8 interrupted in the middle of
the loop (resume it).

Terminal reasons name *why* the loop ended; each one belongs to exactly one status.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from gcv.contract.exits import ExitCode

Tone = Literal["good", "warn", "bad", "neutral", "active"]


class Status(StrEnum):
    PROPOSED = "proposed"
    NEEDS_CLARIFICATION = "needs_clarification"
    OUT_OF_SCOPE = "out_of_scope"
    NO_CHANGE = "no_change"
    AWAITING_AUTHORIZATION = "awaiting_authorization"
    AWAITING_CHOICE = "awaiting_choice"
    AUTHORIZED = "authorized"
    RUNNING_BASELINE = "running_baseline"
    RUNNING_CANDIDATE = "running_candidate"
    REVIEWING = "reviewing"
    REPAIRING = "repairing"
    EVIDENCE_READY = "evidence_ready"
    BUDGET_EXHAUSTED = "budget_exhausted"
    BLOCKED = "blocked"
    FAILED = "failed"
    ACCEPTED = "accepted"
    REVISION_REQUESTED = "revision_requested"
    ROLLED_BACK = "rolled_back"

    @property
    def exit_code(self) -> int:
        return _EXIT[self]

    @property
    def tone(self) -> Tone:
        return _TONE[self]

    # the vocabulary's title hides str.title() on purpose (templates and reports read
    # ``status.title``); no caller title-cases a status, so the override is deliberate
    @property
    def title(self) -> str:  # type: ignore[override]
        return _TITLE[self]

    @property
    def running(self) -> bool:
        """The loop is between two of its own steps (a killed process leaves it here)."""
        return self in _RUNNING


_RUNNING = frozenset({Status.PROPOSED, Status.AUTHORIZED, Status.RUNNING_BASELINE, Status.RUNNING_CANDIDATE,
                      Status.REVIEWING, Status.REPAIRING})
EXIT_INTERRUPTED = ExitCode.LEFT_RUNNING  # the name the status table has always used

_EXIT: dict[Status, int] = {
    Status.EVIDENCE_READY: ExitCode.OK, Status.ACCEPTED: ExitCode.OK, Status.REVISION_REQUESTED: ExitCode.OK,
    Status.ROLLED_BACK: ExitCode.OK,
    Status.NEEDS_CLARIFICATION: ExitCode.ATTENTION, Status.OUT_OF_SCOPE: ExitCode.ATTENTION,
    Status.NO_CHANGE: ExitCode.ATTENTION,
    Status.BLOCKED: ExitCode.BLOCKED, Status.BUDGET_EXHAUSTED: ExitCode.BUDGET_EXHAUSTED, Status.FAILED: ExitCode.FAILED,
    Status.AWAITING_AUTHORIZATION: ExitCode.WAITING, Status.AWAITING_CHOICE: ExitCode.WAITING,
    **{s: EXIT_INTERRUPTED for s in _RUNNING},
}

_TONE: dict[Status, Tone] = {
    Status.EVIDENCE_READY: "good", Status.ACCEPTED: "good",
    Status.BUDGET_EXHAUSTED: "warn", Status.AWAITING_AUTHORIZATION: "warn", Status.NEEDS_CLARIFICATION: "warn",
    Status.AWAITING_CHOICE: "warn",
    Status.REVISION_REQUESTED: "warn",
    Status.BLOCKED: "bad", Status.FAILED: "bad", Status.OUT_OF_SCOPE: "bad", Status.ROLLED_BACK: "bad",
    Status.NO_CHANGE: "neutral",
    **{s: "active" for s in _RUNNING},
}

_TITLE: dict[Status, str] = {
    Status.PROPOSED: "Proposed",
    Status.NEEDS_CLARIFICATION: "Needs clarification",
    Status.OUT_OF_SCOPE: "Out of scope",
    Status.NO_CHANGE: "No change requested",
    Status.AWAITING_AUTHORIZATION: "Awaiting authorization",
    Status.AWAITING_CHOICE: "Awaiting the designer's choice",
    Status.AUTHORIZED: "Authorized",
    Status.RUNNING_BASELINE: "Running the baseline",
    Status.RUNNING_CANDIDATE: "Running a candidate",
    Status.REVIEWING: "Reviewing",
    Status.REPAIRING: "Repairing",
    Status.EVIDENCE_READY: "Evidence ready for review",
    Status.BUDGET_EXHAUSTED: "Budget exhausted",
    Status.BLOCKED: "Blocked",
    Status.FAILED: "Failed",
    Status.ACCEPTED: "Accepted",
    Status.REVISION_REQUESTED: "Revision requested",
    Status.ROLLED_BACK: "Rolled back",
}

# Statuses the loop stops at to wait for a person (a decision, an answer, an authorization).
LOOP_END = frozenset({Status.EVIDENCE_READY, Status.BUDGET_EXHAUSTED, Status.BLOCKED, Status.FAILED,
                      Status.NEEDS_CLARIFICATION, Status.OUT_OF_SCOPE, Status.NO_CHANGE})
HUMAN_DECISIONS = frozenset({Status.ACCEPTED, Status.REVISION_REQUESTED, Status.ROLLED_BACK})
# No transition leaves these (a clarification is answered by a new round of the same workflow:
# see gcv.workflow.loop.WorkflowLoop.answer, which is the one exception and is recorded).
FINAL = HUMAN_DECISIONS | frozenset({Status.OUT_OF_SCOPE, Status.NO_CHANGE})
WAITING = frozenset({Status.AWAITING_AUTHORIZATION, Status.AWAITING_CHOICE}) | LOOP_END

# What each role is waited for by (issue 31 item 4): the console's "needs me" list, `gcv list --needs`.
NEEDS: dict[str, tuple[Status, ...]] = {
    "designer": (Status.NEEDS_CLARIFICATION, Status.AWAITING_CHOICE),
    "operator": (Status.AWAITING_AUTHORIZATION,),
    "reviewer": (Status.EVIDENCE_READY,),
}


class Reason(StrEnum):
    """Why the loop ended. Each reason leads to one status (``Reason.status``)."""

    # the requirement agent's decision
    REQUIREMENT_NEEDS_CLARIFICATION = "requirement_needs_clarification"
    REQUIREMENT_OUT_OF_SCOPE = "requirement_out_of_scope"
    REQUIREMENT_NO_CHANGE = "requirement_no_change"
    REQUIREMENT_BLOCKED = "requirement_blocked"
    # the review and the policy gate
    ACCEPTED_BY_REVIEW = "accepted_by_review"
    HUMAN_REVIEW = "human_review"
    REVIEW_STOP = "review_stop"
    INTENT_UNREPAIRABLE = "intent_unrepairable"
    REPAIR_INVALID = "repair_invalid"
    # the second reading of the request (gcv.agents.second_reading)
    SECOND_READING_MISS = "second_reading_miss"
    # guardrails
    ENGINE_RUN_BUDGET = "engine_run_budget"
    MODEL_CALL_BUDGET = "model_call_budget"
    TOKEN_BUDGET = "token_budget"
    DEADLINE = "deadline"
    STAGNATION = "stagnation"
    SPIN = "spin"
    PRESCREEN_BUDGET = "prescreen_budget"
    # engines
    ENGINE_FAILED = "engine_failed"
    ENGINE_DESYNC = "engine_desync"
    # agents (gcv.agents.errors)
    AGENT_OUTPUT_INVALID = "agent_output_invalid"
    AGENT_REFUSED = "agent_refused"
    AGENT_MAX_TOKENS = "agent_max_tokens"
    AGENT_UNAVAILABLE = "agent_unavailable"
    AGENT_ERROR = "agent_error"
    REPLAY_MISMATCH = "replay_mismatch"

    @property
    def status(self) -> Status:
        return _REASON_STATUS[self]

    # the vocabulary's title hides str.title() on purpose (templates and reports read
    # ``status.title``); no caller title-cases a status, so the override is deliberate
    @property
    def title(self) -> str:  # type: ignore[override]
        return _REASON_TITLE[self]


_REASON_STATUS: dict[Reason, Status] = {
    Reason.REQUIREMENT_NEEDS_CLARIFICATION: Status.NEEDS_CLARIFICATION,
    Reason.REQUIREMENT_OUT_OF_SCOPE: Status.OUT_OF_SCOPE,
    Reason.REQUIREMENT_NO_CHANGE: Status.NO_CHANGE,
    Reason.REQUIREMENT_BLOCKED: Status.BLOCKED,
    Reason.ACCEPTED_BY_REVIEW: Status.EVIDENCE_READY,
    Reason.HUMAN_REVIEW: Status.BLOCKED,
    Reason.REVIEW_STOP: Status.BLOCKED,
    Reason.INTENT_UNREPAIRABLE: Status.BLOCKED,
    Reason.REPAIR_INVALID: Status.BLOCKED,
    Reason.SECOND_READING_MISS: Status.BLOCKED,
    Reason.ENGINE_RUN_BUDGET: Status.BUDGET_EXHAUSTED,
    Reason.MODEL_CALL_BUDGET: Status.BUDGET_EXHAUSTED,
    Reason.TOKEN_BUDGET: Status.BUDGET_EXHAUSTED,
    Reason.DEADLINE: Status.BUDGET_EXHAUSTED,
    Reason.STAGNATION: Status.BLOCKED,
    Reason.SPIN: Status.BLOCKED,
    Reason.PRESCREEN_BUDGET: Status.BUDGET_EXHAUSTED,
    Reason.ENGINE_FAILED: Status.FAILED,
    Reason.ENGINE_DESYNC: Status.FAILED,
    Reason.AGENT_OUTPUT_INVALID: Status.BLOCKED,
    Reason.AGENT_REFUSED: Status.BLOCKED,
    Reason.AGENT_MAX_TOKENS: Status.BLOCKED,
    Reason.AGENT_UNAVAILABLE: Status.FAILED,
    Reason.AGENT_ERROR: Status.FAILED,
    Reason.REPLAY_MISMATCH: Status.FAILED,
}

_REASON_TITLE: dict[Reason, str] = {
    Reason.REQUIREMENT_NEEDS_CLARIFICATION: "the request needs clarification",
    Reason.REQUIREMENT_OUT_OF_SCOPE: "the request is outside what GCV may change",
    Reason.REQUIREMENT_NO_CHANGE: "the request asks for no change",
    Reason.REQUIREMENT_BLOCKED: "the requested change breaks a rule of the contract",
    Reason.ACCEPTED_BY_REVIEW: "every check passes and the review passed (agent); a person decides",
    Reason.HUMAN_REVIEW: "the review asked a person to decide",
    Reason.REVIEW_STOP: "the review stopped the loop",
    Reason.INTENT_UNREPAIRABLE: "no allowed repair keeps the designer's intent",
    Reason.REPAIR_INVALID: "the repaired candidate failed validation",
    Reason.SECOND_READING_MISS: "the result does not do what was asked",
    Reason.ENGINE_RUN_BUDGET: "the engine-run budget is used up",
    Reason.MODEL_CALL_BUDGET: "the model-call budget is used up",
    Reason.TOKEN_BUDGET: "the token budget is used up",
    Reason.DEADLINE: "the wall-clock deadline passed",
    Reason.STAGNATION: "repairs stopped improving the result",
    Reason.SPIN: "the same repair was proposed again on identical evidence",
    Reason.PRESCREEN_BUDGET: "the reference pre-screen budget is used up",
    Reason.ENGINE_FAILED: "an engine run failed",
    Reason.ENGINE_DESYNC: "the engine's gameplay differs from the reference simulator's (a port is out of step)",
    Reason.AGENT_OUTPUT_INVALID: "the agent's output stayed malformed",
    Reason.AGENT_REFUSED: "the model refused",
    Reason.AGENT_MAX_TOKENS: "the model's answer was cut off",
    Reason.AGENT_UNAVAILABLE: "the model could not be reached",
    Reason.AGENT_ERROR: "the agent failed",
    Reason.REPLAY_MISMATCH: "the replayed recording does not match the request",
}


def requirement_reason(decision: str) -> Reason:
    """The terminal reason for a requirement decision other than ``accepted``."""
    return Reason(f"requirement_{decision}")


__all__ = ["Status", "Reason", "Tone", "LOOP_END", "HUMAN_DECISIONS", "FINAL", "WAITING", "NEEDS", "EXIT_INTERRUPTED",
           "requirement_reason"]
