r"""Command lines that survive each engine's own command-line parser, per platform.

Unity (player and editor) is a .NET program: it reads ``argv`` as the C runtime splits it,
so an argument list is enough everywhere (``subprocess`` quotes it for Windows with
``list2cmdline``, which is the inverse of that split). ``-gcvRequest PATH`` is two arguments.

Unreal does not read ``argv`` as given. It rebuilds one command-line string and parses values
out of it with ``FParse::Value(CmdLine, "GcvRequest=", Out)``, which reads a value up to the
next whitespace, ``,`` or ``)`` unless the value starts with a double quote, in which case it
reads up to the closing quote. It builds that string the same way on every platform:

* **Windows** (``ProcessCommandLine`` in ``LaunchWindows.cpp``): the raw command line is split
  with ``CommandLineToArgvW`` and the arguments after the executable are joined again with
  spaces, quotes re-added only around an argument that contains a space (after the ``=`` for
  ``-Key=value``). Quotes written into the raw line are therefore consumed by the split: a
  raw ``-GcvRequest="C:\ci\run(2)\r.json"`` reaches ``FParse::Value`` unquoted and is cut at
  ``)`` (issue 28.1).
* **Linux and macOS** (the Unix ``main``): ``argv`` is joined the same way.

So one per-argument rule serves both, passed as an argument list (``subprocess`` writes the
Windows command line with ``list2cmdline``, the inverse of ``CommandLineToArgvW`` for these
arguments): a value with a space is passed *unquoted* (UE quotes it; quoting it here too would
give ``-GcvRequest=""C:\a b\r.json""``, an empty value), and a value without a space is
passed *quoted* (UE leaves it alone and ``FParse::Value`` reads it to the closing quote, so
``,`` ``(`` ``)`` survive).

Paths holding ``"`` or a line break are refused: no quoting survives those parsers.
"""

from __future__ import annotations


class EngineArgumentError(ValueError):
    """A value that no command line can carry to the engine intact."""


def _check(value: str, what: str) -> None:
    bad = [c for c in ('"', "\n", "\r", "\0") if c in value]
    if bad:
        raise EngineArgumentError(f"{what} {value!r} contains {bad[0]!r}, which Unreal's command-line parser "
                                  "cannot carry; use a path without it")


def ue_value_arg(key: str, value: str, platform: str = "posix") -> str:
    """``-Key=value`` as one argument, so that after UE's split-and-rebuild of its command line
    ``FParse::Value(<UE command line>, "Key=")`` returns ``value``. The rule is the same on
    every platform (``platform`` is kept for callers; see the module docstring)."""
    _check(value, f"-{key}")
    if " " in value:
        return f"-{key}={value}"  # the engine's rebuild adds the quotes
    return f'-{key}="{value}"'


def ue_command(plain: list[str], ue_values: list[tuple[str, str]], trailing: list[str],
               platform: str = "posix") -> list[str]:
    """The argument list for an Unreal process, on every platform.

    ``plain`` are the executable and ordinary arguments (project path, ``-run=GcvRun``,
    ``-game``), ``ue_values`` the ``-Key=value`` arguments read with ``FParse::Value``,
    ``trailing`` more plain switches (``-unattended`` ...). A list, never a ready Windows
    command line: UE splits the raw line with ``CommandLineToArgvW`` before it reads it."""
    values = [ue_value_arg(k, v, platform) for k, v in ue_values]
    return [*plain, *values, *trailing]
