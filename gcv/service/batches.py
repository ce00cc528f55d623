"""The batches' use cases: what the console's batches page reads and does.

* **list** the ``gcv batch`` outputs of a workspace (``batches/<name>/``): each batch's
  summary, when it ran (``summary.json`` is written last, so its time is the end; the start is
  that minus ``elapsed_seconds``) and which table files it holds;
* **one file** of a batch's folder, by name, never a path outside it (``NotFound`` otherwise);
* **one group's rows** (a config x player x engine of the summary), read from the batch's
  results log (``results.jsonl``, the source of truth the CSV and Parquet tables are made of);
* **one row's run** for the fight viewer: the program, player and seed that ran, when the
  batch's records still give them exactly (the config is found by its hash in the baseline
  registry or read again from the file the manifest names, and must compile to the row's
  program hash; the player is the manifest's entry and must give the row's player label);
  else the reason it cannot be shown;
* **start** a batch from a committed spec (``artifacts/batches/*.toml``): ``gcv batch SPEC
  --junit <output>/junit.xml`` as a function, with the same outputs in the same folder.
"""

from __future__ import annotations

import json
import re
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gcv.batch import results as res
from gcv.batch.job import BatchOutcome, BatchUsageError, run_job
from gcv.batch.spec import BatchSpecError, load_batch
from gcv.contract.loading import GcvInputError, find_repo_root, load_config
from gcv.contract.models import BulletHellConfig
from gcv.evidence.junit import batch_junit, write_junit
from gcv.service.errors import Conflict, InvalidInput, NotFound
from gcv.sim.players import PlayerSpecError, parse_player, player_label
from gcv.sim.program import compile_program, program_hash
from gcv.store.catalog import Workspace
from gcv.store.errors import StoreError
from gcv.workflow.baselines import active_baseline, ensure_registry

BATCHES_DIR = "batches"
SPECS_DIR = Path("artifacts") / "batches"  # the committed specs, in the repository
JUNIT_FILE = "junit.xml"  # where a batch started here writes its JUnit XML (gcv batch --junit)
# the files of a batch's folder that may be downloaded, and what each one is
FILES = {res.RESULTS_CSV: "CSV", res.RESULTS_PARQUET: "Parquet", JUNIT_FILE: "JUnit",
         res.RESULTS_LOG: "JSON lines", res.SUMMARY_FILE: "summary", res.MANIFEST_FILE: "manifest"}
TABLES = (res.RESULTS_CSV, res.RESULTS_PARQUET, JUNIT_FILE)
MEDIA_TYPES = {".csv": "text/csv", ".parquet": "application/vnd.apache.parquet", ".xml": "application/xml",
               ".jsonl": "application/jsonl", ".json": "application/json"}
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}$")


@dataclass
class BatchListing:
    name: str
    summary: dict[str, Any] | None
    error: str | None = None
    finished: float | None = None  # when summary.json was written (the batch's end)
    started: float | None = None
    files: dict[str, str] = field(default_factory=dict)  # file name -> what it is (only those present)


@dataclass
class GroupRows:
    batch: str
    index: int
    group: dict[str, Any]
    rows: list[dict[str, Any]]  # every attempt, by seed then attempt, each with ``final``
    columns: list[str]  # the figures shown besides the cell's own columns


@dataclass
class RowRun:
    """One row's run, as the fight viewer needs it, or why it cannot be shown."""

    row: dict[str, Any]
    program: dict[str, Any] | None = None
    player: dict[str, Any] | None = None
    seed: int | None = None
    reason: str | None = None  # None: the run can be re-simulated exactly

    @property
    def viewable(self) -> bool:
        return self.reason is None


@dataclass
class CommittedSpec:
    name: str  # the file name, what the form sends
    path: Path
    title: str | None  # the spec's own ``name``


# ------------------------------------------------------------------------- reading
def batches_root(root: Path) -> Path:
    return root / BATCHES_DIR


