"""``verify --replay`` is the loop itself, re-run on a bundle's recorded inputs.

So a decision rule cannot drift between the loop and its replay: change a rule in the loop,
and the replay of a bundle recorded under the old rule recomputes the new decision and names
where it parts from the record; a bundle recorded under the new rule replays cleanly.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gcv.evidence.bundle import export_bundle
from gcv.evidence.verify import verify_bundle
from gcv.repair.models import GateResult
from gcv.repair.policy import gate as real_gate
from gcv.workflow import loop as loop_module
from tests.support.evidenceutil import REQUEST, run_workflow


@pytest.fixture
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GCV_SIGNING_KEY_HMAC", "GCV_SIGNING_KEY_ED25519", "GCV_VERIFY_KEY_ED25519"):
        monkeypatch.delenv(name, raising=False)


def _bundle(root: Path) -> Path:
    ws, wf_id = run_workflow(root, REQUEST)
    return export_bundle(ws, wf_id, root / "evidence.zip")


def _refuse_every_accept(verdict, allowed) -> GateResult:
    """Another policy: a candidate is never accepted by the review alone."""
    result = real_gate(verdict, allowed)
    if result.outcome == "accept":
        return GateResult(outcome="human_review", accepted_as_proposed=False,
                          reason="this house never lets a model accept")
    return result


@pytest.mark.slow
def test_a_changed_decision_rule_changes_what_replay_recomputes(tmp_path: Path, no_keys,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    recorded = _bundle(tmp_path / "before")
    assert verify_bundle(recorded, replay=True).ok

    monkeypatch.setattr(loop_module, "gate", _refuse_every_accept)
    report = verify_bundle(recorded, replay=True)
    assert report.failed() == ["replay.loop"], report.failed()
    message = report.check("replay.loop").message
    # the replayed loop, now under the new rule, writes "human_review" where "accept" was recorded
    assert "the loop writes something else" in message and "accept" in message, message

    # a bundle recorded under the new rule replays cleanly under it: there is no second copy to drift
    changed = _bundle(tmp_path / "after")
    again = verify_bundle(changed, replay=True)
    assert again.ok, (again.first_failure, again.failed())
    assert again.status == "blocked"


@pytest.mark.slow
def test_a_changed_trace_format_is_named_at_its_event(tmp_path: Path, no_keys, monkeypatch: pytest.MonkeyPatch) -> None:
    recorded = _bundle(tmp_path / "ws")
    monkeypatch.setattr(loop_module, "failed_summary", lambda evaluation: "checks: see the report")
    report = verify_bundle(recorded, replay=True)
    message = report.check("replay.loop").message
    assert report.failed() == ["replay.loop"] and "trace" in message and "$.data.line" in message, message


@pytest.mark.slow
def test_replay_reads_the_recorded_times_and_not_the_clock(tmp_path: Path, no_keys,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    recorded = _bundle(tmp_path / "ws")
    monkeypatch.setattr("time.time", lambda: 4_000_000_000.0)  # any clock read by the replay would show
    assert verify_bundle(recorded, replay=True).ok
