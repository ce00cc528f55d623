"""rich's table and markup escape, imported on first use.

Start-up time: every command module builds tables, but only when it prints one; importing
rich.table and rich.markup at module level costs every ``gcv`` invocation (``--help``
included) about 30 ms. These two names stand in for rich's own with the same call signature.
"""

from __future__ import annotations

from typing import Any


def escape(markup: str) -> str:
    """``rich.markup.escape``."""
    from rich.markup import escape as rich_escape  # lazy: start-up time

    return rich_escape(markup)


def Table(*args: Any, **kwargs: Any) -> Any:  # noqa: N802  (stands in for the class)
    """A ``rich.table.Table``."""
    from rich.table import Table as RichTable  # lazy: start-up time

    return RichTable(*args, **kwargs)
