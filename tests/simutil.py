"""Helpers shared by the simulator tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
VECTORS = sorted((REPO / "artifacts" / "vectors").glob("*.json"))
BASELINE_PATH = REPO / "artifacts" / "baselines" / "shrine_trial.json"


def load_vector(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def baseline_program() -> dict[str, Any]:
    from gcv.contract.models import BulletHellConfig
    from gcv.sim.program import compile_program

    return compile_program(BulletHellConfig.model_validate(json.loads(BASELINE_PATH.read_text())))
