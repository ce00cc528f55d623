"""What no change request may do (gcv.agents.offline_requirement.handlers.scope)."""

from __future__ import annotations

from gcv.agents.offline_requirement.handlers import scope
from gcv.agents.offline_requirement.numbers import normalize
from gcv.agents.offline_requirement.state import Clause, Context, Reading
from tests.support.evalutil import base

CTX = Context(base())  # the committed baseline: phase_1 ring, phase_2 spiral, phase_3 petal


def read(handler, text: str):  # type: ignore[no-untyped-def]
    """(the text left for later handlers, the reading, the clause) after ``handler`` read ``text``."""
    r, clause = Reading(text=text), Clause()
    return handler(CTX, normalize(text), r, clause), r, clause


def test_fields_outside_the_write_scope_are_blocked_with_what_can_change() -> None:
    _, r, _ = read(scope.read, "make the boss health 9000")
    (block,) = r.blocks
    assert block.field == "$.boss.max_health" and block.asked == "boss health"
    assert block.allowed == "only phases[*].pattern.* and targets.* may change"
    assert "What a request can change: each phase's pattern" in block.message


def test_adding_a_phase_is_blocked() -> None:
    _, r, _ = read(scope.read, "add a fourth phase")
    (block,) = r.blocks
    assert block.field == "$.phases" and "contract maximum 6" in block.allowed
    assert "never adds, removes or reorders phases" in block.message


def test_a_pattern_request_is_in_scope() -> None:
    assert read(scope.read, "make phase 2 bullets 20% slower")[1].blocks == []
