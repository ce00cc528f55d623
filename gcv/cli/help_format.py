"""Plain ``--help`` (click's formatter, no rich rendering: start-up time) that still shows
each command's whole first sentence, wrapped, instead of click's 45-character cut."""

from __future__ import annotations

from typer.core import TyperGroup


class PlainHelpGroup(TyperGroup):
    """The top-level group: the command list wraps each command's summary rather than
    truncating it with "..."."""

    def format_commands(self, ctx, formatter) -> None:  # type: ignore[no-untyped-def]
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is not None and not cmd.hidden:
                rows.append((name, cmd.get_short_help_str(limit=1_000)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)
