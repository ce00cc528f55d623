"""One refusal hierarchy, each kind machine-readable and distinct, and both doors map every
one of them: the console to an HTTP status by type, the CLI every evidence failure to an
exit code."""

from __future__ import annotations

import typing

import pytest

from gcv.cli.commands.workflow_cmds import EVIDENCE_EXIT
from gcv.console.refusals import body_of, http_status, message_of
from gcv.service import errors
from gcv.service.results import EvidenceFailureKind

REFUSALS = [getattr(errors, name) for name in errors.__all__]


def test_every_refusal_has_its_own_kind() -> None:
    kinds = [r.kind for r in REFUSALS]
    assert len(set(kinds)) == len(kinds) and all(issubclass(r, errors.Refusal) for r in REFUSALS)


@pytest.mark.parametrize("refusal, status", [
    (errors.InvalidInput, 422), (errors.NotFound, 404), (errors.Conflict, 409), (errors.WrongState, 409),
    (errors.Busy, 409), (errors.Locked, 409), (errors.Damaged, 409), (errors.WorkspaceRefusal, 409),
    (errors.Refusal, 409),
])
def test_the_console_maps_each_refusal_by_its_type(refusal: type[errors.Refusal], status: int) -> None:
    assert http_status(refusal("whatever the words")) == status


def test_the_console_names_the_field_once() -> None:
    exc = errors.InvalidInput("unknown engine 'x'", field="engine")
    assert message_of(exc) == "engine: unknown engine 'x'" and body_of(exc) == {"kind": "invalid_input",
                                                                                "field": "engine"}
    assert message_of(errors.InvalidInput("engine: said already", field="engine")) == "engine: said already"


def test_the_cli_has_an_exit_code_for_every_evidence_failure() -> None:
    assert set(EVIDENCE_EXIT) == set(typing.get_args(EvidenceFailureKind))
    assert EVIDENCE_EXIT == {"damaged": 2, "environment": 70, "internal": 70}
