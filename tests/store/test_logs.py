"""Append-only JSON-lines logs (gcv.store.logs): split on newlines only, hash-chained, read
strictly, a torn last line ignored and removed only on purpose."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gcv.store.errors import CorruptLog
from gcv.store.logs import (GENESIS, chain_problem, drop_torn_tail, event_hash, jsonl_lines, keep_first, read_jsonl,
                            verify_chain)


def _chain(n: int) -> list[dict]:  # type: ignore[type-arg]
    events, prev = [], GENESIS
    for seq in range(n):
        ev = {"seq": seq, "prev_hash": prev, "type": "x", "n": seq}
        ev["hash"] = event_hash(ev)
        events.append(ev)
        prev = ev["hash"]
    return events


def _write(path: Path, records: list[dict], tail: bytes = b"") -> None:  # type: ignore[type-arg]
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in records) + tail)


def test_jsonl_lines_splits_on_newline_only() -> None:
    assert jsonl_lines('{"a":"x\u2028y"}\n{"b":1}\n') == ['{"a":"x\u2028y"}', '{"b":1}']
    assert jsonl_lines(b"a\nb") == ["a", "b"] and jsonl_lines("") == []


def test_the_chain_and_its_problems() -> None:
    events = _chain(3)
    assert verify_chain(events) is None
    assert event_hash({**events[0], "hash": "ignored"}) == events[0]["hash"]
    changed = [dict(e) for e in events]
    changed[1]["n"] = 99
    assert verify_chain(changed) == "event 1: hash does not match its content"
    assert chain_problem(events[2], 1, events[0]["hash"]) == "sequence number 2 out of order (expected 1)"
    assert chain_problem(events[1], 1, GENESIS) == "prev_hash does not match the previous event"


def test_read_jsonl_returns_complete_records_and_flags_a_torn_tail(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    assert read_jsonl(log).records == []  # no file: an empty log
    _write(log, _chain(2), tail=b'{"seq": 2, "pre')
    read = read_jsonl(log, chained=True)
    assert [r["seq"] for r in read.records] == [0, 1] and read.torn
    assert read.good_bytes == len(log.read_bytes()) - len(b'{"seq": 2, "pre')
    assert read.prefix_sha256(3) is None and read.prefix_sha256(0) is not None
    drop_torn_tail(log, read)
    again = read_jsonl(log, chained=True)
    assert not again.torn and len(again.records) == 2


@pytest.mark.parametrize("body,what", [(b"\n", "an empty line"), (b"nope\n", "not JSON"),
                                       (b"[1]\n", "not a JSON object")])
def test_a_bad_line_is_refused_with_its_number(tmp_path: Path, body: bytes, what: str) -> None:
    log = tmp_path / "a.jsonl"
    log.write_bytes(b'{"ok": 1}\n' + body)
    with pytest.raises(CorruptLog, match=f"line 2: {what}") as caught:
        read_jsonl(log)
    assert caught.value.line == 2


def test_a_broken_chain_is_refused_when_read_as_chained(tmp_path: Path) -> None:
    events = _chain(2)
    events[1]["prev_hash"] = GENESIS
    log = tmp_path / "events.jsonl"
    _write(log, events)
    assert len(read_jsonl(log).records) == 2
    with pytest.raises(CorruptLog, match="line 2: prev_hash does not match"):
        read_jsonl(log, chained=True)


def test_keep_first_drops_only_whole_trailing_records(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    _write(log, _chain(4))
    assert keep_first(log, read_jsonl(log), 4) == 0
    assert keep_first(log, read_jsonl(log), 2) == 2
    assert [r["seq"] for r in read_jsonl(log, chained=True).records] == [0, 1]
