"""Number normalisation for the offline reader (gcv.agents.offline_requirement.numbers):
Chinese numerals, full-width digits, percent words, English number words (the first two tests
moved here from tests/agents/test_offline_requirement.py)."""

from __future__ import annotations

import pytest

from gcv.agents.offline_requirement.numbers import cn_to_int, normalize


@pytest.mark.parametrize("text, value", [("二十", 20), ("十五", 15), ("三百五十", 350), ("三百五", 350), ("两", 2),
                                         ("十", 10), ("一千二", 1200), ("二零", 20)])
def test_chinese_numerals(text: str, value: int) -> None:
    assert cn_to_int(text) == value


@pytest.mark.parametrize("text, normal", [
    ("第二阶段更密", "第2阶段更密"),
    ("提高到二十发", "提高到20发"),
    ("百分之二十", "20%"),
    ("ＦＰＳ不低于５５", "fps不低于55"),
    ("三个阶段", "3个阶段"),
    ("简单一点", "简单一点"),      # a lone 一 is "a bit", not the number one
    ("增加一些子弹", "增加一些子弹"),
    ("phase two, three layers", "phase 2, 3 layers"),
    ("30 percent faster", "30% faster"),
    ("every half a second", "every 0.5 s"),
    ("phases 1, 2 and 3", "phases 1&2&3"),
])
def test_normalize(text: str, normal: str) -> None:
    assert normalize(text) == normal


def test_literal_field_names_and_fractions() -> None:
    assert normalize("bullets_per_wave 20") == normalize("bullets per wave 20")
    assert normalize("a quarter slower") == "25% slower"
    assert normalize("MAKE Phase II DENSER") == "make phase 2 denser"
