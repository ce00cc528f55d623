"""Where runtime output goes (gcv.store.paths): ``$GCV_HOME``, else ./.gcv, resolved."""

from __future__ import annotations

from pathlib import Path

import pytest

from gcv.store.paths import workspace_root


def test_gcv_home_wins_and_is_resolved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCV_HOME", str(tmp_path / "a" / ".." / "home"))
    assert workspace_root() == (tmp_path / "home").resolve()


@pytest.mark.parametrize("value", [None, ""])
def test_without_gcv_home_it_is_dot_gcv_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            value: str | None) -> None:
    if value is None:
        monkeypatch.delenv("GCV_HOME", raising=False)
    else:
        monkeypatch.setenv("GCV_HOME", value)
    monkeypatch.chdir(tmp_path)
    assert workspace_root() == (tmp_path / ".gcv").resolve()
