"""Protocol errors every engine harness (C# and C++) must report the same way."""

from __future__ import annotations

import copy
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.parity import RUN_TIMEOUT, HarnessKind
from tests.support.simutil import VECTORS, load_vector

pytestmark = pytest.mark.toolchain  # builds and runs an engine core harness


def _baseline_request(tmp_path: Path) -> dict[str, Any]:
    return dict(load_vector(VECTORS[0])["request"], output_dir=str(tmp_path))


def test_wrong_program_hash_exits_3(engine_core: tuple[HarnessKind, Path], tmp_path: Path) -> None:
    kind, exe = engine_core
    request = _baseline_request(tmp_path)
    request["program_hash"] = "0" * 64
    run = kind.run(exe, request, tmp_path)
    assert run.code == 3 and "program_hash" in run.proc.stderr
    assert not (tmp_path / "telemetry.json").exists()


def test_tampered_program_exits_3(engine_core: tuple[HarnessKind, Path], tmp_path: Path) -> None:
    kind, exe = engine_core
    request = _baseline_request(tmp_path)
    request["program"] = copy.deepcopy(request["program"])
    request["program"]["player"]["max_health"] = 99  # program_hash left as it was
    run = kind.run(exe, request, tmp_path)
    assert run.code == 3


def test_wrong_config_hash_exits_3(engine_core: tuple[HarnessKind, Path], tmp_path: Path) -> None:
    kind, exe = engine_core
    request = _baseline_request(tmp_path)
    request["config_hash"] = "f" * 64
    run = kind.run(exe, request, tmp_path)
    assert run.code == 3 and "config_hash" in run.proc.stderr


def test_unreadable_request_is_bad_request(engine_core: tuple[HarnessKind, Path], tmp_path: Path) -> None:
    kind, exe = engine_core
    proc = subprocess.run(kind.command(exe, tmp_path / "missing.json"), capture_output=True, text=True,
                          timeout=RUN_TIMEOUT, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2 and "cannot read request" in proc.stderr


def test_missing_output_dir_exits_4(engine_core: tuple[HarnessKind, Path], tmp_path: Path) -> None:
    kind, exe = engine_core
    request = _baseline_request(tmp_path)
    request["output_dir"] = str(tmp_path / "does" / "not" / "exist")
    run = kind.run(exe, request, tmp_path)
    assert run.code == 4
    assert run.handshake()["run_id"] == request["run_id"]
    assert "does not exist" in run.proc.stderr
