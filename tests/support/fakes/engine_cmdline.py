"""Faithful models of how the engines read their command lines, for round-trip tests.

Written from the engines' documented behaviour and reference source (never copied):

* :func:`ue_unix_command_line` - UE on Linux/macOS (``CommonUnixMain``) joins ``argv[1:]``
  with spaces and wraps an argument holding a space in quotes, after the ``=`` for
  ``-Key=value`` arguments, before the whole argument otherwise;
* :func:`fparse_value` - ``FParse::Value(Stream, Match, FString&)`` with the default
  ``bShouldStopOnSeparator = true``: finds ``Match`` case-insensitively outside quoted
  text; a value starting with ``"`` runs to the next ``"`` (no escapes); otherwise leading
  whitespace is skipped and the value ends at whitespace, ``,`` or ``)``;
* :func:`windows_argv` - the Microsoft C runtime's split of a command line into ``argv``
  (what .NET, Mono and Unity's player read on Windows): backslashes are literal unless
  they precede ``"``; ``2n`` backslashes + ``"`` give ``n`` backslashes and a quote toggle,
  ``2n+1`` give ``n`` and a literal ``"``; ``""`` inside quotes is a literal ``"``.
"""

from __future__ import annotations


def ue_unix_command_line(argv: list[str]) -> str:
    parts = []
    for arg in argv[1:]:
        if " " in arg:
            cut = arg.index("=") + 1 if arg.startswith("-") and "=" in arg else 0
            arg = arg[:cut] + '"' + arg[cut:] + '"'
        parts.append(" " + arg)
    return "".join(parts)


def _find_outside_quotes(stream: str, match: str) -> int:
    low, needle = stream.lower(), match.lower()
    quoted = False
    for i, ch in enumerate(stream):
        if ch == '"':
            quoted = not quoted
            continue
        if not quoted and low.startswith(needle, i):
            return i
    return -1


def fparse_value(stream: str, match: str) -> str | None:
    at = _find_outside_quotes(stream, match)
    if at < 0:
        return None
    rest = stream[at + len(match):]
    if rest.startswith('"'):
        end = rest.find('"', 1)
        return rest[1:] if end < 0 else rest[1:end]
    rest = rest.lstrip(" \r\n\t")
    for i, ch in enumerate(rest):
        if ch in ",) \r\n\t":
            return rest[:i]
    return rest


def windows_argv(command_line: str) -> list[str]:
    args: list[str] = []
    i, n = 0, len(command_line)
    while i < n:
        while i < n and command_line[i] in " \t":
            i += 1
        if i >= n:
            break
        arg, quoted = [], False
        while i < n and (quoted or command_line[i] not in " \t"):
            if command_line[i] == "\\":
                j = i
                while j < n and command_line[j] == "\\":
                    j += 1
                slashes = j - i
                if j < n and command_line[j] == '"':
                    arg.append("\\" * (slashes // 2))
                    if slashes % 2:
                        arg.append('"')
                        i = j + 1
                    else:
                        i = j  # the quote is handled below
                    continue
                arg.append("\\" * slashes)
                i = j
                continue
            if command_line[i] == '"':
                if quoted and i + 1 < n and command_line[i + 1] == '"':
                    arg.append('"')
                    i += 2
                    continue
                quoted = not quoted
                i += 1
                continue
            arg.append(command_line[i])
            i += 1
        args.append("".join(arg))
    return args


def windows_raw_tail(command_line: str) -> str:
    """What UE's ``FCommandLine`` keeps on Windows: the raw line after the executable."""
    i = 0
    if command_line.startswith('"'):
        i = command_line.index('"', 1) + 1
    else:
        while i < len(command_line) and command_line[i] not in " \t":
            i += 1
    return command_line[i:]


def command_line_to_argv_w(command_line: str) -> list[str]:
    """``CommandLineToArgvW`` (shell32; Microsoft's documentation of the function and of
    "Parsing C++ command-line arguments"): the first argument is read up to the closing quote
    if it starts with one, else up to whitespace, with no escapes; the rest as
    :func:`windows_argv`, except that inside quotes ``""`` gives a literal ``"`` and ends the
    quoted part (the older rule this function keeps)."""
    n, i = len(command_line), 0
    if command_line.startswith('"'):
        end = command_line.find('"', 1)
        end = n if end < 0 else end
        first, i = command_line[1:end], end + 1
    else:
        while i < n and command_line[i] not in " \t":
            i += 1
        first = command_line[:i]
    rest, args = command_line[i:], [first]
    j, m = 0, len(rest)
    while j < m:
        while j < m and rest[j] in " \t":
            j += 1
        if j >= m:
            break
        arg: list[str] = []
        quoted = False
        while j < m and (quoted or rest[j] not in " \t"):
            ch = rest[j]
            if ch == "\\":
                k = j
                while k < m and rest[k] == "\\":
                    k += 1
                if k < m and rest[k] == '"':
                    arg.append("\\" * ((k - j) // 2))
                    if (k - j) % 2:
                        arg.append('"')
                        j = k + 1
                    else:
                        j = k
                    continue
                arg.append("\\" * (k - j))
                j = k
                continue
            if ch == '"':
                if quoted and j + 1 < m and rest[j + 1] == '"':
                    arg.append('"')
                    quoted = False
                    j += 2
                    continue
                quoted = not quoted
                j += 1
                continue
            arg.append(ch)
            j += 1
        args.append("".join(arg))
    return args


def ue_windows_command_line(command_line: str) -> str:
    """What UE's ``FCommandLine`` holds on Windows (``ProcessCommandLine`` in
    ``LaunchWindows.cpp``): the raw line split with ``CommandLineToArgvW``, the arguments after
    the executable joined again with spaces, quotes re-added only around an argument holding a
    space (after the first ``=`` of a ``-Key=value``): the same rebuild as the Unix ``main``."""
    return ue_unix_command_line(command_line_to_argv_w(command_line))
