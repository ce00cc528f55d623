"""The baseline registry: versions with provenance, in the workspace.

Version 1 is the committed baseline file, registered on first use; ``gcv decide --promote``
adds a version from a verified candidate; ``gcv baselines rollback`` makes an earlier
version active again (recorded, never deleted). The committed file is never modified.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gcv.contract.canonical import config_hash
from gcv.contract.loading import default_baseline_path, load_config
from gcv.contract.models import BulletHellConfig
from gcv.workflow.store import Workspace


def ensure_registry(ws: Workspace, now: float) -> list[dict[str, Any]]:
    versions = ws.baselines()
    if not versions:
        path = default_baseline_path()
        config = load_config(path)
        ws.add_baseline(config.model_dump(mode="json"), config_hash=config_hash(config), created_at=now,
                        source=f"committed file {path.name}", workflow_id=None, actor=None,
                        note="registered from the committed baseline")
        versions = ws.baselines()
    return versions


def active_baseline(ws: Workspace, now: float) -> tuple[BulletHellConfig, str]:
    versions = ensure_registry(ws, now)
    active = next((v for v in versions if v["active"]), versions[-1])
    config = BulletHellConfig.model_validate(ws.baseline_config(active["config_hash"]))
    return config, f"registry v{active['version']}"


def resolve_baseline(ws: Workspace, path: Path | None, now: float) -> tuple[BulletHellConfig, str]:
    """``--baseline PATH`` wins; otherwise the registry's active version."""
    if path is not None:
        return load_config(path), str(path)
    return active_baseline(ws, now)


def show(ws: Workspace, version: int) -> dict[str, Any]:
    for v in ensure_registry(ws, 0.0):
        if v["version"] == version:
            return {**v, "config": json.loads(json.dumps(ws.baseline_config(v["config_hash"])))}
    raise KeyError(version)


def rollback(ws: Workspace, to_version: int | None, now: float) -> dict[str, Any]:
    versions = ensure_registry(ws, now)
    active = next((v for v in versions if v["active"]), versions[-1])
    if to_version is None:
        earlier = [v for v in versions if v["version"] < active["version"]]
        if not earlier:
            raise ValueError(f"v{active['version']} is the first version; there is nothing to roll back to")
        to_version = earlier[-1]["version"]
    ws.activate_baseline(to_version)
    return {"from_version": active["version"], "to_version": to_version}
