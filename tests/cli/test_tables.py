"""Every table the CLI prints, at 80 columns (the width of a CI log and of a pipe): ids, paths and
numbers appear whole on one line, and words are never folded (issue 19.2)."""

from __future__ import annotations

import ast
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.text import Text
from typer.testing import CliRunner

from gcv.cli import tables
from gcv.cli.app import app
from gcv.cli.tables import WHOLE, Col, TableSpec, print_table
from tests.support.batchutil import BASELINE_PATH, write_configs, write_spec

REPO = Path(__file__).resolve().parents[2]
REQUEST = "make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive and keep the low FPS at 55 or above"
WF_ID = "wf-20261201-013712-9cb209"
LONG_PATH = "/tmp/pytest-of-someone/pytest-12/test_a_long_name0/ws/workflows/" + WF_ID + "/evidence/report.html"


def _render(width: int, *args: Any, **kwargs: Any) -> tuple[str, str]:
    buf = io.StringIO()
    con = Console(file=buf, width=width, color_system=None, highlight=False, soft_wrap=True)
    form = print_table(con, *args, **kwargs)
    return buf.getvalue(), form


def _whole_on_a_line(output: str, text: str) -> bool:
    return any(text in line for line in output.splitlines())


def _problems(spec: TableSpec, output: str) -> list[str]:
    """Cells of a printed table that do not appear whole: an id, path or number cut, folded or
    wrapped, or a word of a text cell folded in the middle."""
    out = [f"{spec.title or '(untitled)'}: header {col.header!r} cut" for col in spec.columns
           if spec.form != "blocks" and spec.show_header and col.kind in WHOLE and not (spec.form == "narrow" and col.optional)
           and col.header and not _whole_on_a_line(output, col.header)]
    for row in spec.rows:
        for col, value in zip(spec.columns, row):
            if spec.form == "narrow" and col.optional:
                continue  # dropped on purpose; the narrow form says so by leaving the column out
            text = value.plain
            pieces = [text] if col.kind in WHOLE else text.split()
            out += [f"{spec.title or '(untitled)'} / {col.header}: {piece!r}" for piece in pieces
                    if piece and not _whole_on_a_line(output, piece)]
    return out


# --- the helper itself ---------------------------------------------------------------------------

def test_a_table_that_fits_is_a_table_with_whole_ids() -> None:
    out, form = _render(120, [Col("workflow", "id"), Col("status", "id"), Col("request")],
                        [[WF_ID, "evidence_ready", REQUEST]], title="workflows")
    assert form == "table" and _whole_on_a_line(out, WF_ID) and "┃ workflow" in out
    assert all(len(line) <= 120 for line in out.splitlines())


def test_a_narrow_console_drops_optional_columns_first() -> None:
    cols = [Col("workflow", "id"), Col("status", "id"), Col("engine", "id", optional=True),
            Col("provider", "id", optional=True), Col("request")]
    out, form = _render(80, cols, [[WF_ID, "evidence_ready", "python-sim (asked unity)", "offline", "a b c"]])
    assert form == "narrow" and _whole_on_a_line(out, WF_ID) and "python-sim" not in out
    assert all(len(line) <= 80 for line in out.splitlines())


def test_what_cannot_fit_becomes_one_block_per_record_with_whole_paths() -> None:
    out, form = _render(80, [Col("file", "path"), Col("bytes", "num"), Col("what")],
                        [[LONG_PATH, 123456789, "the report"], ["short", 1, "another"]], title="evidence")
    assert form == "blocks"
    assert f"- file: {LONG_PATH}" in out.splitlines() and "  bytes: 123456789" in out.splitlines()
    assert out.splitlines()[0] == "evidence"


def test_cells_are_plain_text_never_markup() -> None:
    out, _ = _render(80, ["field", "value"], [["$.phases[1].pattern", "[red]x[/]"]])
    assert "$.phases[1].pattern" in out and "[red]x[/]" in out


def test_a_row_with_the_wrong_number_of_cells_is_refused() -> None:
    with pytest.raises(ValueError, match="2 cells for 3 columns"):
        _render(80, ["a", "b", "c"], [["1", "2"]])


def test_old_style_folding_would_have_cut_the_id() -> None:
    """The check the command test applies does catch a folded id (it can fail)."""
    buf = io.StringIO()
    from rich.table import Table

    table = Table("workflow", "status", "engine", "provider", "request")
    table.add_row(WF_ID, "evidence_ready", "python-sim", "offline", REQUEST)
    Console(file=buf, width=80, color_system=None).print(table)
    spec = TableSpec(columns=[Col("workflow", "id"), Col("status", "id"), Col("engine"), Col("provider"),
                              Col("request")],
                     rows=[[Text(WF_ID), Text("evidence_ready"), Text("python-sim"), Text("offline"), Text(REQUEST)]])
    assert _problems(spec, buf.getvalue())


