"""Every schema in the registry equals its committed file in schemas/ (no drift)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from gcv.contract.jsonschema_check import SCHEMA_BASE_URL, SCHEMA_DIALECT
from gcv.schema_export import SCHEMAS, export_all, render


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_committed_schema_matches_registry(name: str, repo_root: Path) -> None:
    path = repo_root / "schemas" / name
    assert path.is_file(), f"schemas/{name} is missing: run `gcv schema export`"
    committed = path.read_text(encoding="utf-8")
    assert committed == render(SCHEMAS[name]()), (
        f"schemas/{name} differs from what the code generates; run `gcv schema export` "
        "and commit the result")


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_schema_is_valid_draft_2020_12(name: str) -> None:
    schema = SCHEMAS[name]()
    assert schema["$schema"] == SCHEMA_DIALECT
    assert schema["$id"] == SCHEMA_BASE_URL + name
    Draft202012Validator.check_schema(schema)


def test_no_pydantic_only_keywords_leak(repo_root: Path) -> None:
    # pydantic writes Int(...) bounds as ge/le, which JSON Schema silently ignores
    def walk(node: object) -> None:
        if isinstance(node, dict):
            if "type" in node:
                assert not {"ge", "le", "gt", "lt"} & set(node), node
            for key, value in node.items():
                if key != "properties":
                    walk(value)
                else:
                    for sub in value.values():
                        walk(sub)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    for name in SCHEMAS:
        walk(json.loads((repo_root / "schemas" / name).read_text(encoding="utf-8")))


def test_export_all_writes_every_schema(tmp_path: Path, repo_root: Path) -> None:
    written = export_all(tmp_path / "out")
    assert sorted(p.name for p in written) == sorted(SCHEMAS)
    for path in written:
        text = path.read_text(encoding="utf-8")
        assert text.endswith("}\n")
        assert text == (repo_root / "schemas" / path.name).read_text(encoding="utf-8")


def _repo_copy(repo_root: Path, target: Path) -> Path:
    """The generated files of a clean tree (schemas/ and the engine cores' bounds files), copied."""
    import shutil

    from gcv.schema_export import ENGINE_FILES

    shutil.copytree(repo_root / "schemas", target / "schemas")
    for rel in ENGINE_FILES:
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(repo_root / rel, target / rel)
    return target


def test_schema_export_on_a_clean_tree_reports_nothing_changed(tmp_path: Path, repo_root: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """`gcv schema export --json` on a clean tree: 0 changed, the two bounds files included
    (issue 25.15: they were compared with nothing and always reported changed); a bounds file
    that drifted is the one file reported, and rewritten."""
    from typer.testing import CliRunner

    import gcv.contract.loading as loading
    from gcv.cli.app import app
    from gcv.schema_export import ENGINE_FILES

    root = _repo_copy(repo_root, tmp_path / "repo")
    monkeypatch.setattr(loading, "find_repo_root", lambda start=None: root)
    mtimes = {rel: (root / rel).stat().st_mtime_ns for rel in ENGINE_FILES}
    result = CliRunner().invoke(app, ["schema", "export", "--json"])
    assert result.exit_code == 0, result.stdout
    out = json.loads(result.stdout)
    paths = {Path(f["path"]) for f in out["written"]}
    assert {root / rel for rel in ENGINE_FILES} <= paths and len(paths) == len(SCHEMAS) + len(ENGINE_FILES)
    assert out["changed"] == 0, [f["path"] for f in out["written"] if f["changed"]]
    assert {rel: (root / rel).stat().st_mtime_ns for rel in ENGINE_FILES} == mtimes  # not rewritten

    drifted = root / next(iter(ENGINE_FILES))
    drifted.write_text(drifted.read_text(encoding="utf-8") + "// hand edit\n", encoding="utf-8")
    out = json.loads(CliRunner().invoke(app, ["schema", "export", "--json"]).stdout)
    assert [f["path"] for f in out["written"] if f["changed"]] == [str(drifted)] and out["changed"] == 1
    assert drifted.read_text(encoding="utf-8") == ENGINE_FILES[next(iter(ENGINE_FILES))]()
