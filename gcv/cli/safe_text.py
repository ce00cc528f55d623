"""Text that is safe to print on a terminal: the one rule every CLI output path applies.

Kept apart from ``gcv.cli.output`` (rich, typer) so that the last line of defence
(``gcv.cli.failures``) can print a message even when those fail to import.
"""

from __future__ import annotations

import re

# Characters that must never reach a terminal raw from a config, a request or a bundle: C0
# controls except newline and tab (ESC starts ANSI sequences, CR rewrites a line, BEL rings),
# DEL, C1 controls (0x9b is a one-byte CSI), and the bidirectional overrides that reorder
# what a reader sees.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_text(text: str) -> str:
    """``text`` with every terminal control character shown as an escape (``\\x1b``, ``\\r``)."""
    return _UNSAFE.sub(_visible, text)
