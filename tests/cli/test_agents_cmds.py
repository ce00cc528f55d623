"""``gcv agents`` through the real typer app: the doctor's report, the key never shown."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gcv.agents import doctor
from gcv.cli.app import app

SECRET = "sk-ant-never-printed-123456"


@pytest.fixture(autouse=True)
def _environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    monkeypatch.setattr(doctor, "sdk_version", lambda: "9.9.9")  # not importing the SDK: start-up time


def test_json_is_the_doctors_report() -> None:
    result = CliRunner().invoke(app, ["agents", "--json"])
    assert result.exit_code == 0 and SECRET not in result.stdout
    doc = json.loads(result.stdout)
    assert doc == {**doc, **doctor.agents_report(), "exit_code": 0}


def test_the_table_says_present_never_the_key() -> None:
    result = CliRunner().invoke(app, ["agents"])
    assert result.exit_code == 0 and SECRET not in result.output
    assert "Agent providers" in result.stdout and "present" in result.stdout and "9.9.9" in result.stdout
