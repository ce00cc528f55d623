"""The main job and its companions: run, authorize, resume, status, list, decide, baselines.

Exit codes of ``gcv run`` / ``gcv resume`` (documented in the README):
0 evidence_ready, 3 needs_clarification / out_of_scope / no_change, 4 blocked,
5 budget_exhausted, 6 failed, 7 awaiting authorization, 2 usage or input errors.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from collections.abc import Callable
from typing import Any, NoReturn, Optional

import typer
from rich.text import Text

from gcv.cli.commands.request_text import RequestTextCommand
from gcv.cli.failures import EXIT_ENVIRONMENT, EXIT_USAGE
from gcv.cli.output import console, emit_json, fail_usage
from gcv.cli.tables import Col, print_table
from gcv.contract.exits import ExitCode

EXIT_INTERRUPTED = ExitCode.INTERRUPTED  # Ctrl-C or SIGTERM: the workflow is resumable
# Evidence that could not be written, by the failure's kind (gcv.service.results.EvidenceFailure).
# A use case's refusal (gcv.service.errors) is always the caller's to fix: exit 2 (fail_usage).
EVIDENCE_EXIT = {"damaged": EXIT_USAGE, "environment": EXIT_ENVIRONMENT, "internal": EXIT_ENVIRONMENT}


baselines_app = typer.Typer(help="The baseline registry: versions with provenance.", no_args_is_help=True)


def _workspace():
    # lazy: the store (and pydantic behind it) only for the commands that use the workspace
    from gcv.store.catalog import Workspace
    from gcv.store.paths import workspace_root

    return Workspace(workspace_root())


def _engine(json_mode: bool, quiet: bool = False):
    from gcv.cli import startup
    from gcv.workflow.loop import WorkflowLoop  # lazy: the loop imports every layer below it

    startup.imports_done()
    err = console(stderr=True)
    from gcv.workflow.words import trace_text  # a person reads the review's step as the agent's

    trace = (lambda line: None) if quiet else (lambda line: err.print(trace_text(line), markup=False, highlight=False,
                                                                      soft_wrap=True))
    from functools import partial

    from engine_runners.build_agents import agent_runner  # lazy, as the loop: runs a workflow sends to build agents

    ws = _workspace()
    return WorkflowLoop(ws, on_trace=trace, build_agents=partial(agent_runner, ws.root))


def summary_object(ws, state) -> dict[str, Any]:
    """The machine summary of a workflow in the workspace ``ws`` (the `--json` object of
    run/resume/status). It reads the workflow's files only: no loop (``gcv status``)."""
    from gcv.workflow.summary import summary_object as summary  # lazy: the state's models, pydantic

    return summary(ws.workflow_dir(state.id), state)


