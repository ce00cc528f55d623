"""Pattern names and switches: which pattern a phase becomes, and which one it was.

"A instead of B", "replace B with A", "turn B into A", "B -> A", "把 B 改成 A", "B 换成 A",
"用 A 代替 B": the new pattern is A. Each named pattern is read as the old one or the new one
from the words right around it (``phrases.SWITCH_*``), so the order of the words does not
decide. The old pattern locates the phase when no phase is named and the baseline has one
phase of that type ("turn the ring into a spiral" changes the ring phase).
"""

from __future__ import annotations

import re

from gcv.agents.offline_requirement.phrases import (PATTERN_WORDS, SWITCH_NEW_AFTER, SWITCH_NEW_BEFORE, SWITCH_OLD_AFTER,
                                                    SWITCH_OLD_BEFORE)
from gcv.agents.offline_requirement.state import Clause, Context, Reading, has, is_reference


def _role(text: str, start: int, end: int) -> str:
    before, after = text[max(0, start - 40):start], text[end:end + 24]
    if re.search(r"\bthe\s+$", before) and re.match(r"\s*(?:phase|stage)\b", after):
        return "?"  # "I'd like the spiral phase to ...": the phase that is a spiral, whatever verb comes before
    old = re.search(SWITCH_OLD_BEFORE, before) is not None or re.match(SWITCH_OLD_AFTER, after) is not None
    new = re.search(SWITCH_NEW_BEFORE, before) is not None or re.match(SWITCH_NEW_AFTER, after) is not None
    if old and not new:
        return "old"
    if new and not old:
        return "new"
    return "?"


def read(ctx: Context, text: str, r: Reading, clause: Clause) -> str:
    found: list[tuple[int, int, str]] = []
    for name, pattern in PATTERN_WORDS.items():
        for m in re.finditer(pattern, text):
            found.append((m.start(), m.end(), name))
    found.sort()
    kept: list[tuple[int, int, str]] = []
    for item in found:  # drop overlaps (first one wins)
        if not kept or item[0] >= kept[-1][1]:
            kept.append(item)
    if not kept:
        return text
    roles: dict[str, str] = {}
    for s, e, name in kept:
        role = _role(text, s, e)
        if roles.get(name, "?") == "?":
            roles[name] = role
    names = list(roles)
    phase_named = bool(clause.phases or r.phase_positions or r.all_phases)

    def locate(source: str) -> None:
        same = [p.phase_id for p in ctx.baseline.phases if p.pattern.type == source]
        if not phase_named and len(same) == 1:
            if same[0] not in r.referenced_by_pattern:
                r.referenced_by_pattern.append(same[0])
            r.note(f"the {source} is {same[0]}")

    target: str | None = None
    source: str | None = None
    if len(names) == 1:
        name = names[0]
        first = next(k for k in kept if k[2] == name)
        if roles[name] == "old":
            source = name  # "instead of a ring, ...": the phase it was; the new pattern comes elsewhere
        elif roles[name] != "new" and is_reference(text[:first[0]], text[first[1]:]) and not phase_named:
            same = [p.phase_id for p in ctx.baseline.phases if p.pattern.type == name]
            if len(same) == 1:
                r.referenced_by_pattern.append(same[0])
                r.note(f"'{text[first[0]:first[1]]}' refers to {same[0]} (the baseline's only {name})")
            else:
                target = name
        else:
            target = name
    elif len(names) == 2:
        a, b = names
        ra, rb = roles[a], roles[b]
        if ra == "old" and rb != "old":
            source, target = a, b
        elif rb == "old" and ra != "old":
            source, target = b, a
        elif ra == "new" and rb == "?":
            source, target = b, a
        elif rb == "new" and ra == "?":
            source, target = a, b
        else:
            first_end = next(e for s, e, n in kept if n == a)
            second_start = next(s for s, e, n in kept if n == b)
            first_start = next(s for s, e, n in kept if n == a)
            between = text[first_end:second_start]
            if has(r"\binto\b|\bto\b|->|\bwith\b|\binstead\b|成|为|换|变", between) or (
                    is_reference(text[:first_start], "") and re.search(r"\b(?:a|an)\s+(?:[\w-]+\s+)?$", between)):
                source, target = a, b
            else:
                r.ask(f"The request names two patterns ({a} and {b}); which one should the phase become?")
    else:
        r.ask(f"The request names several patterns ({', '.join(names)}); which one should the phase become?")
    if source is not None:
        locate(source)
    if target is not None:
        if r.pattern_type is not None and r.pattern_type != target:
            r.ask(f"The request names two target patterns ({r.pattern_type} and {target}); which one?")
        r.pattern_type = target
        clause.signals.append(f"pattern:{target}")
        r.note(f"pattern: {target}" + (f" (from {source})" if source else ""))
    for s, e, _ in reversed(kept):
        text = text[:s] + " " * (e - s) + text[e:]
    return text


__all__ = ["read"]
