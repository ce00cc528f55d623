"""Planted bugs: a copy of an engine core with one comparison changed, to show that the
directed golden vectors catch what the scenario vectors and random parity once let through
(an independent check planted `<` for `<=` in the C++ graze test and the C# hit test: both
survived 1,000 random cases and every scenario vector)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Mutation:
    """Replace ``old`` (which must occur exactly once) by ``new`` in ``file``; ``vector`` is the
    directed vector that must then fail; ``bytes_only``: only the written bytes differ."""

    name: str
    file: str
    old: str
    new: str
    vector: str
    bytes_only: bool = False


def plant(source_root: Path, copy_root: Path, parts: list[str], mutation: Mutation | None) -> Path:
    """Copy ``parts`` (folders relative to ``source_root``) into ``copy_root`` and plant the
    mutation there. Fails loudly when the code moved on and the pattern is gone."""
    for part in parts:
        shutil.copytree(source_root / part, copy_root / part, ignore=shutil.ignore_patterns("bin", "*.meta"))
    if mutation is not None:
        target = copy_root / mutation.file
        text = target.read_text(encoding="utf-8")
        found = text.count(mutation.old)
        assert found == 1, f"{mutation.name}: {mutation.old!r} occurs {found} times in {mutation.file}, not once"
        target.write_text(text.replace(mutation.old, mutation.new), encoding="utf-8")
    return copy_root
