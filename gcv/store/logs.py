"""Append-only JSON-lines logs, read strictly.

Two logs per workflow: ``events.jsonl`` (hash-chained: each event carries ``seq``, the
previous event's hash and its own) and ``activities.jsonl`` (recorded results of engine
runs, model calls and populations, keyed). A reader returns the complete lines and says
whether the file ends in a *torn* line (the last line without its newline: an append a
crash interrupted). Anything else that does not read back (a line that is not JSON, not an
object, out of sequence, or breaks the chain) raises :class:`CorruptLog` with its line
number. Readers never modify a file.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gcv.contract.canonical import canonical_bytes, sha256_hex
from gcv.store.atomic import atomic_write_bytes
from gcv.store.errors import CorruptLog
from gcv.store.safe_open import LOG_CAP, read_workspace_bytes

GENESIS = "0" * 64
NEWLINE = b"\n"


def jsonl_lines(data: bytes | str) -> list[str]:
    """The lines of a JSON Lines text, split on ``"\\n"`` and nothing else.

    ``str.splitlines()`` also splits on U+2028, U+2029, U+0085, VT, FF and U+001C..U+001E.
    JSON allows the first three raw inside a string, and GCV writes JSON with
    ``ensure_ascii=False``, so a request or a note holding one of them would be cut in two
    and the log would no longer read back. Every reader of a JSON Lines file or bundle member
    goes through here (or splits bytes on ``b"\\n"`` as ``read_jsonl`` does). A last piece
    that is empty (the file's final newline) is not a line.
    """
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def event_hash(event: dict[str, Any]) -> str:
    return sha256_hex(canonical_bytes({k: v for k, v in event.items() if k != "hash"}))


def verify_chain(events: list[dict[str, Any]]) -> str | None:
    """None if the chain holds; else what is wrong and where."""
    prev = GENESIS
    for i, ev in enumerate(events):
        problem = chain_problem(ev, i, prev)
        if problem:
            return f"event {i}: {problem}"
        prev = ev["hash"]
    return None


def chain_problem(event: dict[str, Any], index: int, prev_hash: str) -> str | None:
    if event.get("seq") != index:
        return f"sequence number {event.get('seq')} out of order (expected {index})"
    if event.get("prev_hash") != prev_hash:
        return "prev_hash does not match the previous event"
    if event_hash(event) != event.get("hash"):
        return "hash does not match its content"
    return None


@dataclass
class LogRead:
    records: list[dict[str, Any]]
    torn: bool  # the file ends in a line without its newline (an interrupted append)
    good_bytes: int  # length of the complete lines
    data: bytes = b""  # the file as read
    line_ends: list[int] = field(default_factory=list)  # offset just past each complete line's newline

    def prefix_sha256(self, count: int) -> str | None:
        """sha256 of the bytes of the first ``count`` complete lines (None: fewer lines)."""
        if count > len(self.line_ends):
            return None
        return hashlib.sha256(self.data[: self.line_ends[count - 1] if count else 0]).hexdigest()


def read_jsonl(path: Path, *, chained: bool = False, within: Path | None = None) -> LogRead:
    """The complete records of the log at ``path`` (an empty log when it does not exist).

    A log that is not a regular file inside ``within`` (default: its folder), or larger than
    ``LOG_CAP``, is refused without blocking (``gcv.store.safe_open``)."""
    data = read_workspace_bytes(path, within=within or path.parent, cap=LOG_CAP)
    if data is None:
        return LogRead([], False, 0)
    records: list[dict[str, Any]] = []
    ends: list[int] = []
    offset = 0
    prev = GENESIS
    lines = data.split(NEWLINE)
    for number, raw in enumerate(lines, start=1):
        last = number == len(lines)
        if last:
            return LogRead(records, torn=bool(raw), good_bytes=offset, data=data, line_ends=ends)
        offset += len(raw) + 1
        ends.append(offset)
        if not raw.strip():
            raise CorruptLog(path, number, "an empty line")
        try:
            record = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CorruptLog(path, number, f"not JSON ({exc})") from None
        if not isinstance(record, dict):
            raise CorruptLog(path, number, "not a JSON object")
        if chained:
            problem = chain_problem(record, len(records), prev)
            if problem:
                raise CorruptLog(path, number, problem)
            prev = record["hash"]
        records.append(record)
    raise AssertionError("unreachable")  # pragma: no cover - split() always yields a last item


def drop_torn_tail(path: Path, read: LogRead) -> None:
    """Remove an interrupted last append (only under the workflow's write lock)."""
    if read.torn:
        atomic_write_bytes(path, path.read_bytes()[: read.good_bytes])


def keep_first(path: Path, read: LogRead, count: int) -> int:
    """Keep the first ``count`` complete records; returns how many were dropped.

    Used by resume for events appended by a step whose state write never happened (the step
    is redone from its recorded activities and appends them again). Only whole, valid records
    are dropped, and only under the workflow's write lock.
    """
    dropped = len(read.records) - count
    if dropped <= 0 and not read.torn:
        return 0
    data = path.read_bytes()
    cut = 0
    for _ in range(min(count, len(read.records))):
        cut = data.index(b"\n", cut) + 1
    atomic_write_bytes(path, data[:cut])
    return max(dropped, 0)