def batch_dir(root: Path, name: str) -> Path:
    """The folder of batch ``name``: a plain folder name directly under ``batches/``, or ``NotFound``."""
    if not _NAME.match(name):
        raise NotFound(f"no batch {name!r} in this workspace")
    parent = batches_root(root).resolve()
    folder = (parent / name).resolve()
    if folder.parent != parent or not folder.is_dir():
        raise NotFound(f"no batch {name!r} in this workspace")
    return folder


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def listing(root: Path, name: str) -> BatchListing:
    folder = batch_dir(root, name)
    summary_path = folder / res.SUMMARY_FILE
    try:
        summary = _read_json(summary_path)
        finished = summary_path.stat().st_mtime
    except (OSError, ValueError):
        return BatchListing(name, None, error=f"{res.SUMMARY_FILE} cannot be read")
    if not isinstance(summary, dict):
        return BatchListing(name, None, error=f"{res.SUMMARY_FILE} is not a batch summary")
    elapsed = summary.get("elapsed_seconds")
    files = {f: what for f, what in FILES.items() if (folder / f).is_file()}
    return BatchListing(name, summary, finished=finished,
                        started=finished - float(elapsed) if isinstance(elapsed, (int, float)) else None,
                        files=files)


def list_batches(root: Path) -> list[BatchListing]:
    """Every batch output of the workspace, the latest first."""
    folder = batches_root(root)
    if not folder.is_dir():
        return []
    out = [listing(root, p.parent.name) for p in folder.glob(f"*/{res.SUMMARY_FILE}") if _NAME.match(p.parent.name)]
    return sorted(out, key=lambda b: (-(b.finished or 0.0), b.name))


def batch_file(root: Path, name: str, filename: str) -> Path:
    """A downloadable file of batch ``name`` (one of ``FILES``), or ``NotFound``."""
    folder = batch_dir(root, name)
    if filename not in FILES:
        raise NotFound(f"batch {name} has no file {filename!r}")
    path = (folder / filename).resolve()
    if path.parent != folder or not path.is_file():
        raise NotFound(f"batch {name} has no file {filename!r}")
    return path


def media_type(path: Path) -> str:
    return MEDIA_TYPES.get(path.suffix, "application/octet-stream")


# the figures of a row the drill-down shows, in this order (when the rows have them)
ROW_FIGURES = ("status", "end_reason", "player_hits", "peak_alive_bullets", "survival_ticks", "ticks", "grazes",
               "low_fps", "duration_ms")


def _summary(root: Path, name: str) -> dict[str, Any]:
    found = listing(root, name)
    if found.summary is None:
        raise NotFound(f"batch {name}: {found.error}")
    return found.summary


def group_rows(root: Path, name: str, index: int) -> GroupRows:
    """The rows of the summary's ``index``-th group (config x player x engine) from ``results.jsonl``."""
    summary = _summary(root, name)
    groups = summary.get("summary") or []
    if not 0 <= index < len(groups):
        raise NotFound(f"batch {name} has no group {index}")
    group = groups[index]
    rows = [r for r in res.read_log(batch_dir(root, name) / res.RESULTS_LOG)
            if (r.get("config_hash"), r.get("player"), r.get("engine"))
            == (group["config_hash"], group["player"], group["engine"])]
    finals = {id(r) for r in res.final_rows(rows).values()}
    table = sorted(({**r, "final": id(r) in finals} for r in rows), key=lambda r: (r["seed"], r["attempt"]))
    columns = [c for c in ROW_FIGURES if any(c in r for r in table)]
    return GroupRows(name, index, group, table, columns)


def find_row(root: Path, name: str, cell_id: str, attempt: int | None = None) -> dict[str, Any]:
    """A cell's row from the results log: the given attempt, else the one that counts."""
    rows = [r for r in res.read_log(batch_dir(root, name) / res.RESULTS_LOG) if r.get("cell_id") == cell_id]
    if attempt is not None:
        rows = [r for r in rows if r.get("attempt") == attempt]
    final = res.final_rows(rows).get(cell_id)
    if final is None:
        raise NotFound(f"batch {name} has no row {cell_id}" + (f" attempt {attempt}" if attempt else ""))
    return final


