"""Design targets: the designer's constraints ("never more than 300 bullets alive", "at most 2 hits")
and target changes ("raise the low FPS target to 60", "帧率下限降到 40").

A target may be tightened: that is a valid change, verified like any other (the candidate's
targets carry it and the evaluation holds the runs to it). Whether a stated value tightens or
loosens is judged against the baseline, never from the verb ("raise the alive target to 300"
tightens a target of 350). Loosening follows the safety rules: past the baseline's hard limit
it is blocked, naming the limit; a constraint looser than the target but inside the limit is
kept as stated and the stricter target stays in force (the applier says so).
"""

from __future__ import annotations

import re
from fractions import Fraction

from gcv.agents.goal_applier import fmt
from gcv.agents.offline_requirement.phrases import (ALLOW_LOOSEN, CONSTRAINTS, DODGEABLE, LIMIT_WORDS, NUM,
                                                    TARGET_CN_VERB,
                                                    TARGET_KIND, TARGET_SUBJECTS, TARGET_TO, TARGET_UNIT, TARGET_VERB,
                                                    ZERO_HITS)
from gcv.agents.offline_requirement.state import BlockIssue, Clause, Context, Reading, has, num, sub_all

LABELS = {"max_alive_bullets": "max alive bullets", "min_low_fps": "min low FPS", "max_player_hits": "max player hits",
          "require_dodgeable": "stay dodgeable"}
DODGE = "require_dodgeable"  # held in Reading.constraints as 1 (stated); the goal gets True
# +1: a higher value is stricter (min low FPS); -1: a lower value is stricter
STRICTER = {"max_alive_bullets": -1, "min_low_fps": +1, "max_player_hits": -1}


def record(r: Reading, clause: Clause, name: str, value: Fraction, said: str) -> None:
    if name in r.constraints and r.constraints[name] != value:
        r.ask(f"The request states two values for {LABELS[name]} ({fmt(r.constraints[name])} and "
              f"{fmt(value)}); which one applies?")
        return
    r.constraints[name] = value
    clause.signals.append(f"constraint:{name}")
    r.note(f"constraint: {LABELS[name]} {fmt(value)} ('{said.strip()}')")


def _judge(ctx: Context, r: Reading, clause: Clause, name: str, value: Fraction, said: str, limit_word: bool) -> None:
    """A stated target value: tightening is a constraint; loosening past the limit is blocked."""
    target = Fraction(str(getattr(ctx.baseline.targets, name)))
    limit = Fraction(str(getattr(ctx.baseline.limits, name)))
    way = STRICTER[name]
    if (value - target) * way >= 0:
        record(r, clause, name, value, said)
        if limit_word:
            r.note(f"limits.{name} stays {fmt(limit)} (limits never change); {fmt(value)} is held as the "
                   "design target")
        return
    if (value - limit) * way < 0:
        where = "limits" if limit_word else "targets"
        sign = ">=" if way > 0 else "<="
        r.blocks.append(BlockIssue(
            field=f"$.{where}.{name}", asked=fmt(value),
            allowed=f"{sign} {fmt(target)} (the baseline's target; hard limit {fmt(limit)})",
            message=f"'{said.strip()}' would loosen {name} past the baseline's hard limit {fmt(limit)}; limits "
                    "never change and a target is never looser than its limit. A request may tighten it "
                    f"(e.g. {'at least ' + fmt(target + 5) + ' FPS' if way > 0 else 'at most ' + fmt(max(target - 1, Fraction(0)))})."))
        return
    record(r, clause, name, value, said)


_UP = r"raise|increase|lift|bump|up|push|提高|提升|增加|加"
_DOWN = r"lower|reduce|drop|decrease|cut|降低|降|减少|减"


