"""The loop's reference simulation: on the native C++ core where it is exact, else in Python.

The loop judges gameplay in the reference simulator (python-sim, the specification) beside
the engine: the pre-screen before every engine run, every rung of the repair search, the
trade-offs it offers outside the authorized scope (all three through
``gcv.workflow.activities.reference_run``), and the witness replays of the fair-fight
analysis (``gcv.analysis``, handed :func:`telemetry`). Each needs a run's telemetry and
nothing more, and the native core (``engine_runners.native``) returns python-sim's
telemetry bit for bit (its tests prove it), so each goes through this module, the one
place that picks the path:

* the native core when this process has one (``GCV_NATIVE=auto`` with a compiler or a
  cached library, or ``require``), 20 to 70 times less CPU a fight;
* the Python simulator otherwise: ``GCV_NATIVE=off``, no core on this machine, inside
  :func:`engine_runners.native.python_only`, or a program the core refuses (a number beyond
  its int64-safe bounds; under ``require`` that is an error, as for batches). A request the
  core refuses (a malformed player or program) is run in Python too, so the refusal is
  python-sim's, in its words, whichever path was picked.

What the loop records does not depend on the path: the telemetry is the same dict (and the
same bytes once written). What needs more than telemetry stays in Python, because the C ABI
gives only telemetry: the reference frames of an engine that cannot render (per-tick
snapshots; ``engine_runners.reference_frames``), the fair-fight analysis's bot candidates
(the bot's move at every tick; ``gcv.analysis.cheap``), the report's frames and the
console's fight viewer. ``gcv verify --replay`` recomputes everything with the Python
simulator (``gcv.evidence.replay`` runs inside ``native.python_only``): the cross-check of
figures the native core may have produced is the specification itself.
"""

from __future__ import annotations

from typing import Any

from engine_runners import native
from engine_runners.native import NativeProgramRefused, NativeRequestError, PathName
from engine_runners.protocol import RunRequest
from engine_runners.python_sim import check_hashes, execute
from gcv.sim.engine import Simulation

# what a run measures about itself, left out: a reference run is recomputed by ``verify --replay``
WALL_CLOCK_FIELDS = ("wall_time_ms",)


def _native_run(program: dict[str, Any], player: dict[str, Any], seed: int, *, digest: str | None,
                label: str | None, run_id: str) -> dict[str, Any] | None:
    """The telemetry from the native core, or None where the Python simulator must run it."""
    core = native.core()  # NativeUnavailable under GCV_NATIVE=require without a core
    if core is None:
        return None
    try:
        return core.program(program, digest).run(player, seed, label=label, run_id=run_id)
    except NativeProgramRefused:
        if native.mode() == "require":
            raise
        return None
    except NativeRequestError:
        return None  # python-sim refuses it below, in its words


def telemetry(program: dict[str, Any], player: dict[str, Any], seed: int) -> dict[str, Any]:
    """``Simulation(program, player).run(seed=seed).telemetry``, on the native core where this
    process has one. The fair-fight analysis replays its witnesses through it."""
    found = _native_run(program, player, seed, digest=None, label=None, run_id="")
    return found if found is not None else Simulation(program, player).run(seed=seed).telemetry


def run_request(request: RunRequest, *, python: bool = False) -> tuple[dict[str, Any], PathName]:
    """A request's telemetry in the reference simulator, writing nothing, and the path that ran.

    The telemetry is python-sim's (``python_sim.execute(request, write_outputs=False)``)
    without the wall-clock figure a run measures about itself, so it is deterministic.
    ``python=True`` runs the Python simulator whatever the machine has. Raises
    ``python_sim.RequestError`` for a request python-sim refuses (hashes that do not match,
    a malformed program), whichever path was picked.
    """
    if not python:
        check_hashes(request)
        found = _native_run(request.program, request.player.model_dump(), request.seed, digest=request.program_hash,
                            label=request.player_label, run_id=request.run_id)
        if found is not None:
            return found, "native"
    done, _ = execute(request, write_outputs=False)
    return {k: v for k, v in done.items() if k not in WALL_CLOCK_FIELDS}, "python"


__all__ = ["WALL_CLOCK_FIELDS", "run_request", "telemetry"]