def config_of(ws: Workspace, entry: dict[str, Any]) -> tuple[BulletHellConfig | None, str]:
    """The config a manifest entry ran: from the baseline registry by its hash, else its file."""
    try:
        return BulletHellConfig.model_validate(ws.baseline_config(entry["config_hash"])), "the baseline registry"
    except (StoreError, OSError, ValueError, KeyError):
        pass
    source = str(entry.get("source") or "")
    if source.startswith("registry "):
        return None, f"the config {entry.get('label')} ({source}) is no longer in this workspace's baseline registry"
    try:
        return load_config(source), source
    except (GcvInputError, OSError) as exc:
        return None, f"the config file the batch read ({Path(source).name}) cannot be read again: {exc}"


def row_run(ws: Workspace, name: str, cell_id: str, attempt: int | None = None) -> RowRun:
    """What one row's run was, exactly (program, player, seed), or why it is not known any more."""
    row = find_row(ws.root, name, cell_id, attempt)
    if row["status"] not in res.OK_STATUSES:
        return RowRun(row, reason=f"this run ended in an error ({row.get('error_kind')}): there is no fight to show")
    try:
        manifest = _read_json(batch_dir(ws.root, name) / res.MANIFEST_FILE)
    except (OSError, ValueError):
        return RowRun(row, reason=f"the batch's manifest ({res.MANIFEST_FILE}) cannot be read")
    entry = next((c for c in manifest.get("configs", []) if c.get("config_hash") == row["config_hash"]), None)
    if entry is None:
        return RowRun(row, reason="the batch's manifest does not name this row's config")
    config, where = config_of(ws, entry)
    if config is None:
        return RowRun(row, reason=where)
    program = compile_program(config)
    if program["config_hash"] != row["config_hash"] or program_hash(program) != row.get("program_hash"):
        return RowRun(row, reason=f"{where} no longer holds the config this row ran (its hash changed since the "
                                  "batch ran)")
    spec_dir = Path(str(manifest.get("spec_file") or ".")).parent
    player = None
    for p in manifest.get("players", []):
        if p.get("label") != row["player"]:
            continue
        try:
            player = parse_player(str(p.get("entry")), base_dir=spec_dir)
        except (PlayerSpecError, GcvInputError, OSError) as exc:
            return RowRun(row, reason=f"the player {row['player']} cannot be made again: {exc}")
    if player is None or player_label(player) != row["player"]:
        return RowRun(row, reason=f"the batch's manifest does not give the player {row['player']} any more")
    return RowRun(row, program=program, player=player, seed=int(row["seed"]))


# ------------------------------------------------------------------------- starting
def specs_dir(repo_root: Path | None = None) -> Path | None:
    root = repo_root if repo_root is not None else find_repo_root()
    return None if root is None else root / SPECS_DIR


def committed_specs(repo_root: Path | None = None) -> list[CommittedSpec]:
    """The batch specs committed with the repository (``artifacts/batches/*.toml``)."""
    folder = specs_dir(repo_root)
    if folder is None or not folder.is_dir():
        return []
    out = []
    for path in sorted(folder.glob("*.toml")):
        title = None
        try:
            title = tomllib.loads(path.read_text(encoding="utf-8")).get("name")
        except (OSError, ValueError):
            pass
        out.append(CommittedSpec(path.name, path, title if isinstance(title, str) else None))
    return out


def baseline_resolver(ws: Workspace, clock: Callable[[], float] = time.time) -> Callable[[str], tuple[Any, str]]:
    """``baseline:vN`` / ``baseline:active`` from the workspace's registry (as ``gcv batch`` reads them)."""
    def resolve(ref: str) -> tuple[Any, str]:
        now = clock()
        if ref == "baseline:active":
            return active_baseline(ws, now)
        version = int(ref.split(":v", 1)[1])
        versions = ensure_registry(ws, now)
        for v in versions:
            if v["version"] == version:
                return BulletHellConfig.model_validate(ws.baseline_config(v["config_hash"])), f"registry v{version}"
        known = ", ".join(f"v{v['version']}" for v in versions)
        raise LookupError(f"no baseline version v{version} in {ws.root}; versions: {known}")

    return resolve


