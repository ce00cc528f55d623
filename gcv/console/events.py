"""Live progress: server-sent events read from the workflow's own event log.

The stream follows ``workflows/<wf>/events.jsonl``, whoever writes it (a console job or a
``gcv`` command in a terminal), so both stream the same. Each complete line is checked
against the hash chain as it is read (the same rule the loop uses); a broken chain ends the
stream with an ``error`` message instead of showing history that is not what was written.
When the log gets shorter (``gcv resume`` drops the events of a step that was interrupted
before its state was written, and redoes the step), the stream says ``reset`` and goes on
from the log as it now is.

Messages (``data:`` is one JSON object; ``id:`` is the event's ``seq``)::

    {"kind": "event", "event": {...}}        one event of the log
    {"kind": "progress", ...}                the workflow's progress after a transition
    {"kind": "reset", "events": N}           the log was cut back to N events
    {"kind": "error", "message": "..."}      the log cannot be read; the stream ends
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gcv.store.logs import GENESIS, chain_problem


@dataclass
class LogTail:
    """Reads the complete, chained lines appended to an event log since the last read."""

    path: Path
    offset: int = 0
    count: int = 0
    prev_hash: str = GENESIS
    reset: bool = False
    _ident: tuple[int, int] | None = field(default=None, repr=False)

    def read(self) -> list[dict[str, Any]]:
        """New complete events (may be empty). Raises ValueError when the log is corrupt."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return []
        ident = (st.st_ino, st.st_dev)
        if st.st_size < self.offset or (self._ident is not None and ident != self._ident):
            # rewritten shorter (or replaced): start again from the top
            self.offset, self.count, self.prev_hash, self.reset = 0, 0, GENESIS, True
        self._ident = ident
        if st.st_size == self.offset:
            return []
        with open(self.path, "rb") as fh:
            fh.seek(self.offset)
            data = fh.read(st.st_size - self.offset)
        end = data.rfind(b"\n")
        if end < 0:
            return []  # only a line being written
        out = []
        for raw in data[:end].split(b"\n"):
            try:
                event = json.loads(raw)
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise ValueError(f"{self.path.name} line {self.count + 1} is not JSON ({exc})") from None
            if not isinstance(event, dict):
                raise ValueError(f"{self.path.name} line {self.count + 1} is not a JSON object")
            problem = chain_problem(event, self.count, self.prev_hash)
            if problem:
                raise ValueError(f"{self.path.name} line {self.count + 1}: {problem}")
            self.prev_hash = event["hash"]
            self.count += 1
            out.append(event)
        self.offset += end + 1
        return out


def sse(data: dict[str, Any], *, event_id: int | None = None) -> bytes:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return (head + "data: " + json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n\n").encode("utf-8")


__all__ = ["LogTail", "sse"]
