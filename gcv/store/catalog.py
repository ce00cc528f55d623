"""The workspace: workflow folders, and the SQLite catalog that indexes them.

Layout under the workspace root (``$GCV_HOME`` or ``./.gcv``)::

    catalog.sqlite        an index of the workflows, and the baseline registry
    workflows/<wf>/       one folder per workflow (``gcv.store.workflow_dir``): the truth
    baselines/<sha>.json  baseline versions by content hash

The workflow folders are the source of truth; the catalog's ``workflows`` table is an index
(``gcv list``, the console) that ``reindex`` rebuilds from them. The baseline registry lives
only in the catalog: its versions, which one is active, and every activation (promotion,
rollback) with who did it, when and why.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gcv.contract.canonical import canonical_bytes, sha256_hex
from gcv.store.atomic import atomic_write_bytes
from gcv.store.errors import StoreError
from gcv.store.safe_open import BASELINE_CAP, UnsafeWorkspaceFile, check_workspace_file, read_workspace_bytes
from gcv.store.workflow_dir import WorkflowDir

# Workflow ids are names of folders we create; anything else is refused before it reaches a path.
WORKFLOW_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,79}$")

_WORKFLOW_COLUMNS = ("id", "created_at", "updated_at", "status", "request", "engine", "provider", "baseline_hash",
                     "actor", "engines_used", "terminal_reason", "resubmitted_from", "decision", "decided_by")
# the columns later versions added (an earlier catalog gets them by ALTER TABLE, empty)
_ADDED_COLUMNS = ("actor", "engines_used", "terminal_reason", "resubmitted_from", "decision", "decided_by")


@dataclass(frozen=True)
class WorkflowFilter:
    status: str | None = None
    statuses: tuple[str, ...] | None = None  # any of these statuses (an empty tuple matches nothing)
    actor: str | None = None
    since: float | None = None  # created_at >= since
    until: float | None = None  # created_at < until
    text: str | None = None  # in the request, or the id


class Workspace:
    def __init__(self, root: Path) -> None:
        self.root = root
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot use {root} as the workspace ({exc.strerror}); set GCV_HOME to a writable "
                             "folder") from None
        if not root.is_dir():
            raise StoreError(f"the workspace {root} is not a folder; set GCV_HOME to a writable folder")
        self.db_path = root / "catalog.sqlite"
        self.workflows_root = root / "workflows"
        try:  # SQLite would open a FIFO, a device or a link out of the workspace as if it were the catalog
            check_workspace_file(self.db_path, within=root)
        except UnsafeWorkspaceFile as exc:
            raise StoreError(f"the catalog {self.db_path} {exc.why}; it is an index of the workflow folders: move "
                             "it away and run `gcv reindex`") from None
        try:
            with self._db() as db:
                db.execute("""CREATE TABLE IF NOT EXISTS workflows (
                    id TEXT PRIMARY KEY, created_at REAL NOT NULL, updated_at REAL NOT NULL,
                    status TEXT NOT NULL, request TEXT NOT NULL, engine TEXT NOT NULL,
                    provider TEXT NOT NULL, baseline_hash TEXT NOT NULL)""")
                columns = {row[1] for row in db.execute("PRAGMA table_info(workflows)")}
                for name in _ADDED_COLUMNS:
                    if name not in columns:  # a catalog written by an earlier version
                        db.execute(f"ALTER TABLE workflows ADD COLUMN {name} TEXT")
                db.execute("CREATE INDEX IF NOT EXISTS workflows_created ON workflows(created_at)")
                db.execute("""CREATE TABLE IF NOT EXISTS baselines (
                    version INTEGER PRIMARY KEY, config_hash TEXT NOT NULL, created_at REAL NOT NULL,
                    source TEXT NOT NULL, workflow_id TEXT, actor TEXT, note TEXT,
                    active INTEGER NOT NULL DEFAULT 0)""")
                db.execute("""CREATE TABLE IF NOT EXISTS baseline_activations (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT, at REAL NOT NULL, action TEXT NOT NULL,
                    version INTEGER NOT NULL, from_version INTEGER, actor TEXT, note TEXT, workflow_id TEXT)""")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"the catalog {self.db_path} cannot be used ({exc}); if it is damaged, move it away "
                             "and run `gcv reindex` (workflows are rebuilt from their folders; the baseline "
                             "registry starts again from the committed baseline)") from None

    @contextmanager
    def _db(self, *, immediate: bool = False) -> Iterator[sqlite3.Connection]:
        try:
            db = sqlite3.connect(self.db_path, timeout=30, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the catalog {self.db_path}: {exc}") from None
        try:
            db.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            raise StoreError(f"the catalog {self.db_path} cannot be written ({exc}); the workflow folders are "
                             "unaffected: fix the file's permissions or disk, then `gcv reindex`") from None
        finally:
            db.close()

    # ---------------------------------------------------------------- workflow folders
    def workflow_dir(self, wf_id: str) -> WorkflowDir:
        if not isinstance(wf_id, str) or not WORKFLOW_ID.match(wf_id):
            raise StoreError(f"invalid workflow id {str(wf_id)[:100]!r}: letters, digits, '-' and '_' only")
        return WorkflowDir(self.workflows_root / wf_id, workspace=self.root)

    def exists(self, wf_id: str) -> bool:
        try:  # anything at state.json: a FIFO or a link there is refused by the reader, naming it
            return os.path.lexists(self.workflow_dir(wf_id).state_path)
        except StoreError:
            return False

    # ---------------------------------------------------------------- the index
    def register(self, wf_id: str, *, created_at: float, request: str, engine: str, provider: str,
                 baseline_hash: str, status: str, actor: str | None = None,
                 resubmitted_from: str | None = None) -> None:
        with self._db() as db:
            db.execute("INSERT OR IGNORE INTO workflows (id, created_at, updated_at, status, request, engine, "
                       "provider, baseline_hash, actor, resubmitted_from) VALUES (?,?,?,?,?,?,?,?,?,?)",
                       (wf_id, created_at, created_at, status, request, engine, provider, baseline_hash, actor,
                        resubmitted_from))

    def update_status(self, wf_id: str, status: str, at: float, *, engines_used: list[str] | None = None,
                      terminal_reason: str | None = None, actor: str | None = None,
                      decision: tuple[str, str] | None = None) -> None:
        """``decision``: the human decision and who took it, once there is one."""
        decided, by = decision or (None, None)
        with self._db() as db:
            db.execute("UPDATE workflows SET status=?, updated_at=?, terminal_reason=?, "
                       "engines_used=COALESCE(?, engines_used), actor=COALESCE(?, actor), "
                       "decision=COALESCE(?, decision), decided_by=COALESCE(?, decided_by) WHERE id=?",
                       (status, at, terminal_reason, ",".join(engines_used) if engines_used else None, actor,
                        decided, by, wf_id))

    def resubmissions_of(self, wf_id: str) -> list[str]:
        """The workflows that edit and resubmit ``wf_id`` (it is superseded by them), oldest first."""
        with self._db() as db:
            rows = db.execute("SELECT id FROM workflows WHERE resubmitted_from = ? ORDER BY created_at, id",
                              (wf_id,)).fetchall()
        return [str(r[0]) for r in rows]

    def upsert(self, row: dict[str, Any]) -> None:
        with self._db() as db:
            db.execute(f"INSERT OR REPLACE INTO workflows ({', '.join(_WORKFLOW_COLUMNS)}) VALUES "
                       f"({', '.join('?' * len(_WORKFLOW_COLUMNS))})", tuple(row.get(k) for k in _WORKFLOW_COLUMNS))

    def _where(self, f: WorkflowFilter) -> tuple[str, list[Any]]:
        clauses: list[str] = []
        args: list[Any] = []
        if f.status:
            clauses.append("status = ?")
            args.append(f.status)
        if f.statuses is not None:
            clauses.append(f"status IN ({', '.join('?' * len(f.statuses))})" if f.statuses else "0")
            args += list(f.statuses)
        if f.actor:
            clauses.append("actor = ?")
            args.append(f.actor)
        if f.since is not None:
            clauses.append("created_at >= ?")
            args.append(f.since)
        if f.until is not None:
            clauses.append("created_at < ?")
            args.append(f.until)
        if f.text:
            clauses.append("(instr(lower(request), lower(?)) > 0 OR instr(id, ?) > 0)")
            args += [f.text, f.text]
        return (" WHERE " + " AND ".join(clauses)) if clauses else "", args

    def list_workflows(self, limit: int = 50, offset: int = 0,
                       filter: WorkflowFilter | None = None) -> list[dict[str, Any]]:
        where, args = self._where(filter or WorkflowFilter())
        with self._db() as db:
            rows = db.execute(f"SELECT {', '.join(_WORKFLOW_COLUMNS)} FROM workflows{where} "
                              "ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?", (*args, limit, offset)).fetchall()
        out = []
        for row in rows:
            item = dict(zip(_WORKFLOW_COLUMNS, row))
            item["engines_used"] = [e for e in (item["engines_used"] or "").split(",") if e]
            out.append(item)
        return out

    def count_workflows(self, filter: WorkflowFilter | None = None) -> int:
        where, args = self._where(filter or WorkflowFilter())
        with self._db() as db:
            return int(db.execute(f"SELECT COUNT(*) FROM workflows{where}", args).fetchone()[0])

    def workflow_ids_on_disk(self) -> list[str]:
        if not self.workflows_root.is_dir():
            return []
        return sorted(p.name for p in self.workflows_root.iterdir()
                      if WORKFLOW_ID.match(p.name) and (p / "state.json").is_file())

    def reindex(self, row_of: Callable[[str], dict[str, Any] | None]) -> dict[str, int]:
        """Rebuild the workflows index from the folders. ``row_of(wf_id)`` reads one folder into
        a catalog row (None when the folder cannot be read: it is reported, not indexed)."""
        rows, unreadable = [], 0
        for wf_id in self.workflow_ids_on_disk():
            row = row_of(wf_id)
            if row is None:
                unreadable += 1
            else:
                rows.append(row)
        with self._db(immediate=True) as db:
            db.execute("DELETE FROM workflows")
            db.executemany(f"INSERT INTO workflows ({', '.join(_WORKFLOW_COLUMNS)}) VALUES "
                           f"({', '.join('?' * len(_WORKFLOW_COLUMNS))})",
                           [tuple(r.get(k) for k in _WORKFLOW_COLUMNS) for r in rows])
        return {"indexed": len(rows), "unreadable": unreadable}

    # ---------------------------------------------------------------- the baseline registry
    def baseline_store(self) -> Path:
        return self.root / "baselines"

    def baselines(self) -> list[dict[str, Any]]:
        with self._db() as db:
            rows = db.execute("SELECT version, config_hash, created_at, source, workflow_id, actor, note, active "
                              "FROM baselines ORDER BY version").fetchall()
        keys = ("version", "config_hash", "created_at", "source", "workflow_id", "actor", "note", "active")
        return [dict(zip(keys, row)) for row in rows]

    def baseline_activations(self) -> list[dict[str, Any]]:
        with self._db() as db:
            rows = db.execute("SELECT seq, at, action, version, from_version, actor, note, workflow_id "
                              "FROM baseline_activations ORDER BY seq").fetchall()
        keys = ("seq", "at", "action", "version", "from_version", "actor", "note", "workflow_id")
        return [dict(zip(keys, row)) for row in rows]

    def _store_baseline(self, config: dict[str, Any], config_hash: str) -> None:
        path = self.baseline_store() / f"{config_hash}.json"
        if not path.exists():
            atomic_write_bytes(path, canonical_bytes(config))

    def register_first_baseline(self, config: dict[str, Any], *, config_hash: str, created_at: float, source: str,
                                note: str) -> None:
        """Version 1, once: two processes starting on an empty workspace register it once."""
        self._store_baseline(config, config_hash)
        with self._db(immediate=True) as db:
            if db.execute("SELECT COUNT(*) FROM baselines").fetchone()[0]:
                return
            db.execute("INSERT INTO baselines VALUES (1,?,?,?,NULL,NULL,?,1)", (config_hash, created_at, source, note))
            db.execute("INSERT INTO baseline_activations (at, action, version, from_version, actor, note, workflow_id) "
                       "VALUES (?,?,?,?,?,?,?)", (created_at, "registered", 1, None, None, note, None))

    def add_baseline(self, config: dict[str, Any], *, config_hash: str, created_at: float, source: str,
                     workflow_id: str | None, actor: str | None, note: str | None) -> int:
        self._store_baseline(config, config_hash)
        with self._db(immediate=True) as db:
            version = int(db.execute("SELECT COALESCE(MAX(version), 0) FROM baselines").fetchone()[0]) + 1
            active = db.execute("SELECT version FROM baselines WHERE active=1").fetchone()
            db.execute("UPDATE baselines SET active=0")
            db.execute("INSERT INTO baselines VALUES (?,?,?,?,?,?,?,1)",
                       (version, config_hash, created_at, source, workflow_id, actor, note))
            db.execute("INSERT INTO baseline_activations (at, action, version, from_version, actor, note, workflow_id) "
                       "VALUES (?,?,?,?,?,?,?)", (created_at, "promoted", version, active[0] if active else None,
                                                  actor, note, workflow_id))
        return version

    def activate_baseline(self, version: int, *, at: float | None = None, actor: str | None = None,
                          note: str | None = None, action: str = "rolled_back") -> int | None:
        """Make ``version`` active; returns the version that was active before."""
        with self._db(immediate=True) as db:
            if db.execute("SELECT 1 FROM baselines WHERE version=?", (version,)).fetchone() is None:
                raise StoreError(f"no baseline version v{version}; see `gcv baselines list`")
            active = db.execute("SELECT version FROM baselines WHERE active=1").fetchone()
            db.execute("UPDATE baselines SET active=0")
            db.execute("UPDATE baselines SET active=1 WHERE version=?", (version,))
            db.execute("INSERT INTO baseline_activations (at, action, version, from_version, actor, note, workflow_id) "
                       "VALUES (?,?,?,?,?,?,NULL)", (time.time() if at is None else at, action, version,
                                                     active[0] if active else None, actor, note))
        return active[0] if active else None

    def baseline_config(self, config_hash: str) -> dict[str, Any]:
        path = self.baseline_store() / f"{config_hash}.json"
        try:
            data = read_workspace_bytes(path, within=self.root, cap=BASELINE_CAP)
        except OSError:
            data = None
        if data is None:
            raise StoreError(f"baseline {config_hash[:12]} is missing from {self.baseline_store()}")
        if sha256_hex(data) != config_hash:
            raise StoreError(f"baseline {config_hash[:12]} in {self.baseline_store()} is corrupted")
        baseline: dict[str, Any] = json.loads(data)
        return baseline
