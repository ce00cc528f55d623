"""What the review page says about each candidate: pre-screened and not run, or run with parity."""

from __future__ import annotations

from pathlib import Path

import pytest

from gcv.console.views import candidates
from tests.workflow.test_prescreen import run_authorized


@pytest.mark.slow
def test_each_candidate_says_whether_it_cost_an_engine_run(tmp_path: Path) -> None:
    state = run_authorized(tmp_path, "ok")[2]
    first, second = candidates(state)
    assert first["text"].startswith("pre-screened: failed run_status") and "not run in the engine" in first["text"]
    assert second["text"] == "engine run on fake (ok); parity ok (gameplay equals the reference pre-screen)"
