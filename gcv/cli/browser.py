"""``--open``: show a written report in the user's browser (Python's ``webbrowser``, which
honours ``BROWSER``). Never fails a command: a machine without a browser just says so."""

from __future__ import annotations

from pathlib import Path


def open_in_browser(path: Path) -> bool:
    """Open ``path`` (a file) in a browser; True if a browser took it."""
    import webbrowser  # lazy: only for --open

    try:
        return bool(webbrowser.open(Path(path).resolve().as_uri()))
    except webbrowser.Error:
        return False


__all__ = ["open_in_browser"]
