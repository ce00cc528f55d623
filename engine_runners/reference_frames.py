"""Frames from the reference renderer for an engine run that could not render here.

A Unity editor never renders, a headless player (``-nographics``) or a Dedicated Server
build cannot, and neither can the UE commandlet or the harnesses. Their gameplay is bit
for bit the reference simulator's, so the frames a capture run asks for are drawn by the
reference renderer from the same program, seed and player, and labelled ``reference``
(``RunResult.frames_source``), never passed off as engine captures. The reference run's
final state hash must equal the engine's (``telemetry.state_hash``): frames are only
drawn for a run they provably show.
"""

from __future__ import annotations

from pathlib import Path

from engine_runners.protocol import FRAMES_DIR, ExitCode, RunRequest, frame_name
from gcv.sim.engine import Simulation
from gcv.simio.render import write_frame


class ReferenceFramesError(Exception):
    """The reference run does not match the engine's, or frames could not be written."""


def render_reference_frames(request: RunRequest, *, expected_state_hash: str) -> list[Path]:
    """Draw ``request.capture_ticks`` into ``<output_dir>/frames``; return the paths written."""
    sim = Simulation(request.program, request.player.model_dump())
    result = sim.run(seed=request.seed, capture_ticks=tuple(request.capture_ticks))
    if sim.state_hash() != expected_state_hash:
        raise ReferenceFramesError(f"the reference run ends in state {sim.state_hash()[:12]}..., the engine's in "
                                   f"{expected_state_hash[:12]}...: frames would not show the engine's run "
                                   f"(exit code {int(ExitCode.HASH_MISMATCH)} territory: a parity bug)")
    out = Path(request.output_dir) / FRAMES_DIR
    paths = []
    try:
        out.mkdir(parents=True, exist_ok=True)
        for snap in result.snapshots:
            path = out / frame_name(snap.tick)
            write_frame(path, request.program, snap)
            paths.append(path)
    except OSError as exc:
        raise ReferenceFramesError(f"cannot write reference frames to {out}: {exc.strerror}") from None
    return paths