def _relative(ctx: Context, text: str, r: Reading, clause: Clause) -> str:
    """A target moved BY an amount: 'cut the alive cap by 50' (300), 'raise the fps floor by 5' (60),
    '受击上限收紧1次'. The verb gives the way (tighten: stricter, loosen: looser); the new value is
    then judged like a stated one."""
    for name, subject in TARGET_SUBJECTS.items():
        en = (rf"\b(?P<verb>{TARGET_VERB}|tighten|loosen|relax)\w*\s+(?:the\s+|our\s+|my\s+)?(?:{subject})[- ]?\s*"
              rf"(?:{TARGET_KIND})?\s+by\s+(?P<n>{NUM}){TARGET_UNIT}")
        zh = (rf"(?:{subject})\s*(?:的)?\s*(?:{TARGET_KIND})?\s*(?:再)?\s*(?P<verb>提高|提升|增加|加|降低|降|减少|减|收紧|放宽)"
              rf"\s*了?\s*(?!到|至|为|成)(?P<n>{NUM}){TARGET_UNIT}")

        def moved(m: re.Match[str], name: str = name) -> None:
            verb, amount = m.group("verb"), num(m.group("n"))
            if re.fullmatch(r"tighten\w*|收紧", verb):
                sign = STRICTER[name]
            elif re.fullmatch(r"loosen\w*|relax\w*|放宽", verb):
                sign = -STRICTER[name]
            elif re.match(rf"(?:{_UP})", verb):
                sign = 1
            elif re.match(rf"(?:{_DOWN})", verb):
                sign = -1
            else:  # "set the cap by 50": no way to tell
                r.ask(f"'{m.group().strip()}': should {LABELS[name]} go up or down by {fmt(amount)}?")
                return
            value = Fraction(str(getattr(ctx.baseline.targets, name))) + sign * amount
            if name != "min_low_fps" and value.denominator != 1:
                r.ask(f"'{m.group().strip()}': {LABELS[name]} is a whole number; which one?")
                return
            r.note(f"{LABELS[name]} {'+' if sign > 0 else '-'}{fmt(amount)}: {fmt(value)} ('{m.group().strip()}')")
            _judge(ctx, r, clause, name, value, m.group(), has(LIMIT_WORDS, m.group()))
        text = sub_all(en, text, moved)
        text = sub_all(zh, text, moved)
    return text


def read_statements(ctx: Context, text: str, r: Reading, clause: Clause) -> str:
    """'raise the low FPS target to 60', 'cap alive bullets at 250', '受击次数目标收紧到 1 次'."""
    text = _relative(ctx, text, r, clause)
    for name, subject in TARGET_SUBJECTS.items():
        en = (rf"(?:\b(?:{TARGET_VERB})\w*\s+)?(?:the\s+|a\s+|our\s+|my\s+)?(?:{subject})[- ]?\s*(?P<kind>{TARGET_KIND})"
              rf"{TARGET_TO}(?P<n>{NUM}){TARGET_UNIT}"
              rf"|\b(?:cap|limit|tighten|loosen|relax)\w*\s+(?:the\s+)?(?:{subject})\s+(?:at|to|under|below)\s+"
              rf"(?P<m>{NUM}){TARGET_UNIT}")
        zh = (rf"(?:把|将)?\s*(?:{subject})\s*(?:的)?\s*(?P<kind>{TARGET_KIND})?\s*(?:{TARGET_CN_VERB})\s*"
              rf"(?P<n>{NUM}){TARGET_UNIT}")

        def statement(m: re.Match[str], name: str = name) -> None:
            value = num(m.group("n") or m.group("m"))
            if name != "min_low_fps" and value.denominator != 1:
                r.ask(f"'{m.group().strip()}': {LABELS[name]} is a whole number; which one?")
                return
            _judge(ctx, r, clause, name, value, m.group(), has(LIMIT_WORDS, m.group()))
        text = sub_all(en, text, statement)
        text = sub_all(zh, text, statement)
    return text