def _print_summary(ws, state) -> None:
    con = console()
    s = summary_object(ws, state)
    d = ws.workflow_dir(state.id)
    from gcv.contract.status import Status  # lazy, as above

    colour = {"good": "green", "warn": "yellow", "bad": "red", "neutral": "cyan", "active": "blue"}[
        Status(s["status"]).tone]
    con.print(f"[bold]workflow[/] {s['workflow_id']}  [{colour}]{s['status']}[/]"
              + (f"  ({s['terminal_reason']})" if s["terminal_reason"] else ""))
    from gcv.workflow.words import REVIEW_PASSED, decision_words, trace_text, usage_words  # lazy, as above

    if s["status"] in ("evidence_ready", "awaiting_choice") or s["unrequested"]:
        con.print(f"  {s['headline']}", markup=False, soft_wrap=True)
    for u in s["unrequested"]:  # edits nobody asked for come first, with who authorized them
        who = f"chosen by {u['authorized_by']}" if u["authorized_by"] else f"made by {u['origin'] or 'a repair'}"
        con.print(f"  not requested: {u['path']} {u['before']} -> {u['after']} ({who})", markup=False, soft_wrap=True)
    if s.get("intent"):
        from gcv.contract.request_intent import RequestIntent  # lazy, as above

        con.print("  asked for:", markup=False)
        for line in RequestIntent.model_validate({"edits": s["intent"]}).lines():
            con.print(f"    {line}", markup=False, soft_wrap=True)
    if s["terminal_reason"] == "accepted_by_review":  # the agent's review, never a person's acceptance
        con.print(f"  {REVIEW_PASSED}" + (f": {s['terminal_message']}" if s["terminal_message"] else ""), markup=False)
    elif s["terminal_message"]:
        con.print(f"  {s['terminal_message']}", markup=False)
    if s["human_decision"]:
        h = s["human_decision"]
        con.print(f"  {decision_words(h)} at {_when(h.get('at'))}" + (f": {h['note']}" if h.get("note") else ""),
                  markup=False, soft_wrap=True)
    if s.get("resubmitted_from"):
        con.print(f"  resubmits {s['resubmitted_from']}", markup=False)
    for q in s["questions"]:
        con.print(f"  question: {q}", markup=False)
    from gcv.contract.names import field_label  # lazy, as above

    for issue in s["issues"]:
        where = str(issue.get("field"))
        named = field_label(where)
        con.print(f"  issue: {named + ' (' + where + ')' if named != where else where}: {issue.get('message')} "
                  f"(allowed: {issue.get('allowed')})", markup=False, soft_wrap=True)
    if s["change"]:
        from gcv.cli.commands.propose_cmds import print_change  # lazy, as above

        final = s.get("final_candidate") or {}
        print_change(con, s["change"], title=f"change against the baseline ({s['baseline_source']})",
                     phase_ids=[p.get("phase_id", "") for p in final.get("phases", [])] or None)
    baseline_tel = d.get(state.baseline_run.telemetry_hash) if state.baseline_run and state.baseline_run.telemetry_hash else None
    rounds = [r for r in state.rounds if r.run is not None and r.run.telemetry_hash]
    checked_tel = None
    if baseline_tel and rounds:
        from gcv.evaluation.display import seconds_text, survived_ticks  # lazy, as above

        tels = [d.get(r.run.telemetry_hash) for r in rounds]

        def figure(tel: dict[str, Any], key: str) -> Any:
            if key != "survival_ticks":
                return tel[key]
            shown = survived_ticks(tel)  # never longer than the fight ran
            return "-" if shown is None else f"{shown} ({seconds_text(shown)})"

        print_table(con, [Col("figure", "id"), Col("baseline", "num"), *[Col(f"candidate {r.round}", "num") for r in rounds]],
                    [["survival (ticks)" if key == "survival_ticks" else key, figure(baseline_tel, key),
                      *[figure(t, key) for t in tels]]
                     for key in ("status", "peak_alive_bullets", "player_hits", "survival_ticks", "low_fps",
                                 "phases_reached", "total_bullets_spawned", "grazes")],
                    title="Telemetry")
        checked = s["best_round"] or s["round"]
        checked_tel = next((t for r, t in zip(rounds, tels) if r.round == checked), None)
    if s["evaluation"]:
        print_checks(con, s["evaluation"], title=f"Checks (round {s['best_round'] or s['round']})", telemetry=checked_tel)
    if s["trace"]:
        con.print("[bold]trace[/]")
        for line in s["trace"]:
            con.print(f"  {trace_text(line)}", markup=False, soft_wrap=True)
    for t in s.get("tradeoffs") or []:
        from gcv.contract.names import names_in  # lazy, as above
        from gcv.evaluation.display import survival_text  # lazy, as above

        predicted = t.get("predicted") or {}
        figures = ", ".join(f"{k} {v}" for k, v in sorted(predicted.items()) if k in ("player_hits", "peak_alive_bullets"))
        if "survival_ticks" in predicted:  # the whole fight, or ticks with their seconds
            figures += f", survival {survival_text(predicted)}"
        con.print(f"choose {t['number']}: {t['command']}  ({names_in(t['title'])}; predicted {figures})", markup=False,
                  soft_wrap=True)
    if s["decisions"] and not s["human_decision"]:
        con.print(f"decide: gcv decide {s['workflow_id']} {'|'.join(s['decisions'])} --actor NAME --note TEXT",
                  markup=False)
    con.print(f"engine: {_ran(s['engine'], s['engines_used'])}", markup=False)
    con.print(f"runs {s['runs_used']} (candidates {s['candidate_runs_used']}), "
              f"{usage_words(s['provider'], s['model_calls_used'], s['tokens_used'])}  |  workspace {s['workspace']}",
              markup=False)


def print_checks(con, evaluation: dict[str, Any], *, title: str, telemetry: dict[str, Any] | None = None) -> None:
    """The checks of an evaluation, one row each; a per-phase check is named with its phase.
    Thresholds and figures carry their units, ticks their seconds, and survival reads from the
    run's ``telemetry`` (never longer than the fight; ``gcv.evaluation.display``)."""
    from gcv.evaluation.display import actual_text, expected_text  # lazy, as above
    from gcv.evaluation.models import check_label  # lazy, as above

    rows = []
    for check in evaluation.get("checks", []) + evaluation.get("intent_checks", []):
        result = Text("PASS", style="green") if check["passed"] else Text("FAIL", style="red")
        rows.append([check_label(check), check.get("field", ""), expected_text(check),
                     actual_text(check, telemetry), result])
    print_table(con, [Col("check", "id"), Col("field", "path", optional=True), Col("expected"),
                      Col("actual"), Col("result", "id")], rows, title=title)


def _clip(text: str, most: int) -> str:
    return text if len(text) <= most else text[:most - 1].rstrip() + "…"


def _when(ts: float | None) -> str:
    return "-" if ts is None else time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(ts))


def _ran(requested: str, used: list[str]) -> str:
    """What actually ran (a harness is named as the harness), else what was requested."""
    if not used:
        return f"{requested} (not run)"
    return ", ".join(used) + ("" if used == [requested] else f" (asked {requested})")


def _evidence(engine, state, json_mode: bool) -> tuple[dict[str, Any] | None, int]:
    """The evidence at the end of a use case (``gcv.service.evidence.finish``: one error policy
    with the console): (paths, 0), or (None, the exit code) when it could not be written (the
    workflow's result stands and is recorded): 2 when a record of the workflow is missing or
    damaged, as every command says, else 70."""
    from gcv.service.evidence import finish  # lazy, as above

    outcome = finish(engine.ws, state)
    if outcome.failure is None:
        return outcome.as_dict(), 0
    console(stderr=True).print(outcome.failure.message, markup=False)
    return None, EVIDENCE_EXIT[outcome.failure.kind]