@dataclass
class BatchStarted:
    spec: str
    name: str  # the output folder's name under batches/
    outcome: BatchOutcome

    def as_dict(self) -> dict[str, Any]:
        return {"spec": self.spec, "name": self.name, "exit_code": int(self.outcome.exit_code),
                "counts": self.outcome.counts, "notes": self.outcome.notes,
                "gate_passed": self.outcome.gate.passed, "elapsed_seconds": round(self.outcome.elapsed_seconds, 3)}


def output_name(ws: Workspace, spec: str, repo_root: Path | None = None) -> str:
    """The folder under ``batches/`` a committed spec writes to (its file name's stem)."""
    return _committed(spec, repo_root).path.stem


def _committed(spec: str, repo_root: Path | None) -> CommittedSpec:
    found = next((s for s in committed_specs(repo_root) if s.name == spec), None)
    if found is None:
        raise InvalidInput(f"{spec!r} is not a committed batch spec", field="spec")
    return found


def check_free(ws: Workspace, spec: str, repo_root: Path | None = None) -> None:
    """``Conflict`` when the spec's output folder holds rows of an earlier run (without replacing them)."""
    stem = _committed(spec, repo_root).path.stem
    if res.read_log(batches_root(ws.root) / stem / res.RESULTS_LOG):
        raise Conflict(f"{BATCHES_DIR}/{stem} holds the results of an earlier run; replace them to run again",
                       field="overwrite")


def start_batch(ws: Workspace, spec: str, *, overwrite: bool = False, workers: int = 1,
                repo_root: Path | None = None, clock: Callable[[], float] = time.time,
                on_start: Callable[[int, int], None] | None = None,
                on_row: Callable[[dict[str, Any], bool], None] | None = None) -> BatchStarted:
    """Run committed spec ``spec`` (a file name of ``committed_specs``) into the workspace's
    ``batches/<spec stem>/``, as ``gcv batch SPEC --junit batches/<stem>/junit.xml`` would
    (``--overwrite`` when ``overwrite``). The spec must not name an ``output`` elsewhere."""
    found = _committed(spec, repo_root)
    try:
        resolved = load_batch(found.path, baseline_resolver=baseline_resolver(ws, clock), output_root=ws.root)
    except BatchSpecError as exc:
        raise InvalidInput(f"batch spec {spec}: {exc.message}", field="spec") from None
    expected = (batches_root(ws.root) / found.path.stem).resolve()
    if resolved.output_dir != expected:
        raise InvalidInput(f"batch spec {spec} writes to its own output folder; the console runs only specs that "
                           f"write to the workspace's {BATCHES_DIR}/{found.path.stem}", field="spec")
    if not overwrite:
        check_free(ws, spec, repo_root)
    try:
        outcome = run_job(resolved, executor="local", workers=workers, overwrite=overwrite,
                          on_start=on_start, on_row=on_row)
    except BatchUsageError as exc:  # an engine this machine cannot run
        raise Conflict(str(exc) + (f" ({exc.hint})" if exc.hint else "")) from None
    name = resolved.spec.name or found.path.stem
    write_junit(expected / JUNIT_FILE, batch_junit(outcome, name=name))
    outcome.paths["junit"] = str(expected / JUNIT_FILE)
    return BatchStarted(spec, found.path.stem, outcome)


__all__ = ["BatchListing", "GroupRows", "RowRun", "CommittedSpec", "BatchStarted", "FILES", "TABLES", "JUNIT_FILE",
           "list_batches", "listing", "batch_dir", "batch_file", "media_type", "group_rows", "find_row", "row_run",
           "config_of", "committed_specs", "specs_dir", "check_free", "batches_root", "baseline_resolver", "output_name", "start_batch"]
