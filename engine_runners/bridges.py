"""What the Unity and UE5 runners share: operator configuration from the environment.

Executables and projects come only from environment variables set by the operator (see
``gcv engines``); a caller can never pass a path or an argument. Each engine has real
modes (a built player, the editor in batch mode, the UE5 commandlet or game) and a
``harness`` mode: the engine's own simulation core compiled as a console program (C#
with mcs, C++ with g++), which CI uses in place of an engine it does not have. The runner
names what ran from this configuration (``unity-harness``, ``ue5-commandlet``...), never
from what the child process says, and a child that claims otherwise fails the run: a
harness run is never reported as an engine run.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Configured:
    mode: str
    paths: dict[str, Path]


def env_path(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser() if value else None


def executable_problem(path: Path, what: str) -> str | None:
    if not path.exists():
        return f"{what} {path} does not exist"
    if path.is_dir():
        return f"{what} {path} is a folder, not an executable"
    if not os.access(path, os.X_OK):
        return f"{what} {path} is not executable"
    return None


def which(name: str) -> str | None:
    return shutil.which(name)


TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("", "0", "false", "no", "off")


def env_flag(name: str) -> bool:
    """A yes/no setting from the operator's environment; ValueError names a bad value."""
    value = os.environ.get(name, "").strip().lower()
    if value in TRUE_WORDS:
        return True
    if value in FALSE_WORDS:
        return False
    raise ValueError(f"{name}={os.environ.get(name)!r}: use 1/true/yes or 0/false/no")
