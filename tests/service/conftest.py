"""Fixtures of the use-case tests: a loop on a temporary workspace, and workflows in each
state a use case starts from."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from gcv.service import workflows
from gcv.store.catalog import Workspace
from gcv.workflow.loop import WorkflowLoop
from tests.support.simutil import Clock

REQUEST = "make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive and keep the low FPS at 55 or above"
VAGUE = "slow down the bullets by 20%"  # needs clarification: which phase?


@pytest.fixture()
def loop(tmp_path: Path) -> WorkflowLoop:
    return WorkflowLoop(Workspace(tmp_path / "ws"), clock=Clock(0.5))


@pytest.fixture()
def submitted(loop: WorkflowLoop) -> Callable[[str], str]:
    """Submit a request; the new workflow's id."""
    return lambda request: workflows.submit(loop, workflows.Submission(request=request)).wf_id
