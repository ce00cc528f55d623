"""Write the golden vectors (:mod:`gcv.simio.golden`) as files: one JSON per vector.

``python -m gcv.simio.golden_files --write artifacts/vectors`` (``make vectors``) after a
change to the simulation's semantics, in the same commit as the spec and the three
implementations (docs/simulation.md).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from gcv.simio.golden import build_vectors, vector_filename


def write_vectors(folder: Path) -> list[Path]:
    """Replace every ``*.json`` in ``folder`` with the current vectors; return the paths."""
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.json"):
        old.unlink()
    written = []
    for i, vector in enumerate(build_vectors(), start=1):
        path = folder / vector_filename(i, vector)
        path.write_text(json.dumps(vector, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        written.append(path)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", type=Path, required=True, help="output folder")
    args = parser.parse_args()
    for path in write_vectors(args.write):
        exp = json.loads(path.read_text(encoding="utf-8"))["expected"]
        print(f"{path.name}: {exp['status']} ticks={exp['ticks']} peak={exp['peak_alive_bullets']} "
              f"hits={exp['player_hits']} grazes={exp['grazes']} spawned={exp['total_bullets_spawned']}")


if __name__ == "__main__":
    main()
