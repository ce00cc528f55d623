"""Starting a batch through the use case (the console's form) writes what `gcv batch` writes on
the same spec: the same files, the same rows and tables (but for run times), the same summary
and the same JUnit XML (but for its times)."""

from __future__ import annotations

import csv
import io
import json
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gcv.batch import results as res
from gcv.cli.app import app
from gcv.service import batches
from gcv.service.errors import Conflict, InvalidInput
from gcv.store.catalog import Workspace

SPEC = "smoke.toml"  # the smallest committed spec: 4 python-sim runs


def _rows(folder: Path) -> list[dict]:
    return [res.figures(r) for r in res.read_log(folder / res.RESULTS_LOG)]


def _csv(folder: Path) -> list[dict]:
    text = (folder / res.RESULTS_CSV).read_text(encoding="utf-8")
    return [{k: v for k, v in row.items() if k != "duration_ms"} for row in csv.DictReader(io.StringIO(text))]


def _summary(folder: Path) -> dict:
    data = json.loads((folder / res.SUMMARY_FILE).read_text(encoding="utf-8"))
    data.pop("elapsed_seconds")
    data.pop("paths")  # the same names, under two workspaces
    data["counts"].pop("runs_this_time", None)
    return data


def _junit(folder: Path) -> bytes:
    root = ET.fromstring((folder / batches.JUNIT_FILE).read_bytes())
    for el in root.iter():
        for key in ("time", "timestamp"):
            el.attrib.pop(key, None)
    return ET.tostring(root)


def _manifest(folder: Path) -> dict:
    data = json.loads((folder / res.MANIFEST_FILE).read_text(encoding="utf-8"))
    data.pop("spec_file")  # the spec's path as each was given it
    return data


def test_a_started_batch_writes_what_gcv_batch_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = next(s for s in batches.committed_specs() if s.name == SPEC)
    cli_ws, console_ws = tmp_path / "cli", tmp_path / "console"
    monkeypatch.setenv("GCV_HOME", str(cli_ws))
    cli_out = cli_ws / "batches" / spec.path.stem
    t0 = time.monotonic()
    done = CliRunner().invoke(app, ["batch", str(spec.path), "--workers", "1", "--junit", str(cli_out / "junit.xml")])
    cli_seconds = time.monotonic() - t0
    assert done.exit_code == 0, done.output

    progress: list[tuple[int, int]] = []
    rows: list[str] = []
    t0 = time.monotonic()
    started = batches.start_batch(Workspace(console_ws), SPEC, on_start=lambda n, f: progress.append((n, f)),
                                  on_row=lambda row, final: rows.append(row["cell_id"]))
    service_seconds = time.monotonic() - t0
    out = console_ws / "batches" / spec.path.stem
    assert started.name == spec.path.stem and started.outcome.exit_code == 0
    assert progress == [(4, 0)] and len(rows) == 4
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in cli_out.iterdir())
    assert _rows(out) == _rows(cli_out) and len(_rows(out)) == 4
    assert _csv(out) == _csv(cli_out)
    assert _summary(out) == _summary(cli_out)
    assert _junit(out) == _junit(cli_out)
    assert _manifest(out) == _manifest(cli_out)
    if res.parquet_available():
        import pandas as pd

        a = pd.read_parquet(out / res.RESULTS_PARQUET).drop(columns=["duration_ms"])
        b = pd.read_parquet(cli_out / res.RESULTS_PARQUET).drop(columns=["duration_ms"])
        assert a.equals(b)
    assert service_seconds < 30 and cli_seconds < 30, (service_seconds, cli_seconds)


def test_starting_refuses_what_it_cannot_run_and_keeps_earlier_results(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    with pytest.raises(InvalidInput):
        batches.start_batch(ws, "../baselines/shrine_trial.json")
    with pytest.raises(InvalidInput):
        batches.start_batch(ws, "no-such.toml")
    batches.start_batch(ws, SPEC)
    log = (ws.root / "batches" / "smoke" / res.RESULTS_LOG).read_bytes()
    with pytest.raises(Conflict):
        batches.start_batch(ws, SPEC)
    assert (ws.root / "batches" / "smoke" / res.RESULTS_LOG).read_bytes() == log
    again = batches.start_batch(ws, SPEC, overwrite=True)
    assert again.outcome.counts["runs_this_time"] == 4


def test_a_committed_spec_that_writes_elsewhere_is_refused(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "artifacts" / "batches").mkdir(parents=True)
    (repo / "artifacts" / "baselines").mkdir()
    base = Path(__file__).resolve().parents[2] / "artifacts" / "baselines" / "shrine_trial.json"
    (repo / "artifacts" / "baselines" / "shrine_trial.json").write_bytes(base.read_bytes())
    (repo / "artifacts" / "batches" / "away.toml").write_text(
        'configs = ["../baselines/shrine_trial.json"]\noutput = "../../out"\n', encoding="utf-8")
    with pytest.raises(InvalidInput, match="own output folder"):
        batches.start_batch(Workspace(tmp_path / "ws"), "away.toml", repo_root=repo)
    assert not (repo / "out").exists()
