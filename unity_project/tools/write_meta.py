#!/usr/bin/env python3
"""Write Unity .meta files with stable GUIDs for everything under Assets/.

GUID = md5 of the asset's path relative to the project ("Assets/Gcv/Core/Fixed.cs"), so the
same path always gets the same GUID on every machine and no editor is needed to create one.
Existing .meta files are left alone unless --force; --check only reports missing/stale ones
(exit 1), which is what the test suite runs.

Usage: python unity_project/tools/write_meta.py [--check] [--force]
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]

FOLDER = """fileFormatVersion: 2
guid: {guid}
folderAsset: yes
DefaultImporter:
  externalObjects: {{}}
  userData: 
  assetBundleName: 
  assetBundleVariant: 
"""
SCRIPT = """fileFormatVersion: 2
guid: {guid}
MonoImporter:
  externalObjects: {{}}
  serializedVersion: 2
  defaultReferences: []
  executionOrder: 0
  icon: {{instanceID: 0}}
  userData: 
  assetBundleName: 
  assetBundleVariant: 
"""
ASMDEF = """fileFormatVersion: 2
guid: {guid}
AssemblyDefinitionImporter:
  externalObjects: {{}}
  userData: 
  assetBundleName: 
  assetBundleVariant: 
"""
SHADER = """fileFormatVersion: 2
guid: {guid}
ShaderImporter:
  externalObjects: {{}}
  defaultTextures: []
  nonModifiableTextures: []
  preprocessorOverride: 0
  userData: 
  assetBundleName: 
  assetBundleVariant: 
"""
MATERIAL = """fileFormatVersion: 2
guid: {guid}
NativeFormatImporter:
  externalObjects: {{}}
  mainObjectFileID: 2100000
  userData: 
  assetBundleName: 
  assetBundleVariant: 
"""
OTHER = """fileFormatVersion: 2
guid: {guid}
DefaultImporter:
  externalObjects: {{}}
  userData: 
  assetBundleName: 
  assetBundleVariant: 
"""
TEMPLATES = {".cs": SCRIPT, ".asmdef": ASMDEF, ".shader": SHADER, ".mat": MATERIAL}


def guid_for(rel: str) -> str:
    return hashlib.md5(rel.encode("utf-8")).hexdigest()


def expected_metas(project: Path = PROJECT) -> dict[Path, str]:
    """{meta path: expected text} for every folder and file under Assets/ (not Assets itself)."""
    assets = project / "Assets"
    out: dict[Path, str] = {}
    for path in sorted(assets.rglob("*")):
        if path.name.endswith(".meta") or path.name.startswith("."):
            continue
        rel = path.relative_to(project).as_posix()
        template = FOLDER if path.is_dir() else TEMPLATES.get(path.suffix, OTHER)
        out[path.with_name(path.name + ".meta")] = template.format(guid=guid_for(rel))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report missing or stale .meta files")
    parser.add_argument("--force", action="store_true", help="rewrite existing .meta files")
    args = parser.parse_args()
    problems = []
    wanted = expected_metas()
    for meta, text in wanted.items():
        current = meta.read_text(encoding="utf-8") if meta.exists() else None
        if current == text:
            continue
        if args.check:
            problems.append(f"{'stale' if current is not None else 'missing'}: {meta.relative_to(PROJECT)}")
        elif current is None or args.force:
            meta.write_text(text, encoding="utf-8")
            print(f"wrote {meta.relative_to(PROJECT)}")
    for meta in sorted((PROJECT / "Assets").rglob("*.meta")):
        if meta not in wanted:
            problems.append(f"orphan: {meta.relative_to(PROJECT)}")
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
