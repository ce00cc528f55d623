"""``gcv eval-requests SET``: how often a Requirement Agent provider gets designers right.

Runs a provider on every request of a labeled set (``artifacts/requests/``, one JSON line
per request, see ``gcv.agents.request_eval``) and prints the accuracy overall, per class
of request, per language, per split (held-out / dev) and per style, then every miss with
its reason (expected vs got, the first part of the label that does not hold).

Providers: ``offline`` (the rules), ``anthropic`` (Claude; every call is recorded to a file
in the workspace as it happens and the path is printed) and ``replay:PATH`` (answers from
such a recording: the same score, no network).

Exit codes: 0 scored; 1 scored below ``--min-accuracy``; 2 bad usage or unreadable input
(the set, the baseline, the recording, the provider's configuration); 130 interrupted (the
recording keeps every request answered so far). ``--json`` prints exactly one JSON object.
"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from gcv.cli.tables import Col, print_table
from gcv.cli.failures import raise_if_environment

from gcv.cli.output import EXIT_INVALID, EXIT_OK, console, emit_json, fail_usage
from gcv.contract.environment import BASELINE_ENV
from gcv.contract.exits import ExitCode

app = typer.Typer()

EXIT_BELOW_MIN = EXIT_INVALID
EXIT_INTERRUPTED = ExitCode.INTERRUPTED


def _pct(tally: dict[str, Any]) -> str:
    return f"{100 * tally['accuracy']:.1f}% ({tally['correct']}/{tally['total']})"


def _print_human(result: dict[str, Any], misses_shown: int) -> None:
    out = console()
    overall = result["overall"]
    out.print(f"[bold]{escape(result['provider'])}[/]: {_pct(overall)} right"
              + (f", {result['errors']} agent error(s)" if result["errors"] else ""))
    total = overall["total"] or 1
    out.print(f"wrong accepts: {result['wrong_accepts']} ({100 * result['wrong_accepts'] / total:.1f}%)")
    if result.get("with_one_answer"):
        out.print(f"with one simulated answer (the first question's choice that matches the label): "
                  f"{_pct(result['with_one_answer'])} right")
    for title, key in (("split", "by_split"), ("language", "by_lang"), ("class", "by_class"),
                       ("style", "by_style"), ("expected decision", "by_expected_decision")):
        rows = result[key]
        if not rows:
            continue
        print_table(out, [Col(title, "id"), Col("right", "num"), Col("total", "num"), Col("accuracy", "num")],
                    [[name, t["correct"], t["total"],
                      Text(f"{100 * t['accuracy']:.1f}%", style="" if t["accuracy"] >= 0.95 else "yellow")]
                     for name, t in rows.items()], title=f"by {title}")
    misses = result["misses"]
    if misses:
        out.print(f"[bold]misses[/] ({len(misses)})")
        for m in misses[:misses_shown]:
            answers = f" + answers {m['follow_ups']}" if m["follow_ups"] else ""
            out.print(f"  {escape(m['id'])} [{escape(','.join(m['classes']))}] {escape(repr(m['text']))}"
                      f"{escape(answers)}")
            out.print(f"      {escape(m['reason'])}")
        if len(misses) > misses_shown:
            out.print(f"  ... and {len(misses) - misses_shown} more (--misses N, or --json)")
    if result.get("recording"):
        out.print(f"recording: {escape(result['recording'])} (score it again offline with "
                  f"--provider replay:{escape(result['recording'])})")


@app.command("eval-requests")
def eval_requests_command(
    request_set: Annotated[Optional[Path], typer.Argument(
        metavar="SET", help="a .jsonl request set, or a folder of them (e.g. artifacts/requests)",
        show_default=False)] = None,
    provider: Annotated[str, typer.Option("--provider", help="offline, anthropic, or replay:PATH")] = "offline",
    baseline: Annotated[Optional[Path], typer.Option(
        "--baseline", help=f"the baseline the labels were written against; default ${BASELINE_ENV} or "
                           "artifacts/baselines/shrine_trial.json")] = None,
    split: Annotated[Optional[str], typer.Option("--split", help="only this split: heldout, heldout2, heldout3, heldout4 or dev")] = None,
    only_class: Annotated[Optional[list[str]], typer.Option(
        "--class", help="only requests of this class (repeatable)")] = None,
    lang: Annotated[Optional[str], typer.Option("--lang", help="only this language: en, zh or mixed")] = None,
    min_accuracy: Annotated[Optional[float], typer.Option(
        "--min-accuracy", help="exit 1 if the overall accuracy is below this (0..1)")] = None,
    misses_shown: Annotated[int, typer.Option("--misses", help="how many misses to print (human output)")] = 50,
    json_out: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
) -> None:
    """Score a Requirement Agent provider on a labeled request set."""
    from gcv.contract.loading import GcvInputError, default_baseline_path, load_config  # lazy: start-up time
    # project imports here keep `gcv --help` fast (the agents pull in the validation stack)
    from gcv.agents.request_eval import (REQUEST_CLASSES, SPLITS, ProviderRunner, Recorder, RecordingError, ReplayRunner,
                                         SetError, load_set, score)
    from gcv.agents.requirement import UnknownProviderError, get_requirement_provider
    from gcv.store.paths import workspace_root

    if request_set is None:
        fail_usage("missing argument SET (a .jsonl request set or a folder of them)", json_mode=json_out,
                   hint="gcv eval-requests artifacts/requests [--provider offline|anthropic|replay:PATH] [--json]")
    if split is not None and split not in SPLITS:
        fail_usage(f"--split {split!r}: expected {', '.join(SPLITS)}", json_mode=json_out)
    if lang is not None and lang not in ("en", "zh", "mixed"):
        fail_usage(f"--lang {lang!r}: expected en, zh or mixed", json_mode=json_out)
    for c in only_class or []:
        if c not in REQUEST_CLASSES:
            fail_usage(f"--class {c!r}: expected one of {', '.join(REQUEST_CLASSES)}", json_mode=json_out)
    if min_accuracy is not None and not 0 <= min_accuracy <= 1:
        fail_usage(f"--min-accuracy {min_accuracy:g}: expected a fraction in 0..1", json_mode=json_out)
    try:
        requests = load_set(request_set)
    except SetError as exc:
        fail_usage(str(exc), json_mode=json_out, role="request set")
    requests = [r for r in requests if (split is None or r.split == split) and (lang is None or r.lang == lang)
                and (not only_class or set(only_class) & set(r.classes))]
    if not requests:
        fail_usage("no request of the set matches the filters", json_mode=json_out, file=str(request_set))
    base_path = baseline if baseline is not None else default_baseline_path()
    try:
        base = load_config(base_path)
    except GcvInputError as exc:
        fail_usage(exc.message, json_mode=json_out, file=exc.file, detail=exc.path_in_doc, role="baseline")

    kind, _, arg = provider.partition(":")
    recorder = None
    try:
        if kind == "replay":
            runner: Any = ReplayRunner(arg)
        else:
            chosen = get_requirement_provider(provider)
            if kind == "anthropic":
                stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
                path = workspace_root() / "evals" / f"requests-anthropic-{stamp}.jsonl"
                recorder = Recorder(path, provider=kind, model=str(getattr(chosen, "model", "")), baseline=base)
            runner = ProviderRunner(chosen, recorder)
    except (UnknownProviderError, RecordingError, ValueError) as exc:  # ProviderConfigError is a ValueError
        fail_usage(str(exc), json_mode=json_out, role="--provider")
    except OSError as exc:
        raise_if_environment(exc)  # a full or read-only disk: exit 70
        fail_usage(f"cannot write the recording: {exc.strerror or exc}", json_mode=json_out,
                   file=str(getattr(exc, "filename", "") or ""))

    err = console(stderr=True)
    progress = Progress(TextColumn("[bold]eval-requests"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("{task.fields[misses]}"), TimeElapsedColumn(), console=err, transient=True)
    task = progress.add_task("requests", total=len(requests), misses="")
    missed = 0

    def on_request(_request: Any, ok: bool) -> None:
        nonlocal missed
        missed += 0 if ok else 1
        progress.update(task, advance=1, misses=f"{missed} miss(es)" if missed else "")

    started = time.monotonic()
    try:
        with progress:
            result = score(requests, runner, base, provider=provider, progress=on_request).as_dict()
    except KeyboardInterrupt:
        if recorder is not None:
            recorder.close()
            err.print(f"interrupted; the recording so far is at {recorder.path}")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    finally:
        if recorder is not None:
            recorder.close()
    result["set"] = str(request_set)
    result["baseline"] = str(base_path)
    result["filters"] = {"split": split, "class": only_class or [], "lang": lang}
    result["recording"] = str(recorder.path) if recorder is not None else None
    result["seconds"] = round(time.monotonic() - started, 3)
    code = EXIT_OK
    if min_accuracy is not None and result["overall"]["accuracy"] < min_accuracy:
        code = EXIT_BELOW_MIN
    result["min_accuracy"] = min_accuracy
    result["exit_code"] = code
    if json_out:
        emit_json(result)
    else:
        _print_human(result, misses_shown)
        if code == EXIT_BELOW_MIN:
            err.print(f"[bold red]below --min-accuracy {min_accuracy:g}[/]")
    raise typer.Exit(code)


__all__ = ["app", "eval_requests_command", "EXIT_BELOW_MIN", "EXIT_INTERRUPTED"]
