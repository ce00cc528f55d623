"""The registry's use cases refuse by type: a bad version is the caller's input, a version
that does not exist is not found, a rollback the registry cannot do is a conflict."""

from __future__ import annotations

import pytest

from gcv.service.baselines import roll_back, show_version, version_number
from gcv.service.errors import Conflict, InvalidInput, NotFound
from gcv.workflow.loop import WorkflowLoop


def test_show_a_version_or_refuse_it_by_type(loop: WorkflowLoop) -> None:
    assert show_version(loop.ws, "v1", loop.clock)["version"] == 1
    assert version_number("V2") == 2
    with pytest.raises(InvalidInput) as bad:
        show_version(loop.ws, "latest", loop.clock)
    assert bad.value.field == "version"
    with pytest.raises(NotFound, match="no baseline version v9"):
        show_version(loop.ws, "9", loop.clock)


def test_a_rollback_the_registry_cannot_do_is_a_conflict(loop: WorkflowLoop) -> None:
    with pytest.raises(Conflict, match="first version"):
        roll_back(loop.ws, None, loop.clock, actor="omar", note="why")
    with pytest.raises(InvalidInput) as blank:
        roll_back(loop.ws, None, loop.clock, actor="omar", note="   ")
    assert blank.value.field == "note"
    with pytest.raises(InvalidInput):
        roll_back(loop.ws, "two", loop.clock, actor="omar", note="why")
