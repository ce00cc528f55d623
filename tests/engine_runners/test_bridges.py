"""The operator's engine configuration (engine_runners.bridges): paths and flags from the
environment, with what is wrong said plainly."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine_runners.bridges import env_flag, env_path, executable_problem


def test_env_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCV_TEST_PATH", "  ~/engine  ")
    assert env_path("GCV_TEST_PATH") == Path("~/engine").expanduser()
    monkeypatch.setenv("GCV_TEST_PATH", "   ")
    assert env_path("GCV_TEST_PATH") is None
    monkeypatch.delenv("GCV_TEST_PATH")
    assert env_path("GCV_TEST_PATH") is None


def test_executable_problem(tmp_path: Path) -> None:
    assert executable_problem(tmp_path / "no", "Unity") == f"Unity {tmp_path / 'no'} does not exist"
    assert executable_problem(tmp_path, "Unity") == f"Unity {tmp_path} is a folder, not an executable"
    plain = tmp_path / "plain"
    plain.write_text("x")
    assert executable_problem(plain, "Unity") == f"Unity {plain} is not executable"
    os.chmod(plain, 0o755)
    assert executable_problem(plain, "Unity") is None


@pytest.mark.parametrize("value,flag", [("1", True), ("Yes", True), (" on ", True), ("", False), ("off", False),
                                        ("0", False)])
def test_env_flag(monkeypatch: pytest.MonkeyPatch, value: str, flag: bool) -> None:
    monkeypatch.setenv("GCV_TEST_FLAG", value)
    assert env_flag("GCV_TEST_FLAG") is flag


def test_a_bad_flag_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCV_TEST_FLAG", "maybe")
    with pytest.raises(ValueError, match="GCV_TEST_FLAG='maybe': use 1/true/yes or 0/false/no"):
        env_flag("GCV_TEST_FLAG")
