"""Phase references: ids, titles, numbers, ordinals, lists, ranges, "all phases", 第二阶段, 最后阶段."""

from __future__ import annotations

import re

from gcv.agents.offline_requirement.phrases import _ORD_WORD, _ORDINALS, _UNIT_AHEAD, ALL_PHASES, WHOLE_FIGHT
from gcv.agents.offline_requirement.state import Clause, Context, Reading, has, phase_summary, sub_all


def read(ctx: Context, text: str, r: Reading, clause: Clause) -> str:
    def all_phases(m: re.Match[str]) -> None:
        r.all_phases = True
        clause.phases.extend(n for n in range(1, ctx.count + 1) if n not in clause.phases)
    text = sub_all(ALL_PHASES, text, all_phases)

    def counted(m: re.Match[str]) -> None:
        n = int(m.group(1))
        if n == ctx.count:
            all_phases(m)
        else:
            r.ask(f"You mention {n} phases, but the fight has {ctx.count} ({phase_summary(ctx.baseline)}). "
                  "Which phases should change?")
    text = read_groups(ctx, text, r, clause)
    text = sub_all(r"(?:这|全部|所有)?\s*(\d+)\s*个阶段(?:都|全部)?", text, counted)

    for phase in ctx.baseline.phases:  # ids and titles as written in the baseline
        for token in {phase.phase_id.lower(), phase.title.lower()}:
            if len(token) < 3 or token.isdigit():
                continue  # an id like "a" or "1" would match ordinary words and numbers
            pattern = rf"(?<![\w]){re.escape(token)}(?![\w])"
            position = ctx.baseline.phases.index(phase) + 1
            def named_phase(m: re.Match[str], n: int = position) -> None:
                ctx.add_phase(n, r, clause)
            text = sub_all(pattern, text, named_phase)

    def listed(m: re.Match[str]) -> None:
        body = m.group(1)
        for a, b in re.findall(r"(\d+)\s*(?:-|to|through|~|到|至)\s*(\d+)", body):
            for n in range(int(a), int(b) + 1):
                ctx.add_phase(n, r, clause)
        body = re.sub(r"(\d+)\s*(?:-|to|through|~|到|至)\s*(\d+)", " ", body)
        for n in re.findall(r"\d+", body):
            ctx.add_phase(int(n), r, clause)
    sep = r"\s*(?:,|and|&|or|/|、|和|与|及|跟|或)\s*(?:the\s+)?(?:phase\s*|stage\s*|p)?"
    rng = r"\s*(?:-|to|through|~)\s*"
    # a continuation is one digit not followed by a unit ("phase 2 to 20 bullets" is not a range)
    first = r"\d+(?![\d.%]|\s*%|\s*(?:x|times)\b)"
    more = rf"[1-9](?![\d.]|{_UNIT_AHEAD})"
    def ordinal_first(m: re.Match[str]) -> None:  # "the last phase 14 bullets": 14 is a count, not a phase
        word = m.group(1)
        ctx.add_phase(ctx.count if word in ("last", "final") else _ORDINALS[word], r, clause)
    text = sub_all(rf"\b({_ORD_WORD})\s+(?:phase|stage)\b(?=\s*\d+(?:\.\d+)?{_UNIT_AHEAD})", text, ordinal_first)
    text = sub_all(rf"\b(?:phases?|stages?)[ _-]?({first}(?:(?:{sep}|{rng}){more})*)(?![\w.])", text, listed)
    text = sub_all(r"\bp(\d)\b", text, lambda m: ctx.add_phase(int(m.group(1)), r, clause))

    def ordinal(m: re.Match[str]) -> None:
        word = m.group(1)
        ctx.add_phase(ctx.count if word in ("last", "final") else _ORDINALS[word], r, clause)
    text = sub_all(rf"\b({_ORD_WORD})\b(?:\s+(?:phase|stage)\b|(?=(?:\s*(?:,|and|&|or)\s*(?:the\s+)?(?:{_ORD_WORD}))*"
                    rf"\s+(?:phase|stage)s?\b))", text, ordinal)

    def zh_listed(m: re.Match[str]) -> None:
        for n in re.findall(r"\d+", m.group(0)):
            ctx.add_phase(int(n), r, clause)
    # 第一个和最后一个阶段: a position and the last one
    def and_last(m: re.Match[str]) -> None:
        ctx.add_phase(int(m.group(1)), r, clause)
        ctx.add_phase(ctx.count, r, clause)
    text = sub_all(r"第\s*(\d+)\s*个?\s*(?:阶段|形态)?\s*(?:和|与|及|跟|、)\s*最后(?:一个|1个)?\s*(?:阶段|形态)", text,
                   and_last)
    text = sub_all(r"(?:第\s*\d+\s*(?:[、,和与及跟或]\s*)?)+\s*个?\s*(?:阶段|形态)", text, zh_listed)
    text = sub_all(r"(?<![\d第])(\d)\s*阶段|阶段\s*(\d)", text,
                    lambda m: ctx.add_phase(int(m.group(1) or m.group(2)), r, clause))
    text = sub_all(r"最后(?:一个)?(?:阶段|形态)|最终阶段|末阶段|最终形态|尾段", text,
                    lambda m: ctx.add_phase(ctx.count, r, clause))
    text = sub_all(r"首个阶段|开场阶段|第一个阶段", text, lambda m: ctx.add_phase(1, r, clause))
    text = re.sub(r"\b(?:phases?|stages?)\b", " ", text) if clause.phases else text
    return text


