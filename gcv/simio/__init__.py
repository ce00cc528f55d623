"""The reference simulator's I/O, kept out of the pure core.

``gcv.sim`` computes: programs in, telemetry and snapshots out, no files, no images, no
processes (an import-linter contract in ``pyproject.toml`` forbids it PIL, process pools and
argument parsing). This package does the rest around it: frames drawn as PNG
(:mod:`gcv.simio.render`), many runs over a process pool (:mod:`gcv.simio.pool`), the
golden vectors built from the committed baseline (:mod:`gcv.simio.golden`) and their files
(:mod:`gcv.simio.golden_files`).
"""