def test_no_command_builds_its_own_rich_table() -> None:
    """Every table goes through gcv.cli.tables (the only place that imports rich's Table)."""
    offenders = []
    for path in sorted((REPO / "gcv" / "cli").rglob("*.py")):
        if path.name == "tables.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "rich.table":
                offenders.append(str(path.relative_to(REPO)))
    assert offenders == []


# --- every table the CLI prints ------------------------------------------------------------------

@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A workspace with a finished workflow and a bundle, configs, a batch spec, a bad candidate."""
    root = tmp_path_factory.mktemp("tables_at_80_columns_with_a_long_folder_name")
    mp = pytest.MonkeyPatch()
    mp.setenv("GCV_HOME", str(root / "ws"))
    try:
        result = CliRunner().invoke(app, ["run", REQUEST, "--yes", "--repair-scope", "fight", "--json"])
        out = json.loads(result.stdout)
        assert result.exit_code == 0, result.stdout
        second = json.loads(CliRunner().invoke(app, ["run", REQUEST, "--yes", "--repair-scope", "fight", "--seed", "2", "--json"]).stdout)
    finally:
        mp.undo()
    base, dense = write_configs(root / "configs")
    bad = json.loads(BASELINE_PATH.read_text(encoding="utf-8"))
    bad["phases"][1]["pattern"]["bullets_per_wave"] = 100000
    bad_path = root / "configs" / "bad_candidate_with_a_long_file_name.json"
    bad_path.write_text(json.dumps(bad), encoding="utf-8")
    spec = write_spec(root / "spec", f'configs = ["{base}", "{dense}"]\nseeds = 2\n'
                                     'players = ["scripted", "bot:average"]\n'
                                     f'output = "{root / "batch_out"}"\n'
                                     '[[gate]]\nfail_if = "survival_rate < 0.9"\n')
    for name, survival in (("a", 0.953125), ("b", 0.8125)):
        summary = {"summary": [{"config_label": "shrine_trial_with_a_long_label", "config_hash": name * 64,
                                "player": "bot:average", "engine": "python-sim",
                                "metrics": {"runs": 64, "survival_rate": survival, "hits_mean": 1.234567}}]}
        (root / f"batch_{name}").mkdir()
        (root / f"batch_{name}" / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    return {"root": root, "wf": out["workflow_id"], "wf2": second["workflow_id"],
            "bundle": out["evidence"]["bundle"], "base": str(base), "dense": str(dense), "bad": str(bad_path),
            "spec": str(spec)}


COMMANDS: list[tuple[str, list[str], int]] = [
    ("list", ["list"], 0),
    ("baselines list", ["baselines", "list"], 0),
    ("status", ["status", "{wf}"], 0),
    ("engines", ["engines"], 0),
    ("agents", ["agents"], 0),
    ("sim", ["sim", "{dense}"], 0),
    ("validate", ["validate", "{bad}"], 1),
    ("diff", ["diff", "{base}", "{dense}"], 0),
    ("propose", ["propose", REQUEST], 0),
    ("propose with issues", ["propose", "phase 2: 100000 bullets per wave"], None),
    ("verify", ["verify", "{bundle}"], 0),
    ("fair", ["fair", "{dense}", "--budget-seconds", "5"], None),
    ("batch", ["batch", "{spec}", "--workers", "1"], None),
    ("eval-requests", ["eval-requests", str(REPO / "artifacts" / "requests" / "heldout.jsonl"), "--misses", "0"],
     None),
    ("compare workflows", ["compare", "{wf}", "{wf2}"], 0),
    ("compare batches", ["compare", "{root}/batch_a", "{root}/batch_b/summary.json"], 0),
]


@pytest.mark.slow
@pytest.mark.parametrize("name,args,code", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_every_table_at_80_columns_keeps_ids_paths_and_numbers_whole(
        world: dict[str, Any], name: str, args: list[str], code: int | None,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCV_HOME", str(world["root"] / "ws"))
    monkeypatch.setenv("COLUMNS", "80")
    for var in ("ANTHROPIC_API_KEY", "GCV_UNITY_PLAYER", "GCV_UNITY_EDITOR", "GCV_UE_EDITOR_CMD", "GCV_UE_GAME"):
        monkeypatch.delenv(var, raising=False)
    seen: list[TableSpec] = []
    monkeypatch.setattr(tables, "observers", [seen.append])
    result = CliRunner().invoke(app, [a.format(**world) for a in args])
    if code is not None:
        assert result.exit_code == code, result.output
    assert seen, f"{name} printed no table"
    problems = [p for spec in seen for p in _problems(spec, result.stdout)]
    assert problems == [], "\n".join(problems) + "\n" + result.stdout
    for spec in seen:
        if spec.form != "blocks":  # a table is as wide as the console, never wider
            assert spec.title is None or _whole_on_a_line(result.stdout, spec.title)
    widths = [len(line) for line in result.stdout.splitlines() if re.match(r"^[┏┃┡│└┌├╭]", line)]
    assert all(w <= 80 for w in widths), max(widths)
