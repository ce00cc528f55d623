"""The house's rules about imports hold: layers import strictly downward, and no two files
of a package import each other in a circle (the contracts are in pyproject.toml)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def test_lint_imports_keeps_every_contract() -> None:
    exe = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(exe), "--no-cache"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout


def test_library_code_imports_project_modules_at_the_top() -> None:
    """Only the CLI layer imports project modules inside functions (for start-up time)."""
    offenders = []
    for path in sorted((REPO / "gcv").rglob("*.py")) + sorted((REPO / "engine_runners").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if rel.startswith("gcv/cli/"):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            stripped = line.lstrip()
            if line != stripped and stripped.startswith(("from gcv", "import gcv", "from engine_runners",
                                                         "import engine_runners")):
                offenders.append(f"{rel}:{number}: {stripped}")
    assert not offenders, "function-local imports of project modules:\n" + "\n".join(offenders)


@pytest.mark.parametrize("contract", ["layers", "no import cycle", "gcv.service",
                                      "only through the use cases"])
def test_the_contracts_are_declared(contract: str) -> None:
    assert contract in (REPO / "pyproject.toml").read_text(encoding="utf-8")


def test_the_simulator_core_reads_and_writes_no_files() -> None:
    """gcv.sim computes; its files (frames, pools, golden vectors from the baseline) are gcv.simio's."""
    file_io = re.compile(r"\bopen\(|\.read_text\(|\.read_bytes\(|\.write_text\(|\.write_bytes\(|\bos\.replace\(")
    offenders = [f"{path.relative_to(REPO)}:{n}: {line.strip()}"
                 for path in sorted((REPO / "gcv" / "sim").rglob("*.py"))
                 for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
                 if file_io.search(line)]
    assert not offenders, "\n".join(offenders)


INTERFACES = sorted((REPO / "gcv" / "console").rglob("*.py")) + [REPO / "gcv/cli/commands/workflow_cmds.py"]


def test_the_interfaces_map_refusals_by_type_never_by_their_words() -> None:
    """A refusal's status or exit code follows its type (gcv.console.refusals, the CLI's
    fail_usage); reading an exception's message to choose one breaks when the words change."""
    by_words = re.compile(r"""["'][^"']*["']\s+(not\s+)?in\s+str\((exc|e|err|error)\)""")
    offenders = [f"{path.relative_to(REPO)}:{n}: {line.strip()}" for path in INTERFACES
                 for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
                 if by_words.search(line)]
    assert not offenders, "\n".join(offenders)


def test_the_console_s_routes_hold_no_workflow_rules() -> None:
    """A route reads the request and answers; what it does is a use case of gcv.service
    (through gcv.console.actions): no route drives the loop or the registry itself."""
    routes = sorted((REPO / "gcv" / "console" / "routes").glob("*.py"))
    assert routes, "the console's routers live in gcv/console/routes/"
    doing = re.compile(r"\.loop\(\)|\b(WorkflowLoop|finalize_evidence|rollback|check_transition)\b\s*\(|"
                       r"^from gcv\.workflow\.loop import|\.(authorize|answer|decide|advance|create)\(wf")
    offenders = [f"{path.relative_to(REPO)}:{n}: {line.strip()}" for path in routes
                 for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
                 if doing.search(line)]
    assert not offenders, "\n".join(offenders)
