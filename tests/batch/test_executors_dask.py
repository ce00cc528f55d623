"""The dask executor against a real two-process LocalCluster on loopback: same rows as local."""

from __future__ import annotations

from pathlib import Path

import pytest

from gcv.batch import results as res
from gcv.batch.job import BatchUsageError, run_job
from gcv.batch.spec import load_batch
from tests.support.batchutil import write_configs, write_spec

distributed = pytest.importorskip("distributed")

SPEC = """
configs = ["configs/shrine.json", "configs/dense.json"]
seeds = {{ count = 3 }}
players = ["scripted", "bot:average"]
output = "{out}"
"""


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None, silence_logs=40) as local:
        yield local


@pytest.mark.slow
def test_dask_rows_equal_local_rows(tmp_path: Path, cluster) -> None:
    write_configs(tmp_path / "configs")
    local = run_job(load_batch(write_spec(tmp_path, SPEC.format(out="local"), "local.toml")), workers=1)
    dask = run_job(load_batch(write_spec(tmp_path, SPEC.format(out="dask"), "dask.toml")), executor="dask",
                   scheduler=cluster.scheduler_address)
    assert local.exit_code == dask.exit_code == 0
    assert len(dask.rows) == 12
    assert [res.figures(r) for r in dask.rows] == [res.figures(r) for r in local.rows]
    assert dask.summary == local.summary
    # the units really went through the scheduler to the worker processes
    assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
    assert cluster.scheduler.task_prefixes["run_packed_unit"].state_counts["memory"] >= 2


@pytest.mark.slow
def test_unreachable_scheduler_is_a_usage_error(tmp_path: Path) -> None:
    write_configs(tmp_path / "configs")
    resolved = load_batch(write_spec(tmp_path, SPEC.format(out="x")))
    with pytest.raises(BatchUsageError, match="cannot reach the Dask scheduler"):
        run_job(resolved, executor="dask", scheduler="tcp://127.0.0.1:9", scheduler_timeout=1.0)


@pytest.mark.slow
def test_dask_without_a_scheduler_starts_a_local_cluster_and_says_so(tmp_path: Path) -> None:
    """main: exit 2 ("--executor dask needs --scheduler"); a local cluster is what a user
    trying the executor on one machine wants, with a note that it costs more CPU than local."""
    import psutil

    write_configs(tmp_path / "configs")
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    local = run_job(load_batch(write_spec(tmp_path, SPEC.format(out="local"), "local.toml")), workers=1)
    dask = run_job(load_batch(write_spec(tmp_path, SPEC.format(out="dask"), "dask.toml")), executor="dask",
                   workers=2)
    assert dask.exit_code == 0 and [res.figures(r) for r in dask.rows] == [res.figures(r) for r in local.rows]
    assert any("started a local Dask cluster of 2 worker(s)" in n for n in dask.notes)
    # multiprocessing's resource tracker lives as long as this process, whoever started it first
    # (run alone, this test starts it; in the whole suite an earlier test did): not the cluster
    left = [p for p in psutil.Process().children(recursive=True) if p.pid not in before and p.is_running()
            and p.status() != psutil.STATUS_ZOMBIE and "resource_tracker" not in " ".join(p.cmdline())]
    assert left == [], left  # the cluster ended with the batch
