"""--open (gcv.cli.browser): the report's file URL handed to the browser; no browser is no failure."""

from __future__ import annotations

import webbrowser
from pathlib import Path

import pytest

from gcv.cli.browser import open_in_browser


def test_the_file_url_is_opened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url: opened.append(url) or True)
    report = tmp_path / "report.html"
    report.write_text("<html></html>")
    assert open_in_browser(report) is True and opened == [report.resolve().as_uri()]


def test_no_browser_is_not_a_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def none(url: str) -> bool:
        raise webbrowser.Error("could not locate runnable browser")

    monkeypatch.setattr(webbrowser, "open", none)
    assert open_in_browser(tmp_path / "report.html") is False
    monkeypatch.setattr(webbrowser, "open", lambda url: False)
    assert open_in_browser(tmp_path / "report.html") is False
