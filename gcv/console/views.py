"""What the pages show, as plain data read from the workflow's typed state and artifacts.

Everything a page says about a workflow comes from here, and everything here comes from
``WorkflowState`` and the status vocabulary (``gcv.contract.status``): no second list of
statuses, titles or colours.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

from engine_runners.build_agents import BuildAgentsConfigError
from engine_runners.build_agents import load_config as load_agents
from engine_runners.registry import all_runners
from gcv.console import i18n
from gcv.console.i18n import N_, _, tr
from gcv.console.jobs import Jobs, lock_holder
from gcv.contract.models import BulletHellConfig, Targets
from gcv.contract.names import field_label, phase_name, value_with_unit
from gcv.contract.patterns import PATTERNS
from gcv.contract.policies import POLICY_WORDS
from gcv.contract.ranges import PATTERN_RANGES, model_bounds
from gcv.contract.status import Status
from gcv.evidence.bundle import default_bundle_path
from gcv.evidence.signing import ENV_HMAC, ENV_VERIFY_ED25519, trust_statement
from gcv.evidence.versions import latest
from gcv.evidence.verify import verify_bundle
from gcv.service.workflows import offered_providers
from gcv.store.catalog import Workspace
from gcv.store.errors import CorruptLog
from gcv.store.workflow_dir import WorkflowDir
from gcv.workflow.events import HistoryError, parse_events
from gcv.workflow.history import HistoryStep, history
from gcv.workflow.events import last_step as last_step_event
from gcv.workflow.state import WorkflowState
from gcv.workflow.states import decisions_allowed
from gcv.evaluation.display import actual_text, expected_text, seconds_text, survived_ticks
from gcv.evaluation.models import check_label
from gcv.workflow.words import trace_text
from gcv.validation.safety_layer import TARGET_RULES
from gcv.workflow.summary import change_with_origins, percent_change

VERIFY_CACHE = "verify.json"


def status_view(status: Status | str) -> dict[str, Any]:
    s = Status(status)
    return {"value": s.value, "title": s.title, "tone": s.tone, "exit_code": s.exit_code, "running": s.running}


def utc(ts: float | None) -> str:
    return "-" if ts is None else time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(ts))


def ago(ts: float | None, now: float) -> str:
    """How long ago, in the words a person reads in the request's language (``gcv.console.i18n.ago``:
    "just now", "5 min ago", "3 h ago", "2 days ago"; Babel's "5分钟前" in Chinese)."""
    return i18n.ago(ts, now)


# the authorize form's number inputs: (form field, the Budgets field, label, step)
# (the labels are msgids: the page shows them in its language)
BUDGET_INPUTS = (("max_runs", "max_candidate_runs", N_("candidate runs"), 1),
                 ("max_model_calls", "max_model_calls", N_("model calls"), 1),
                 ("max_tokens", "max_tokens", N_("tokens"), 1000),
                 ("deadline", "deadline_seconds", N_("deadline (s after authorization)"), 1))


def budget_inputs(state: WorkflowState, *, grow: bool = False) -> list[dict[str, Any]]:
    """The number inputs of the budgets an operator may set, each with the range the budgets
    model allows (``Budgets``' own bounds, so the page and the validation agree) and the
    workflow's value; ``grow``: a suggestion for running again (twice the runs, calls, time)."""
    budgets = state.settings.budgets
    out = []
    for name, key, label, step in BUDGET_INPUTS:
        info = type(budgets).model_fields[key]
        low = next((getattr(m, "ge", None) for m in info.metadata if getattr(m, "ge", None) is not None), None)
        if low is None:  # a strict lower bound (deadline > 0): the smallest whole step above it
            low = next((getattr(m, "gt") + step for m in info.metadata if getattr(m, "gt", None) is not None), 0)
        high = next(getattr(m, "le") for m in info.metadata if getattr(m, "le", None) is not None)
        value = getattr(budgets, key)
        if grow:
            value = min(high, value * 2 if value else step)
        out.append({"name": name, "key": key, "label": label, "min": low, "max": high, "step": step,
                    "value": int(value) if float(value).is_integer() else value})
    return out


def usable_engines(workspace: Path | None = None) -> list[dict[str, Any]]:
    """What ``gcv engines`` reports, and which of them can run now: here, or, for the engines the
    workspace's ``build_agents.toml`` sends to build agents, there (``build_agents``: the scheduler)."""
    try:
        agents = load_agents(workspace) if workspace is not None else None
    except BuildAgentsConfigError:  # a submission refuses it, naming the file and field
        agents = None
    rows = []
    for runner in all_runners():
        st = runner.check()
        row = {**st.as_dict(), "usable": st.status == "available"}
        if agents is not None and runner.name in agents.engines:
            row.update(usable=True, build_agents=agents.scheduler,
                       reason=f"runs on build agents through {agents.scheduler} (here: {st.reason})")
        rows.append(row)
    return rows


