"""One workflow's files: content-addressed artifacts, the event log, activities, the state.

Layout under ``workflows/<wf>/``::

    state.json            the latest state, replaced atomically (the workflow layer types it)
    events.jsonl          append-only, hash-chained (``gcv.store.logs``)
    activities.jsonl      recorded results of engine runs, model calls, populations
    artifacts/<sha>.json  every config, report, telemetry, evaluation... (canonical JSON)
    runs/<run_id>/        engine outputs (telemetry, frames, log)
    .lock                 the writer's lock (``gcv.store.locks``)

Order of a step's writes: artifacts, then activities, then events, then the state (which
names the last event it includes), then the catalog. A process killed between any two of
them leaves a workflow that ``resume`` completes: events after the state's last event are
redone, artifacts are content-addressed (rewriting one is harmless), the catalog is an
index that ``gcv reindex`` rebuilds.

The state also records how far both logs reached when it was written (``history``: the
number of events and the last event's chain hash; the number of activity records and the
sha256 of their bytes). A log holds at least that much for as long as the workflow exists:
lines after it are the work of a step whose state write never happened (dropped or reused
by resume), fewer lines or other ones mean the log was truncated, emptied, deleted or
replaced. ``check_history`` is that test; every reader of a workflow runs it before it
believes the state (``WorkflowLoop.load``, the evidence collector), and refuses the workflow
with ``DamagedRecord`` naming the file, changing nothing. A state written before the mark
existed (no ``history``) is held to its ``event_seq`` alone.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HISTORY_KEY = "history"

from gcv.contract.canonical import canonical_bytes, canonical_json, sha256_hex
from gcv.store.atomic import CRASH, append_line, atomic_write_bytes
from gcv.store.errors import CorruptLog, DamagedRecord, StoreError
from gcv.store.locks import WorkflowLock
from gcv.store.logs import GENESIS, LogRead, drop_torn_tail, event_hash, keep_first, read_jsonl
from gcv.store.safe_open import ARTIFACT_CAP, read_workspace_bytes

STATE_MAX_BYTES = 64 << 20


class WorkflowDir:
    def __init__(self, root: Path, *, workspace: Path | None = None) -> None:
        self.root = root
        # the folder no file of this workflow may lead out of (gcv.store.safe_open)
        self.workspace = workspace or (root.parent.parent if root.parent.name == "workflows" else root)
        self.id = root.name
        self.artifacts = root / "artifacts"
        self.runs = root / "runs"
        self.events_path = root / "events.jsonl"
        self.activities_path = root / "activities.jsonl"
        self.state_path = root / "state.json"

    def lock(self) -> WorkflowLock:
        return WorkflowLock(self.root, self.id)

    # artifacts -----------------------------------------------------------------------
    def put(self, value: Any) -> str:
        data = canonical_bytes(value)
        digest = sha256_hex(data)
        path = self.artifacts / f"{digest}.json"
        if not path.exists():
            atomic_write_bytes(path, data)
            CRASH.tick()
        return digest

    def get(self, digest: str) -> Any:
        path = self.artifacts / f"{digest}.json"
        try:
            data = read_workspace_bytes(path, within=self.workspace, cap=ARTIFACT_CAP)
        except OSError as exc:
            raise DamagedRecord(f"artifact {digest[:12]} is missing from {self.artifacts}", path) from exc
        if data is None:
            raise DamagedRecord(f"artifact {digest[:12]} is missing from {self.artifacts}", path)
        if sha256_hex(data) != digest:
            raise DamagedRecord(f"artifact {digest[:12]} in {self.artifacts} is corrupted (its hash does not match)",
                                path)
        return json.loads(data)

    # events --------------------------------------------------------------------------
    def _read_events(self) -> LogRead:
        return read_jsonl(self.events_path, chained=True, within=self.workspace)

    def events(self) -> list[dict[str, Any]]:
        """Every complete event, checked: a corrupt or unchained log raises ``CorruptLog``."""
        return self._read_events().records

    def append_event(self, event: dict[str, Any]) -> dict[str, Any]:
        read = self._read_events()
        prev = read.records[-1]["hash"] if read.records else GENESIS
        event = {**event, "seq": len(read.records), "prev_hash": prev}
        event["hash"] = event_hash(event)
        drop_torn_tail(self.events_path, read)
        append_line(self.events_path, canonical_json(event), within=self.workspace)
        CRASH.tick()
        return event

    def truncate_events(self, count: int) -> int:
        """Drop complete events after the first ``count`` (appended by a step whose state write
        never happened: the step is redone on resume). Returns how many were dropped."""
        return keep_first(self.events_path, self._read_events(), count)

    # activities ----------------------------------------------------------------------
    def _read_activities(self) -> LogRead:
        read = read_jsonl(self.activities_path, within=self.workspace)
        for number, record in enumerate(read.records, start=1):
            if not isinstance(record.get("key"), str) or "result" not in record:
                raise CorruptLog(self.activities_path, number, "not an activity record (needs 'key' and 'result')")
        return read

    def activities(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for record in self._read_activities().records:
            out.setdefault(record["key"], record["result"])
        return out

    def record_activity(self, key: str, result: Any) -> None:
        read = self._read_activities()
        drop_torn_tail(self.activities_path, read)
        append_line(self.activities_path, canonical_json({"key": key, "result": result}), within=self.workspace)
        CRASH.tick()

    # how far the history reaches ---------------------------------------------------------
    def history_mark(self) -> dict[str, Any]:
        """Where both logs end now (complete lines): what a state written now includes."""
        events = self._read_events()
        activities = self._read_activities()
        return {"events": {"count": len(events.records),
                           "hash": events.records[-1]["hash"] if events.records else None},
                "activities": {"count": len(activities.records),
                               "hash": activities.prefix_sha256(len(activities.records))}}

    def check_history(self, state: dict[str, Any]) -> None:
        """Refuse (``DamagedRecord``, naming the file) logs that end before the state's history.

        Also refuses a corrupt log (``CorruptLog``). Reads only; never changes a file.
        """
        mark = state.get(HISTORY_KEY)
        events = self._read_events()
        if isinstance(mark, dict):
            want, head = int(mark["events"]["count"]), mark["events"]["hash"]
        else:  # a state written before the mark: its last event is all it names
            want, head = int(state.get("event_seq", -1)) + 1, None
        have = len(events.records)
        if have < want:
            raise DamagedRecord(f"{self.events_path} holds {have} event(s), but the workflow's state includes {want}: "
                                f"the event log was {_how_short(self.events_path, have)} (nothing was changed). "
                                "Restore it from a backup or an evidence bundle", self.events_path)
        if head is not None and want and events.records[want - 1].get("hash") != head:
            raise DamagedRecord(f"{self.events_path} event {want - 1} is not the event the workflow's state "
                                "recorded: the event log was replaced (nothing was changed). Restore it from a "
                                "backup or an evidence bundle", self.events_path)
        if not isinstance(mark, dict):
            return
        activities = self._read_activities()
        want = int(mark["activities"]["count"])
        have = len(activities.records)
        if have < want:
            raise DamagedRecord(f"{self.activities_path} holds {have} activity record(s), but the workflow's state "
                                f"includes {want}: the activity log was {_how_short(self.activities_path, have)} "
                                "(nothing was changed). Restore it from a backup", self.activities_path)
        if activities.prefix_sha256(want) != mark["activities"]["hash"]:
            raise DamagedRecord(f"{self.activities_path}: its first {want} record(s) are not the ones the workflow's "
                                "state recorded: the activity log was changed or replaced (nothing was changed). "
                                "Restore it from a backup", self.activities_path)

    # state ---------------------------------------------------------------------------
    def write_state(self, state: dict[str, Any]) -> dict[str, Any]:
        """Replace the state; it records how far the logs reach now (``history``, returned)."""
        mark = self.history_mark()
        state = {**state, HISTORY_KEY: mark}
        atomic_write_bytes(self.state_path, (json.dumps(state, indent=1, sort_keys=True) + "\n").encode())
        CRASH.tick()
        return mark

    def read_state(self) -> dict[str, Any]:
        try:  # a regular file of the workspace, at most STATE_MAX_BYTES (a FIFO never blocks)
            data = read_workspace_bytes(self.state_path, within=self.workspace, cap=STATE_MAX_BYTES)
        except OSError as exc:
            raise StoreError(f"cannot read {self.state_path}: {exc.strerror}") from None
        if data is None:
            raise DamagedRecord(f"no state for workflow at {self.root} (state.json is missing)", self.state_path)
        try:
            state = json.loads(data)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise DamagedRecord(f"{self.state_path} is not valid JSON ({exc}); it was truncated or damaged",
                                self.state_path) from None
        if not isinstance(state, dict):
            raise DamagedRecord(f"{self.state_path} is not a JSON object", self.state_path)
        return state


def _how_short(path: Path, have: int) -> str:
    if not path.exists():
        return "deleted"
    return "emptied" if have == 0 and path.stat().st_size == 0 else "truncated"
