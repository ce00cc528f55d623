"""The C++ core in process: python-sim's fast path for populations and batches.

``python-sim`` is the specification (``gcv.sim.engine``). The UE5 plugin's header-only core
(``ue5_plugin/GcvBridge/Source/GcvSimCore``) agrees with it bit for bit and runs a fight 20 to
50 times faster; behind a small C ABI (``ue5_plugin/harness/native/gcv_native.cpp``) it is
built with g++ from the same headers, on first use, into a cache outside the source tree,
and loaded with ctypes. A program is parsed once per process; each run returns the telemetry
as the bytes python-sim's writer produces, parsed into the same dict python-sim returns,
``engine`` included: the results are python-sim's (the tests prove it bit for bit, golden
vectors and random cases, at -O0 and -O2), so a results table, a population summary or a
resumed batch does not depend on which machine had a compiler. Which path ran is a property
of the machine, not of a result: ``gcv engines`` and ``gcv batch`` report it
(:func:`status`).

Which path runs (``GCV_NATIVE``):

* ``auto`` (default): native when the library builds (or is cached) and passes its self-test,
  else Python, with the reason kept for ``gcv engines`` and ``gcv batch`` to report;
* ``off``: always Python;
* ``require``: native, or :class:`NativeUnavailable` (build machines that must not silently
  become 20 times slower).

The cache is ``$GCV_NATIVE_CACHE``, else ``$XDG_CACHE_HOME/gcv/native``, else
``~/.cache/gcv/native``. A library is named by a hash of its sources, the compiler name and
the flags, so a changed header or flag builds a new one and a stale one is never loaded; it is
built under a file lock (concurrent workers build once) and published by rename.
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Literal

import gcv
from gcv.simio.pool import run_batch as python_run_batch
from gcv.sim.engine import SIGNED
from gcv.sim.players import player_label
from gcv.sim.program import program_hash

REPO = Path(__file__).resolve().parents[1]
NATIVE_DIR = REPO / "ue5_plugin" / "harness" / "native"
SOURCE = NATIVE_DIR / "gcv_native.cpp"
CORE_INCLUDE = REPO / "ue5_plugin" / "GcvBridge" / "Source" / "GcvSimCore" / "Public"
ABI_VERSION = 1
MODE_ENV = "GCV_NATIVE"
CACHE_ENV = "GCV_NATIVE_CACHE"
MODES = ("auto", "off", "require")
OPT_LEVELS = ("-O0", "-O1", "-O2", "-O3")
DEFAULT_OPT = "-O2"
# The determinism flags of the harness (ue5_plugin/harness/build.sh), plus a shared object.
CXX_FLAGS = ("-std=c++17", "-fno-fast-math", "-ffp-contract=off", "-Wall", "-Wextra", "-fPIC", "-shared",
             "-fvisibility=hidden")
BUILD_TIMEOUT_SECONDS = 300
PROGRAM_CACHE_SIZE = 8
ENGINE = {"name": "python-sim", "implementation": "python", "version": gcv.__version__}  # python-sim's telemetry
PathName = Literal["native", "python"]


class NativeBuildError(RuntimeError):
    """The library could not be built or loaded (no compiler, a compile error, a bad cache)."""


class NativeUnavailable(RuntimeError):
    """GCV_NATIVE=require, but the native path cannot run here."""


class NativeRequestError(ValueError):
    """The core refused a player or a seed (the message names the field)."""


class NativeProgramRefused(NativeRequestError):
    """The core refused the program (a number beyond its int64-safe bounds; the field named).
    python-sim accepts more: such a program runs in Python."""


@dataclass(frozen=True)
class NativeStatus:
    """Which path python-sim's batches take on this machine, and why."""

    path: PathName
    reason: str
    library: str | None = None
    sha256: str | None = None  # "cpu" (SHA instructions) or "portable", once loaded
    ok: bool = True  # False: GCV_NATIVE asks for what cannot be (require without a core, a bad value)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def line(self) -> str:
        """One line for people: 'native C++ core (...)' or 'Python (...)'."""
        if self.path == "native":
            return f"native C++ core ({self.reason})"
        return f"Python ({self.reason})"


# --------------------------------------------------------------------------- configuration
def mode() -> str:
    value = os.environ.get(MODE_ENV, "auto").strip().lower() or "auto"
    if value not in MODES:
        raise ValueError(f"{MODE_ENV}={value!r}; allowed: {', '.join(MODES)}")
    return value


def cache_dir() -> Path:
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gcv" / "native"


def compiler() -> str:
    return os.environ.get("CXX", "g++")


def sources() -> list[Path]:
    return [SOURCE, *sorted((CORE_INCLUDE / "Gcv").glob("*.h"))]


