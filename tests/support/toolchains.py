"""Build the engine harnesses once per session, or skip (fail under GCV_REQUIRE_TOOLCHAINS=1)."""

from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest


def _missing(reason: str) -> None:
    if os.environ.get("GCV_REQUIRE_TOOLCHAINS") == "1":
        pytest.fail(f"required toolchain missing: {reason}")
    pytest.skip(reason)


@functools.lru_cache(maxsize=None)
def _cpp() -> Path | str:
    from engine_runners import harness_cpp

    ok, reason = harness_cpp.toolchain_status()
    if not ok:
        return reason
    return harness_cpp.build_cpp_harness()


@functools.lru_cache(maxsize=None)
def _csharp() -> Path | str:
    from engine_runners import harness_csharp

    ok, reason = harness_csharp.toolchain_status()
    if not ok:
        return reason
    return harness_csharp.build_csharp_harness()


def require_cpp_harness() -> Path:
    exe = _cpp()
    if isinstance(exe, str):
        _missing(exe)
    return exe  # type: ignore[return-value]


def require_csharp_harness() -> Path:
    exe = _csharp()
    if isinstance(exe, str):
        _missing(exe)
    return exe  # type: ignore[return-value]


def require_native_core() -> object:
    """This process's native core (engine_runners.native, built into the cache on first use), or skip."""
    from engine_runners import native

    ok, reason = native.toolchain_status()
    if not ok and not native.library_path().is_file():
        _missing(f"native core toolchain missing: {reason}")
    found = native.core()
    if found is None:
        _missing(f"the native core is unavailable: {native.status().reason}")
    return found
