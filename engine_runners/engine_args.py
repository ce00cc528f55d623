"""Command lines that survive each engine's own command-line parser, per platform.

Unity (player and editor) is a .NET program: it reads ``argv`` as the C runtime splits it,
so an argument list is enough everywhere (``subprocess`` quotes it for Windows with
``list2cmdline``, which is the inverse of that split). ``-gcvRequest PATH`` is two arguments.

Unreal does not read ``argv``. It rebuilds one command-line string and parses values out of
it with ``FParse::Value(CmdLine, "GcvRequest=", Out)``, which reads a value up to the next
whitespace, ``,`` or ``)`` unless the value starts with a double quote, in which case it
reads up to the closing quote. How that string is built differs:

* **Windows**: it is the raw command line of the process (``GetCommandLineW``). Passing an
  argument list through ``subprocess`` quotes and escapes a pre-quoted ``-GcvRequest="..."``
  a second time (``"-GcvRequest=\\"C:\\a b\\r.json\\""``), and UE then reads a wrong path. So on
  Windows the runner writes the command line itself: the executable and plain arguments
  through ``list2cmdline``, and ``-GcvRequest="<path>"`` verbatim (a Windows path cannot hold
  ``"``).
* **Linux and macOS**: the engine joins ``argv`` with spaces and, for an argument that
  contains a space, puts quotes around it itself (after the ``=`` for ``-Key=value``).
  A value with a space must therefore be passed *unquoted* (UE quotes it; quoting it here
  too would give ``-GcvRequest=""/a b/r.json""``, an empty value), and a value without a
  space but with ``,`` or ``)`` must be passed *quoted* (UE leaves it alone and
  ``FParse::Value`` would cut it).

Paths holding ``"`` or a line break are refused: no quoting survives those parsers.
"""

from __future__ import annotations

import subprocess


class EngineArgumentError(ValueError):
    """A value that no command line can carry to the engine intact."""


def _check(value: str, what: str) -> None:
    bad = [c for c in ('"', "\n", "\r", "\0") if c in value]
    if bad:
        raise EngineArgumentError(f"{what} {value!r} contains {bad[0]!r}, which Unreal's command-line parser "
                                  "cannot carry; use a path without it")


def ue_value_arg(key: str, value: str, platform: str) -> str:
    """``-Key=value`` so that ``FParse::Value(<UE command line>, "Key=")`` returns ``value``."""
    _check(value, f"-{key}")
    if platform == "nt":
        return f'-{key}="{value}"'
    if " " in value:
        return f"-{key}={value}"  # the engine's argv join adds the quotes
    return f'-{key}="{value}"'


def ue_command(plain: list[str], ue_values: list[tuple[str, str]], trailing: list[str], platform: str) -> list[str] | str:
    """The command for an Unreal process: a list on POSIX, one command-line string on Windows.

    ``plain`` are the executable and ordinary arguments (project path, ``-run=GcvRun``,
    ``-game``), ``ue_values`` the ``-Key=value`` arguments read with ``FParse::Value``,
    ``trailing`` more plain switches (``-unattended`` ...)."""
    values = [ue_value_arg(k, v, platform) for k, v in ue_values]
    if platform == "nt":
        return " ".join(p for p in (subprocess.list2cmdline(plain), " ".join(values),
                                    subprocess.list2cmdline(trailing)) if p)
    return [*plain, *values, *trailing]
