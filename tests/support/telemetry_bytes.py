"""Byte-level telemetry parity: what the Python writer would put in telemetry.json for a run.

The three writers (python-sim's ``write_json_atomic``, the C# harness, the C++ harness and the
native library) must produce the same bytes, not only the same parsed values: ``16`` and
``16.0`` parse alike but are different files, and a reviewer diffing two engines' telemetry
should see only what really differs. Who ran it (``engine``, ``run_id``) and how long it took
(``wall_time_ms``) are the engine's own; every other byte must be Python's.
"""

from __future__ import annotations

import json
from typing import Any

OWN_FIELDS = ("engine", "run_id", "wall_time_ms")


def python_writer_bytes(document: dict[str, Any]) -> bytes:
    """engine_runners.base.write_json_atomic's bytes for ``document``."""
    return (json.dumps(document, indent=1, sort_keys=True) + "\n").encode("utf-8")


def expected_bytes(python_telemetry: dict[str, Any], engine_telemetry: dict[str, Any]) -> bytes:
    """Python's telemetry with the engine's own fields, as the Python writer writes it."""
    doc = {k: v for k, v in python_telemetry.items() if k not in OWN_FIELDS}
    doc.update({k: engine_telemetry[k] for k in OWN_FIELDS if k in engine_telemetry})
    return python_writer_bytes(doc)


def first_byte_difference(expected: bytes, got: bytes) -> str | None:
    """None when equal; else the first differing line of each, for an assertion message."""
    if expected == got:
        return None
    a, b = expected.decode("utf-8", "replace").splitlines(), got.decode("utf-8", "replace").splitlines()
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"line {i + 1}: python writes {x.strip()!r}, the engine {y.strip()!r}"
    return f"python writes {len(a)} lines, the engine {len(b)}"
