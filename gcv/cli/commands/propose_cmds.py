"""``gcv propose "REQUEST"``: what the Requirement Agent makes of a designer's request.

Prints the decision, the structured goal, the candidate's differences from the baseline,
the validation report and any questions or issues. Nothing is written and no engine runs.

Exit codes: 0 accepted; 3 needs_clarification, out_of_scope or no_change (nothing to run,
the designer has to act); 4 blocked; 2 usage or input error (missing request, unreadable
baseline, unknown provider). ``--json`` prints exactly one JSON object.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.markup import escape
from rich.text import Text

from gcv.cli.commands.request_text import RequestTextCommand
from gcv.cli.output import EXIT_OK, EXIT_USAGE, console, emit_json, fail_usage
from gcv.contract.environment import BASELINE_ENV
from gcv.contract.exits import ExitCode

EXIT_ATTENTION = ExitCode.ATTENTION  # needs_clarification / out_of_scope / no_change
EXIT_BLOCKED = ExitCode.BLOCKED
EXIT_CODES: dict[str, int] = {"accepted": EXIT_OK, "needs_clarification": EXIT_ATTENTION,
                              "out_of_scope": EXIT_ATTENTION, "no_change": EXIT_ATTENTION,
                              "blocked": EXIT_BLOCKED}
_STYLE = {"accepted": "bold green", "needs_clarification": "bold yellow", "out_of_scope": "bold yellow",
          "no_change": "bold cyan", "blocked": "bold red"}


def _show(value: Any, limit: int = 60) -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _goal_rows(goal: dict[str, Any]) -> list[tuple[str, str]]:
    rows = [("target phases", ", ".join(goal["target_phase_ids"]))]
    if goal.get("pattern_type"):
        rows.append(("pattern", goal["pattern_type"]))
    if goal.get("bidirectional") is not None:
        rows.append(("bidirectional", str(goal["bidirectional"]).lower()))
    if goal.get("reverse_rotation"):
        rows.append(("reverse rotation", "true"))
    if goal.get("pressure", "keep") != "keep":
        rows.append(("pressure", goal["pressure"]))
    words = {"set": "=", "scale": "x", "add": "+"}
    for edit in goal.get("edits", []):
        rows.append((f"edit {edit['field']}", f"{words[edit['operation']]} {_show(edit['value'])}"))
    for name, value in (goal.get("constraints") or {}).items():
        if value is not None:
            rows.append((f"constraint {name}", _show(value)))
    if goal.get("preserve_visual_style"):
        rows.append(("preserve visual style", "true"))
    return rows


def print_change(out: Any, change: list[dict[str, Any]], *, title: str,
                 phase_ids: list[str] | None = None) -> None:
    """Field, old -> new and the change in %, one line each (and where the edit came from).
    Fields by their human names with units (gcv.contract.names); the JSON path is a column a
    narrow terminal drops (``--json`` keeps the paths)."""
    from gcv.cli.tables import Col, print_table  # lazy: start-up time
    from gcv.contract.names import field_label, value_with_unit

    with_origin = any("origin" in c for c in change)
    cols = [Col("field", "id"), Col("baseline -> candidate"), Col("change", "num"), Col("path", "path", optional=True)]
    rows = []
    for c in change:
        pct = "" if c.get("percent") is None else f"{c['percent']:+g}%"
        before, after = (value_with_unit(c["path"], v) if not isinstance(v, (dict, list)) else _show(v)
                         for v in (c["before"], c["after"]))
        row: list[Any] = [field_label(c["path"], phase_ids), f"{before} -> {after}", pct, c["path"]]
        if with_origin:
            origin = str(c.get("origin") or "")
            kind, _, intent = origin.partition(":")
            said = f"{kind}: {intent.lower().replace('_', ' ')}" if intent else origin  # repair: reduce bullet speed
            row.append("requested" if c.get("requested")
                       else Text.assemble((f"added by {said}", "red"), " (not requested)"))
        rows.append(row)
    if with_origin:  # origin before the optional path column, so a narrow terminal keeps it
        cols.insert(3, Col("origin"))
        for row in rows:
            row.insert(3, row.pop())
    print_table(out, cols, rows, title=title)


def _quoted(text: str) -> str:
    """The request as one shell word (a request that begins with '-' goes after '--')."""
    import shlex  # lazy: only for the hint

    return ("-- " if text.startswith("-") else "") + shlex.quote(text)


def _print_human(payload: dict[str, Any], report: Any) -> None:
    out = console()
    decision = payload["decision"]
    out.print(f"decision: [{_STYLE[decision]}]{decision}[/]  (provider {escape(payload['provider'])}, baseline "
              f"{escape(payload['baseline'])})")
    if payload.get("rationale"):
        out.print(f"  {escape(payload['rationale'])}", markup=True)
    if payload["goal"]:
        from gcv.cli.tables import Col, print_table  # lazy: start-up time

        print_table(out, [Col("field", style="bold"), Col("value")], _goal_rows(payload["goal"]), title="goal",
                    show_header=False)
    if payload["candidate"] is not None:
        if payload["change"]:
            print_change(out, payload["change"], title=f"candidate vs baseline ({payload['baseline']})",
                         phase_ids=[p.get("phase_id", "") for p in payload["candidate"].get("phases", [])] or None)
        else:
            out.print("candidate: identical to the baseline")
    if report is not None:
        from gcv.cli.commands.validate_cmds import print_report

        out.print("[bold]validation[/]")
        print_report(report, "candidate")
    if payload["questions"]:
        out.print("[bold yellow]questions[/]")
        asks = {a["text"]: a for a in payload.get("asks") or []}
        for n, question in enumerate(payload["questions"], 1):
            out.print(f"  {n}. {escape(question)}")
            for m, choice in enumerate((asks.get(question) or {}).get("choices") or [], 1):
                out.print(f"     {chr(96 + m) if m <= 26 else m}) {escape(choice['label'])}  "
                          f"[dim](answer: {escape(choice['answer'])})[/]")
    if payload["issues"]:
        from gcv.cli.tables import Col, print_table  # lazy: start-up time

        print_table(out, [Col("field", "path"), Col("rule", "id", optional=True), Col("asked", "num"),
                          Col("allowed"), Col("message")],
                    [[issue["field"], issue.get("rule_id") or "", _show(issue["asked"]), str(issue["allowed"]),
                      issue["message"]] for issue in payload["issues"]], title="issues")
    hint = {"accepted": "next: authorize test runs of this candidate",
            "needs_clarification": ("propose keeps no answers: start the request with "
                                    f"gcv run {_quoted(payload['request'])} and answer its questions with "
                                    "gcv answer WF \"ANSWER\" (the same request continues)"),
            "out_of_scope": "GCV changes the boss fight's bullet patterns and their targets only",
            "no_change": "nothing to verify",
            "blocked": "change the request so that it stays inside the contract"}[decision]
    out.print(f"[dim]{escape(hint)}[/]")


def propose_command(
    request: Annotated[Optional[str], typer.Argument(help="the designer's change request (English or Chinese)",
                                                     show_default=False)] = None,
    baseline: Annotated[Optional[Path], typer.Option(
        "--baseline", help=f"baseline config; default ${BASELINE_ENV} or the committed "
                           "artifacts/baselines/shrine_trial.json")] = None,
    provider: Annotated[str, typer.Option("--provider", help="requirement provider (offline, ...)")] = "offline",
    json_out: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
) -> None:
    """Turn a change request into a structured goal and a validated candidate config."""
    # lazy: the agents pull in the validation stack; `gcv --help` must stay fast
    import os
    import time

    from gcv.agents.errors import AgentError
    from gcv.agents.requirement import RequirementAgent, UnknownProviderError, get_requirement_provider
    from gcv.contract.loading import GcvInputError, load_config
    from gcv.contract.status import Reason
    from gcv.store.catalog import Workspace
    from gcv.store.errors import StoreError
    from gcv.store.paths import workspace_root
    from gcv.validation.diff import change_with_origins
    from gcv.workflow.baselines import active_baseline

    if request is None:
        fail_usage("missing argument REQUEST (the change request, in quotes)", json_mode=json_out,
                   hint='gcv propose "make phase 2 a denser bidirectional spiral" [--baseline B.json] [--json]')
    # the same baseline `gcv run` would use: --baseline, else $GCV_BASELINE, else the registry's active version
    base_file = baseline if baseline is not None else (Path(os.environ[BASELINE_ENV]) if os.environ.get(BASELINE_ENV)
                                                        else None)
    try:
        if base_file is not None:
            base, base_name = load_config(base_file), str(base_file)
        else:
            base, base_name = active_baseline(Workspace(workspace_root()), time.time())
    except GcvInputError as exc:
        fail_usage(exc.message, json_mode=json_out, file=exc.file, detail=exc.path_in_doc, role="baseline")
    except StoreError as exc:
        fail_usage(str(exc), json_mode=json_out, role="workspace")
    try:
        chosen = get_requirement_provider(provider)
    except UnknownProviderError as exc:
        fail_usage(str(exc), json_mode=json_out, role="--provider")
    except ValueError as exc:
        fail_usage(str(exc), json_mode=json_out, role="--provider")
    try:
        proposal = RequirementAgent(chosen).propose_with_report(request, base)
    except AgentError as exc:  # the model could not be reached, refused, or kept answering malformed output
        code = Reason(exc.kind).status.exit_code if exc.kind in Reason._value2member_map_ else EXIT_USAGE
        if json_out:
            emit_json({"decision": None, "request": request, "provider": provider, "baseline": base_name,
                       "error": {"kind": exc.kind, "message": str(exc)},
                       "agent_calls": [call.model_dump(mode="json") for call in exc.calls], "exit_code": code})
        else:
            console(stderr=True).print(f"[bold red]error:[/] the requirement agent failed ({escape(exc.kind)}): "
                                       f"{escape(str(exc))}")
        raise typer.Exit(code) from None
    decision = proposal.decision
    code = EXIT_CODES[decision.decision]
    dumped = decision.model_dump(mode="json")
    change = (change_with_origins(base, [(1, "requirement", decision.candidate)])
              if decision.candidate is not None else [])
    diff = [{k: c[k] for k in ("path", "before", "after", "kind")} for c in change]
    report = proposal.validation
    payload: dict[str, Any] = {
        "decision": decision.decision,
        "request": request,
        "provider": provider,
        "baseline": base_name,
        "rationale": decision.rationale,
        "goal": dumped["goal"],
        "candidate": dumped["candidate"],
        "diff": diff,
        "change": [{k: c[k] for k in ("path", "before", "after", "percent")} for c in change],
        "validation": report.model_dump(mode="json") if report is not None else None,  # type: ignore[attr-defined]
        "questions": dumped["questions"],
        "asks": dumped.get("asks", []),  # the questions typed: kind and choices (each with its answer text)
        "issues": dumped["issues"],
        "agent_calls": [call.model_dump(mode="json") for call in proposal.calls],
        "exit_code": code,
    }
    if json_out:
        emit_json(payload)
    else:
        _print_human(payload, report)
    raise typer.Exit(code)


app = typer.Typer()
app.command("propose", cls=RequestTextCommand)(propose_command)


__all__ = ["app", "propose_command", "EXIT_CODES", "EXIT_ATTENTION", "EXIT_BLOCKED", "EXIT_USAGE"]
