"""The fair-fight analysis of a workflow's final candidate, for the review page (cached).

``gcv fair`` on the final candidate with the workflow's seed: the verdict, the safe-area
chart and the tightest frame. Computed on the first request (about a second for a fight
of the baseline's size) and kept in the workspace under ``cache/fair/<config hash>-s<seed>/``;
the analysis is deterministic, so the cache never goes stale.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from gcv.analysis.analyze import run_analysis
from gcv.analysis.frames import png_bytes, safe_area_svg
from gcv.contract.canonical import config_hash
from gcv.contract.models import BulletHellConfig
from gcv.store.atomic import atomic_write_bytes
from gcv.store.workflow_dir import WorkflowDir
from gcv.workflow.state import WorkflowState

BUDGET_SECONDS = 30.0


class FairCache:
    def __init__(self, cache_root: Path) -> None:
        self.root = cache_root / "fair"
        self._lock = threading.Lock()

    def folder(self, d: WorkflowDir, state: WorkflowState, side: str) -> tuple[Path, BulletHellConfig] | None:
        if side == "baseline":
            digest: str | None = state.baseline_hash
        else:
            digest = state.final_candidate_hash or (state.rounds[-1].candidate_hash if state.rounds else None)
        if digest is None:
            return None
        config = BulletHellConfig.model_validate(d.get(digest))
        return self.root / f"{config_hash(config)[:32]}-s{state.settings.seed}", config

    def get(self, d: WorkflowDir, state: WorkflowState, side: str) -> Path | None:
        """The folder holding ``report.json``, ``safe_area.svg`` and maybe ``tightest.png``."""
        found = self.folder(d, state, side)
        if found is None:
            return None
        folder, config = found
        if (folder / "report.json").is_file():
            return folder
        with self._lock:  # one analysis at a time: it is CPU-bound
            if (folder / "report.json").is_file():
                return folder
            analysis = run_analysis(config, seed=state.settings.seed, budget_seconds=BUDGET_SECONDS)
            atomic_write_bytes(folder / "safe_area.svg", safe_area_svg(analysis.report).encode("utf-8"))
            frame = analysis.unfair_frame() or analysis.tightest_frame()
            if frame is not None:
                atomic_write_bytes(folder / "tightest.png", png_bytes(frame))
            atomic_write_bytes(folder / "report.json",
                               json.dumps(analysis.report.model_dump(mode="json"), indent=1).encode("utf-8"))
        return folder

    @staticmethod
    def summary(folder: Path) -> dict[str, Any]:
        report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
        sa = report.get("safe_area") or {}
        return {"verdict": report["verdict"], "reason": report["reason"], "seed": report["seed"],
                "fight_ticks": report["fight_ticks"], "tightest_tick": sa.get("tightest_tick"),
                "tightest_phase_id": sa.get("tightest_phase_id"), "tightest_milli": sa.get("tightest_milli"),
                "unfair": report.get("unfair"), "has_frame": (folder / "tightest.png").is_file()}


__all__ = ["FairCache", "BUDGET_SECONDS"]
