"""Durable workflow storage: a SQLite catalog, content-addressed artifacts, a hash-chained
event log, recorded activities and the state snapshot.

Layout under the workspace (``$GCV_HOME`` or ``./.gcv``)::

    catalog.sqlite                       workflows and baseline versions
    workflows/<wf>/state.json            the latest state, replaced atomically
    workflows/<wf>/events.jsonl          append-only, each event carries the previous hash
    workflows/<wf>/activities.jsonl      results of engine runs and agent calls (for resume)
    workflows/<wf>/artifacts/<sha>.json  every config, report, telemetry, evaluation...
    workflows/<wf>/runs/<run_id>/        engine outputs (telemetry, frames, log)

Every write is atomic (temporary file + rename, or one appended line + fsync), and a
transition's artifacts are written before its event, so a process killed at any point
leaves a consistent history to resume from.
"""

from __future__ import annotations

import json
import os
import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from gcv.contract.canonical import canonical_bytes, canonical_json, sha256_hex

GENESIS = "0" * 64


class StoreError(Exception):
    pass


class _CrashPoint:
    """Fault injection for kill-and-resume tests: ``GCV_CRASH_AFTER=N`` makes the process
    die (as if killed) right after the N-th durable write of this process."""

    def __init__(self) -> None:
        value = os.environ.get("GCV_CRASH_AFTER", "")
        self.limit = int(value) if value.isdigit() else None
        self.count = 0

    def tick(self) -> None:
        if self.limit is None:
            return
        self.count += 1
        if self.count >= self.limit:
            os._exit(137)


CRASH = _CrashPoint()


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def event_hash(event: dict[str, Any]) -> str:
    return sha256_hex(canonical_bytes({k: v for k, v in event.items() if k != "hash"}))


def verify_chain(events: list[dict[str, Any]]) -> str | None:
    """None if the chain holds; else what is wrong and where."""
    prev = GENESIS
    for i, ev in enumerate(events):
        if ev.get("seq") != i:
            return f"event {i}: sequence number {ev.get('seq')} out of order"
        if ev.get("prev_hash") != prev:
            return f"event {i}: prev_hash does not match the previous event"
        if event_hash(ev) != ev.get("hash"):
            return f"event {i}: hash does not match its content"
        prev = ev["hash"]
    return None


