"""Helpers shared by the simulator tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
VECTORS = sorted((REPO / "artifacts" / "vectors").glob("*.json"))
BASELINE_PATH = REPO / "artifacts" / "baselines" / "shrine_trial.json"


def load_vector(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def baseline_program() -> dict[str, Any]:
    from gcv.contract.models import BulletHellConfig
    from gcv.sim.program import compile_program

    return compile_program(BulletHellConfig.model_validate(json.loads(BASELINE_PATH.read_text())))


class Clock:
    """A deterministic clock for the workflow: every reading is ``step`` seconds later."""

    def __init__(self, step: float = 0.25) -> None:
        self.t, self.step = 1_800_000_000.0, step

    def __call__(self) -> float:
        self.t += self.step
        return self.t
