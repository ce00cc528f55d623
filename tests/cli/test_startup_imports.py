"""What each command imports (start-up time): asserted on ``sys.modules`` of a real ``gcv``
process at exit, never on times. ``--help`` imports none of the heavy libraries (rich, for the
console and the table helper, is the one left); ``validate``
imports no chart, table or console-server library; the README's ``gcv run`` draws its
report's charts without matplotlib and writes no table (no pandas, no pyarrow)."""

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


def imported(tmp_path: Path, *args: str) -> tuple[int, set[str]]:
    out = tmp_path / "modules.json"
    env = dict(os.environ, GCV_HOME=str(tmp_path / "home"), PYTHONPATH=str(REPO))
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