def _suffix() -> str:
    return ".dylib" if sys.platform == "darwin" else ".so"


def build_key(opt: str = DEFAULT_OPT) -> str:
    """Hash of everything that makes the library what it is (sources, compiler name, flags)."""
    h = hashlib.sha256(f"abi={ABI_VERSION}\ncxx={compiler()}\nopt={opt}\nflags={' '.join(CXX_FLAGS)}\n".encode())
    for path in sources():
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:20]


def library_path(opt: str = DEFAULT_OPT, cache: Path | None = None) -> Path:
    return (cache or cache_dir()) / f"libgcv_native-{build_key(opt)}{opt}{_suffix()}"


def toolchain_status() -> tuple[bool, str]:
    """(ok, reason): can this machine build the library?"""
    if os.name != "posix":
        return False, "the native path is built for Linux and macOS only"
    cxx = compiler()
    found = shutil.which(cxx)
    if not found:
        return False, f"{cxx} (g++) not found on PATH; install it (Debian: apt-get install g++)"
    missing = [str(p.relative_to(REPO)) for p in sources() if not p.is_file()]
    if missing:
        return False, f"native sources missing: {', '.join(missing)}"
    return True, f"{cxx} at {found}"


# --------------------------------------------------------------------------- building
def build_command(out: Path, opt: str = DEFAULT_OPT) -> list[str]:
    return [compiler(), *CXX_FLAGS, opt, f"-I{CORE_INCLUDE}", "-o", str(out), str(SOURCE)]


def build_library(opt: str = DEFAULT_OPT, cache: Path | None = None) -> Path:
    """The library for ``opt``: from the cache, or built now (once, under a lock)."""
    if opt not in OPT_LEVELS:
        raise ValueError(f"opt must be one of {', '.join(OPT_LEVELS)}, not {opt!r}")
    lib = library_path(opt, cache)
    if lib.is_file():
        return lib
    ok, reason = toolchain_status()
    if not ok:
        raise NativeBuildError(f"cannot build the native core: {reason}")
    import fcntl  # POSIX only (toolchain_status said so)

    try:
        lib.parent.mkdir(parents=True, exist_ok=True)
        lock = open(lib.with_suffix(".lock"), "w")  # noqa: SIM115 - held until the build is published
    except OSError as exc:
        raise NativeBuildError(f"cannot use the native cache {lib.parent}: {exc.strerror or exc}") from None
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if lib.is_file():  # another process built it while we waited
            return lib
        tmp = lib.with_name(f"{lib.name}.tmp.{os.getpid()}")
        try:
            proc = subprocess.run(build_command(tmp, opt), capture_output=True, text=True,
                                  timeout=BUILD_TIMEOUT_SECONDS, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            tmp.unlink(missing_ok=True)
            raise NativeBuildError(f"building the native core exceeded {BUILD_TIMEOUT_SECONDS} s") from None
        except OSError as exc:
            raise NativeBuildError(f"cannot run {compiler()}: {exc.strerror or exc}") from None
        if proc.returncode != 0 or not tmp.is_file():
            tmp.unlink(missing_ok=True)
            tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-20:])
            raise NativeBuildError(f"{compiler()} failed to build the native core (exit {proc.returncode}):\n{tail}")
        os.replace(tmp, lib)
    return lib


