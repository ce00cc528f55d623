"""Shared CLI output: one console policy, one JSON writer, one way to fail with exit 2.

Machine output (``--json``) is exactly one JSON object on stdout and nothing else there;
human output goes through rich, which honours ``NO_COLOR``, ``COLUMNS`` and non-terminal
output (no colour codes when piped). Diagnostics for people go to stderr.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Iterable, NoReturn

import typer
from rich.console import Console
from rich.segment import Segment
from rich.markup import escape

from gcv.cli.safe_text import safe_text

from gcv.contract.exits import ExitCode

EXIT_OK = ExitCode.OK
EXIT_INVALID = ExitCode.INVALID
EXIT_USAGE = ExitCode.USAGE


class SafeConsole(Console):
    """A rich console that escapes control characters in every string it renders (printed
    text, table cells, titles), so user text cannot move the cursor, recolour, retitle or
    clear the terminal. Rich's own styling is unaffected: it is added after this point."""

    def render_str(self, text: str, **kwargs: Any) -> Any:
        return super().render_str(safe_text(text), **kwargs)  # before layout: widths stay right

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        # The last funnel (rich 15): every segment of text on its way out, Text objects built
        # elsewhere included. Control segments are rich's own cursor moves; styles are added
        # by the parent after this, so colours survive.
        return super()._render_buffer(segment if segment.control else
                                      Segment(safe_text(segment.text), segment.style, segment.control)
                                      for segment in buffer)


def console(*, stderr: bool = False) -> Console:
    """A fresh console bound to the current stdout/stderr (test runners swap them).

    Lines are never wrapped by us (``soft_wrap``): an id or a path printed on a line stays whole
    in a log and in a copy; tables fit themselves to the width (``gcv.cli.tables``). Control
    characters in what it renders are escaped (``SafeConsole``)."""
    return SafeConsole(file=sys.stderr if stderr else sys.stdout, highlight=False, soft_wrap=True,
                       emoji=False)


def emit_json(obj: Any) -> None:
    """Print exactly one JSON object on stdout (strict JSON: no NaN, no Infinity)."""
    from gcv.validation.report import json_safe  # lazy: `gcv --help` must not import the validators

    data = obj.model_dump(mode="json") if hasattr(obj, "model_dump") else obj
    sys.stdout.write(json.dumps(json_safe(data), indent=2, ensure_ascii=False, allow_nan=False) + "\n")
    sys.stdout.flush()


def fail_usage(message: str, *, json_mode: bool = False, file: str | None = None,
               detail: str | None = None, hint: str | None = None, role: str | None = None) -> NoReturn:
    """Stop with exit code 2 (bad usage or unreadable input), saying what and where.

    ``role`` names the input in human output ("candidate", "baseline"); ``file`` is its path.
    With ``json_mode`` the only output is ``{"error", "file", "detail", "exit_code"}``.
    """
    if json_mode:
        error = f"{role}: {message}" if role else message
        emit_json({"error": error, "file": file, "detail": detail, "exit_code": EXIT_USAGE})
    else:
        err = console(stderr=True)
        where = " ".join(part for part in (role, file) if part)
        err.print(f"[bold red]error:[/] {escape(where + ': ' if where else '')}{escape(message)}",
                  markup=True)
        if detail:
            err.print(f"  at {detail}" if detail.startswith("$") else f"  {detail}", markup=False)
        if hint:
            err.print(f"  hint: {hint}", markup=False)
    raise typer.Exit(EXIT_USAGE)
