"""The last line of defence: any failure a command did not handle becomes one message and a
documented exit code, never a traceback.

``gcv.cli.root.run`` calls :func:`describe` for an exception that escaped a command (and
``gcv.cli.entry.main`` for one raised while the command tree is imported, a Ctrl-C included):

* exit 2 (``EXIT_USAGE``): an input file that cannot be used (``GcvInputError``), or a
  workflow whose stored records are missing or damaged (``DamagedRecord``: the same code
  whichever command finds the damage, and however deep);
* exit 70 (``EXIT_ENVIRONMENT``, sysexits' EX_SOFTWARE): the environment or the workspace
  failed: ``GCV_HOME`` is not a usable folder, the disk is full or read-only, the SQLite
  catalog is corrupt or read-only, memory ran out; and any other unexpected exception (then
  the message says it is a bug in GCV);
* exit 130: interrupted (Ctrl-C, or SIGINT from a CI cancel).

``GCV_DEBUG=1`` adds the traceback on stderr for a bug report.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from typing import Any

from gcv.contract.exits import ExitCode

EXIT_USAGE = ExitCode.USAGE
EXIT_ENVIRONMENT = ExitCode.ENVIRONMENT
EXIT_INTERRUPTED = ExitCode.INTERRUPTED
DEBUG_ENV = "GCV_DEBUG"

_OS_HINTS = {
    errno.ENOSPC: "the disk is full; free space and run the command again (`gcv resume WF` continues a workflow)",
    errno.EDQUOT: "the disk quota is exhausted; free space and run the command again",
    errno.EFBIG: "a file grew beyond the allowed size (file size limit or disk full); free space and retry",
    errno.EROFS: "the file system is read-only; set GCV_HOME to a writable folder",
    errno.EACCES: "permission denied; set GCV_HOME to a folder you can write",
    errno.EPERM: "operation not permitted; set GCV_HOME to a folder you can write",
    errno.ENOTDIR: "a path component is a file, not a folder; check GCV_HOME",
    errno.EEXIST: "a file is in the way of a folder GCV needs; check GCV_HOME",
    errno.EIO: "an input/output error from the disk",
}


# A full, over-quota or read-only disk (or one failing): the environment's failure, exit 70
# wherever it surfaces, however the command would word a bad --out (exit 2).
ENVIRONMENT_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EFBIG, errno.EIO})


def is_environment_error(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno in ENVIRONMENT_ERRNOS


def raise_if_environment(exc: BaseException, path: str | os.PathLike[str] | None = None) -> None:
    """Re-raise ``exc`` when the disk is full or read-only, so :func:`describe` reports it (exit
    70, with its hint), naming ``path`` when the error itself does not (a failed ``write`` has
    no file name). Any other error returns: the command reports it as bad usage (exit 2)."""
    if not is_environment_error(exc):
        return
    assert isinstance(exc, OSError)
    if exc.filename is None and path is not None:
        raise OSError(exc.errno, exc.strerror, os.fspath(path)) from None
    raise exc


def environment_errno_in(text: str | None) -> int | None:
    """The errno of a full or read-only disk named in ``text`` (a runner's message, which
    carries ``strerror`` and no errno), else None."""
    for number in sorted(ENVIRONMENT_ERRNOS):
        if text and os.strerror(number) in text:
            return number
    return None


@dataclass(frozen=True)
class Failure:
    """What to tell the person (``message``), which file (``file``), and the exit code."""

    message: str
    exit_code: int
    file: str | None = None
    kind: str = "environment"  # "input" | "environment" | "internal" | "interrupted"

    def as_dict(self) -> dict[str, Any]:
        return {"error": self.message, "file": self.file, "detail": None, "kind": self.kind,
                "exit_code": self.exit_code}


def _kinds(exc: BaseException) -> set[str]:
    return {f"{k.__module__}.{k.__name__}" for k in type(exc).__mro__}


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def describe(exc: BaseException) -> Failure:
    """The one-line failure for an exception no command handled."""
    kinds = _kinds(exc)
    if isinstance(exc, KeyboardInterrupt):
        return Failure("interrupted", EXIT_INTERRUPTED, kind="interrupted")
    if "gcv.contract.loading.GcvInputError" in kinds:
        where = f" (at {exc.path_in_doc})" if getattr(exc, "path_in_doc", None) else ""  # type: ignore[attr-defined]
        return Failure(f"{exc.file}: {exc.message}{where}", EXIT_USAGE, file=exc.file,  # type: ignore[attr-defined]
                       kind="input")
    if "gcv.store.errors.DamagedRecord" in kinds:  # the workflow named is unusable as it stands
        return Failure(_one_line(str(exc)), EXIT_USAGE, file=str(getattr(exc, "path", "") or "") or None,
                       kind="input")
    if "gcv.store.errors.StoreError" in kinds:
        return Failure(_one_line(str(exc)), EXIT_ENVIRONMENT, file=str(getattr(exc, "path", "") or "") or None)
    if any(k.startswith("sqlite3.") for k in kinds):
        return Failure(f"the workspace catalog failed: {_one_line(str(exc))}; if it is damaged or read-only, "
                       "move catalog.sqlite away (or make it writable) and run `gcv reindex`", EXIT_ENVIRONMENT)
    if isinstance(exc, MemoryError):
        return Failure("out of memory", EXIT_ENVIRONMENT)
    if isinstance(exc, OSError):
        filename = exc.filename if isinstance(exc.filename, (str, bytes, os.PathLike)) else None
        name = os.fsdecode(filename) if filename is not None else None
        what = exc.strerror or _one_line(str(exc)) or type(exc).__name__
        hint = _OS_HINTS.get(exc.errno or 0)
        text = f"{name}: {what}" if name else what
        return Failure(f"{text}{'; ' + hint if hint else ''}", EXIT_ENVIRONMENT, file=name)
    detail = _one_line(str(exc))
    return Failure(f"internal error (a bug in GCV): {type(exc).__name__}{': ' + detail if detail else ''}; "
                   f"set {DEBUG_ENV}=1 for the traceback", EXIT_ENVIRONMENT, kind="internal")


def report(exc: BaseException, *, json_mode: bool) -> int:
    """Print the failure (one JSON object on stdout with ``--json``, one line on stderr
    otherwise) and return its exit code. Never raises."""
    import sys

    failure = describe(exc)
    if os.environ.get(DEBUG_ENV) and failure.kind != "interrupted":
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    try:
        if json_mode:
            import json

            sys.stdout.write(json.dumps(failure.as_dict(), ensure_ascii=False) + "\n")
            sys.stdout.flush()
        else:
            from gcv.cli.safe_text import safe_text  # no rich or typer: they may be what failed

            sys.stderr.write(f"error: {safe_text(failure.message)}\n" if failure.kind != "interrupted"
                             else "interrupted\n")
            sys.stderr.flush()
    except Exception:  # noqa: BLE001 - stdout/stderr gone (closed pipe): the exit code still says it
        pass
    return failure.exit_code
