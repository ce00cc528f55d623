"""Shared fixtures of the engine-runner tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.parity import CPP, CSHARP, HarnessKind
from tests.support.toolchains import require_cpp_harness, require_csharp_harness


@pytest.fixture(params=["cpp", "csharp"], scope="module")
def engine_core(request: pytest.FixtureRequest) -> tuple[HarnessKind, Path]:
    """Each engine core's harness (C++ built with g++, C# with mcs), built once per session."""
    if request.param == "cpp":
        return CPP, require_cpp_harness()
    return CSHARP, require_csharp_harness()
