"""Helpers for the evaluation / policy / repair / review tests: real runs and edited telemetry."""

from __future__ import annotations

import copy
from functools import lru_cache
from pathlib import Path
from typing import Any

from gcv.contract.goal import Goal
from gcv.contract.loading import load_config
from gcv.contract.models import BulletHellConfig
from gcv.evaluation.evaluate import evaluate
from gcv.evaluation.models import Evaluation
from gcv.sim.engine import Simulation
from gcv.sim.program import compile_program

BASELINE_PATH = Path(__file__).resolve().parents[2] / "artifacts" / "baselines" / "shrine_trial.json"


def base() -> BulletHellConfig:
    """A fresh copy of the committed baseline."""
    return _base().model_copy(deep=True)


@lru_cache(maxsize=1)
def _base() -> BulletHellConfig:
    return load_config(BASELINE_PATH)


def variant(config: BulletHellConfig, phase_id: str, **pattern: Any) -> BulletHellConfig:
    """``config`` with some pattern fields of one phase replaced (validated)."""
    data = config.model_dump(mode="json")
    phase = next(p for p in data["phases"] if p["phase_id"] == phase_id)
    phase["pattern"].update(pattern)
    return BulletHellConfig.model_validate(data)


def with_targets(config: BulletHellConfig, **targets: Any) -> BulletHellConfig:
    data = config.model_dump(mode="json")
    data["targets"].update(targets)
    return BulletHellConfig.model_validate(data)


_RUNS: dict[str, dict[str, Any]] = {}


def run(config: BulletHellConfig) -> dict[str, Any]:
    """Telemetry of the scripted player, seed 0 (cached per config; returns a copy)."""
    key = config.model_dump_json()
    if key not in _RUNS:
        _RUNS[key] = Simulation(compile_program(config), {"kind": "scripted"}).run(seed=0).telemetry
    return copy.deepcopy(_RUNS[key])


def base_telemetry() -> dict[str, Any]:
    return run(base())


def edit(telemetry: dict[str, Any], phases: dict[str, dict[str, Any]] | None = None,
         **fields: Any) -> dict[str, Any]:
    """A copy of ``telemetry`` with top-level fields and per-phase fields replaced."""
    out = copy.deepcopy(telemetry)
    out.update(fields)
    for phase_id, values in (phases or {}).items():
        next(p for p in out["phase_results"] if p["phase_id"] == phase_id).update(values)
    return out


def evaluation(telemetry: dict[str, Any], *, candidate: BulletHellConfig | None = None,
               goal: Goal | None = None, baseline: BulletHellConfig | None = None,
               baseline_telemetry: dict[str, Any] | None = None) -> Evaluation:
    b = baseline or base()
    return evaluate(baseline=b, goal=goal,
                    baseline_telemetry=baseline_telemetry or base_telemetry(),
                    candidate=candidate or b, candidate_telemetry=telemetry)


def over_budget(peak: int = 420, phase_id: str = "phase_2") -> dict[str, Any]:
    """Baseline telemetry with ``peak`` bullets alive at once in ``phase_id``."""
    return edit(base_telemetry(), phases={phase_id: {"peak_alive_bullets": peak}},
                peak_alive_bullets=peak)


def too_many_hits(hits: int = 5, phase_id: str = "phase_2") -> dict[str, Any]:
    """Baseline telemetry with ``hits`` hits, all in ``phase_id`` (the player still survived)."""
    zero = {p["phase_id"]: {"player_hits": 0} for p in base_telemetry()["phase_results"]}
    zero[phase_id] = {"player_hits": hits}
    return edit(base_telemetry(), phases=zero, player_hits=hits)
