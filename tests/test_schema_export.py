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
