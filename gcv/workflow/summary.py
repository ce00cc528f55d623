"""The machine summary of a workflow: the object ``gcv status --json`` prints, the last
object of ``gcv run --json`` / ``resume --json``, and ``GET /api/workflows/{id}``.

One function, so the CLI and the console can never describe a workflow differently.
"""

from __future__ import annotations

from typing import Any

from gcv.evaluation.models import labelled
from gcv.contract.goal import TARGET_WORDS
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
        "build_agents": (state.settings.build_agents.model_dump(mode="json")
                         if state.settings.build_agents is not None else None),
        "workspace": str(d.root), "decisions": decisions_allowed(state.status),
        "baseline_source": state.baseline_source,
        "submitted_by": state.submitted_by, "resubmitted_from": state.resubmitted_from,
        "change": change_with_origins(d, state),
        **intent_summary(d, state, evaluation),
    }


def intent_summary(d: WorkflowDir, state: WorkflowState, evaluation: dict[str, Any] | None) -> dict[str, Any]:
    """What a reviewer must read first (issue 26): the headline, the edits nobody asked for with
    who authorized each, and, while the designer must choose, the trade-offs with their
    predicted figures and the command for each."""
    change = change_with_origins(d, state)
    chooser = {f"choice:{r.choice.number}": r.choice.actor for r in state.rounds if r.choice is not None}
    unrequested = []
    for c in change:
        if c.get("requested"):
            continue
        origin = str(c.get("origin") or "")
        key = ":".join(origin.split(":")[:2])
        unrequested.append({"path": c["path"], "before": c.get("before"), "after": c.get("after"), "origin": origin,
                            "authorized_by": chooser.get(key) if origin.startswith("choice:") else None})
    # the targets a person raised by choosing to keep the change (raise_target), said in the headline
    raised = [f"{TARGET_WORDS[u['path'].rsplit('.', 1)[-1]]} {u['before']} -> {u['after']}, chosen by "
              f"{u['authorized_by']}" for u in unrequested
              if u["authorized_by"] and u["path"].rsplit(".", 1)[-1] in TARGET_WORDS and u["path"].startswith("$.targets.")]
    intents = (evaluation or {}).get("intent_checks") or []
    intents_hold = all(i.get("passed") for i in intents)
    if str(state.status) == "evidence_ready":
        silent = [u for u in unrequested if u["authorized_by"] is None]
        if not intents_hold:
            headline = "evidence ready, but NOT the requested change: an intent check fails"
        elif silent:
            headline = (f"evidence ready, but not only the requested change: {len(silent)} edit(s) nobody asked for "
                        "(made by a repair)")
        elif raised:
            headline = ("evidence ready: the requested change, judged against a target the designer raised ("
                        + "; ".join(raised) + ")")
        elif unrequested:
            headline = (f"evidence ready: the requested change, with {len(unrequested)} edit(s) the designer chose "
                        "(" + ", ".join(sorted({u['authorized_by'] or '' for u in unrequested})) + ")")
        else:
            headline = "evidence ready: the requested change"
    elif str(state.status) == "awaiting_choice" and state.rounds and state.rounds[-1].second_reading is not None:
        headline = ("the chosen trade-off does not do what was asked (second reading): the designer chooses again "
                    "among the trade-offs that do")
    elif str(state.status) == "awaiting_choice":
        headline = "no repair inside the authorized scope passes: the designer chooses a trade-off"
    elif str(state.terminal_reason) == "second_reading_miss":
        headline = f"not ready: {state.terminal_message}"
    else:
        headline = state.status.title if hasattr(state.status, "title") else str(state.status)
    req = state.requirement
    asked = d.get(req.intent_hash)["edits"] if req is not None and req.intent_hash else None
    out: dict[str, Any] = {"headline": headline, "intent_checks_hold": intents_hold, "unrequested": unrequested,
                           "intent": asked, "second_reading": second_reading_summary(state)}
    current = state.rounds[-1] if state.rounds else None
    if str(state.status) == "awaiting_choice" and current is not None and current.tradeoffs:
        out["tradeoffs"] = [{**t.model_dump(mode="json"), "command": f"gcv answer {state.id} --choose {t.number}"}
                            for t in current.tradeoffs]
    return out


def second_reading_summary(state: WorkflowState) -> dict[str, Any] | None:
    """The last second reading of the request (``gcv.agents.second_reading``): each thing asked
    for and whether the candidate does it; None when the workflow has not reached one."""
    rnd = next((r for r in reversed(state.rounds) if r.second_reading is not None), None)
    if rnd is None or rnd.second_reading is None:
        return None
    return {"round": rnd.round, "headline": rnd.second_reading.headline(),
            **rnd.second_reading.model_dump(mode="json")}


def catalog_row(state: WorkflowState) -> dict[str, Any]:
    """The catalog's index row of a workflow, read from its state (``gcv reindex``)."""
    # who submitted it; a workflow created before that was recorded names its authorizer
    actor = state.submitted_by or (state.authorization.actor if state.authorization else None)
    decided = state.human_decision
    updated = max([state.created_at, *(a.at for a in state.answers),
                   *([state.authorization.at] if state.authorization else []),
                   *([state.human_decision.at] if state.human_decision else [])])
    return {"id": state.id, "created_at": state.created_at, "updated_at": updated, "status": str(state.status),
            "request": state.request, "engine": state.settings.engine, "provider": state.settings.provider,
            "baseline_hash": state.baseline_hash, "actor": actor, "engines_used": ",".join(state.engines_used()),
            "terminal_reason": str(state.terminal_reason) if state.terminal_reason else None,
            "resubmitted_from": state.resubmitted_from, "decision": decided.decision if decided else None,
            "decided_by": decided.actor if decided else None}


__all__ = ["catalog_row", "summary_object", "second_reading_summary", "change_with_origins", "percent_change", "REQUESTED"]
