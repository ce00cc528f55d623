"""Typos (gcv.agents.offline_requirement.spelling): one slip from a word the rules know is read as
that word; a real word, or a slip as close to two words, is left alone."""

from __future__ import annotations

import pytest

from gcv.agents.offline_requirement.spelling import correct_spelling, correct_word


@pytest.mark.parametrize("typo,word", [("denserr", "denser"), ("spirl", "spiral"), ("pahse", "phase"),
                                       ("bidirectinal", "bidirectional"), ("slowr", "slower"), ("teh", "the")])
def test_one_slip_is_corrected(typo: str, word: str) -> None:
    assert correct_word(typo) == word


@pytest.mark.parametrize("word", ["power", "lasers", "abc", "phase", "xyzzyq"])
def test_real_words_and_strangers_are_left_alone(word: str) -> None:
    assert correct_word(word) == word


def test_correct_spelling_works_word_by_word() -> None:
    assert correct_spelling("make pahse 2 denserr") == "make phase 2 denser"
    assert correct_spelling("第二阶段 denserr") == "第二阶段 denser"
