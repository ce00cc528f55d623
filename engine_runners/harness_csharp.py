"""Build and launch the C# harness: the Unity project's Gcv.Core port as a console program.

The harness speaks ``gcv.run_protocol/1`` exactly like the Unity player (both use the same
``Gcv.Core.RunProtocol`` class), so CI can exercise the real runner code paths and prove
bit-for-bit parity of the C# simulation without a Unity installation.

Toolchain: Mono's ``mcs`` (compiler) and ``mono`` (runtime); on Debian/Ubuntu
``apt-get install -y mono-mcs mono-runtime``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
UNITY_PROJECT = REPO / "unity_project"
CORE_DIR = UNITY_PROJECT / "Assets" / "Gcv" / "Core"
HARNESS_DIR = UNITY_PROJECT / "harness"
MAIN_SOURCE = HARNESS_DIR / "Main.cs"
DEFAULT_OUT_DIR = HARNESS_DIR / "bin"  # git-ignored
EXE_NAME = "gcv-unity-harness.exe"
MCS_FLAGS = ("-langversion:6", "-optimize+", "-target:exe", "-nologo", "-warnaserror+")


class ToolchainError(RuntimeError):
    """A tool needed to build or run the C# harness is missing or failed."""


def sources(core_dir: Path | None = None) -> list[Path]:
    """Gcv.Core's .cs files (sorted, so the command line is stable) plus the harness Main.cs.
    ``core_dir`` compiles another copy of the core (the mutation tests plant bugs in one)."""
    return sorted((core_dir or CORE_DIR).glob("*.cs")) + [MAIN_SOURCE]


def toolchain_status() -> tuple[bool, str]:
    """(ok, reason): whether mcs and mono are on PATH."""
    missing = [tool for tool in ("mcs", "mono") if shutil.which(tool) is None]
    if missing:
        return False, (f"{' and '.join(missing)} not found on PATH "
                       "(install with: apt-get install -y mono-mcs mono-runtime)")
    return True, f"mcs at {shutil.which('mcs')}, mono at {shutil.which('mono')}"


def mcs_command(out_exe: Path, core_dir: Path | None = None) -> list[str]:
    return ["mcs", *MCS_FLAGS, f"-out:{out_exe}", *(str(p) for p in sources(core_dir))]


def build_csharp_harness(out_dir: Path | None = None, *, core_dir: Path | None = None) -> Path:
    """Compile the harness into ``out_dir`` (default unity_project/harness/bin) when any
    source is newer than the executable; return the executable's path.

    Raises ToolchainError naming the missing tool (mcs or mono) or carrying the compiler
    output. The executable is written under a temporary name and renamed, so concurrent
    builds never leave a half-written file.
    """
    ok, reason = toolchain_status()
    if not ok:
        raise ToolchainError(f"cannot build the C# harness: {reason}")
    out_dir = Path(out_dir) if out_dir is not None else DEFAULT_OUT_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    exe = out_dir / EXE_NAME
    srcs = sources(core_dir)
    missing = [str(p) for p in srcs if not p.is_file()]
    if missing:
        raise ToolchainError(f"C# harness sources missing: {', '.join(missing)}")
    if exe.is_file():
        built = exe.stat().st_mtime
        if all(p.stat().st_mtime <= built for p in srcs):
            return exe
    fd, tmp_name = tempfile.mkstemp(prefix=".gcv-unity-harness-", suffix=".exe", dir=out_dir)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        proc = subprocess.run(mcs_command(tmp, core_dir), capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            raise ToolchainError("mcs failed to compile the C# harness "
                                 f"(exit {proc.returncode}):\n{proc.stdout}{proc.stderr}")
        os.replace(tmp, exe)
    finally:
        tmp.unlink(missing_ok=True)
    return exe


def csharp_harness_command(exe: Path, request: Path) -> list[str]:
    """The command line that runs one request file (the same protocol as the Unity player)."""
    return ["mono", str(exe), "-gcvRequest", str(request)]


def csharp_harness_bench_command(exe: Path, request: Path, runs: int) -> list[str]:
    """As above, plus ``-gcvBench runs``: time ``runs`` extra in-process runs (GCV-BENCH lines)."""
    return [*csharp_harness_command(exe, request), "-gcvBench", str(runs)]
