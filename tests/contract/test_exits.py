"""gcv/contract/exits.py: one exit-code table. Every module's exit constant is a member of it,
so "interrupted" cannot mean 8 in one file and 130 in another again."""

from __future__ import annotations

import importlib

import pytest

from gcv.contract.exits import ExitCode
from gcv.contract.status import Status

MODULES = ["gcv.cli.failures", "gcv.cli.output", "gcv.cli.commands.workflow_cmds", "gcv.cli.commands.eval_cmds",
           "gcv.cli.commands.propose_cmds", "gcv.cli.commands.fair_cmds", "gcv.batch.job", "gcv.contract.status"]


@pytest.mark.parametrize("name", MODULES)
def test_every_exit_constant_is_a_member_of_the_one_table(name: str) -> None:
    module = importlib.import_module(name)
    constants = {k: v for k, v in vars(module).items() if k.startswith("EXIT_") and isinstance(v, int)}
    assert constants, f"{name} defines no EXIT_ constant"
    for key, value in constants.items():
        assert isinstance(value, ExitCode), f"{name}.{key} = {value!r} is not an ExitCode"


def test_interrupted_is_130_everywhere_and_a_workflow_left_mid_step_is_8() -> None:
    for name in ("gcv.cli.failures", "gcv.cli.commands.workflow_cmds", "gcv.cli.commands.eval_cmds", "gcv.batch.job"):
        assert importlib.import_module(name).EXIT_INTERRUPTED is ExitCode.INTERRUPTED == 130
    assert Status.RUNNING_CANDIDATE.exit_code == ExitCode.LEFT_RUNNING == 8
    assert Status.AWAITING_CHOICE.exit_code == Status.AWAITING_AUTHORIZATION.exit_code == ExitCode.WAITING == 7
    assert {int(s.exit_code) for s in Status} <= {int(c) for c in ExitCode}
