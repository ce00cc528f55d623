"""The machine summary of a workflow: the object ``gcv status --json`` prints, the last
object of ``gcv run --json`` / ``resume --json``, and ``GET /api/workflows/{id}``.

One function, so the CLI and the console can never describe a workflow differently.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from gcv.store.workflow_dir import WorkflowDir
from gcv.validation.diff import diff_configs
from gcv.workflow.state import Round, WorkflowState

REQUESTED = "requested"


def percent_change(before: Any, after: Any) -> float | None:
    """(after - before) / before in percent, rounded to 0.1 (None when not two numbers, or from 0)."""
    numbers = (int, float)
    if isinstance(before, bool) or isinstance(after, bool) or not isinstance(before, numbers) \
            or not isinstance(after, numbers) or before == 0:
        return None
    pct = (Fraction(str(after)) - Fraction(str(before))) * 100 / Fraction(str(before))
    return float(round(pct, 1))


def change_with_origins(d: WorkflowDir, state: WorkflowState, rnd: Round | None = None) -> list[dict[str, Any]]:
    """The candidate's change against the workflow's baseline, field by field, with where each
    edit came from: ``requested`` (the designer's request, round 1) or ``repair:INTENT`` (a
    repair the loop added, which the designer did not ask for). ``rnd``: the final round by
    default (else round 1)."""
    rnd = rnd or state.final_round() or (state.rounds[0] if state.rounds else None)
    if rnd is None:
        return []
    baseline = d.get(state.baseline_hash)
    requested = {c.path: c for c in diff_configs(baseline, d.get(state.rounds[0].candidate_hash))}
    origin_of: dict[str, str] = {}
    for earlier, later in zip(state.rounds, state.rounds[1:]):
        if later.round > rnd.round:
            break
        for c in diff_configs(d.get(earlier.candidate_hash), d.get(later.candidate_hash)):
            origin_of[c.path] = later.origin
    out = []
    for c in diff_configs(baseline, d.get(rnd.candidate_hash)):
        origin = origin_of.get(c.path, REQUESTED if c.path in requested else "repair")
        out.append({"path": c.path, "before": c.before, "after": c.after, "kind": c.kind,
                    "percent": percent_change(c.before, c.after), "origin": origin,
                    "requested": origin == REQUESTED,
                    "requested_value": requested[c.path].after if c.path in requested else None})
    return out


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
        "evaluation": evaluation, "trace": list(state.trace),
        "authorization": state.authorization.model_dump(mode="json") if state.authorization else None,
        "human_decision": state.human_decision.model_dump(mode="json") if state.human_decision else None,
        "engine": state.settings.engine, "engines_used": state.engines_used(), "provider": state.settings.provider,
        "workspace": str(d.root),
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
