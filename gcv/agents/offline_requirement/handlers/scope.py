"""Asks no change request may make: new or removed phases, limits, fields outside the write scope,
mechanics the simulator does not have, negative speeds. Each becomes a ``BlockIssue`` naming the
field, what was asked, what is allowed, and what can be changed instead.
"""

from __future__ import annotations

import re

from gcv.agents.goal_applier import fmt
from gcv.contract.ranges import PATTERN_RANGES
from gcv.agents.offline_requirement.phrases import ADD_PHASE, LIMIT_CHANGE, LIMIT_SUBJECTS, UNKNOWN_PATTERNS, WRITE_SCOPE
from gcv.agents.offline_requirement.state import BlockIssue, Clause, Context, Reading, has, sub_all
from gcv.contract.models import PATTERN_TYPES

INSTEAD = ("What a request can change: each phase's pattern (type ring, spiral, aimed fan, petal or scatter; "
           "bullets per wave, wave interval, bullet speed, lifetime, rotation, spread, layers, direction) and, "
           "stricter only, the targets (alive bullets, low FPS, player hits).")
STRICTER = ("To be stricter, state a constraint instead (e.g. 'never more than 300 bullets alive', "
            "'at most 2 hits', 'keep the low FPS at 60 or above').")


def read(ctx: Context, text: str, r: Reading, clause: Clause) -> str:
    def add_phase(m: re.Match[str]) -> None:
        r.blocks.append(BlockIssue(
            field="$.phases", asked=m.group().strip(),
            allowed=f"the baseline's {ctx.count} phases ({', '.join(p.phase_id for p in ctx.baseline.phases)}); "
                    "contract maximum 6",
            message="a change request edits the patterns of the existing phases; it never adds, removes or "
                    f"reorders phases. {INSTEAD}"))
    text = sub_all(ADD_PHASE, text, add_phase)

    def limit(m: re.Match[str]) -> None:
        said = m.group().strip()
        if re.search(r"(?:\bnot|n't|\bnever|\bwithout|不要|不能|别|不得)\s*$", text[:m.start()]):
            return  # "don't break the limit": a promise, not a request
        fields = [name for pattern, name in LIMIT_SUBJECTS if has(pattern, said)]
        for name in fields:
            value = getattr(ctx.baseline.limits, name)
            r.blocks.append(BlockIssue(
                field=f"$.limits.{name}", asked=said, allowed=f"unchanged ({fmt(value)}): limits are the baseline's",
                message=f"limits.{name} is the platform's hard limit ({fmt(value)}); limits are owned by "
                        f"the baseline and never change. {STRICTER}"))
        if not fields:
            r.blocks.append(BlockIssue(
                field="$.limits", asked=said, allowed="unchanged: limits are the baseline's",
                message=f"the hard limits are owned by the baseline and never change. {STRICTER}"))
    text = sub_all(LIMIT_CHANGE, text, limit)

    for pattern, path, what in WRITE_SCOPE:
        def scope(m: re.Match[str], path: str = path, what: str = what) -> None:
            r.blocks.append(BlockIssue(
                field=path, asked=m.group().strip(), allowed="only phases[*].pattern.* and targets.* may change",
                message=f"{what} is outside what a change request may edit. {INSTEAD}"))
        text = sub_all(pattern, text, scope)

    def unknown(m: re.Match[str]) -> None:
        said = m.group().strip()
        r.blocks.append(BlockIssue(
            field="$.phases[*].pattern.type", asked=said, allowed=", ".join(PATTERN_TYPES),
            message=f"'{said}' is not a mechanic the simulator and engines implement; a pattern is one of "
                    f"{', '.join(PATTERN_TYPES)}. {INSTEAD}"))
    text = sub_all(UNKNOWN_PATTERNS, text, unknown)

    def negative_speed(m: re.Match[str]) -> None:
        lo, hi = PATTERN_RANGES["bullet_speed"]
        r.blocks.append(BlockIssue(
            field="$.phases[*].pattern.bullet_speed", asked=m.group().strip(), allowed=f"{fmt(lo)}..{fmt(hi)}",
            message="bullet speed cannot be negative or zero; to turn a pattern the other way, ask to "
                    "reverse its rotation"))
    return sub_all(r"\bnegative\s+(?:bullet\s+)?speeds?\b|\bzero\s+speed\b|\bbackwards?\s+bullets\b|"
                   r"负(?:的)?速度|速度为负|速度(?:设为|为)?零", text, negative_speed)


__all__ = ["read", "INSTEAD"]
