"""What no change request may do (gcv.agents.offline_requirement.handlers.scope)."""

from __future__ import annotations

from gcv.agents.offline_requirement.handlers import scope
from tests.support.readerutil import read_clause as read



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