def usable_providers() -> list[dict[str, Any]]:
    """The providers the picker can offer: the ones a submission takes (``gcv.service``)."""
    return offered_providers()


PATTERN_FIELDS = ("type", "bullets_per_wave", "wave_interval_ms", "bullet_speed", "bullet_lifetime_seconds",
                  "rotation_per_wave_deg", "spread_angle_deg", "layer_count", "bidirectional")


def _plain(value: Any) -> Any:
    """A range bound (an exact fraction) as the number a person reads."""
    if hasattr(value, "denominator"):
        return int(value) if value.denominator == 1 else float(value)
    return value


def changeable(config: BulletHellConfig) -> dict[str, Any]:
    """What a change request may change in ``config`` (the safety layer's rule: each phase's
    pattern within the contract's ranges, and the targets, stricter only), in human names and
    units, with today's value of each, in the request's language."""
    ids = [p.phase_id for p in config.phases]

    def unit(path: str, value: Any) -> str:
        return value_with_unit(path, value, tr)

    phases = []
    for i, phase in enumerate(config.phases):
        rows = []
        for name in PATTERN_FIELDS:
            path = f"$.phases[{i}].pattern.{name}"
            value = getattr(phase.pattern, name)
            if name == "type":
                now, allowed = tr(PATTERNS[value].label), ", ".join(tr(spec.label) for spec in PATTERNS.values())
            elif name == "bidirectional":
                now, allowed = unit(path, value), _("yes or no")
            else:
                lo, hi = PATTERN_RANGES[name]
                now = unit(path, value)
                allowed = _("%(low)s to %(high)s") % {"low": unit(path, _plain(lo)), "high": unit(path, _plain(hi))}
            rows.append({"path": path, "label": field_label(path, ids, tr).split(" · ", 1)[1], "now": now,
                         "allowed": allowed})
        phases.append({"name": phase_name(i, ids, tr), "title": phase.title, "phase_id": phase.phase_id,
                       "starts": unit(f"$.phases[{i}].trigger_boss_hp_below", phase.trigger_boss_hp_below),
                       "first": i == 0, "fields": rows})
    targets = []
    for name, (direction, limit, _rule) in TARGET_RULES.items():
        path = f"$.targets.{name}"
        value = getattr(config.targets, name)
        if isinstance(value, bool):
            how = _("stays on") if value else _("can be turned on")
        else:
            lo, hi = model_bounds(Targets, name)
            bound = unit(path, _plain(lo if direction < 0 else hi))
            how = (_("lower only (down to %(bound)s)") if direction < 0
                   else _("higher only (up to %(bound)s)")) % {"bound": bound}
            if limit is not None:
                how += _("; the hard limit is %(limit)s") % {"limit": unit(path, getattr(config.limits, limit))}
        targets.append({"path": path, "label": field_label(path, ids, tr).split(" · ", 1)[1],
                        "now": unit(path, value), "allowed": how})
    return {"phases": phases, "targets": targets}


def step_history(d: WorkflowDir) -> list[HistoryStep]:
    """The workflow's steps with their starts and durations (``gcv.workflow.history``)."""
    try:
        return history(parse_events(d.events()))
    except (CorruptLog, HistoryError):
        return []


def last_step(d: WorkflowDir) -> dict[str, Any] | None:
    try:
        events = d.events()
    except CorruptLog:
        return None
    try:
        step = last_step_event(parse_events(events))
    except HistoryError:
        return None
    return None if step is None else {"step": step.data.step, "at": step.at}


def liveness(ws: Workspace, jobs: Jobs, state: WorkflowState) -> dict[str, Any]:
    """Is the loop running now (here or in another process), or was it interrupted?"""
    job = jobs.get(state.id)
    if not state.status.running:
        return {"running": False, "interrupted": False, "holder": None,
                "job_error": job.error if job is not None and not job.running else None}
    if job is not None and job.running:
        return {"running": True, "interrupted": False, "holder": "this console", "job_error": None}
    holder = lock_holder(ws, state.id)
    return {"running": holder is not None, "interrupted": holder is None, "holder": holder,
            "job_error": job.error if job is not None else None}


