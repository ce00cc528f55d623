"""gcv.workflow.activities: one result model per kind of recorded activity, and a resumed loop
reads the recorded result instead of doing the work again."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from gcv.workflow.activities import AgentFailure, RequirementActivity, ReviewActivity
from gcv.workflow.loop import WorkflowLoop
from gcv.workflow.state import FairnessRecord, PopulationRecord, RunRecord
from tests.support.evidenceutil import run_workflow

MODELS: dict[str, type[BaseModel]] = {"requirement": RequirementActivity, "review": ReviewActivity,
                                      "run": RunRecord, "prescreen": RunRecord, "population": PopulationRecord,
                                      "analysis": FairnessRecord}


def test_every_recorded_activity_is_its_model_and_dumps_to_the_same_record(tmp_path: Path) -> None:
    ws, wf_id = run_workflow(tmp_path / "ws")
    records = ws.workflow_dir(wf_id)._read_activities().records
    kinds = {r["key"].split(":")[0] for r in records}
    assert {"requirement", "run", "review"} <= kinds, kinds
    for record in records:
        model = MODELS[record["key"].split(":")[0]]
        typed = model.model_validate(record["result"])
        assert typed.model_dump(mode="json") == record["result"], record["key"]


def test_an_agent_failure_records_the_error_and_no_answer() -> None:
    failed = RequirementActivity(error=AgentFailure(kind="agent_unavailable", status="blocked", message="down"),
                                 calls=[])
    assert failed.model_dump(mode="json") == {"calls": [], "error": {"kind": "agent_unavailable",
                                                                      "status": "blocked", "message": "down"}}
    answered = ReviewActivity(verdict={"verdict": "accept"}, calls=[{"agent": "review"}])
    assert answered.model_dump(mode="json") == {"calls": [{"agent": "review"}], "verdict": {"verdict": "accept"}}


def test_a_recorded_activity_is_read_back_not_done_again(tmp_path: Path) -> None:
    ws, wf_id = run_workflow(tmp_path / "ws", authorize=False)
    d = ws.workflow_dir(wf_id)
    calls: list[int] = []

    def work() -> RequirementActivity:
        calls.append(1)
        return RequirementActivity(decision={"decision": "blocked"}, calls=[])

    again = WorkflowLoop._activity(d, "requirement", RequirementActivity, work)  # type: ignore[arg-type]
    assert calls == [] and again.decision is not None and again.decision["decision"] == "accepted"
    fresh = WorkflowLoop._activity(d, "requirement:9", RequirementActivity, work)  # type: ignore[arg-type]
    assert calls == [1] and fresh.decision == {"decision": "blocked"}
    assert d.activities()["requirement:9"] == {"calls": [], "decision": {"decision": "blocked"}}