# --------------------------------------------------------------------------- the library
class NativeCore:
    """A loaded library: checks its ABI and self-test, parses programs (a few, cached)."""

    def __init__(self, path: Path) -> None:
        try:
            lib = ctypes.CDLL(str(path))
        except OSError as exc:
            raise NativeBuildError(f"cannot load {path}: {exc}") from None
        lib.gcv_native_abi_version.restype = ctypes.c_int
        lib.gcv_native_abi_version.argtypes = []
        lib.gcv_native_sha_accelerated.restype = ctypes.c_int
        lib.gcv_native_sha_accelerated.argtypes = []
        lib.gcv_native_self_test.restype = ctypes.c_int
        lib.gcv_native_self_test.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
        lib.gcv_program_new.restype = ctypes.c_void_p
        lib.gcv_program_new.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_char_p,
                                        ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
        lib.gcv_program_free.restype = None
        lib.gcv_program_free.argtypes = [ctypes.c_void_p]
        lib.gcv_program_hash.restype = None
        lib.gcv_program_hash.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        lib.gcv_run.restype = ctypes.c_int
        lib.gcv_run.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                ctypes.c_char_p, ctypes.c_int64, ctypes.POINTER(ctypes.c_void_p),
                                ctypes.POINTER(ctypes.c_size_t)]
        lib.gcv_free.restype = None
        lib.gcv_free.argtypes = [ctypes.c_void_p]
        abi = lib.gcv_native_abi_version()
        if abi != ABI_VERSION:
            raise NativeBuildError(f"{path} speaks ABI {abi}, this gcv needs {ABI_VERSION}")
        self.path = Path(path)
        self._lib = lib
        self._programs: OrderedDict[str, NativeProgram] = OrderedDict()
        self._lock = threading.Lock()

    def _take(self, pointer: ctypes.c_void_p, length: int | None = None) -> bytes:
        if not pointer.value:
            raise MemoryError("the native core could not allocate its answer")
        try:
            return ctypes.string_at(pointer.value, length) if length is not None else ctypes.string_at(pointer.value)
        finally:
            self._lib.gcv_free(pointer)

    def self_test(self) -> tuple[bool, str]:
        out = ctypes.c_void_p()
        code = self._lib.gcv_native_self_test(ctypes.byref(out))
        return code == 0, self._take(out).decode("utf-8", "replace")

    @property
    def sha_accelerated(self) -> bool:
        return bool(self._lib.gcv_native_sha_accelerated())

    def program(self, program: dict[str, Any], digest: str | None = None) -> NativeProgram:
        """The parsed program (parsed once per core and program hash; a few are kept)."""
        digest = digest or program_hash(program)
        with self._lock:
            found = self._programs.get(digest)
            if found is not None:
                self._programs.move_to_end(digest)
                return found
        parsed = NativeProgram(self, program)
        if parsed.hash != digest:
            raise NativeProgramRefused(f"the native core hashes this program as {parsed.hash[:12]}..., "
                                       f"Python as {digest[:12]}...")
        with self._lock:
            self._programs[digest] = parsed
            while len(self._programs) > PROGRAM_CACHE_SIZE:
                self._programs.popitem(last=False)
        return parsed


class NativeProgram:
    """One parsed program; ``run`` may be called from several threads."""

    def __init__(self, core: NativeCore, program: dict[str, Any]) -> None:
        self._core = core
        self._lib = core._lib
        text = json.dumps(program).encode("utf-8")
        error = ctypes.c_void_p()
        handle = self._lib.gcv_program_new(text, len(text), ENGINE["name"].encode(), ENGINE["implementation"].encode(),
                                           ENGINE["version"].encode(), ctypes.byref(error))
        if not handle:
            raise NativeProgramRefused(core._take(error).decode("utf-8", "replace"))
        self._handle = handle
        buf = ctypes.create_string_buffer(65)
        self._lib.gcv_program_hash(handle, buf)
        self.hash = buf.value.decode("ascii")
        self._labels: dict[bytes, str] = {}  # the player JSON -> its label

    def __del__(self) -> None:
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            self._lib.gcv_program_free(handle)

    def run_bytes(self, player: dict[str, Any], seed: int, *, label: str | None = None, run_id: str = "") -> bytes:
        """The telemetry file python-sim's writer would write for this run."""
        if not 0 <= seed < SIGNED:
            raise ValueError(f"seed {seed} out of range; allowed 0..{SIGNED - 1}")
        text = json.dumps(player, sort_keys=True).encode("utf-8")
        if label is None:
            label = self._labels.get(text)
        if label is None:
            try:
                label = player_label(player)
            except (KeyError, TypeError, AttributeError):
                label = ""  # malformed: the core names the field below
            if player.get("kind") == "inputs":
                self._labels[text] = label  # a content hash of the trace: worth keeping
        out, length = ctypes.c_void_p(), ctypes.c_size_t()
        code = self._lib.gcv_run(self._handle, text, len(text), label.encode("utf-8"), run_id.encode("utf-8"),
                                 seed, ctypes.byref(out), ctypes.byref(length))
        answer = self._core._take(out, length.value)
        if code == 3:
            raise NativeProgramRefused(answer.decode("utf-8", "replace"))
        if code == 2:
            raise NativeRequestError(answer.decode("utf-8", "replace"))
        if code != 0:
            raise RuntimeError(f"native core: {answer.decode('utf-8', 'replace')}")
        return answer

    def run(self, player: dict[str, Any], seed: int, *, label: str | None = None, run_id: str = "") -> dict[str, Any]:
        """The telemetry dict, as gcv.sim.engine.Simulation(...).run(seed=...).telemetry."""
        return json.loads(self.run_bytes(player, seed, label=label, run_id=run_id))


def load(opt: str = DEFAULT_OPT, cache: Path | None = None) -> NativeCore:
    """Build (if needed), load and self-test the library for ``opt``."""
    core = NativeCore(build_library(opt, cache))
    ok, message = core.self_test()
    if not ok:
        raise NativeBuildError(f"the native core failed its self-test: {message}")
    return core