def progress(ws: Workspace, jobs: Jobs, d: WorkflowDir, state: WorkflowState) -> dict[str, Any]:
    b = state.settings.budgets
    u = state.usage
    deadline_left = None if state.deadline_at is None else max(0.0, state.deadline_at - time.time())
    return {
        "kind": "progress", "workflow_id": state.id, "status": status_view(state.status),
        "terminal_reason": str(state.terminal_reason) if state.terminal_reason else None,
        "terminal_title": state.terminal_reason.title if state.terminal_reason else None,
        "terminal_message": state.terminal_message, "round": state.round, "trace": list(state.trace),
        "trace_words": [trace_text(line) for line in state.trace],  # as a person reads them (gcv.workflow.words)
        "usage": {"candidate_runs": [u.candidate_runs, b.max_candidate_runs], "baseline_runs": u.baseline_runs,
                  "model_calls": [u.model_calls, b.max_model_calls], "tokens": [u.tokens, b.max_tokens]},
        "deadline_seconds": b.deadline_seconds, "deadline_left": deadline_left,
        "step": last_step(d), "decisions": decisions_allowed(state.status), **liveness(ws, jobs, state),
        "event_seq": state.event_seq,
        "history": [{"seq": h.seq, "kind": h.kind, "key": h.key, "label": h.label,
                     "lines": [trace_text(line) for line in h.lines],
                     "start_utc": h.start_utc, "offset": h.offset_words, "duration": h.duration_words,
                     "offset_seconds": h.offset, "duration_seconds": h.duration}
                    for h in step_history(d)],
    }


def proposal(d: WorkflowDir, state: WorkflowState) -> dict[str, Any] | None:
    """The requirement agent's answer: decision, goal, the diff against the baseline the run
    will use, the four validation layers, questions and issues."""
    req = state.requirement
    if req is None:
        return None
    decision = d.get(req.hash)
    first = state.rounds[0] if state.rounds else None
    diff = [{**c, "percent": percent_change(c.get("before"), c.get("after"))}
            for c in (d.get(first.diff_hash) if first else [])]
    validation = d.get(first.validation_hash) if first else None
    goal = decision.get("goal")
    return {"decision": req.decision, "rationale": decision.get("rationale", ""), "goal": goal,
            "goal_json": json.dumps(goal, indent=1, ensure_ascii=False) if goal else None,
            "questions": req.questions, "issues": req.issues, "diff": diff,
            "validation": validation, "baseline_source": state.baseline_source,
            "intent": d.get(req.intent_hash)["edits"] if req.intent_hash else None}


def authorization_plan(state: WorkflowState) -> dict[str, Any]:
    """Exactly what an authorization allows (what ``WorkflowLoop.authorize`` records as scope)."""
    s, b = state.settings, state.settings.budgets
    return {"engine": s.engine, "provider": s.provider, "seed": s.seed, "player": s.player,
            "baseline_runs": 1, "candidate_runs": b.max_candidate_runs, "model_calls": b.max_model_calls,
            "tokens": b.max_tokens, "deadline_seconds": b.deadline_seconds, "population": s.population,
            "budgets": b.model_dump(), "fairness_policy": s.fairness_policy,
            "fairness_policy_words": POLICY_WORDS[s.fairness_policy]}


def checks(d: WorkflowDir, state: WorkflowState) -> list[dict[str, Any]]:
    final = state.final_round() or (state.rounds[-1] if state.rounds else None)
    if final is None or final.evaluation_hash is None:
        return []
    ev = d.get(final.evaluation_hash)
    tel = d.get(final.run.telemetry_hash) if final.run is not None and final.run.telemetry_hash else None
    # thresholds with units, ticks with seconds, survival at most the fight (gcv.evaluation.display)
    return [{**c, "label": check_label(c), "expected_text": expected_text(c), "actual_text": actual_text(c, tel)}
            for c in list(ev.get("checks", [])) + list(ev.get("intent_checks", []))]


def metrics(d: WorkflowDir, state: WorkflowState) -> list[dict[str, Any]]:
    """Baseline vs final candidate on the figures a reviewer reads first."""
    final = state.final_round()
    if state.baseline_run is None or state.baseline_run.telemetry_hash is None or final is None \
            or final.run is None or final.run.telemetry_hash is None:
        return []
    base, cand = d.get(state.baseline_run.telemetry_hash), d.get(final.run.telemetry_hash)
    keys = ("status", "survival_ticks", "peak_alive_bullets", "player_hits", "low_fps", "phases_reached",
            "total_bullets_spawned", "grazes")

    def figure(tel: dict[str, Any], key: str) -> Any:
        if key != "survival_ticks":
            return tel.get(key)
        ticks = survived_ticks(tel)  # never longer than the fight ran
        return None if ticks is None else f"{ticks} ({seconds_text(ticks)})"

    # in English the telemetry's own keys (as the report and the CLI name them); the catalog words them
    names = {"status": N_("status"), "survival_ticks": N_("survival (ticks)"),
             "peak_alive_bullets": N_("peak_alive_bullets"), "player_hits": N_("player_hits"),
             "low_fps": N_("low_fps"), "phases_reached": N_("phases_reached"),
             "total_bullets_spawned": N_("total_bullets_spawned"), "grazes": N_("grazes")}
    return [{"name": tr(names[k]), "baseline": figure(base, k), "candidate": figure(cand, k)} for k in keys]


