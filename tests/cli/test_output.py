"""The CLI's console escapes control characters in whatever it renders, however it was built."""

from __future__ import annotations

import io
import re

from rich.text import Text

from gcv.cli.output import SafeConsole, safe_text
from gcv.cli.tables import print_table

EVIL = "a\x1b[2J\x1b]0;t\x07\r\x9b\u202eb"


def _render(*, terminal: bool, draw) -> str:
    buf = io.StringIO()
    con = SafeConsole(file=buf, force_terminal=terminal, color_system="standard" if terminal else None, width=120)
    draw(con)
    return buf.getvalue()


def test_safe_text_shows_controls_and_keeps_newlines_and_tabs() -> None:
    assert safe_text(EVIL) == "a\\x1b[2J\\x1b]0;t\\x07\\x0d\\x9b\\u202eb"
    assert safe_text("line\n\tnext") == "line\n\tnext"


def test_strings_text_objects_and_table_cells_are_escaped_and_colours_kept() -> None:
    def draw(con: SafeConsole) -> None:
        con.print(f"[red]{EVIL}[/]")
        con.print(Text(EVIL, style="bold"))
        print_table(con, ["name", "value"], [[EVIL, Text(EVIL)]], title=EVIL)

    out = _render(terminal=True, draw=draw)
    # the only ESC left are rich's own SGR colour codes: ESC [ digits m
    stripped = re.sub(r"\x1b\[[0-9;]*m", "", out)
    assert "\x1b" not in stripped and "\r" not in stripped and "\x9b" not in stripped and "\u202e" not in stripped
    assert "\x1b[31m" in out  # red is still red
    assert "\\x1b[2J" in stripped


def test_piped_output_has_no_escape_at_all() -> None:
    out = _render(terminal=False, draw=lambda con: con.print(EVIL))
    assert "\x1b" not in out and "\\x1b[2J" in out
