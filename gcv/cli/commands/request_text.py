"""A request or an answer may begin with "-": a quoted bullet list ("- phase 2 speed 4"), a
negative number ("-20% bullet speed"). Click reads any argument that starts with "-" as an
option and the designer got "No such option" and no decision. A command built on
``RequestTextCommand`` moves such an argument behind ``--`` before parsing (options never hold a
space and never start with a digit), and any other unknown short option gets a hint that names
``--``.
"""

from __future__ import annotations

import re
from typing import Any

from typer.core import TyperCommand

_TEXT = re.compile(r"-(?:\s|\d|[^\w-])")  # "- a list", "-20%", "-> ...": text, never an option name


def request_args(args: list[str], value_options: frozenset[str] = frozenset()) -> list[str]:
    """``args`` with the first free-text argument that begins with "-" moved behind ``--``.

    An argument right after an option that takes a value (``--seed -1``) is that option's value
    and stays where it is.
    """
    if "--" in args:
        return args
    for i, arg in enumerate(args):
        if i and args[i - 1] in value_options:
            continue
        if arg.startswith("-") and not arg.startswith("--") and (_TEXT.match(arg) or any(c.isspace() for c in arg)):
            return [*args[:i], *args[i + 1:], "--", arg]
    return args


class RequestTextCommand(TyperCommand):
    """A command whose free-text argument may begin with "-"."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        try:
            takes_value = frozenset(name for p in self.params if getattr(p, "param_type_name", "") == "option"
                                    and not getattr(p, "is_flag", False) and not getattr(p, "count", False)
                                    for name in p.opts)
            return super().parse_args(ctx, request_args(list(args), takes_value))
        except Exception as exc:  # typer's click: matched by kind, as gcv.cli.root does
            if type(exc).__name__ == "NoSuchOption" and getattr(exc, "option_name", "").startswith("-") \
                    and not getattr(exc, "option_name", "").startswith("--"):
                exc.message = (f"{exc.message}. A request that begins with '-' goes after '--', e.g. "  # type: ignore[attr-defined]
                               f"gcv {ctx.info_name} -- \"{exc.option_name} ...\"")  # type: ignore[attr-defined]
            raise


__all__ = ["RequestTextCommand", "request_args"]