def _refused(exc: Any, json_mode: bool) -> NoReturn:
    """A use case's typed refusal (``gcv.service.errors.Refusal``), as this command line says
    it: the caller's to fix, exit 2; a failure of the store itself as every command reports one
    (``gcv.cli.failures``: a damaged record 2, the environment 70)."""
    if exc.origin is not None:
        from gcv.cli.failures import report  # lazy, as above

        raise typer.Exit(report(exc.origin, json_mode=json_mode))
    fail_usage(exc.message, json_mode=json_mode, hint=exc.hint)


def _finish(engine, state, json_mode: bool, *, evidence: bool = True, open_report: bool = False,
            junit: Optional[Path] = None) -> None:
    written, failed_code = _evidence(engine, state, json_mode) if evidence else ({}, 0)
    paths = written or {}
    if junit is not None:
        paths = {**paths, "junit": _write_junit(engine, state, junit, json_mode)}
    _notify(engine, state.id)
    # A change that passed but whose evidence could not be written must not look like a success
    # to a build machine: exit 70 (the environment) or 2 (a damaged record); the workflow stays recorded.
    exit_code = failed_code if written is None and state.status.exit_code == 0 else state.status.exit_code
    opened: dict[str, Any] = {}
    if open_report:
        from gcv.cli.browser import open_in_browser  # lazy: only for --open

        opened["opened"] = open_in_browser(Path(paths["report"])) if paths.get("report") else False
    asks = _asks(engine, state)
    if json_mode:
        extra = {"answer_command": f'gcv answer {state.id} "ANSWER"', "asks": asks} if asks is not None else {}
        emit_json({**summary_object(engine.ws, state), "evidence": paths, **opened, "evidence_written": written is not None,
                   **extra, "exit_code": exit_code})
    else:
        _print_summary(engine.ws, state)
        con = console()
        if asks is not None:
            _print_answer_hint(con, state.id, asks)
        if paths.get("report"):
            con.print(f"report: {paths['report']}"
                      + {None: "", True: " (opened in a browser)",
                         False: " (no browser could be started here)"}[opened.get("opened")], markup=False)
        if paths.get("bundle"):
            con.print(f"bundle: {paths['bundle']} (evidence version {paths['version']})", markup=False,
                      soft_wrap=True)
            con.print(f"verify: gcv verify {paths['bundle']} --replay", markup=False, soft_wrap=True)
        if paths.get("junit"):
            con.print(f"junit: {paths['junit']}", markup=False, soft_wrap=True)
    raise typer.Exit(exit_code)


def _agent_retries(provider: str) -> dict[str, int]:
    """The documented GCV_AGENT_MAX_RETRIES for Claude (docs/agents.md), recorded in the
    workflow's budgets; the loop hands the budgets' value to the provider, so without this the
    budgets' default silently replaced the variable. A bad value is the provider check's to
    refuse (the service builds the provider first), so it is left to it here."""
    if provider != "anthropic":
        return {}
    from gcv.agents.anthropic_provider import AnthropicSettings, ProviderConfigError

    try:
        return {"max_agent_retries": AnthropicSettings.from_env().agent_retries}
    except ProviderConfigError:
        return {}


def _notify(engine, wf_id: str) -> None:
    """Tell the workspace's webhooks (notify.toml) when a person is needed or the workflow
    ended; a receiver's failure is a note on stderr, never this command's outcome."""
    from gcv.evidence.notify import notify  # lazy, as the loop is

    outcome = notify(engine.ws.root, wf_id)  # without notify.toml: one failed open
    if outcome.warning:
        console(stderr=True).print(f"note: {outcome.warning}", markup=False, soft_wrap=True)


def _write_junit(engine, state, path: Path, json_mode: bool) -> str:
    """The workflow's checks and outcome as JUnit XML for a CI test tab (gcv.evidence.junit)."""
    from gcv.cli.failures import raise_if_environment
    from gcv.evidence.junit import workflow_junit, write_junit

    try:
        write_junit(path, workflow_junit(summary_object(engine.ws, state)))
    except OSError as exc:
        raise_if_environment(exc, path)  # a full or read-only disk: exit 70
        fail_usage(f"cannot write the JUnit file: {exc.strerror or exc}", json_mode=json_mode, file=str(path))
    return str(path)


def _asks(engine, state) -> list[dict[str, Any]] | None:
    """The typed questions (kind, choices) of a workflow that waits for answers; None otherwise."""
    from gcv.service.workflows import questions  # lazy, as above

    return questions(engine.ws, state)


