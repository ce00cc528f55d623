"""The agents doctor (gcv.agents.doctor): which providers exist and whether each can be used now;
the key itself is never reported."""

from __future__ import annotations

import json

import pytest

from gcv.agents import doctor
from gcv.agents.doctor import agents_report, prompt_versions


@pytest.fixture(autouse=True)
def _sdk(monkeypatch: pytest.MonkeyPatch) -> None:
    """The SDK's version without importing it (a cold import of anthropic takes seconds)."""
    monkeypatch.setattr(doctor, "sdk_version", lambda: "9.9.9")


def test_the_report_without_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    report = agents_report()
    names = [p["name"] for p in report["providers"]]
    assert names == ["offline", "anthropic", "replay"]
    offline, anthropic, replay = report["providers"]
    assert offline["usable"] and replay["usable"] and replay["usage"] == "replay:PATH"
    assert not anthropic["usable"] and "ANTHROPIC_API_KEY is not set" in anthropic["problems"]
    assert anthropic["key_present"] is False
    assert "offline" in report["requirement_providers"] and "offline" in report["review_providers"]
    assert anthropic["sdk_version"] == "9.9.9"


def test_without_the_sdk_it_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(doctor, "sdk_version", lambda: None)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret-value-1234")
    (_, anthropic, _) = agents_report()["providers"]
    assert not anthropic["usable"]
    assert "the anthropic package is not installed (install GCV's 'anthropic' extra)" in anthropic["problems"]
    assert "ANTHROPIC_API_KEY is not set" not in anthropic["problems"]


def test_the_key_is_never_in_the_report(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret-value-1234")
    report = agents_report()
    assert "sk-ant-secret-value-1234" not in json.dumps(report)
    assert report["providers"][1]["key_present"] is True


def test_prompt_versions() -> None:
    versions = prompt_versions()
    assert set(versions) == {"requirement", "review"}
    assert all(len(v["template_sha256"]) == 64 and v["prompt_id"] for v in versions.values())
