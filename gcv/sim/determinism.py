"""``check_determinism``: run the same fight twice and explain any difference.

Like Gymnasium's env checker: two runs with the same seed (one on a fresh Simulation,
one on a reused one) must give identical telemetry, state hashes and generator state;
a mismatch names the first differing field and the likely cause.
"""

from __future__ import annotations

from typing import Any

from gcv.sim.engine import Simulation


class DeterminismError(AssertionError):
    pass


def _first_difference(a: Any, b: Any, path: str = "$") -> str | None:
    if type(a) is not type(b):
        return f"{path}: {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{path}.{key}: present in only one run"
            diff = _first_difference(a[key], b[key], f"{path}.{key}")
            if diff:
                return diff
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b)):
            diff = _first_difference(x, y, f"{path}[{i}]")
            if diff:
                return diff
        return f"{path}: lengths {len(a)} vs {len(b)}" if len(a) != len(b) else None
    return None if a == b else f"{path}: {a!r} vs {b!r}"


def check_determinism(program: dict[str, Any], player: dict[str, Any], *, seed: int) -> dict[str, Any]:
    """Return the telemetry if two runs agree; raise DeterminismError naming the cause."""
    fresh = Simulation(program, player)
    first = fresh.run(seed=seed).telemetry
    first_rng = fresh.rng.state
    reused = Simulation(program, player)
    reused.run(seed=seed ^ 0x5DEECE66D)  # dirty the instance with another seed first
    second = reused.run(seed=seed).telemetry
    diff = _first_difference(first, second)
    if diff:
        hint = ("state leaked between runs on a reused Simulation (reset must rebuild every "
                "array and counter)") if "state_hash" in diff or "hits" in diff else "non-deterministic input"
        raise DeterminismError(f"same seed {seed}, different telemetry at {diff}; likely cause: {hint}")
    if reused.rng.state != first_rng:
        raise DeterminismError("the generator ended in a different state: a draw happened out of order")
    return first