def candidates(state: WorkflowState) -> list[dict[str, Any]]:
    """Per candidate: pre-screened and not run in the engine, or its engine run (and parity with the
    reference pre-screen, when there was one)."""
    out = []
    for r in state.rounds:
        if r.prescreen_failed:
            text, tone = _("pre-screened: failed %(checks)s in the reference simulator, not run in the engine") % {
                "checks": ", ".join(r.prescreen_failed)}, "warn"
        elif r.run is not None:
            parity = _("; parity ok (gameplay equals the reference pre-screen)") if r.prescreen is not None else ""
            text = (_("engine run on %(engine)s (ok)") if r.run.ok else _("engine run on %(engine)s (failed)")) % {
                "engine": r.run.engine} + parity
            tone = "ok" if r.run.ok else "bad"
        else:
            text, tone = _("not run"), "neutral"
        out.append({"round": r.round, "origin": r.origin, "text": text, "tone": tone, "passed": r.passed})
    return out


def review(d: WorkflowDir, state: WorkflowState) -> dict[str, Any]:
    change = change_with_origins(d, state)
    return {"change": change, "not_requested": sum(1 for c in change if not c["requested"]),
            "checks": checks(d, state), "metrics": metrics(d, state), "candidates": candidates(state),
            "final_round": state.best_round, "rounds": len(state.rounds)}


def verify_result(ws: Workspace, d: WorkflowDir, wf_id: str) -> dict[str, Any] | None:
    """``gcv verify`` of the workflow's latest bundle version (cached beside it while the bundle
    is unchanged)."""
    bundle = latest(default_bundle_path(ws, wf_id).parent, wf_id, "bundle").path or default_bundle_path(ws, wf_id)
    try:
        stamp = bundle.stat()
    except OSError:
        return None
    cache = bundle.with_name(VERIFY_CACHE)
    key = f"{stamp.st_size}:{stamp.st_mtime_ns}:{verifier_keys_digest()}"
    try:
        cached = json.loads(cache.read_text(encoding="utf-8"))
        if cached.get("key") == key:
            return cached["result"]
    except (OSError, ValueError, KeyError):
        pass
    result = verify_bundle(bundle).as_dict()
    result["bundle"] = bundle.name
    try:
        tmp = cache.with_name(cache.name + ".tmp")
        tmp.write_text(json.dumps({"key": key, "result": result}), encoding="utf-8")
        tmp.replace(cache)
    except OSError:
        pass
    return result


def verifier_keys_digest() -> str:
    """Which verification keys this server holds, as a digest (never the keys): how much a bundle
    is trusted depends on them, so a cached verification is good only for the same keys."""
    parts = []
    for name in (ENV_VERIFY_ED25519, ENV_HMAC):
        value = os.environ.get(name, "")
        parts.append(f"{name}={value}")
        if name == ENV_VERIFY_ED25519 and value:
            try:
                st = os.stat(value)
                parts.append(f"{st.st_size}:{st.st_mtime_ns}")
            except OSError:
                parts.append("missing")
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:16]


def trust(verify: dict[str, Any] | None) -> dict[str, str] | None:
    """The trust words of ``gcv verify`` for the verified bundle (one function for both)."""
    if verify is None:
        return None
    statement = trust_statement(verify.get("trust"), (verify.get("signature") or {}).get("keyid"))
    return {"level": statement.level, "words": statement.words, "explanation": statement.explanation,
            "tone": statement.tone}


def evidence_current(verify: dict[str, Any] | None, state: WorkflowState) -> bool:
    """Is the bundle on disk the evidence of the workflow as it is now? The loop's state changes
    before ``gcv run`` / ``resume`` (or a console job) write the bundle; a human decision writes
    its own evidence version, so a bundle of the loop's end is stale once a decision is recorded
    (it says "pending")."""
    if verify is None or verify.get("status") is None:
        return False
    return bool(verify["status"] == state.status)


__all__ = ["status_view", "utc", "ago", "budget_inputs", "BUDGET_INPUTS", "usable_engines", "usable_providers", "progress", "proposal", "authorization_plan",
           "review", "verify_result", "trust", "evidence_current", "liveness", "last_step"]
