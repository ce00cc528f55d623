"""The real entry point: --json holds even for usage errors click catches itself."""

from __future__ import annotations

import pytest

import json
import subprocess
import sys


def _gcv(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gcv.cli.app", *args], capture_output=True, text=True, timeout=60)


def test_unknown_option_with_json_is_one_json_object() -> None:
    out = _gcv("validate", "--bogus", "x", "--json")
    assert out.returncode == 2
    assert json.loads(out.stdout) == {"error": "No such option: --bogus", "file": None, "detail": None, "exit_code": 2}


@pytest.mark.slow
def test_exit_codes_survive_the_json_entry_point(tmp_path) -> None:
    import os

    env = dict(os.environ, GCV_HOME=str(tmp_path))
    out = subprocess.run([sys.executable, "-m", "gcv.cli.app", "run", "keep everything as is", "--json"],
                         capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 3 and json.loads(out.stdout)["status"] == "no_change"


@pytest.mark.slow
def test_without_json_usage_errors_are_for_people() -> None:
    out = _gcv("validate", "--bogus", "x")
    assert out.returncode == 2 and out.stdout == "" and "No such option" in out.stderr
