"""What each command imports (start-up time): asserted on ``sys.modules`` of a real ``gcv``
process at exit, never on times. ``--help`` imports none of the heavy libraries (rich, for the
console and the table helper, is the one left); ``validate``
imports no chart, table or console-server library; the README's ``gcv run`` draws its
report's charts without matplotlib and writes no table (no pandas, no pyarrow); ``gcv status``
and ``gcv list`` only read, so they import none of the loop, the simulator, the agents, the
engines, the validators or their libraries (numpy, PIL, jsonschema), nor filelock."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BASELINE = REPO / "artifacts" / "baselines" / "shrine_trial.json"
README_REQUEST = ("make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive and keep "
                  "the low FPS at 55 or above")
PROBE = """
import atexit, json, sys
out = sys.argv.pop(1)
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
sys.argv[0] = "gcv"
from gcv.cli.entry import main
main()
"""


def imported(tmp_path: Path, *args: str, home: Path | None = None) -> tuple[int, set[str]]:
    out = tmp_path / "modules.json"
    env = dict(os.environ, GCV_HOME=str(home or tmp_path / "home"), PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", PROBE, str(out), *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    modules = set(json.loads(out.read_text()))
    return done.returncode, modules


def tops(modules: set[str]) -> set[str]:
    return {m.split(".")[0] for m in modules}


def test_help_imports_no_heavy_library(tmp_path: Path) -> None:
    code, modules = imported(tmp_path, "--help")
    assert code == 0
    assert "gcv.cli.commands.workflow_cmds" in modules  # the probe saw the real command tree
    # markdown_it and pygments come with typer's rich help renderer (replaced by click's plain help)
    heavy = {"pydantic", "numpy", "matplotlib", "pandas", "pyarrow", "PIL", "jsonschema", "fastapi",
             "uvicorn", "markdown_it", "pygments"}
    assert not heavy & tops(modules), sorted(heavy & tops(modules))


def test_validate_imports_what_it_uses_and_nothing_for_numpy_charts_tables_or_the_console(tmp_path: Path) -> None:
    code, modules = imported(tmp_path, "validate", str(BASELINE))
    assert code == 0
    assert {"pydantic", "jsonschema", "gcv"} <= tops(modules)
    # nor numpy: validation's exact arithmetic and duplicate-bullet check are plain Python
    unwanted = {"numpy", "matplotlib", "pandas", "pyarrow", "PIL", "fastapi", "uvicorn", "markdown_it", "anthropic"}
    assert not unwanted & tops(modules), sorted(unwanted & tops(modules))


@pytest.mark.slow
def test_the_readme_run_draws_its_charts_without_matplotlib_and_writes_no_table(tmp_path: Path) -> None:
    code, modules = imported(tmp_path, "run", README_REQUEST, "--yes", "--repair-scope", "fight")
    assert code == 0
    assert "gcv.svg_chart" in modules  # the report's charts were drawn
    unwanted = {"matplotlib", "pandas", "pyarrow", "fastapi", "uvicorn", "markdown_it"}
    assert not unwanted & tops(modules), sorted(unwanted & tops(modules))
    report = next((tmp_path / "home" / "workflows").glob("*/evidence/report.html")).read_text(encoding="utf-8")
    assert report.count('src="data:image/svg+xml;base64,') >= 3


# What a read-only command must not import: the libraries the loop's layers bring, and the layers
# themselves (gcv.workflow.loop imports every one of them).
READ_ONLY_UNWANTED = {"numpy", "matplotlib", "pandas", "pyarrow", "PIL", "jsonschema", "fastapi", "uvicorn",
                      "markdown_it", "anthropic", "rapidfuzz", "filelock", "engine_runners"}
READ_ONLY_UNWANTED_GCV = ("gcv.workflow.loop", "gcv.workflow.activities", "gcv.agents", "gcv.sim", "gcv.simio",
                          "gcv.batch", "gcv.analysis", "gcv.evidence", "gcv.service", "gcv.console",
                          "gcv.evaluation.evaluate", "gcv.validation.validate", "gcv.repair.search",
                          "gcv.repair.calculators", "gcv.contract.jsonschema_check")


def unwanted_gcv(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == u or m.startswith(u + ".") for u in READ_ONLY_UNWANTED_GCV))


@pytest.fixture(scope="module")
def workspaces(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    """(workspace, workflow id) of an evidence-ready workflow (checks, telemetry, a change) and
    of one that awaits the designer's choice (trade-offs): the two richest summaries."""
    from gcv.store.catalog import Workspace
    from gcv.workflow.reading import read_workflow
    from tests.support.evidenceutil import run_workflow

    ready, choice = tmp_path_factory.mktemp("ready"), tmp_path_factory.mktemp("choice")
    made = {"evidence_ready": (ready, run_workflow(ready)[1]),
            "awaiting_choice": (choice, run_workflow(choice, whole_fight_scope=False, choose=None)[1])}
    for status, (home, wf_id) in made.items():
        assert read_workflow(Workspace(home), wf_id)[1].status == status
    return made


@pytest.mark.parametrize("which", ["evidence_ready", "awaiting_choice"])
@pytest.mark.parametrize("json_flag", [[], ["--json"]], ids=["human", "json"])
def test_status_reads_the_workflow_without_the_loop(tmp_path: Path, workspaces: dict[str, tuple[Path, str]],
                                                    which: str, json_flag: list[str]) -> None:
    home, wf_id = workspaces[which]
    code, modules = imported(tmp_path, "status", wf_id, *json_flag, home=home)
    assert code == 0
    assert {"gcv.workflow.reading", "gcv.workflow.summary"} <= modules  # the probe saw the real status
    assert "pydantic" in tops(modules)  # the state's models (typer's parameters need it too)
    assert not READ_ONLY_UNWANTED & tops(modules), sorted(READ_ONLY_UNWANTED & tops(modules))
    assert not unwanted_gcv(modules), unwanted_gcv(modules)


def test_status_of_an_unknown_workflow_imports_no_more(tmp_path: Path,
                                                      workspaces: dict[str, tuple[Path, str]]) -> None:
    code, modules = imported(tmp_path, "status", "wf-nope", "--json", home=workspaces["evidence_ready"][0])
    assert code == 2
    assert not READ_ONLY_UNWANTED & tops(modules) and not unwanted_gcv(modules)


@pytest.mark.parametrize("json_flag", [[], ["--json"]], ids=["human", "json"])
def test_list_reads_the_catalog_only(tmp_path: Path, workspaces: dict[str, tuple[Path, str]],
                                     json_flag: list[str]) -> None:
    code, modules = imported(tmp_path, "list", *json_flag, home=workspaces["evidence_ready"][0])
    assert code == 0
    assert "gcv.store.catalog" in modules
    assert not READ_ONLY_UNWANTED & tops(modules), sorted(READ_ONLY_UNWANTED & tops(modules))
    assert not unwanted_gcv(modules), unwanted_gcv(modules)
    # the catalog's rows are plain dicts: not even the state's models
    assert not {m for m in modules if m.startswith("gcv.workflow")}, sorted(m for m in modules if m.startswith("gcv.workflow"))
