"""The machine summary of a workflow: the object ``gcv status --json`` prints, the last
object of ``gcv run --json`` / ``resume --json``, and ``GET /api/workflows/{id}``.

One function, so the CLI and the console can never describe a workflow differently.
"""

from __future__ import annotations

from typing import Any

from gcv.evaluation.models import labelled
from gcv.store.workflow_dir import WorkflowDir
from gcv.validation.diff import REQUESTED, percent_change
from gcv.validation.diff import change_with_origins as origins
from gcv.workflow.state import Round, WorkflowState
from gcv.workflow.states import decisions_allowed

def change_with_origins(d: WorkflowDir, state: WorkflowState, rnd: Round | None = None) -> list[dict[str, Any]]:
    """The final candidate's change against the workflow's baseline, with each edit's origin
    (``gcv.validation.diff.change_with_origins``). ``rnd``: the final round by default."""
    rnd = rnd or state.final_round() or (state.rounds[0] if state.rounds else None)
    if rnd is None:
        return []
    rounds = [(r.round, r.origin, d.get(r.candidate_hash)) for r in state.rounds if r.round <= rnd.round]
    return origins(d.get(state.baseline_hash), rounds, rnd.round)


def summary_object(d: WorkflowDir, state: WorkflowState) -> dict[str, Any]:
    final = d.get(state.final_candidate_hash) if state.final_candidate_hash else None
    chosen = state.round_no(state.best_round) if state.best_round is not None else None
    if chosen is None and state.rounds and state.rounds[-1].evaluation_hash:
        chosen = state.rounds[-1]
    evaluation = d.get(chosen.evaluation_hash) if chosen is not None and chosen.evaluation_hash else None
    req = state.requirement
    return {
        "workflow_id": state.id, "status": str(state.status),
        "terminal_reason": str(state.terminal_reason) if state.terminal_reason else None,
        "terminal_message": state.terminal_message, "decision": req.decision if req else None,
        "questions": req.questions if req else [], "issues": req.issues if req else [],
        "runs_used": state.usage.engine_runs, "candidate_runs_used": state.usage.candidate_runs,
        "model_calls_used": state.usage.model_calls, "tokens_used": state.usage.tokens, "round": state.round,
        "best_round": state.best_round, "final_candidate": final, "final_candidate_hash": state.final_candidate_hash,
        "evaluation": labelled(evaluation), "trace": list(state.trace),
        "authorization": state.authorization.model_dump(mode="json") if state.authorization else None,
        "human_decision": state.human_decision.model_dump(mode="json") if state.human_decision else None,
        "engine": state.settings.engine, "engines_used": state.engines_used(), "provider": state.settings.provider,
        "workspace": str(d.root), "decisions": decisions_allowed(state.status),
        "baseline_source": state.baseline_source,
        "change": change_with_origins(d, state),
    }


def catalog_row(state: WorkflowState) -> dict[str, Any]:
    """The catalog's index row of a workflow, read from its state (``gcv reindex``)."""
    actor = state.authorization.actor if state.authorization else None
    updated = max([state.created_at, *(a.at for a in state.answers),
                   *([state.authorization.at] if state.authorization else []),
                   *([state.human_decision.at] if state.human_decision else [])])
    return {"id": state.id, "created_at": state.created_at, "updated_at": updated, "status": str(state.status),
            "request": state.request, "engine": state.settings.engine, "provider": state.settings.provider,
            "baseline_hash": state.baseline_hash, "actor": actor, "engines_used": ",".join(state.engines_used()),
            "terminal_reason": str(state.terminal_reason) if state.terminal_reason else None}


__all__ = ["catalog_row", "summary_object", "change_with_origins", "percent_change", "REQUESTED"]