# "the last two phases", "the first 2 phases", "后两个阶段", "前两个阶段", "the middle phase", "the opener",
# "the closer" / "the finale" / "the last one" (the last phase), 收尾阶段
_GROUP_EN = r"\b(?:the\s+)?(last|final|first|opening|later|earlier)\s+(two|three|2|3)\s+(?:phases|stages)\b"
_GROUP_ZH = r"(后|前|最后|头)\s*(两|三|2|3)\s*个?\s*(?:阶段|形态)"
_COUNT_WORDS = {"two": 2, "three": 3, "2": 2, "3": 3, "两": 2, "三": 3}


def read_groups(ctx: Context, text: str, r: Reading, clause: Clause) -> str:
    """Phases named as a group by position: the first N, the last N, the middle one, the opener."""
    def group(m: re.Match[str]) -> None:
        where, n = m.group(1), _COUNT_WORDS[m.group(2)]
        if n > ctx.count:
            ctx.add_phase(n, r, clause)  # asks: there are fewer phases
            return
        last = where in ("last", "final", "later", "后", "最后")
        for k in (range(ctx.count - n + 1, ctx.count + 1) if last else range(1, n + 1)):
            ctx.add_phase(k, r, clause)
    text = sub_all(_GROUP_EN, text, group)
    text = sub_all(_GROUP_ZH, text, group)
    if ctx.count % 2 == 1 and ctx.count > 1:
        text = sub_all(r"\b(?:the\s+)?middle\s+(?:phase|stage|one)\b|中间(?:那个|的)?(?:阶段|那段|那关)",
                       text, lambda m: ctx.add_phase(ctx.count // 2 + 1, r, clause))
    text = sub_all(r"\b(?:the\s+)?(?:closer|finale|closing\s+(?:bit|part|section|phase)|final\s+one|last\s+one)\b|"
                   r"收尾(?:的)?(?:阶段|那段)?|结尾(?:的)?(?:阶段|那段)", text, lambda m: ctx.add_phase(ctx.count, r, clause))
    return sub_all(r"\b(?:the\s+)?(?:opener|opening\s+(?:bit|part|section))\b|开场(?:的)?|开头(?:的)?(?=\S)",
                   text, lambda m: ctx.add_phase(1, r, clause))


def read_whole_fight(ctx: Context, text: str, r: Reading, clause: Clause) -> str:
    """'overall', 'the whole fight', 整体: every phase (read after the no-change phrases took 'keep everything')."""
    cleaned = re.sub(r"\beverything\s+else\b|\ball\s+else\b|其他(?:的)?(?:都|不变)?", " ", text)
    if has(WHOLE_FIGHT, cleaned):
        r.whole_fight = True
        clause.phases.extend(n for n in range(1, ctx.count + 1) if n not in clause.phases)
    return text


def resolve(ctx: Context, r: Reading) -> None:
    """The target phases of the whole request, once every clause is read."""
    ids = [p.phase_id for p in ctx.baseline.phases]
    if r.all_phases:
        r.phase_ids = list(ids)
    elif r.phase_positions:  # "phase 2 and the petal phase": a number and a reference together
        named = set(r.phase_positions) | {ids.index(pid) + 1 for pid in r.referenced_by_pattern if pid in ids}
        r.phase_ids = [ids[n - 1] for n in sorted(named)]
    elif r.referenced_by_pattern:
        r.phase_ids = [pid for pid in ids if pid in r.referenced_by_pattern]
    elif r.whole_fight or ctx.count == 1:
        r.phase_ids = list(ids)
    if r.excluded_positions:  # "every phase except the spiral": what is named (else every phase), minus those
        left_out = {ids[n - 1] for n in r.excluded_positions}
        r.phase_ids = [pid for pid in (r.phase_ids or ids) if pid not in left_out]
        if not r.phase_ids:
            r.ask("The request leaves out every phase it names; which phases should change?")
    # two clauses that each name different phases and each ask for a change cannot share one goal
    changing = [c for c in r.clauses if c.phases and c.signals]
    if len({tuple(sorted(c.phases)) for c in changing}) > 1 and len({tuple(c.signals) for c in changing}) > 1:
        r.ask("The request asks for different changes in different phases; GCV verifies one change at a "
              "time. Submit each phase's change as its own request (e.g. first 'make phase 2 denser').")


__all__ = ["read", "read_groups", "read_whole_fight", "resolve"]
