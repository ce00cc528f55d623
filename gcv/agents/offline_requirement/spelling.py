"""Typos: an English word one slip away from a word the rules know is read as that word.

"denserr", "spirl", "pahse", "bidirectinal": designers type fast. A word is corrected only
when it is not a word the reader (or everyday English, ``KNOWN_WORDS``) knows, is at least
four letters long, and is exactly one edit (insert, delete, substitute, or swap two
neighbours: the optimal string alignment distance) from one ``VOCABULARY`` word, or two
edits from one when both are nine letters or more. A word as close to two vocabulary words is
read as the one that keeps its first and last letters when exactly one does ("slowr" is
"slower", not "slow"); otherwise it is left alone: no guess.
"""

from __future__ import annotations

import functools
import re

from rapidfuzz.distance import OSA

from gcv.agents.offline_requirement.phrases import KNOWN_WORDS, VOCABULARY

_WORD = re.compile(r"[a-z]{3,}")


@functools.lru_cache(maxsize=4096)
def correct_word(word: str) -> str:
    """The vocabulary word ``word`` is a typo of, or ``word`` itself."""
    if word in KNOWN_WORDS or len(word) < 3:
        return word
    best: list[str] = []
    best_distance = 99
    for candidate in VOCABULARY:
        if abs(len(candidate) - len(word)) > 2:
            continue
        limit = 2 if min(len(word), len(candidate)) >= 9 else 1
        if len(word) == 3 and candidate != "the":
            continue  # three letters are too few to guess from, except the commonest slip ("teh")
        d = OSA.distance(word, candidate, score_cutoff=limit)
        if d > limit:
            continue
        if d < best_distance:
            best, best_distance = [candidate], d
        elif d == best_distance and candidate not in best:
            best.append(candidate)
    if len(best) > 1:  # a slip seldom changes the first and last letters: "slowr" is "slower", not "slow"
        same_ends = [c for c in best if c[0] == word[0] and c[-1] == word[-1]]
        best = same_ends if len(same_ends) == 1 else best
    return best[0] if len(best) == 1 else word


def correct_spelling(text: str) -> str:
    """``text`` with every typo of a vocabulary word corrected (lower-case text)."""
    return _WORD.sub(lambda m: correct_word(m.group()), text)


__all__ = ["correct_spelling", "correct_word"]
