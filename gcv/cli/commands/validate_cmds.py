"""``gcv validate``, ``gcv diff`` and ``gcv schema export``.

Exit codes: 0 valid (or diff/export done), 1 the candidate is invalid, 2 usage or input
error (missing file, not strict JSON, a broken baseline or goal). Neither validate nor diff
writes anything.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, Optional

import typer
from rich.markup import escape
from gcv.cli.tables import Col, print_table
from gcv.cli.failures import raise_if_environment

from gcv.cli.output import EXIT_INVALID, EXIT_OK, console, emit_json, fail_usage
from gcv.contract.environment import BASELINE_ENV

if TYPE_CHECKING:  # the annotations only; the modules are imported lazily (start-up time)
    from gcv.contract.loading import GcvInputError
    from gcv.validation.diff import FieldChange
    from gcv.validation.report import ValidationReport

MAX_DIFF_ROWS = 500  # human output; --json has every change


def _show(value: Any, limit: int = 60) -> str:
    import json

    if value is None:
        return "-"
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _input_error(exc: GcvInputError, json_mode: bool, role: str) -> NoReturn:
    fail_usage(exc.message, json_mode=json_mode, file=exc.file, detail=exc.path_in_doc, role=role)


def print_report(report: ValidationReport, candidate: str) -> None:
    out = console()
    for layer in report.layers:
        mark = {"passed": "[green]passed[/]", "failed": "[bold red]FAILED[/]",
                "skipped": "[yellow]skipped[/]"}[layer.status]
        why = f" ({escape(layer.reason)})" if layer.reason else ""
        out.print(f"{layer.layer:<10} {mark}{why}")
        if layer.errors:
            print_table(out, [Col("rule", "id"), Col("path", "path"), Col("actual", "num"), Col("allowed"),
                              Col("message")],
                        [[issue.rule_id, issue.path, _show(issue.actual), _show(issue.allowed), issue.message]
                         for issue in layer.errors])
        for note in layer.notes:
            out.print(f"           note: {escape(note)}")
    errors = report.errors
    if report.ok:
        out.print(f"[bold green]OK[/] {escape(candidate)} passes every layer "
                  f"(candidate {report.candidate_hash[:12] if report.candidate_hash else '-'})")
    else:
        failed = ", ".join(layer.layer for layer in report.layers if layer.status == "failed")
        out.print(f"[bold red]INVALID[/] {escape(candidate)}: {len(errors)} "
                  f"error{'s' if len(errors) != 1 else ''} in {failed}")


def validate_command(
    candidate: Annotated[Optional[Path], typer.Argument(
        help="candidate config (JSON)", show_default=False, metavar="CANDIDATE")] = None,
    baseline: Annotated[Optional[Path], typer.Option(
        "--baseline", help=f"baseline config; default ${BASELINE_ENV} or the committed "
                           "artifacts/baselines/shrine_trial.json")] = None,
    goal: Annotated[Optional[Path], typer.Option("--goal", help="structured goal (gcv.goal/1)")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="print one JSON object (the report)")] = False,
) -> None:
    """Check a candidate config through the schema, reference, rules and safety layers."""
    from gcv.contract.loading import GcvInputError, default_baseline_path, load_config, load_goal, load_json_file  # lazy: start-up time
    from gcv.validation.validate import validate  # lazy: start-up time
    if candidate is None:
        fail_usage("missing argument CANDIDATE (the candidate config to validate)", json_mode=json_out,
                   hint="gcv validate CANDIDATE.json [--baseline B.json] [--goal G.json] [--json]")
    base_path = baseline if baseline is not None else default_baseline_path()
    try:
        base = load_config(base_path)
    except GcvInputError as exc:
        _input_error(exc, json_out, "baseline")
    goal_model = None
    if goal is not None:
        try:
            goal_model = load_goal(goal)
        except GcvInputError as exc:
            _input_error(exc, json_out, "goal")
    try:
        data = load_json_file(candidate)
    except GcvInputError as exc:
        _input_error(exc, json_out, "candidate")
    report = validate(base, data, goal_model)
    code = EXIT_OK if report.ok else EXIT_INVALID
    if json_out:
        emit_json({**report.model_dump(mode="json"), "exit_code": code})
    else:
        print_report(report, str(candidate))
    raise typer.Exit(code)


def print_diff(changes: list[FieldChange], before: str, after: str) -> None:
    out = console()
    if not changes:
        out.print(f"no differences between {escape(before)} and {escape(after)}")
        return
    print_table(out, [Col("path", "path"), Col("change", "id"), Col("before", "num"), Col("after", "num")],
                [[change.path, change.kind, _show(change.before), _show(change.after)]
                 for change in changes[:MAX_DIFF_ROWS]])  # a terminal table of 200,000 rows would take minutes
    if len(changes) > MAX_DIFF_ROWS:
        out.print(f"... {len(changes) - MAX_DIFF_ROWS} more not shown (--json lists every change)", markup=False)
    out.print(f"{len(changes)} field{'s' if len(changes) != 1 else ''} differ")


def diff_command(
    before: Annotated[Optional[Path], typer.Argument(
        help="first JSON document", show_default=False, metavar="BEFORE")] = None,
    after: Annotated[Optional[Path], typer.Argument(
        help="second JSON document", show_default=False, metavar="AFTER")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
) -> None:
    """Field-level differences between two configs (JSON paths, before and after)."""
    from gcv.contract.loading import GcvInputError, load_json_file  # lazy: start-up time
    from gcv.validation.diff import diff_configs  # lazy: start-up time
    if before is None or after is None:
        fail_usage("diff needs two files: BEFORE and AFTER", json_mode=json_out,
                   hint="gcv diff BEFORE.json AFTER.json [--json]")
    docs = []
    for role, path in (("before", before), ("after", after)):
        try:
            docs.append(load_json_file(path))
        except GcvInputError as exc:
            _input_error(exc, json_out, role)
    changes = diff_configs(docs[0], docs[1])
    if json_out:
        emit_json({"before": str(before), "after": str(after), "count": len(changes),
                   "changes": [c.model_dump(mode="json") for c in changes], "exit_code": EXIT_OK})
    else:
        print_diff(changes, str(before), str(after))
    raise typer.Exit(EXIT_OK)


schema_app = typer.Typer(help="JSON Schemas of the contract (committed in schemas/).",
                         no_args_is_help=True, add_completion=False)


@schema_app.command("export")
def schema_export_command(
    directory: Annotated[Optional[Path], typer.Option(
        "--dir", help="output directory; default: schemas/ of the repository")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="print one JSON object (what was written)")] = False,
) -> None:
    """Write every registered JSON Schema (sorted keys, indent 2) and the engine cores' program bounds."""
    from gcv.contract.loading import find_repo_root  # lazy: start-up time
    from gcv.schema_export import export_changes

    root = None
    if directory is None:
        root = find_repo_root()
        directory = (root / "schemas") if root is not None else Path("schemas")
    try:
        # the engine cores' bounds files live in the repository: written with its schemas/ only;
        # each file is compared with its own previous bytes (issue 25.15)
        written = export_changes(directory, repo_root=root)
    except OSError as exc:
        raise_if_environment(exc, directory)  # a full or read-only disk: exit 70
        fail_usage(f"cannot write schemas: {exc.strerror or exc}", file=str(directory),
                   role="--dir", json_mode=json_out)
    files = [{"schema": path.name, "path": str(path), "bytes": path.stat().st_size, "changed": changed}
             for path, changed in written]
    if json_out:
        emit_json({"directory": str(directory), "written": files,
                   "changed": sum(f["changed"] for f in files), "exit_code": EXIT_OK})
        return
    out = console()
    for f in files:
        out.print(f"wrote {f['path']}" + (" (changed)" if f["changed"] else ""), markup=False)


app = typer.Typer()
app.command("validate")(validate_command)
app.command("diff")(diff_command)
app.add_typer(schema_app, name="schema")
