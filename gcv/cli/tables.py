"""Every table the CLI prints, one way: ids, paths and numbers are never cut, folded or wrapped.

A command describes its table (columns with a *kind*, rows of cells) and :func:`print_table`
picks the widest form that fits the console (``COLUMNS``; 80 when piped, the width of a CI log):

1. the full table, where ``id``, ``path`` and ``num`` columns are as wide as their longest cell
   (only ``text`` columns wrap, and only between words);
2. the same table without the columns marked ``optional``;
3. one block per record, ``key: value`` lines that are never wrapped (a long path stays one
   line; a terminal may show it folded, but a log or a copy keeps it whole).

Cells are plain strings (printed as they are, never read as markup) or ``rich.text.Text`` for
colour. ``observers`` lets a test see every table a command prints (tests/cli/test_tables.py
renders each one at 80 columns).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Literal, Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

Kind = Literal["id", "path", "num", "text"]
Form = Literal["table", "narrow", "blocks"]
WHOLE: frozenset[str] = frozenset({"id", "path", "num"})  # kinds that are never cut


@dataclass(frozen=True)
class Col:
    """A column: its header, what its cells are, and whether a narrow console may drop it."""

    header: str
    kind: Kind = "text"
    optional: bool = False
    justify: Literal["left", "right", "center"] | None = None
    style: str | None = None


@dataclass
class TableSpec:
    """What a command asked to print, and the form it was printed in."""

    columns: list[Col]
    rows: list[list[Text]]
    title: str | None = None
    show_header: bool = True
    form: Form = "table"
    extra: dict[str, Any] = field(default_factory=dict)


observers: list[Callable[[TableSpec], None]] = []


def cell(value: Any, style: str | None = None) -> Text:
    """A cell as rich Text: ``None`` is empty, a Text is kept, anything else is its ``str`` (no markup)."""
    if isinstance(value, Text):
        return value
    return Text("" if value is None else str(value), style=style or "")


def _column_width(col: Col, cells: Iterable[Text]) -> int | None:
    if col.kind not in WHOLE:
        return None
    return max([cell.cell_len for cell in cells] + [len(col.header), 1])


def _build(spec: TableSpec, keep: list[int], table_kwargs: dict[str, Any]) -> Table:
    table = Table(title=None if spec.title is None else Text(spec.title), show_header=spec.show_header, header_style="bold",
                  title_justify="left", **table_kwargs)
    for i in keep:
        col = spec.columns[i]
        whole = col.kind in WHOLE
        width = _column_width(col, (row[i] for row in spec.rows))
        table.add_column(Text(col.header), justify=col.justify or ("right" if col.kind == "num" else "left"),
                         style=col.style, no_wrap=whole, overflow="fold",
                         min_width=width)
    for row in spec.rows:
        table.add_row(*(row[i] for i in keep))
    return table


def _least_width(col: Col, header: str, cells: list[Text]) -> int:
    """The narrowest a column may be: whole cells for ids, paths and numbers, else whole words."""
    if col.kind in WHOLE:  # the header does not wrap either (rich's no_wrap covers it)
        return max([c.cell_len for c in cells] + [len(header), 1])
    words = [len(w) for c in cells for w in c.plain.split()]
    return max(words + [len(w) for w in header.split()] + [1])


def _fits(con: Console, table: Table, spec: TableSpec, keep: list[int]) -> bool:
    """Whether every id, path and number stays whole and no word is folded at ``con.width``."""
    need = table._extra_width + sum(  # rich's own border and padding arithmetic
        _least_width(spec.columns[i], spec.columns[i].header, [row[i] for row in spec.rows])
        + table._get_padding_width(n) for n, i in enumerate(keep))
    return need <= con.width


def _print_blocks(con: Console, spec: TableSpec) -> None:
    if spec.title:
        con.print(Text(spec.title, style="bold"), soft_wrap=True)
    pairs = not spec.show_header and len(spec.columns) == 2
    for row in spec.rows:
        if pairs:  # a key/value table stays key/value
            con.print(Text.assemble(row[0], ": ", row[1]), soft_wrap=True)
            continue
        first = True  # a record starts at its first filled cell (a blank first cell continues a group)
        for col, value in zip(spec.columns, row):
            if not value.plain:
                continue
            con.print(Text.assemble("- " if first else "  ", (col.header or "value", "bold"), ": ", value),
                      soft_wrap=True)
            first = False


def print_table(con: Console, columns: Sequence[Col | str], rows: Iterable[Sequence[Any]], *,
                title: str | None = None, show_header: bool = True, **table_kwargs: Any) -> Form:
    """Print the widest form of the table that fits ``con``; return the form used."""
    cols = [c if isinstance(c, Col) else Col(c) for c in columns]
    spec = TableSpec(columns=cols, rows=[[cell(v) for v in row] for row in rows], title=title,
                     show_header=show_header)
    for row in spec.rows:
        if len(row) != len(cols):
            raise ValueError(f"table {title!r}: a row has {len(row)} cells for {len(cols)} columns")
    everything = list(range(len(cols)))
    required = [i for i, c in enumerate(cols) if not c.optional]
    table = _build(spec, everything, table_kwargs)
    if _fits(con, table, spec, everything):
        spec.form = "table"
    elif required != everything and _fits(con, narrow := _build(spec, required, table_kwargs), spec, required):
        spec.form, table = "narrow", narrow
    else:
        spec.form = "blocks"
    for observe in observers:
        observe(spec)
    if spec.form == "blocks":
        _print_blocks(con, spec)
    else:
        con.print(table)
    return spec.form


__all__ = ["Col", "TableSpec", "cell", "print_table", "observers", "WHOLE"]
