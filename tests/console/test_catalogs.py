"""gcv.console.catalogs: the template and the catalogs made from babel.cfg's files and the vocabularies."""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from gcv.console import catalogs, i18n
from gcv.contract.status import Reason, Status


def test_the_template_holds_the_templates_the_views_and_the_vocabularies() -> None:
    template = catalogs.extracted()
    ids = {m.id for m in template if m.id}
    assert "Workflows" in ids and "Record the decision as %(name)s" in ids  # a template's
    assert "yes or no" in ids and "%(low)s to %(high)s" in ids  # gcv/console/views.py's
    assert "Phase %(number)s" in ids and "run candidate %(number)s" in ids  # the lower layers' tr("...")
    assert {s.title for s in Status} <= ids and {r.title for r in Reason} <= ids  # the vocabularies
    assert {"designer", "operator", "reviewer", "bullets per wave", "units/s"} <= ids
    plural = next(m for m in template if isinstance(m.id, tuple))
    assert plural.id[1].endswith("candidate runs")


def test_writing_twice_gives_the_same_bytes() -> None:
    first = catalogs.po_bytes(catalogs.extracted())
    assert first == catalogs.po_bytes(catalogs.extracted())
    assert b"POT-Creation-Date: 2026-01-01 00:00+0000" in first and b".html:" not in first  # no line numbers


def test_an_update_keeps_translations_adds_new_messages_empty_and_drops_the_gone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    template = catalogs.extracted()
    zh = i18n.catalog_path("zh_Hans").read_text(encoding="utf-8")
    # a catalog that lost one translation and holds one message the code no longer has
    po = tmp_path / "zh_Hans" / "LC_MESSAGES" / "messages.po"
    po.parent.mkdir(parents=True)
    po.write_text(zh.replace('msgid "Workflows"\nmsgstr "工作流"', 'msgid "Workflows"\nmsgstr ""')
                  + '\nmsgid "a message gone from the code"\nmsgstr "已删除"\n', encoding="utf-8")
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)
    monkeypatch.setattr(catalogs, "TEMPLATE", tmp_path / "messages.pot")
    i18n.catalog_locales.cache_clear()
    try:
        assert set(catalogs.stale(template)) == {tmp_path / "messages.pot", po}
        assert catalogs.write(template) == [tmp_path / "messages.pot", po]
        assert catalogs.stale(template) == [] and catalogs.write(template) == []
        updated = {m.id: m.string for m in read_po(po.open("rb")) if m.id}
        assert updated["Workflows"] == "" and updated["Baselines"] == "基线"
        assert "a message gone from the code" not in updated and "#~" not in po.read_text(encoding="utf-8")
        assert not [m for m in read_po(po.open("rb")) if m.fuzzy]
        assert catalogs.main([]) == 0
    finally:
        i18n.catalog_locales.cache_clear()


def test_the_check_says_what_is_stale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(catalogs, "TEMPLATE", catalogs.ROOT / "gcv" / "console" / "locale" / "missing.pot")
    assert catalogs.main([]) == 1
    assert "stale: gcv/console/locale/missing.pot (python -m gcv.console.catalogs --write)" in capsys.readouterr().out
