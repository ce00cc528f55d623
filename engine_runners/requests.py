"""Building run requests from a validated config (the only way callers make one)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine_runners.protocol import RunRequest
from gcv.contract.models import BulletHellConfig
from gcv.sim.players import player_label
from gcv.sim.program import compile_program, program_hash


def build_request(config: BulletHellConfig | dict[str, Any], *, seed: int, player: dict[str, Any],
                  output_dir: str | Path, run_id: str, capture_ticks: list[int] | None = None) -> RunRequest:
    """``config`` is a validated config model, or an already compiled program dict."""
    program = compile_program(config) if isinstance(config, BulletHellConfig) else config
    return RunRequest(
        run_id=run_id,
        program=program,
        program_hash=program_hash(program),
        config_hash=program["config_hash"],
        seed=seed,
        player=player,  # type: ignore[arg-type]
        player_label=player_label(player),
        capture_ticks=sorted(set(capture_ticks or [])),
        output_dir=str(output_dir),
    )
