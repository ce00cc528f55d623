"""Phases named to be left out: "every phase except the spiral", "all but phase 1", "除了第一阶段".

Read on the whole request before it is cut into clauses (``RequestReader.read``).

An exclusion word followed by a phase reference (a number, an ordinal, a title, a pattern the
baseline has once) takes those phases out of the request; the words are blanked so no later
handler reads the excluded phase (or its pattern) as the one to change. The target phases are
then the phases the request names, else all of them, minus the excluded ones
(``phases.resolve``). A reference that names no phase of the baseline, or an exclusion that
leaves no phase, is a question, never a guess.
"""

from __future__ import annotations

import re

from gcv.agents.offline_requirement.phrases import _ORD_WORD, _ORDINALS, PATTERN_WORDS
from gcv.agents.offline_requirement.state import Clause, Context, Reading, sub_all

_PATTERN_REF = "|".join(f"(?:{p})" for p in PATTERN_WORDS.values())
# one phase reference, as the exclusion names it
_REF_EN = (rf"(?:the\s+)?(?:(?:phases?|stages?)\s*\d+|p\d\b|(?:{_ORD_WORD})(?:\s+(?:phase|stage|one))?\b|"
           rf"(?:{_PATTERN_REF})(?:\s+(?:phase|stage|one|part))?)")
_REFS_EN = rf"{_REF_EN}(?:\s*(?:,|and|or|&)\s*{_REF_EN})*"
_REF_ZH = rf"(?:第\s*\d+\s*(?:个)?\s*(?:阶段|形态)?|\d\s*阶段|阶段\s*\d|最后(?:一个)?(?:阶段)?|(?:{_PATTERN_REF})(?:那个|的)?(?:阶段|那段)?)"
_REFS_ZH = rf"{_REF_ZH}(?:\s*(?:、|和|与|及|或)\s*{_REF_ZH})*"
# the phase as a whole, not one of its fields ("don't touch phase 1's speed" names a field)
_WHOLE_EN = (r"(?!'s|\s*(?:bullets?|speed|interval|lifetime|rotation|spread|layers?|pattern|rate|wave)\b)")
EXCLUSIONS = (
    rf"\b(?:except(?:\s+for)?|other\s+than|apart\s+from|aside\s+from|excluding|but\s+not|save\s+for|not\s+counting)"
    rf"\s+(?P<en>{_REFS_EN})",
    rf"\b(?:all|every|each|everything|everywhere)(?:\s+(?:the|of\s+the))?(?:\s+(?:phases?|stages?|patterns?|ones?))?\s+but\s+(?P<en2>{_REFS_EN})",
    rf"(?:除了|不包括|不含)\s*(?P<zh>{_REFS_ZH})\s*(?:以外|之外|外)?",
    # 除…外 (never the 除 of 删除 / 移除: "delete phase 3" is no exclusion)
    rf"(?<![删移清排消剔拆免开解])除\s*(?P<zh3>{_REFS_ZH})\s*(?:以外|之外|外)",
    rf"(?P<zh2>{_REFS_ZH})\s*除外",
    # a phase said to stay as it is, as a whole: "the ring is fine", "leave the petal alone", "don't
    # touch phase 1", 第一阶段不用动 (never a field of it: "don't change phase 1's speed", 第一阶段别改弹速)
    rf"(?P<en3>{_REFS_EN})\s+(?:is|are|looks?|seems?)\s+(?:fine|good|ok(?:ay)?|great|perfect|right)\b",
    rf"\b(?:leave|keep)\s+(?P<en4>{_REFS_EN})\s+(?:alone|as\s+(?:it\s+)?is|unchanged|untouched)\b",
    rf"\b(?:don'?t|do\s+not|never)\s+(?:touch|change|modify|mess\s+with)\s+(?P<en5>{_REFS_EN}){_WHOLE_EN}",
    rf"\bno\s+changes?\s+(?:to|for|in)\s+(?P<en6>{_REFS_EN}){_WHOLE_EN}",
    rf"(?P<zh4>{_REFS_ZH})\s*(?:就)?\s*(?:不用动|不要动|别动|不动|不用改|不要改|别改|不改|保持不变|维持原样|保持原样|不变)"
    r"(?=\s*(?:$|[，,。.;；!！、]|但|而|其他|其余|别的|只))",
)
KEEP_OUT = ("en3", "en4", "en5", "en6", "zh4")  # the groups of a phase said to stay as it is


def _positions(ctx: Context, words: str) -> list[int] | None:
    """The baseline phases ``words`` name (1-based), or None when one reference names none."""
    found: list[int] = []
    for part in re.split(r"\s*(?:,|\band\b|\bor\b|&|、|和|与|及|或)\s*", words.strip()):
        part = part.strip()
        if not part:
            continue
        digits = re.search(r"\d+", part)
        ordinal = re.search(rf"\b({_ORD_WORD})\b", part)
        if digits:
            n = int(digits.group())
        elif ordinal:
            word = ordinal.group(1)
            n = ctx.count if word in ("last", "final") else _ORDINALS[word]
        elif "最后" in part:
            n = ctx.count
        else:
            kinds = [kind for kind, rx in PATTERN_WORDS.items() if re.search(rx, part)]
            same = [i + 1 for i, p in enumerate(ctx.baseline.phases) if p.pattern.type in kinds]
            if len(same) != 1:
                return None
            n = same[0]
        if not 1 <= n <= ctx.count:
            return None
        found.append(n)
    return found or None


def read(ctx: Context, text: str, r: Reading, clause: Clause) -> str:
    def excluded(m: re.Match[str]) -> None:
        words = next(g for g in m.groups() if g)
        positions = _positions(ctx, words)
        if positions is None:
            r.ask(f"The request leaves out '{words.strip()}', which names no single phase of this fight; which "
                  "phases should change?")
            return
        for n in positions:
            if n not in r.excluded_positions:
                r.excluded_positions.append(n)
        if any(m.groupdict().get(g) for g in KEEP_OUT):
            r.no_change = True  # only read when nothing else changes: "keep phase 2 as it is" asks for nothing
        r.note(f"leaves out phase(s) {', '.join(str(n) for n in positions)} ('{m.group(0).strip()}')")
    for rx in EXCLUSIONS:
        text = sub_all(rx, text, excluded)
    return text


__all__ = ["read", "EXCLUSIONS"]
