"""The typed workflow state: what state.json holds, and its committed JSON Schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from gcv.contract.status import Reason, Status
from gcv.workflow.state import WorkflowState, state_json_schema
from tests.support.evidenceutil import run_workflow

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def state_file(tmp_path_factory: pytest.TempPathFactory) -> dict:
    ws, wf_id = run_workflow(tmp_path_factory.mktemp("ws"))
    return json.loads(ws.workflow_dir(wf_id).state_path.read_text())


def test_the_committed_schema_is_the_models(state_file: dict) -> None:
    committed = json.loads((REPO / "schemas" / "workflow_state.schema.json").read_text())
    assert committed == state_json_schema()


def test_a_real_state_validates_and_round_trips(state_file: dict) -> None:
    assert not list(Draft202012Validator(state_json_schema()).iter_errors(state_file))
    state = WorkflowState.model_validate(state_file)
    assert state.to_json() == state_file
    assert state.status is Status.EVIDENCE_READY and state.terminal_reason is Reason.ACCEPTED_BY_REVIEW
    assert state.final_round() is not None and state.final_round().candidate_hash == state.final_candidate_hash


@pytest.mark.parametrize("path,value", [
    (("status",), "almost_done"),
    (("terminal_reason",), "felt_like_it"),
    (("usage", "model_calls"), "three"),
    (("rounds", 0, "run", "frames"), "tick_000600.png"),
    (("rounds", 0, "extra_field"), 1),
])
def test_the_schema_refuses_what_the_loop_never_writes(state_file: dict, path: tuple, value: object) -> None:
    data = json.loads(json.dumps(state_file))
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    assert list(Draft202012Validator(state_json_schema()).iter_errors(data))


def test_every_status_has_an_exit_code_a_tone_and_a_title() -> None:
    for status in Status:
        assert isinstance(status.exit_code, int) and status.tone and status.title
    assert Status.EVIDENCE_READY.exit_code == 0 and Status.BLOCKED.exit_code == 4
    assert Status.BUDGET_EXHAUSTED.exit_code == 5 and Status.AWAITING_AUTHORIZATION.exit_code == 7
    for reason in Reason:
        assert reason.status in Status and reason.title