class WorkflowDir:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.artifacts = root / "artifacts"
        self.runs = root / "runs"
        self.events_path = root / "events.jsonl"
        self.activities_path = root / "activities.jsonl"
        self.state_path = root / "state.json"

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
            data = path.read_bytes()
        except OSError as exc:
            raise StoreError(f"artifact {digest[:12]} is missing from {self.artifacts}") from exc
        if sha256_hex(data) != digest:
            raise StoreError(f"artifact {digest[:12]} is corrupted (hash mismatch)")
        return json.loads(data)

    # events --------------------------------------------------------------------------
    def events(self) -> list[dict[str, Any]]:
        if not self.events_path.exists():
            return []
        out = []
        with open(self.events_path, encoding="utf-8") as fh:
            for line in fh:
                line = line.strip()
                if line:
                    try:
                        out.append(json.loads(line))
                    except json.JSONDecodeError:
                        break  # a torn last line from a crash: ignore it and what follows
        return out

    def append_event(self, event: dict[str, Any]) -> dict[str, Any]:
        events = self.events()
        prev = events[-1]["hash"] if events else GENESIS
        event = {**event, "seq": len(events), "prev_hash": prev}
        event["hash"] = event_hash(event)
        self.root.mkdir(parents=True, exist_ok=True)
        self._repair_torn_tail(self.events_path, len(events))
        with open(self.events_path, "a", encoding="utf-8") as fh:
            fh.write(canonical_json(event) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        CRASH.tick()
        return event

    def truncate_events(self, count: int) -> int:
        """Drop events after the first ``count`` (appended by a step whose state write never
        happened: the step is redone on resume and appends them again). Returns how many."""
        events = self.events()
        if len(events) <= count:
            return 0
        lines = self.events_path.read_text(encoding="utf-8").splitlines(keepends=True)
        atomic_write_bytes(self.events_path, "".join(lines[:count]).encode("utf-8"))
        return len(events) - count

    @staticmethod
    def _repair_torn_tail(path: Path, good_lines: int) -> None:
        """Drop a partial line a crash may have left, so the log stays one event a line."""
        if not path.exists():
            return
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        if len(lines) > good_lines or (lines and not lines[-1].endswith("\n")):
            atomic_write_bytes(path, "".join(lines[:good_lines]).encode("utf-8"))

    # activities ----------------------------------------------------------------------
    def activities(self) -> dict[str, Any]:
        if not self.activities_path.exists():
            return {}
        out: dict[str, Any] = {}
        with open(self.activities_path, encoding="utf-8") as fh:
            for line in fh:
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    break
                out[record["key"]] = record["result"]
        return out

    def record_activity(self, key: str, result: Any) -> None:
        count = len(self.activities())
        self.root.mkdir(parents=True, exist_ok=True)
        self._repair_torn_tail(self.activities_path, count)
        with open(self.activities_path, "a", encoding="utf-8") as fh:
            fh.write(canonical_json({"key": key, "result": result}) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        CRASH.tick()

    # state ---------------------------------------------------------------------------
    def write_state(self, state: dict[str, Any]) -> None:
        atomic_write_bytes(self.state_path, (json.dumps(state, indent=1, sort_keys=True) + "\n").encode())
        CRASH.tick()

    def read_state(self) -> dict[str, Any]:
        try:
            return json.loads(self.state_path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise StoreError(f"no state for workflow at {self.root}") from exc


class Workspace:
    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.db_path = root / "catalog.sqlite"
        with self._db() as db:
            db.execute("""CREATE TABLE IF NOT EXISTS workflows (
                id TEXT PRIMARY KEY, created_at REAL NOT NULL, updated_at REAL NOT NULL,
                status TEXT NOT NULL, request TEXT NOT NULL, engine TEXT NOT NULL,
                provider TEXT NOT NULL, baseline_hash TEXT NOT NULL)""")
            db.execute("""CREATE TABLE IF NOT EXISTS baselines (
                version INTEGER PRIMARY KEY, config_hash TEXT NOT NULL, created_at REAL NOT NULL,
                source TEXT NOT NULL, workflow_id TEXT, actor TEXT, note TEXT,
                active INTEGER NOT NULL DEFAULT 0)""")

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.db_path, timeout=30)
        try:
            with db:
                yield db
        finally:
            db.close()

    def workflow_dir(self, wf_id: str) -> WorkflowDir:
        if not wf_id or "/" in wf_id or wf_id.startswith("."):
            raise StoreError(f"invalid workflow id {wf_id!r}")
        return WorkflowDir(self.root / "workflows" / wf_id)

    def register(self, wf_id: str, *, created_at: float, request: str, engine: str, provider: str,
                 baseline_hash: str, status: str) -> None:
        with self._db() as db:
            db.execute("INSERT OR IGNORE INTO workflows VALUES (?,?,?,?,?,?,?,?)",
                       (wf_id, created_at, created_at, status, request, engine, provider, baseline_hash))

    def update_status(self, wf_id: str, status: str, at: float) -> None:
        with self._db() as db:
            db.execute("UPDATE workflows SET status=?, updated_at=? WHERE id=?", (status, at, wf_id))

    def list_workflows(self, limit: int = 50) -> list[dict[str, Any]]:
        with self._db() as db:
            rows = db.execute("SELECT id, created_at, updated_at, status, request, engine, provider "
                              "FROM workflows ORDER BY created_at DESC, id DESC LIMIT ?", (limit,)).fetchall()
        keys = ("id", "created_at", "updated_at", "status", "request", "engine", "provider")
        return [dict(zip(keys, row)) for row in rows]

    def exists(self, wf_id: str) -> bool:
        with self._db() as db:
            return db.execute("SELECT 1 FROM workflows WHERE id=?", (wf_id,)).fetchone() is not None

    # baselines -----------------------------------------------------------------------
    def baseline_store(self) -> Path:
        return self.root / "baselines"

    def baselines(self) -> list[dict[str, Any]]:
        with self._db() as db:
            rows = db.execute("SELECT version, config_hash, created_at, source, workflow_id, actor, note, active "
                              "FROM baselines ORDER BY version").fetchall()
        keys = ("version", "config_hash", "created_at", "source", "workflow_id", "actor", "note", "active")
        return [dict(zip(keys, row)) for row in rows]

    def add_baseline(self, config: dict[str, Any], *, config_hash: str, created_at: float, source: str,
                     workflow_id: str | None, actor: str | None, note: str | None) -> int:
        path = self.baseline_store() / f"{config_hash}.json"
        if not path.exists():
            atomic_write_bytes(path, canonical_bytes(config))
        with self._db() as db:
            row = db.execute("SELECT COALESCE(MAX(version), 0) FROM baselines").fetchone()
            version = int(row[0]) + 1
            db.execute("UPDATE baselines SET active=0")
            db.execute("INSERT INTO baselines VALUES (?,?,?,?,?,?,?,1)",
                       (version, config_hash, created_at, source, workflow_id, actor, note))
        return version

    def activate_baseline(self, version: int) -> None:
        with self._db() as db:
            if db.execute("SELECT 1 FROM baselines WHERE version=?", (version,)).fetchone() is None:
                raise StoreError(f"no baseline version {version}")
            db.execute("UPDATE baselines SET active=0")
            db.execute("UPDATE baselines SET active=1 WHERE version=?", (version,))

    def baseline_config(self, config_hash: str) -> dict[str, Any]:
        path = self.baseline_store() / f"{config_hash}.json"
        data = path.read_bytes()
        if sha256_hex(data) != config_hash:
            raise StoreError(f"baseline {config_hash[:12]} is corrupted")
        return json.loads(data)
