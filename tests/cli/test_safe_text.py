"""Text safe to print on a terminal (gcv.cli.safe_text): every control character shown as an
escape, newlines and tabs kept."""

from __future__ import annotations

import pytest

from gcv.cli.safe_text import safe_text


@pytest.mark.parametrize("raw,shown", [
    ("\x1b[2J", "\\x1b[2J"), ("a\rb", "a\\x0db"), ("\x07", "\\x07"), ("\x7f", "\\x7f"), ("\x9b", "\\x9b"),
    ("\u202e", "\\u202e"), ("\u2066x\u2069", "\\u2066x\\u2069"), ("\x00", "\\x00"),
])
def test_controls_are_shown(raw: str, shown: str) -> None:
    assert safe_text(raw) == shown


def test_ordinary_text_is_unchanged() -> None:
    text = "phase 2\n\tdenser · 第二阶段 é ✓"
    assert safe_text(text) == text
