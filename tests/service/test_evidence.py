"""*finish*: one error policy for the evidence, whichever door asked. A failure never undoes
or hides the workflow's result; it comes back typed (damaged, environment, internal)."""

from __future__ import annotations

import errno
from collections.abc import Callable

import pytest

from gcv.evidence import finalize
from gcv.evidence.collect import EvidenceError
from gcv.service import workflows
from gcv.service.evidence import finish
from gcv.workflow.loop import WorkflowLoop
from tests.service.conftest import REQUEST, VAGUE


def test_nothing_is_written_before_the_runs_are_authorized(loop: WorkflowLoop, submitted: Callable[[str], str]) -> None:
    state = workflows.load(loop, submitted(REQUEST))
    outcome = finish(loop.ws, state)
    assert outcome.skipped and not outcome.written and outcome.as_dict() == {} and outcome.failure is None


def test_a_workflow_that_ended_gets_its_evidence_version(loop: WorkflowLoop, submitted: Callable[[str], str]) -> None:
    state = workflows.load(loop, submitted(VAGUE))  # needs clarification: a result worth recording
    outcome = finish(loop.ws, state)
    assert outcome.written and outcome.version == 1
    assert set(outcome.as_dict()) == {"report", "bundle", "latest_report", "latest_bundle", "version"}


@pytest.mark.parametrize("raised, kind, words", [
    (EvidenceError("events.jsonl line 3 is damaged", damaged=True), "damaged", "line 3 is damaged"),
    (EvidenceError("the signing key is not a key"), "environment", "signing key"),
    (OSError(errno.ENOSPC, "No space left on device", "/ws/evidence"), "environment", "once the disk is usable"),
    (RuntimeError("a bug"), "internal", "internal error, please report"),
])
def test_every_failure_to_write_comes_back_typed(loop: WorkflowLoop, submitted: Callable[[str], str],
                                                 monkeypatch: pytest.MonkeyPatch, raised: Exception, kind: str,
                                                 words: str) -> None:
    state = workflows.load(loop, submitted(VAGUE))

    def failing(ws: object, wf_id: str) -> None:
        raise raised

    monkeypatch.setattr(finalize, "finalize_evidence", failing)
    outcome = finish(loop.ws, state)
    assert outcome.failure is not None and outcome.failure.kind == kind and words in outcome.failure.message
    assert outcome.failure.message.startswith("evidence not written") and outcome.as_dict() == {}
    assert workflows.load(loop, state.id).status == state.status  # the workflow's result stands