# --------------------------------------------------------------------------- the process's path
_state_lock = threading.Lock()
_core: NativeCore | None = None
_reason: str | None = None  # why there is no core (after a try)
_python_only: ContextVar[bool] = ContextVar("gcv_native_python_only", default=False)


@contextmanager
def python_only() -> Iterator[None]:
    """Inside this block (this thread or task only), :func:`core` returns None whatever
    ``GCV_NATIVE`` says, so every run takes the Python simulator, the specification.
    ``gcv verify --replay`` recomputes a bundle this way: its cross-check of figures the
    native core may have produced is the Python simulator."""
    token = _python_only.set(True)
    try:
        yield
    finally:
        _python_only.reset(token)


def core() -> NativeCore | None:
    """This process's native core, or None (Python runs); tried once per process.

    Raises NativeUnavailable under GCV_NATIVE=require when there is none.
    """
    global _core, _reason
    current = mode()
    if current == "off" or _python_only.get():
        return None
    with _state_lock:
        if _core is None and _reason is None:
            try:
                _core = load()
            except (NativeBuildError, OSError) as exc:
                _reason = str(exc)
        found, reason = _core, _reason
    if found is None and current == "require":
        raise NativeUnavailable(f"{MODE_ENV}=require but the native core is unavailable: {reason}")
    return found


def reset() -> None:
    """Forget this process's core (tests change the environment and try again)."""
    global _core, _reason
    with _state_lock:
        _core, _reason = None, None


def status(*, build: bool = False, announce: Callable[[str], Any] | None = None) -> NativeStatus:
    """Which path runs. ``build=False`` never compiles: a library not built yet is reported
    as what will happen on first use; ``build=True`` settles it (builds, loads, self-tests),
    calling ``announce`` with a line first when that means compiling."""
    try:
        current = mode()
    except ValueError as exc:
        return NativeStatus("python", str(exc), ok=False)
    if current == "off":
        return NativeStatus("python", f"{MODE_ENV}=off")
    if _python_only.get():
        return NativeStatus("python", "the Python simulator, asked for here (a cross-check)")
    if build and announce is not None and _core is None and _reason is None and not library_path().is_file() \
            and toolchain_status()[0]:
        announce(f"building the native C++ core for python-sim with {compiler()} (once per machine and "
                 f"version, about 20 s) into {library_path().parent}")
    if build or _core is not None or _reason is not None:
        try:
            found = core()
        except NativeUnavailable as exc:
            return NativeStatus("python", str(exc), ok=False)
        if found is None:
            return NativeStatus("python", _reason or "the native core is unavailable")
        sha = "cpu" if found.sha_accelerated else "portable"
        return NativeStatus("native", f"{found.path.name} in {found.path.parent}; SHA-256 "
                            f"{'on the CPU SHA instructions' if sha == 'cpu' else 'portable'}", str(found.path), sha)
    lib = library_path()
    if lib.is_file():
        return NativeStatus("native", f"{lib.name} in {lib.parent}, built", str(lib))
    ok, reason = toolchain_status()
    if not ok:
        return NativeStatus("python", reason, ok=current != "require")
    return NativeStatus("native", f"built on first use with {reason} into {lib.parent}")


def run_batch(program: dict[str, Any], runs: list[tuple[int, dict[str, Any]]], *,
              digest: str | None = None) -> tuple[list[dict[str, Any]], PathName]:
    """``runs`` = [(seed, player), ...] -> (telemetry list in order, the path that ran).

    The drop-in for gcv.simio.pool.run_batch: the same dicts, the same exceptions for a bad seed or player (ValueError). A program the core refuses
    (beyond its int64-safe bounds, as some player reads it) runs in Python.
    """
    found = core()
    if found is None:
        return python_run_batch(program, runs), "python"
    try:
        parsed = found.program(program, digest)
        return [parsed.run(player, seed) for seed, player in runs], "native"
    except NativeProgramRefused:
        if mode() == "require":
            raise
        return python_run_batch(program, runs), "python"


def main(argv: list[str] | None = None) -> int:
    """``python -m engine_runners.native [--build] [--opt -O2]``: build and report the path."""
    parser = argparse.ArgumentParser(prog="python -m engine_runners.native", description=main.__doc__)
    parser.add_argument("--build", action="store_true", help="build (if needed), load and self-test now")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    st = status(build=args.build)
    print(json.dumps(st.as_dict(), sort_keys=True) if args.json else f"python-sim batches: {st.line()}")
    return 0 if st.path == "native" or not args.build else 1


if __name__ == "__main__":
    sys.exit(main())