def _print_answer_hint(con, wf_id: str, asks: list[dict[str, Any]]) -> None:
    """How to answer: the command, and one ready command per choice of the first question."""
    import shlex  # lazy: only here

    choices = (asks[0].get("choices") or []) if asks else []
    if choices:
        con.print("answer with one of:", markup=False)
        for choice in choices:
            con.print(f"  gcv answer {wf_id} {shlex.quote(choice['answer'])}    # {choice['label']}", markup=False,
                      soft_wrap=True)
    con.print(f'answer: gcv answer {wf_id} "ANSWER"  (the same request continues with the answer)', markup=False,
              soft_wrap=True)


def _advance(engine, wf_id: str | Callable[[], str | None], json_mode: bool, work: Callable[[], Any]) -> Any:
    """Run ``work`` (a use case that runs the loop until it waits for a person). Progress goes
    to stderr: a spinner in a terminal, one line per step when piped (a CI log shows where a
    long run is). An interrupt (Ctrl-C, or the SIGTERM a CI cancel sends) leaves the workflow
    resumable and exits 130."""
    err = console(stderr=True)
    try:
        if json_mode:
            return work()
        if not err.is_terminal:
            engine.on_progress = lambda text: err.print(f"  ... {text}", markup=False, highlight=False)
            return work()
        with err.status("verifying...") as status:
            engine.on_progress = lambda text: status.update(f"verifying: {text}")
            return work()
    except KeyboardInterrupt:
        known = wf_id() if callable(wf_id) else wf_id
        if known is None:  # before the workflow existed: nothing to resume
            raise
        _interrupted(engine, known, json_mode)


def _interrupted(engine, wf_id: str, json_mode: bool) -> NoReturn:
    """The step that was running is redone by `gcv resume` (its engine processes were ended)."""
    _, state = engine.load(wf_id)
    message = f"interrupted during {state.status}; nothing is lost: continue with gcv resume {wf_id}"
    if json_mode:
        emit_json({"workflow_id": wf_id, "status": str(state.status), "interrupted": True, "message": message,
                   "exit_code": EXIT_INTERRUPTED})
    else:
        console(stderr=True).print(message, markup=False)
    raise typer.Exit(EXIT_INTERRUPTED)


app = typer.Typer()


