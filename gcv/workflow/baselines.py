"""The baseline registry: versions with provenance, in the workspace.

Version 1 is the committed baseline file, registered on first use (once, even when two
processes start together on an empty workspace); ``gcv decide --promote`` adds a version
from a verified candidate; ``gcv baselines rollback`` makes an earlier version active
again. Every activation is recorded with who, when and why (``baselines show`` lists
them); nothing is ever deleted, and the committed file is never modified.

Versions are named ``v2`` or ``2``, everywhere.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from gcv.contract.canonical import config_hash
from gcv.contract.loading import default_baseline_path, load_config
from gcv.contract.models import BulletHellConfig
from gcv.store.catalog import Workspace

_VERSION = re.compile(r"^\s*[vV]?(\d{1,9})\s*$")


class BaselineError(ValueError):
    """A version that does not exist, or a rollback that cannot be done."""


def parse_version(text: str | int) -> int:
    """``v2``, ``V2`` or ``2`` -> 2."""
    if isinstance(text, int):
        return text
    m = _VERSION.match(text)
    if not m or int(m.group(1)) < 1:
        raise BaselineError(f"{text!r} is not a baseline version; write it as v2 or 2")
    return int(m.group(1))


def version_name(version: int) -> str:
    return f"v{version}"


def ensure_registry(ws: Workspace, now: float) -> list[dict[str, Any]]:
    versions = ws.baselines()
    if not versions:
        path = default_baseline_path()
        config = load_config(path)
        ws.register_first_baseline(config.model_dump(mode="json"), config_hash=config_hash(config), created_at=now,
                                   source=f"committed file {path.name}", note="registered from the committed baseline")
        versions = ws.baselines()
    return versions


def active_version(ws: Workspace, now: float) -> dict[str, Any]:
    versions = ensure_registry(ws, now)
    return next((v for v in versions if v["active"]), versions[-1])


def active_baseline(ws: Workspace, now: float) -> tuple[BulletHellConfig, str]:
    active = active_version(ws, now)
    config = BulletHellConfig.model_validate(ws.baseline_config(active["config_hash"]))
    return config, f"registry {version_name(active['version'])}"


def resolve_baseline(ws: Workspace, path: Path | None, now: float) -> tuple[BulletHellConfig, str]:
    """``--baseline PATH`` wins; otherwise the registry's active version."""
    if path is not None:
        return load_config(path), str(path)
    return active_baseline(ws, now)


def history(ws: Workspace, now: float) -> list[dict[str, Any]]:
    ensure_registry(ws, now)
    return ws.baseline_activations()


def show(ws: Workspace, version: int | str, now: float = 0.0) -> dict[str, Any]:
    number = parse_version(version)
    for v in ensure_registry(ws, now):
        if v["version"] == number:
            return {**v, "name": version_name(number), "config": ws.baseline_config(v["config_hash"]),
                    "activations": [a for a in ws.baseline_activations() if a["version"] == number]}
    raise BaselineError(f"no baseline version {version_name(number)}; see `gcv baselines list`")


def rollback(ws: Workspace, to_version: int | str | None, now: float, *, actor: str, note: str) -> dict[str, Any]:
    """Make an earlier version active, recording who did it and why (both required)."""
    if not actor.strip():
        raise BaselineError("a rollback needs an actor name (--actor)")
    if not note.strip():
        raise BaselineError("a rollback needs a note saying why (--note)")
    versions = ensure_registry(ws, now)
    active = next((v for v in versions if v["active"]), versions[-1])
    if to_version is None:
        earlier = [v for v in versions if v["version"] < active["version"]]
        if not earlier:
            raise BaselineError(f"{version_name(active['version'])} is the first version; there is nothing to roll "
                                "back to")
        target = earlier[-1]["version"]
    else:
        target = parse_version(to_version)
        if target not in {v["version"] for v in versions}:
            raise BaselineError(f"no baseline version {version_name(target)}; see `gcv baselines list`")
        if target == active["version"]:
            raise BaselineError(f"{version_name(target)} is already the active version")
    ws.activate_baseline(target, at=now, actor=actor, note=note, action="rolled_back")
    return {"from_version": active["version"], "to_version": target, "actor": actor, "note": note, "at": now}


__all__ = ["BaselineError", "parse_version", "version_name", "ensure_registry", "active_version", "active_baseline",
           "resolve_baseline", "history", "show", "rollback"]