def read(ctx: Context, text: str, r: Reading, clause: Clause) -> str:
    """Designer constraints: caps and floors the candidate must keep."""
    for pattern, name in ALLOW_LOOSEN:
        def allow(m: re.Match[str], name: str = name) -> None:
            value = num(m.group(1))
            limit = Fraction(str(getattr(ctx.baseline.limits, name)))
            if value > limit:
                r.blocks.append(BlockIssue(
                    field=f"$.limits.{name}", asked=fmt(value), allowed=f"<= {fmt(limit)} (the baseline's hard limit)",
                    message=f"allowing {fmt(value)} would loosen the hard limit {name} = {fmt(limit)}; limits are "
                            "owned by the baseline and never change"))
            else:
                record(r, clause, name, value, m.group())
        text = sub_all(pattern, text, allow)
    for pattern, name in CONSTRAINTS:
        def stated(m: re.Match[str], name: str = name) -> None:
            record(r, clause, name, num(m.group(1)), m.group())
        text = sub_all(pattern, text, stated)
    text = sub_all(ZERO_HITS, text, lambda m: record(r, clause, "max_player_hits", Fraction(0), m.group()))
    text = read_composed(text, r, clause)
    return sub_all(DODGEABLE, text, lambda m: None if r.constraints.get(DODGE) else
                   record(r, clause, DODGE, Fraction(1), m.group()))


# -- a target composed from its parts, in any order -------------------------------------------
# A figure (hits, low FPS, alive bullets), a bound word and one number in the same stretch of a
# clause: "keep player hits at 2 or fewer", "hits 最多 2 次", "帧数别掉到 58 以下", "同屏最多 300 颗子弹",
# "玩家最多挨两下". The figure says which way the bound goes (hits and alive bullets are caps,
# the FPS is a floor), so the bound word only has to say "this is a bound", not its direction.
FIGURES = {
    "max_player_hits": r"(?:player\s+)?\bhits?\b|\bget(?:s|ting)?\s+hit\b|\btimes?\s+hit\b|受击|被?(?:击中|打中|命中|擊中)|"
                       r"中弹|挨(?:打|揍)?|被弹",
    "min_low_fps": r"(?:low(?:est)?\s+)?\bfps\b|frame\s*rate|帧率|帧数|低帧|帧",
    "max_alive_bullets": r"\b(?:alive|live|on[- ]screen|simultaneous)\b(?:\s+bullets?)?|\bbullets?\s+(?:alive|on[- ]screen)\b|"
                         r"\bbullet\s+cap\b|\bcap\b|同屏|存活|场上|在场",
}
BOUND = (r"\bat\s+most\b|\bno\s+more\s+than\b|\bmax(?:imum)?\b|\bor\s+(?:fewer|less|lower|under|below|more|higher|above)\b|"
         r"\bunder\b|\bbelow\b|\bat\s+least\b|\bminimum\b|\bmin\b|\bfloor\b|\bcap(?:ped)?\b|\bkeep\b|\bhold(?:ing)?\b|"
         r"\bstay(?:s|ing)?\b|\bremains?\b|\babove\b|\bmake\s+sure\b|\bensure\b|\bnever\s+(?:drops?|falls?|dips?)\b|\btops\b|<=|≤|>=|≥|最多|至多|不超过|不超過|别超过|不能超过|以内|以下|以上|不低于|别低于|不能低于|"
         r"最低|至少|上限|下限|别掉到|掉到|保证|保持|收紧")
_PATTERN_UNIT = r"^\s*(?:ms|s|secs?|seconds?|degrees?|°|layers?|%|per\s+wave|bullets?\s+(?:per|each|a)\s+wave|发|毫秒|秒|度|层|倍)"


def read_composed(text: str, r: Reading, clause: Clause) -> str:
    """One figure, one bound word and one number left in the clause: that figure's target."""
    numbers = list(re.finditer(NUM, text))
    if len(numbers) != 1:
        return text
    m = numbers[0]
    if re.match(_PATTERN_UNIT, text[m.end():]) or re.search(r"per\s+wave|每波|each\s+wave", text):
        return text
    found = [(name, f) for name, pattern in FIGURES.items() for f in [re.search(pattern, text)] if f]
    if len(found) != 1 or not has(BOUND, text):
        return text
    name, figure = found[0]
    value = num(m.group())
    if name != "min_low_fps" and value.denominator != 1:
        return text
    record(r, clause, name, value, text[min(figure.start(), m.start()):max(figure.end(), m.end())])
    return text[:m.start()] + " " * (m.end() - m.start()) + text[m.end():]


__all__ = ["read", "read_statements", "read_composed", "record", "LABELS", "DODGE"]