@app.command("run", cls=RequestTextCommand)
def run(
    request: str = typer.Argument(..., metavar="REQUEST", help="the designer's change, in plain language"),
    baseline: Optional[Path] = typer.Option(None, "--baseline", help="baseline config (default: the registry's active version)"),
    engine_name: str = typer.Option("python-sim", "--engine", help="python-sim | unity | ue5 (see `gcv engines`)"),
    provider: str = typer.Option("offline", "--provider", help="offline | anthropic | replay:BUNDLE"),
    seed: int = typer.Option(1, "--seed", min=0, max=(1 << 63) - 1),
    max_runs: int = typer.Option(3, "--max-runs", min=1, max=50, help="candidate engine-run budget"),
    max_model_calls: int = typer.Option(4, "--max-model-calls", min=1, max=100),
    max_tokens: int = typer.Option(200_000, "--max-tokens", min=0),
    deadline: float = typer.Option(600.0, "--deadline", min=1, help="wall-clock seconds after authorization"),
    population: Optional[str] = typer.Option(None, "--population",
                                             help="also judge a seeded bot population: 'default' or SKILL[+SKILL]:SEEDS"),
    fairness_policy: str = typer.Option("undetermined_allowed", "--fairness-policy",
                                        help="the fair-fight gate when the targets require a dodgeable fight: "
                                             "undetermined_allowed or fair_required (docs/analysis.md)"),
    repair_scope: str = typer.Option("request", "--repair-scope",
                                     help="with --yes: request (repairs move only what the request changed; "
                                          "anything else becomes trade-offs) or fight (any phase and field)"),
    yes: bool = typer.Option(False, "--yes", "-y", help="authorize the runs as the invoking user"),
    actor: Optional[str] = typer.Option(None, "--actor", help="who submits the request (recorded; default: the "
                                                               "invoking user)"),
    open_report: bool = typer.Option(False, "--open", help="open the report in a browser at the end (honours BROWSER)"),
    junit: Optional[Path] = typer.Option(None, "--junit", metavar="FILE",
                                         help="also write JUnit XML for a CI test tab: a test per check"),
    json_mode: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Propose, validate, authorize, run the bounded loop and summarize the evidence."""
    from engine_runners.termination import install_termination_handling  # engine processes end with gcv

    install_termination_handling()
    from gcv.contract.loading import GcvInputError
    from gcv.service import workflows
    from gcv.service.errors import Refusal
    from gcv.workflow.baselines import resolve_baseline
    from gcv.workflow.loop import default_actor
    from gcv.workflow.state import Budgets

    budgets = Budgets(max_candidate_runs=max_runs, max_model_calls=max_model_calls, max_tokens=max_tokens,
                      deadline_seconds=deadline, **_agent_retries(provider))
    submission = workflows.Submission(request=request, engine=engine_name, provider=provider, seed=seed,
                                      budgets=budgets, fairness_policy=fairness_policy)
    from gcv.store.paths import workspace_root

    try:  # before anything is proposed, authorized or recorded (as `gcv batch` does)
        workflows.check_submission(submission, workspace_root())
    except Refusal as exc:
        _refused(exc, json_mode)
    engine = _engine(json_mode)
    try:  # a --baseline file is this command line's input: refused naming the file and where
        base = resolve_baseline(engine.ws, baseline, engine.clock()) if baseline is not None else None
    except GcvInputError as exc:
        fail_usage(exc.message, json_mode=json_mode, file=str(baseline), detail=exc.path_in_doc, role="baseline")
    pop = None
    if population:
        from gcv.evaluation.population import parse_population

        try:
            pop = parse_population(population)
        except ValueError as exc:
            fail_usage(str(exc), json_mode=json_mode)
    submission = workflows.Submission(request=request, engine=engine_name, provider=provider, seed=seed,
                                      budgets=budgets, population=pop, baseline=base, fairness_policy=fairness_policy,
                                      actor=(actor or "").strip() or default_actor())
    created: list[str] = []

    def on_created(wf_id: str, source: str) -> None:
        created.append(wf_id)
        if not json_mode:
            console(stderr=True).print(f"workflow {wf_id} (baseline {source}, engine {engine_name} requested, "
                                       f"provider {provider})", markup=False)

    try:
        submitted = _advance(engine, lambda: created[0] if created else None, json_mode,
                             lambda: workflows.submit(engine, submission, on_created=on_created))
        wf_id, state, source = submitted.wf_id, submitted.state, submitted.baseline_source
        with workflows.writer(engine, wf_id):  # one writer for the rest of the command (the console is another)
            if state.status == "awaiting_authorization":
                if yes:
                    workflows.authorize(engine, wf_id, actor=default_actor(), via="--yes", repair_scope=repair_scope)
                elif sys.stdin.isatty() and not json_mode:
                    from gcv.cli.commands.propose_cmds import print_change  # lazy, as above

                    print_change(console(stderr=True), summary_object(engine.ws, state)["change"],
                                 title=f"what will run: the candidate against {source}")
                    ok = typer.confirm(f"Authorize 1 baseline run and up to {max_runs} candidate runs on "
                                       f"{engine_name} (fair-fight policy {fairness_policy})?", default=False)
                    if not ok:
                        console(stderr=True).print(f"not authorized; later: gcv authorize {wf_id} --actor NAME",
                                                   markup=False)
                        _finish(engine, state, json_mode, junit=junit)
                    workflows.authorize(engine, wf_id, actor=default_actor(), via="interactive prompt",
                                        repair_scope=repair_scope)
                else:
                    if not json_mode:
                        console(stderr=True).print(f"awaiting authorization: gcv authorize {wf_id} --actor NAME "
                                                   f"&& gcv resume {wf_id}", markup=False)
                    _finish(engine, state, json_mode, junit=junit)
                state = _advance(engine, wf_id, json_mode, lambda: workflows.resume(engine, wf_id).state)
            _finish(engine, state, json_mode, open_report=open_report, junit=junit)
    except Refusal as exc:
        _refused(exc, json_mode)


@app.command("authorize")
def authorize(
    wf_id: str = typer.Argument(..., metavar="WF"),
    actor: str = typer.Option(..., "--actor", help="who authorizes the runs"),
    max_runs: Optional[int] = typer.Option(None, "--max-runs", min=1, max=50),
    max_model_calls: Optional[int] = typer.Option(None, "--max-model-calls", min=1, max=100),
    max_tokens: Optional[int] = typer.Option(None, "--max-tokens", min=0),
    deadline: Optional[float] = typer.Option(None, "--deadline", min=1),
    fairness_policy: Optional[str] = typer.Option(None, "--fairness-policy",
                                                  help="undetermined_allowed or fair_required (default: the "
                                                       "workflow's setting); recorded in the authorization"),
    repair_scope: str = typer.Option("request", "--repair-scope",
                                     help="request: repairs move only what the request changed, anything else "
                                          "becomes trade-offs for the designer; fight: repairs may move any phase "
                                          "and field"),
    json_mode: bool = typer.Option(False, "--json"),
) -> None:
    """Authorize a proposed workflow's engine runs (nothing runs before this)."""
    from gcv.service import workflows
    from gcv.service.errors import Refusal

    engine = _engine(json_mode, quiet=True)
    overrides = workflows.BudgetOverrides(max_candidate_runs=max_runs, max_model_calls=max_model_calls,
                                          max_tokens=max_tokens, deadline_seconds=deadline)
    try:
        state = workflows.authorize(engine, wf_id, actor=actor, overrides=overrides, fairness_policy=fairness_policy,
                                    repair_scope=repair_scope).state
    except Refusal as exc:
        _refused(exc, json_mode)
    if json_mode:
        emit_json({"workflow_id": wf_id, "status": str(state.status),
                   "authorization": state.authorization.model_dump(mode="json") if state.authorization else None,
                   "exit_code": 0})
    else:
        policy = state.authorization.scope.fairness_policy if state.authorization else None
        console().print(f"{wf_id} authorized by {actor} (fair-fight policy {policy}); continue with: "
                        f"gcv resume {wf_id}", markup=False)


@app.command("resume")
def resume(wf_id: str = typer.Argument(..., metavar="WF"),
           junit: Optional[Path] = typer.Option(None, "--junit", metavar="FILE",
                                                help="also write JUnit XML for a CI test tab: a test per check"),
           json_mode: bool = typer.Option(False, "--json")) -> None:
    """Continue a workflow from its last recorded transition (after a crash or authorization)."""
    from engine_runners.termination import install_termination_handling  # engine processes end with gcv
    from gcv.service import workflows
    from gcv.service.errors import Refusal

    install_termination_handling()

    engine = _engine(json_mode)
    try:
        with workflows.writer(engine, wf_id):  # one writer for the whole command: a second resume is refused at once
            state = _advance(engine, wf_id, json_mode, lambda: workflows.resume(engine, wf_id).state)
            _finish(engine, state, json_mode, junit=junit)
    except Refusal as exc:
        _refused(exc, json_mode)


@app.command("status")
def status(wf_id: str = typer.Argument(..., metavar="WF"),
           json_mode: bool = typer.Option(False, "--json")) -> None:
    """Show a workflow's state, checks and trace."""
    # lazy, and not the loop: reading a workflow needs the store and the state's models only
    from gcv.workflow.reading import WorkflowError, read_workflow

    ws = _workspace()
    try:
        _, state = read_workflow(ws, wf_id)
    except WorkflowError as exc:
        fail_usage(str(exc), json_mode=json_mode)
    if json_mode:
        emit_json(summary_object(ws, state))
    else:
        _print_summary(ws, state)

@app.command("reindex")
def reindex(json_mode: bool = typer.Option(False, "--json")) -> None:
    """Rebuild the catalog's index of workflows from the workflow folders (the source of truth)."""
    from pydantic import ValidationError

    from gcv.store.errors import StoreError
    from gcv.workflow.state import WorkflowState
    from gcv.workflow.summary import catalog_row

    unreadable: list[str] = []

    def row_of(wf_id: str) -> dict[str, Any] | None:
        try:
            return catalog_row(WorkflowState.model_validate(ws.workflow_dir(wf_id).read_state()))
        except (StoreError, ValidationError) as exc:
            unreadable.append(f"{wf_id}: {str(exc).splitlines()[0]}")
            return None

    ws = _workspace()
    counts = ws.reindex(row_of)  # a catalog that cannot be written is the environment's failure: exit 70
    if json_mode:
        emit_json({**counts, "unreadable_workflows": unreadable, "exit_code": 0})
        return
    console().print(f"indexed {counts['indexed']} workflow(s) from {ws.workflows_root}", markup=False)
    for line in unreadable:
        console(stderr=True).print(f"  not indexed: {line}", markup=False)


WIDE_LIST = 120  # a console at least this wide shows `gcv list` with created, actor and decision


def _decision(row: dict[str, Any]) -> str:
    if not row.get("decision"):
        return ""
    return row["decision"] + (f" by {row['decided_by']}" if row.get("decided_by") else "")


@app.command("list")
def list_cmd(limit: int = typer.Option(20, "--limit", min=1, max=1000),
             wide: bool = typer.Option(False, "--wide", help="also the created, actor and decision columns (the "
                                                             f"default on a console {WIDE_LIST} columns or wider)"),
             needs: Optional[str] = typer.Option(None, "--needs", metavar="ROLE",
                                                 help="only workflows waiting for ROLE: designer (an answer or a "
                                                      "choice), operator (an authorization), reviewer (a decision)"),
             status: Optional[str] = typer.Option(None, "--status", help="only workflows with this status"),
             json_mode: bool = typer.Option(False, "--json")) -> None:
    """List workflows in the workspace, newest first (--json: every catalog field, times in Unix seconds)."""
    from gcv.contract.status import NEEDS, Status  # lazy: no loop, so the list starts at once
    from gcv.store.catalog import WorkflowFilter  # lazy, as above

    if needs is not None and needs not in NEEDS:
        fail_usage(f"--needs {needs!r}: not a role; roles: {', '.join(NEEDS)}", json_mode=json_mode)
    if status is not None and status not in {str(s) for s in Status}:
        fail_usage(f"--status {status!r}: not a status; statuses: {', '.join(str(s) for s in Status)}",
                   json_mode=json_mode)
    wanted = tuple(str(s) for s in NEEDS[needs]) if needs is not None else None
    if status is not None:
        wanted = tuple(s for s in (wanted or (status,)) if s == status)
    rows = _workspace().list_workflows(limit, filter=WorkflowFilter(statuses=wanted) if wanted is not None else None)
    if json_mode:
        emit_json({"workflows": rows})
        return
    con = console()
    columns = [Col("workflow", "id"), Col("status", "id"), Col("engine", optional=True),
               Col("provider", optional=True), Col("request")]
    cells = [[row["id"], row["status"], _ran(row["engine"], row.get("engines_used") or []), row["provider"],
              _clip(row["request"], 60)] for row in rows]
    if wide or con.width >= WIDE_LIST:
        columns[4:4] = [Col("created", "id"), Col("actor", "id"), Col("decision", "id")]
        for row, line in zip(rows, cells):
            line[4:4] = [time.strftime("%Y-%m-%d %H:%M", time.gmtime(row["created_at"])), row.get("actor") or "",
                         _decision(row)]
    print_table(con, columns, cells)


@app.command("resubmit", cls=RequestTextCommand)
def resubmit(
    wf_id: str = typer.Argument(..., metavar="WF", help="a workflow that ended revise (revision_requested), blocked "
                                                         "or budget_exhausted"),
    request: Optional[str] = typer.Argument(None, metavar="REQUEST", help="the edited request, in plain language"),
    request_opt: Optional[str] = typer.Option(None, "--request", help="the edited request (instead of REQUEST)"),
    actor: Optional[str] = typer.Option(None, "--actor", help="who resubmits (recorded; default: the invoking user)"),
    json_mode: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Edit and resubmit: a new workflow of the edited request, linked to WF (same baseline,
    engine, provider, seed and budgets), proposed as `gcv run` without --yes. WF stays as it is
    and is listed as superseded. Refused (exit 2) unless WF ended revise, blocked or budget
    exhausted, or if it was already resubmitted."""
    from engine_runners.termination import install_termination_handling  # engine processes end with gcv
    from gcv.service import workflows
    from gcv.service.errors import Refusal
    from gcv.workflow.loop import default_actor

    if (request is None) == (request_opt is None):
        fail_usage("give the edited REQUEST, or --request TEXT (not both)", json_mode=json_mode)
    install_termination_handling()
    engine = _engine(json_mode)

    created: list[str] = []

    def on_created(new_id: str, source: str) -> None:
        created.append(new_id)
        if not json_mode:
            console(stderr=True).print(f"workflow {new_id} resubmits {wf_id} (baseline {source})", markup=False)

    try:
        resubmitted = _advance(engine, lambda: created[0] if created else None, json_mode,
                               lambda: workflows.resubmit(engine, wf_id, request or request_opt or "",
                                                          actor=(actor or "").strip() or default_actor(),
                                                          on_created=on_created))
    except Refusal as exc:
        _refused(exc, json_mode)
    state = resubmitted.state
    if state.status == "awaiting_authorization" and not json_mode:
        console(stderr=True).print(f"awaiting authorization: gcv authorize {state.id} --actor NAME "
                                   f"&& gcv resume {state.id}", markup=False)
    _finish(engine, state, json_mode, evidence=state.status != "awaiting_authorization")

@app.command("answer", cls=RequestTextCommand)
def answer(
    wf_id: str = typer.Argument(..., metavar="WF"),
    text: Optional[str] = typer.Argument(None, metavar="ANSWER",
                                         help="the answers to the questions, in plain language"),
    choose: Optional[int] = typer.Option(None, "--choose", metavar="N", min=1,
                                         help="pick trade-off N of a workflow awaiting the designer's choice "
                                              "(`gcv status WF --json` lists them)"),
    actor: Optional[str] = typer.Option(None, "--actor", help="who answers (default: the invoking user)"),
    json_mode: bool = typer.Option(False, "--json"),
) -> None:
    """Answer the questions of a workflow that needs clarification (the same request continues),
    or pick one of the trade-offs of a workflow awaiting the designer's choice (--choose N)."""
    from engine_runners.termination import install_termination_handling  # engine processes end with gcv
    from gcv.service import workflows
    from gcv.service.errors import Refusal
    from gcv.workflow.loop import default_actor

    if (text is None) == (choose is None):
        fail_usage("give the ANSWER text, or --choose N for a trade-off (not both)", json_mode=json_mode)
    install_termination_handling()
    engine = _engine(json_mode)
    try:
        if choose is not None:
            state = _advance(engine, wf_id, json_mode,
                             lambda: workflows.choose(engine, wf_id, number=choose, actor=actor or default_actor()).state)
        else:
            state = _advance(engine, wf_id, json_mode,
                             lambda: workflows.answer(engine, wf_id, text=text or "",
                                                      actor=actor or default_actor()).state)
    except Refusal as exc:
        _refused(exc, json_mode)
    if state.status == "awaiting_authorization" and not json_mode:
        console(stderr=True).print(f"understood; authorize with: gcv authorize {wf_id} --actor NAME "
                                   f"&& gcv resume {wf_id}", markup=False)
    _finish(engine, state, json_mode, evidence=state.status != "awaiting_authorization")


@app.command("decide")
def decide(
    wf_id: str = typer.Argument(..., metavar="WF"),
    decision: str = typer.Argument(..., metavar="accept|revise|rollback"),
    actor: str = typer.Option(..., "--actor"),
    note: str = typer.Option("", "--note", help="why (recorded with the decision); required for accept and rollback"),
    promote: bool = typer.Option(False, "--promote", help="make the verified candidate the next baseline version"),
    json_mode: bool = typer.Option(False, "--json"),
) -> None:
    """Record the human decision on a finished workflow (final; cannot be overwritten).

    accept and rollback need a --note saying why (exit 2 without one); revise may go without.
    """
    from gcv.service import workflows
    from gcv.service.errors import Refusal

    engine = _engine(json_mode, quiet=True)
    try:  # one writer for the decision and the evidence version that records it
        decided = workflows.decide(engine, wf_id, decision=decision, actor=actor, note=note, promote=promote)
    except Refusal as exc:
        _refused(exc, json_mode)
    state, evidence = decided.state, decided.evidence
    _notify(engine, wf_id)
    if evidence.failure is not None:
        console(stderr=True).print(evidence.failure.message, markup=False)
    failed_code = 0 if evidence.failure is None else EVIDENCE_EXIT[evidence.failure.kind]
    paths = evidence.as_dict()
    if json_mode:
        emit_json({"workflow_id": wf_id, "status": str(state.status),
                   "human_decision": decided.decision.model_dump(mode="json"), "evidence": paths,
                   "evidence_written": evidence.failure is None, "exit_code": failed_code})
    else:
        extra = decided.decision.promoted_version
        con = console()
        con.print(f"{wf_id}: {state.status} by {actor}"
                  + (f"; baseline v{extra} is now active" if extra else ""), markup=False)
        if paths.get("bundle"):
            con.print(f"evidence version {paths['version']} records the decision:", markup=False)
            con.print(f"report: {paths['report']}", markup=False, soft_wrap=True)
            con.print(f"bundle: {paths['bundle']}", markup=False, soft_wrap=True)
    raise typer.Exit(failed_code)


@baselines_app.command("list")
def baselines_list(json_mode: bool = typer.Option(False, "--json")) -> None:
    """List baseline versions (the active one is marked) and every activation, oldest first."""
    from gcv.workflow.baselines import ensure_registry, history

    engine = _engine(json_mode, quiet=True)
    rows = ensure_registry(engine.ws, engine.clock())
    activations = history(engine.ws, engine.clock())
    if json_mode:
        emit_json({"baselines": rows, "activations": activations})
        return
    print_table(console(), [Col("version", "id"), Col("active", "id"), Col("config hash", "id", optional=True),
                            Col("source"), Col("workflow", "id"), Col("actor", "id", optional=True)],
                [[f"v{row['version']}", "*" if row["active"] else "", row["config_hash"][:12], row["source"],
                  row["workflow_id"] or "", row["actor"] or ""] for row in rows])
    if activations:
        print_table(console(), [Col("when (UTC)", "id"), Col("version", "id"), Col("action", "id"),
                                Col("from", "id"), Col("by", "id"), Col("note")],
                    [[_when(a["at"]).removesuffix(" UTC"), f"v{a['version']}", a["action"],
                      f"v{a['from_version']}" if a["from_version"] else "", a["actor"] or "", a["note"] or ""]
                     for a in activations], title="activations")

@baselines_app.command("show")
def baselines_show(version: str = typer.Argument(..., metavar="VERSION", help="v2 or 2"),
                   json_mode: bool = typer.Option(False, "--json")) -> None:
    """Show one baseline version: provenance, activations and its config."""
    from gcv.service.baselines import show_version
    from gcv.service.errors import Refusal

    engine = _engine(json_mode, quiet=True)
    try:
        row = show_version(engine.ws, version, engine.clock)
    except Refusal as exc:
        _refused(exc, json_mode)
    if json_mode:
        emit_json(row)
        return
    con = console()
    con.print(f"[bold]{row['name']}[/]{'  (active)' if row['active'] else ''}")
    con.print(f"  config hash  {row['config_hash']}", markup=False)
    con.print(f"  created      {_when(row['created_at'])}", markup=False)
    con.print(f"  source       {row['source']}", markup=False)
    if row["workflow_id"]:
        con.print(f"  workflow     {row['workflow_id']}", markup=False)
    if row["actor"] or row["note"]:
        con.print(f"  by           {row['actor'] or '-'}: {row['note'] or ''}", markup=False)
    for a in row["activations"]:
        con.print(f"  {_when(a['at'])}  {a['action']}"
                  + (f" from v{a['from_version']}" if a["from_version"] else "")
                  + (f" by {a['actor']}" if a["actor"] else "") + (f": {a['note']}" if a["note"] else ""),
                  markup=False)
    phases = ", ".join(f"{p['phase_id']} {p['pattern']['type']}" for p in row["config"]["phases"])
    con.print(f"  phases       {phases}", markup=False)

@baselines_app.command("rollback")
def baselines_rollback(to: Optional[str] = typer.Option(None, "--to", help="version, v2 or 2 (default: the previous one)"),
                       actor: str = typer.Option(..., "--actor", help="who rolls back (recorded)"),
                       note: str = typer.Option(..., "--note", help="why (recorded)"),
                       json_mode: bool = typer.Option(False, "--json")) -> None:
    """Make an earlier baseline version active again (audited: actor and note are recorded)."""
    from gcv.service.baselines import roll_back
    from gcv.service.errors import Refusal

    engine = _engine(json_mode, quiet=True)
    try:
        result = roll_back(engine.ws, to, engine.clock, actor=actor, note=note)
    except Refusal as exc:
        _refused(exc, json_mode)
    if json_mode:
        emit_json({**result, "exit_code": 0})
    else:
        console().print(f"active baseline: v{result['from_version']} -> v{result['to_version']} "
                        f"(by {actor}: {note})", markup=False)

app.add_typer(baselines_app, name="baselines")

