"""The C++ harness: the UE5 plugin's simulation core built with g++ as a console program.

``gcv-ue5-harness -GcvRequest=<request.json>`` speaks the run protocol exactly as the UE5
commandlet does (same core, same protocol entry), so CI exercises process launch,
handshake, exit codes and telemetry parsing of the C++ port without Unreal installed.
Sources: ``ue5_plugin/harness/main.cpp`` and the header-only core under
``ue5_plugin/GcvBridge/Source/GcvSimCore/Public/Gcv``; build script:
``ue5_plugin/harness/build.sh``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HARNESS_DIR = REPO / "ue5_plugin" / "harness"
CORE_DIR = REPO / "ue5_plugin" / "GcvBridge" / "Source" / "GcvSimCore" / "Public" / "Gcv"
BUILD_SCRIPT = HARNESS_DIR / "build.sh"
DEFAULT_OUT_DIR = HARNESS_DIR / "bin"
EXE_NAME = "gcv-ue5-harness"
OPT_LEVELS = ("-O0", "-O1", "-O2", "-O3")
BUILD_TIMEOUT_SECONDS = 300


class HarnessBuildError(RuntimeError):
    """The C++ harness could not be built (missing toolchain or a compile error)."""


def _sources() -> list[Path]:
    return [HARNESS_DIR / "main.cpp", BUILD_SCRIPT, *sorted(CORE_DIR.glob("*.h"))]


def toolchain_status() -> tuple[bool, str]:
    """(ok, reason): can this machine build the C++ harness?"""
    cxx = os.environ.get("CXX", "g++")
    found = shutil.which(cxx)
    if not found:
        return False, f"{cxx} (g++) not found on PATH; install it (Debian: apt-get install g++)"
    if not shutil.which("bash"):
        return False, "bash not found on PATH (build.sh needs it)"
    missing = [str(p.relative_to(REPO)) for p in _sources() if not p.is_file()]
    if missing:
        return False, f"harness sources missing: {', '.join(missing)}"
    return True, f"{cxx} at {found}"


def _stamp(exe: Path) -> Path:
    return exe.with_name(exe.name + ".flags")


def build_cpp_harness(out_dir: Path | None = None, opt: str = "-O2") -> Path:
    """Build (only when a source is newer or the flags changed) and return the executable."""
    if opt not in OPT_LEVELS:
        raise ValueError(f"opt must be one of {', '.join(OPT_LEVELS)}, not {opt!r}")
    ok, reason = toolchain_status()
    if not ok:
        raise HarnessBuildError(f"cannot build the C++ harness: {reason}")
    out = Path(out_dir) if out_dir is not None else DEFAULT_OUT_DIR
    exe = out / EXE_NAME
    stamp = _stamp(exe)
    flags = f"{os.environ.get('CXX', 'g++')} {opt}"
    if exe.is_file() and stamp.is_file() and stamp.read_text(encoding="utf-8").strip() == flags:
        built = exe.stat().st_mtime
        if all(src.stat().st_mtime <= built for src in _sources()):
            return exe
    out.mkdir(parents=True, exist_ok=True)
    try:
        proc = subprocess.run(["bash", str(BUILD_SCRIPT), str(out), opt], capture_output=True, text=True,
                              timeout=BUILD_TIMEOUT_SECONDS, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise HarnessBuildError(f"g++ build of the C++ harness exceeded {BUILD_TIMEOUT_SECONDS} s") from None
    if proc.returncode != 0 or not exe.is_file():
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-30:])
        raise HarnessBuildError(f"g++ build of the C++ harness failed (exit {proc.returncode}):\n{tail}")
    stamp.write_text(flags + "\n", encoding="utf-8")
    return exe


def cpp_harness_command(exe: Path | str, request: Path | str) -> list[str]:
    """The command line that runs one request file, exactly as the runner launches it."""
    return [str(exe), f"-GcvRequest={request}"]
