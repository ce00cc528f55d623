"""The decision: a ``Reading`` (a request and its answers) -> a ``RequirementDecision``.

* ``blocked``: the request asks for something a change request may not do; every issue
  names the field, what was asked, what is allowed and what can be changed instead;
* ``out_of_scope``: only about things GCV does not change (music, art, UI);
* ``no_change``: asks for nothing, or for what the baseline already is;
* ``needs_clarification``: something is missing (which phase, which field, more or less);
  every question starts with what is already understood, and never asks what the request
  states;
* ``accepted``: everything maps onto one goal; the candidate comes from the calculator
  (``goal_applier``), never from the rules.

Instructions injected into the request are never obeyed; the decision says they were ignored.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from pydantic import ValidationError

from gcv.agents.base import BlockIssue, RequirementDecision
from gcv.agents.goal_applier import DEFAULT_ROTATION_DEG, GoalRangeError, apply_goal_with_notes, fmt
from gcv.contract.ranges import PATTERN_RANGES
from gcv.agents.offline_requirement.handlers.scope import INSTEAD
from gcv.agents.offline_requirement.reader import RequestReader
from gcv.agents.offline_requirement.questions import (UP_DOWN, ZH_PATTERNS, Asked, field_choices, language_of, restate,
                                                      stop, value_choices, which_phase)
from gcv.agents.offline_requirement.state import Edit, Pending, Reading, has, phase_summary
from gcv.contract.goal import DesignerConstraints, Goal, ParameterEdit
from gcv.contract.models import BulletHellConfig
from gcv.contract.patterns import ROTATING_KINDS, kinds_phrase

MAX_REQUEST_CHARS = 4000
FIELD_EXAMPLES = ("'bullets per wave to 20', 'every 0.5 s', 'speed 4.5', 'lifetime 4 s', "
                  "'rotate 25 degrees per wave', '3 layers'")


WHAT_CHOICES = [("more pressure (denser, harder)", "更有压迫感（更密、更难）", "denser"),
                ("less pressure (sparser, easier)", "更轻松（更稀、更简单）", "easier"),
                ("faster bullets", "子弹更快", "faster bullets"), ("slower bullets", "子弹更慢", "slower bullets"),
                ("a spiral", "螺旋", "a spiral"), ("a ring", "环形", "a ring"), ("an aimed fan", "扇形自机狙", "an aimed fan"),
                ("a petal", "花瓣", "a petal"), ("a scatter", "散射", "a scatter")]


def _vague_questions(baseline: BulletHellConfig, phase_known: bool) -> list[Asked]:
    questions = []
    if not phase_known and len(baseline.phases) > 1:
        questions.append(which_phase(baseline, phase_summary(baseline)))
    questions.append(Asked(
        "other", "what",
        "What should change: more pressure (denser, harder) or less (sparser, easier)? A different "
        "pattern (ring, spiral, aimed fan, petal, scatter)? Bidirectional or reversed rotation? "
        "Or an explicit value such as 'bullets per wave to 20' or 'every 0.5 s'?",
        "要改什么：更有压迫感（更密、更难）还是更轻松（更稀、更简单）？换一种弹幕（环形、螺旋、扇形、花瓣、散射）？"
        "双向或反向旋转？还是一个具体数值，例如“每波 20 发”或“每 0.5 秒一波”？", WHAT_CHOICES))
    return questions


def pending_question(p: Pending) -> str:
    """The question that asks for what ``p`` is missing (and only that), in English."""
    return pending_asked(p).en


def pending_asked(p: Pending) -> Asked:
    """The question for ``p`` with its kind, Chinese text and choices."""
    key = f"{p.kind}:{p.said}"
    v = fmt(p.value)
    if p.kind == "direction":
        where = f"（{p.field}）" if p.field else ""
        return Asked("direction", key, _pending_en(p), f"“{p.said}”{where}是增加还是减少？例如“慢 20%”或“每波子弹 +20%”。",
                     UP_DOWN)
    if p.kind == "time_field":
        return Asked("field", key, _pending_en(p), f"“{p.said}”是波间隔（每 {v} 秒一波）还是子弹寿命（寿命 {v} 秒）？",
                     [("the wave interval", "波间隔", "the wave interval"),
                      ("the bullet lifetime", "子弹寿命", "the bullet lifetime")])
    if p.kind == "angle_field":
        return Asked("field", key, _pending_en(p), f"“{p.said}”是每波旋转角度还是扇形角度？",
                     [("the rotation per wave", "每波旋转角度", "rotation per wave"),
                      ("the spread angle", "扇形角度", "spread angle")])
    if p.kind == "unit":
        return Asked("unit", key, _pending_en(p), f"间隔“{v}”是秒还是毫秒？例如“每 {v} 秒”或“{v} 毫秒”。",
                     [("seconds", "秒", "seconds"), ("milliseconds", "毫秒", "ms")])
    if p.kind == "range":
        return Asked("value", key, _pending_en(p),
                     f"“{p.said}”给了两个值（{fmt(p.options[0])} 和 {fmt(p.options[1])}），GCV 该验证哪一个？",
                     value_choices(p.options))
    if p.kind == "rate":
        return Asked("field", key, _pending_en(p),
                     f"“{p.said}”：是每波更多子弹（间隔不变）还是更短的间隔（每波子弹数不变）？请说出字段，"
                     f"例如“每波 20 发”或“每 0.5 秒一波”。")
    if p.kind == "multiplier":
        return Asked("field", key, _pending_en(p), f"“{p.said}”指的是什么？请说出字段，例如“每波子弹数翻倍”或“波间隔减半”。",
                     field_choices(p.value, "scale"))
    return Asked("field", key, _pending_en(p), f"“{p.said}”指的是什么？请说出字段，例如“每波 20 发”、“每 0.5 秒一波”、"
                 "“速度 4.5”、“寿命 4 秒”、“每波转 25 度”、“3 层”。",
                 field_choices(p.value, p.operation) + [("drop it", "不要这个数", "drop it")])


def _pending_en(p: Pending) -> str:
    if p.kind == "direction":
        where = f" (of {p.field})" if p.field else ""
        return f"'{p.said}'{where}: more or less? Say e.g. '20% slower' or 'bullets per wave +20%'."
    if p.kind == "time_field":
        return (f"Is '{p.said}' the wave interval (e.g. 'every {fmt(p.value)} s') or the bullet lifetime "
                f"(e.g. 'lifetime {fmt(p.value)} s')?")
    if p.kind == "angle_field":
        return f"Is '{p.said}' the rotation per wave or the spread angle?"
    if p.kind == "unit":
        return (f"Is the interval '{fmt(p.value)}' in seconds or milliseconds? Say e.g. 'every {fmt(p.value)} s' "
                f"or '{fmt(p.value)} ms'.")
    if p.kind == "range":
        return f"'{p.said}' gives two values ({fmt(p.options[0])} and {fmt(p.options[1])}); which one should GCV verify?"
    if p.kind == "rate":
        return (f"'{p.said}': more bullets per wave at the same interval, or a shorter interval with the same "
                "bullets per wave? Name the field, e.g. '20 bullets per wave' or 'every 0.5 s'.")
    if p.kind == "multiplier":
        return (f"'{p.said}' of what? Name the field, e.g. 'double the bullets per wave' or 'halve the wave "
                "interval'.")
    return f"What does '{p.said}' refer to? Name the field, e.g. {FIELD_EXAMPLES}."


@dataclass(frozen=True)
class _Words:
    """How ``summary`` says each part in one language."""

    pattern: Callable[[str], str]
    both_ways: tuple[str, str]  # (bidirectional, one direction)
    turn: tuple[str, str]  # (counter-clockwise, clockwise)
    reverse: str
    pressure: tuple[str, str]  # (more, less)
    signs: dict[str, str]
    field: Callable[[str], str]
    target: Callable[[str], str]
    dodgeable: str
    look: str
    comma: str
    phase: Callable[[str], str]
    phase_join: str
    all_phases: str
    on: Callable[[str, str], str]  # (text, where)
    only_where: Callable[[str], str]


# what the Chinese questions call each field and target (the words of the questions)
_ZH_FIELDS = {"bullets_per_wave": "每波子弹数", "wave_interval_ms": "波间隔（毫秒）", "bullet_speed": "子弹速度",
              "bullet_lifetime_seconds": "子弹寿命（秒）", "rotation_per_wave_deg": "每波旋转角度",
              "spread_angle_deg": "扇形角度", "layer_count": "层数"}
_ZH_TARGETS = {"max_alive_bullets": "同屏子弹不超过", "min_low_fps": "最低帧率不低于",
               "max_player_hits": "玩家被击中不超过"}

_WORDS = {
    "en": _Words(pattern=lambda k: f"pattern {k}", both_ways=("bidirectional", "one direction"),
                 turn=("counter-clockwise", "clockwise"), reverse="reverse rotation",
                 pressure=("more pressure", "less pressure"), signs={"set": "=", "scale": "x", "add": "+"},
                 field=lambda f: f, target=lambda t: t, dodgeable="keep it dodgeable", look="keep the look",
                 comma=", ", phase=lambda p: p, phase_join=", ", all_phases="all phases",
                 on=lambda text, where: f"{text} on {where}", only_where=lambda where: f"the change is on {where}"),
    "zh": _Words(pattern=lambda k: f"弹幕改为{ZH_PATTERNS.get(k, k)}", both_ways=("双向", "单向"),
                 turn=("逆时针", "顺时针"), reverse="反向旋转", pressure=("更有压迫感", "更轻松"),
                 signs={"set": "改为 ", "scale": "×", "add": "+"}, field=lambda f: _ZH_FIELDS.get(f, f),
                 target=lambda t: _ZH_TARGETS.get(t, t), dodgeable="保持可躲避", look="保持外观", comma="，",
                 phase=lambda p: f"第{p.rsplit('_', 1)[-1]}阶段" if p.startswith("phase_") else p, phase_join="、",
                 all_phases="所有阶段", on=lambda text, where: f"{where}：{text}",
                 only_where=lambda where: f"改动在{where}"),
}


def summary(r: Reading, lang: str = "en") -> str:
    """What is understood so far: in English the words of the goal ('bullet_speed x0.8 on
    phase_2'), in Chinese the words of the Chinese questions ('第2阶段：子弹速度 ×0.8')."""
    w = _WORDS.get(lang, _WORDS["en"])
    parts = []
    if r.pattern_type:
        parts.append(w.pattern(r.pattern_type))
    if r.bidirectional is not None:
        parts.append(w.both_ways[0] if r.bidirectional else w.both_ways[1])
    if r.direction:
        parts.append(w.turn[0] if r.direction > 0 else w.turn[1])
    if r.reverse:
        parts.append(w.reverse)
    if r.pressure != "keep":
        parts.append(w.pressure[0] if r.pressure == "increase" else w.pressure[1])
    for e in r.edits:
        name, shown = w.field(e.field), fmt(e.value)
        parts.append(f"{name} {w.signs[e.operation]}{shown}" if not (e.operation == "add" and e.value < 0)
                     else f"{name} {shown}")
    for key, value in r.constraints.items():
        parts.append(w.dodgeable if key == "require_dodgeable" else f"{w.target(key)} {fmt(value)}")
    if r.preserve_visual:
        parts.append(w.look)
    text = w.comma.join(parts)
    named = r.phase_positions or r.all_phases or r.whole_fight or r.referenced_by_pattern
    if r.phase_ids and (text or named):
        where = w.phase_join.join(w.phase(p) for p in r.phase_ids) if len(r.phase_ids) < 3 else w.all_phases
        text = w.on(text, where) if text else w.only_where(where)
    return text


def _understood(r: Reading, lang: str = "en") -> str:
    return summary(r, lang)


class _Clarify(Exception):
    """Internal: the decision is needs_clarification with these questions (typed)."""


def _asked(r: Reading, question: str | Asked) -> Asked:
    if isinstance(question, Asked):
        return question
    return r.asked.get(question) or Asked("other", question, question)


def _clarify(r: Reading, questions: Sequence[str | Asked], rationale: str) -> RequirementDecision:
    asks = [_asked(r, q) for q in questions]
    r.asks_out = asks  # type: ignore[attr-defined]  # read by decide(): what this decision asked
    return _written(r, asks, rationale)


def _written(r: Reading, asks: list[Asked], rationale: str) -> RequirementDecision:
    lang = getattr(r, "lang", "en")
    understood = _understood(r)  # the rationale stays in English (logs, the report's agent section)
    shown = _understood(r, lang)
    typed = []
    for n, a in enumerate(asks):
        prefix = ""
        if n == 0 and shown:
            prefix = f"已理解：{shown}。" if lang == "zh" else f"Understood: {shown}. "
        typed.append(a.question(lang, prefix))
    return RequirementDecision(decision="needs_clarification", questions=[q.text for q in typed], asks=typed,
                               rationale=rationale + (f" (understood so far: {understood})" if understood else "")
                               + _ignored(r))


def _ignored(r: Reading) -> str:
    if not r.ignored:
        return ""
    said = "; ".join(f"'{text}'" for text in r.ignored)
    return (f". Ignored (an instruction to the agent, not a change request; it never changes the boss, the "
            f"player, the limits or the targets): {said}")


def decide(request_text: str, baseline: BulletHellConfig, *, follow_ups: Sequence[str] = ()) -> RequirementDecision:
    """The offline provider's whole answer for one request and the designer's answers (pure)."""
    total = len(request_text) + sum(len(a) for a in follow_ups)
    if total > MAX_REQUEST_CHARS:
        return RequirementDecision(
            decision="needs_clarification",
            questions=[f"The request is {total} characters long; GCV reads at most "
                       f"{MAX_REQUEST_CHARS}. Please state the change in a few sentences."],
            rationale="request too long")
    if not request_text.strip() and not any(a.strip() for a in follow_ups):
        empty = Reading(text="")
        return _clarify(empty, _vague_questions(baseline, False), "the request is empty")
    lang = language_of(request_text)
    reader = RequestReader(baseline)
    r = reader.read(request_text)
    r.lang = lang  # type: ignore[attr-defined]
    history: set[str] = set()  # what earlier decisions of this conversation asked (question keys)
    for answer in follow_ups:
        if answer.strip():
            before = copy.deepcopy(r)
            _settle(before, _decide(before, baseline, request_text), history)
            reader.answer(r, answer)
    return _settle(r, _decide(r, baseline, request_text), history)


def _settle(r: Reading, d: RequirementDecision, history: set[str]) -> RequirementDecision:
    """Never ask the same thing twice: a repeated question becomes a different one, then a stop.

    An answer that settles nothing would otherwise bring back the question it answered (the
    loop of issue 27: "What does '2' refer to?" after every answer). The first repeat asks
    the designer to name the field in words; the second stops asking about it.
    """
    asks: list[Asked] = list(getattr(r, "asks_out", []))
    if d.decision != "needs_clarification" or not asks:
        return d
    settled = []
    for a in asks:
        if a.key in history:
            said = a.key.split(":", 1)[1] if ":" in a.key else a.key[:40]
            a = restate(said, a.key.split(":", 1)[0]) if f"restate:{said}" not in history else stop(said)
            if a.key in history:
                continue
        settled.append(a)
    history.update(a.key for a in asks)
    history.update(a.key for a in settled)
    if not settled:
        settled = [stop("the request")]
    if [a.key for a in settled] == [a.key for a in asks]:
        return d
    return _written(r, settled, d.rationale.split(" (understood so far:")[0])


def _decide(r: Reading, baseline: BulletHellConfig, request_text: str) -> RequirementDecision:
    understood = "; ".join(r.understood)
    for e in r.edits:  # a value no phase could take is refused whatever phase was meant
        lo, hi = PATTERN_RANGES[e.field]
        if e.operation == "set" and not lo <= e.value <= hi:
            unit = {"wave_interval_ms": " ms", "bullet_lifetime_seconds": " s", "rotation_per_wave_deg": " deg",
                    "spread_angle_deg": " deg"}.get(e.field, "")
            r.blocks.append(BlockIssue(
                field=f"$.phases[*].pattern.{e.field}", asked=_goal_number(e.value), allowed=f"{fmt(lo)}..{fmt(hi)}",
                message=f"{e.field} = {fmt(e.value)}{unit} ('{e.said}') is outside the contract range "
                        f"{fmt(lo)}..{fmt(hi)}{unit}"))
    if r.blocks:
        return RequirementDecision(
            decision="blocked", issues=r.blocks,
            rationale="the request asks for something a change request may not do"
                      + (f" (understood: {understood})" if understood else "") + _ignored(r))
    if r.off_topic and not r.has_change:
        return RequirementDecision(
            decision="out_of_scope",
            rationale=f"the request is about {', '.join(r.off_topic)}, which GCV does not change. {INSTEAD}"
                      + _ignored(r))
    if r.off_topic and not r.off_topic_confirmed:
        r.ask(f"The request also asks about {', '.join(r.off_topic)}, which GCV does not change. Should GCV verify "
              "only the pattern change? If so, answer 'yes' (nothing is dropped silently).")
    if not r.has_change:
        if r.pending:
            return _clarify(r, [pending_asked(p) for p in r.pending] + _phase_question(r, baseline),
                            "the request cannot be mapped without guessing")
        if (r.no_change or r.pressure_negated or r.preserve_visual) and not r.questions:
            return RequirementDecision(decision="no_change",
                                       rationale="the request asks to keep the fight as it is" + _ignored(r))
        phase_known = bool(r.phase_positions or r.all_phases or r.referenced_by_pattern or r.whole_fight)
        questions: list[str | Asked] = list(r.questions)
        if questions and not phase_known and len(baseline.phases) > 1:
            questions.append(_vague_questions(baseline, False)[0])
        return _clarify(r, questions or _vague_questions(baseline, phase_known),
                        "the request does not say what should change")
    if r.pressure_negated and r.pressure != "keep":
        r.ask("The request asks for more or less pressure but also says 'not denser/harder'; the default pressure "
              "step changes bullets per wave and the wave interval. Say how instead (e.g. 'faster bullets', "
              "'3 layers').")
    for p in r.pending:
        r.ask(pending_asked(p))
    if not r.phase_ids:
        if r.bad_phase:
            pass  # already asked which phase was meant
        elif r.edits or r.pattern_type or r.bidirectional is not None or r.reverse or r.direction or r.pressure != "keep":
            r.ask(_phase_question(r, baseline)[0])
        else:  # constraints only: they are fight-wide
            r.phase_ids = [p.phase_id for p in baseline.phases]
    _than_now(r, baseline)
    reverse, edits, notes = _rotation(r, baseline)
    fields_set: dict[str, Fraction] = {}
    for e in edits:
        if e.operation == "set":
            if e.field in fields_set and fields_set[e.field] != e.value:
                r.ask(Asked("value", f"both:{e.field}",
                            f"The request sets {e.field} to both {fmt(fields_set[e.field])} and {fmt(e.value)}; "
                            "which one?",
                            f"请求把 {e.field} 同时设为 {fmt(fields_set[e.field])} 和 {fmt(e.value)}，要哪一个？",
                            value_choices((fields_set[e.field], e.value))))
            fields_set[e.field] = e.value
    if r.questions:
        return _clarify(r, list(r.questions), "the request cannot be mapped without guessing")
    try:
        # each stated constraint as its field takes it (a flag, an integer, or a decimal)
        stated: dict[str, Any] = {k: (True if k == "require_dodgeable" else
                                      int(v) if k != "min_low_fps" else _goal_number(v))
                                  for k, v in r.constraints.items()}
        goal = Goal(
            target_phase_ids=r.phase_ids,
            pattern_type=r.pattern_type,  # type: ignore[arg-type]
            bidirectional=r.bidirectional,
            reverse_rotation=reverse,
            pressure=r.pressure,  # type: ignore[arg-type]
            edits=[ParameterEdit(field=e.field, operation=e.operation, value=_goal_number(e.value),  # type: ignore[arg-type]
                                 qualitative=True if e.qualitative else None)
                   for e in edits],
            constraints=DesignerConstraints(**stated),
            preserve_visual_style=r.preserve_visual,
            source_text=request_text[:4000],
        )
    except (ValidationError, ValueError) as exc:
        return RequirementDecision(decision="blocked", issues=_goal_issues(exc, r),
                                   rationale="the request cannot be written as a valid goal" + _ignored(r))
    try:
        applied = apply_goal_with_notes(baseline, goal)
    except GoalRangeError as exc:
        return RequirementDecision(decision="blocked", goal=goal, issues=exc.issues,
                                   rationale=f"understood: {understood}; but a value leaves the contract range"
                                             + _ignored(r))
    rationale = "understood: " + understood + (f" on {', '.join(r.phase_ids)}" if r.phase_ids else "")
    all_notes = notes + applied.notes
    if all_notes:
        rationale += ". Notes: " + "; ".join(all_notes)
    rationale += _ignored(r)
    if applied.candidate == baseline:
        return RequirementDecision(decision="no_change", goal=goal,
                                   rationale=rationale + ". The baseline already is what the request asks for.")
    return RequirementDecision(decision="accepted", goal=goal, candidate=applied.candidate, rationale=rationale)


_THAN_NOW_UP = r"\b(?:more|higher|faster|longer|bigger|larger|wider)\s+than\s+(?:now|before|it\s+is(?:\s+now)?|currently|today)\b|比(?:现在|原来|之前|目前)(?:的)?(?:要)?(?:多|高|快|长|大)"
_THAN_NOW_DOWN = r"\b(?:fewer|less|lower|slower|shorter|smaller|narrower)\s+than\s+(?:now|before|it\s+is(?:\s+now)?|currently|today)\b|比(?:现在|原来|之前|目前)(?:的)?(?:要)?(?:少|低|慢|短|小)"


def _than_now(r: Reading, baseline: BulletHellConfig) -> None:
    """'10 bullets per wave, more than now' where the phase has 16: the number and the words
    disagree, so ask which one holds (never take the number against the words)."""
    up, down = has(_THAN_NOW_UP, r.text), has(_THAN_NOW_DOWN, r.text)
    if up == down:
        return
    for e in r.edits:
        if e.operation != "set":
            continue
        for pid in r.phase_ids:
            phase = baseline.phase(pid)
            now = Fraction(repr(float(getattr(phase.pattern, e.field)))) if phase is not None else None
            if now is not None and ((up and e.value <= now) or (down and e.value >= now)):
                word, zh = ("more", "多") if up else ("less", "少")
                r.ask(Asked("contradiction", f"than_now:{e.field}",
                            f"The request sets {e.field} to {fmt(e.value)} on {pid} and says '{word} than now', but "
                            f"{pid} has {fmt(now)} now; which value do you want?",
                            f"请求把 {pid} 的 {e.field} 设为 {fmt(e.value)}，又说“比现在{zh}”，但它现在是 {fmt(now)}；"
                            "要哪个数值？"))
                return


def _phase_question(r: Reading, baseline: BulletHellConfig) -> list[Asked]:
    if r.phase_ids or r.bad_phase or len(baseline.phases) == 1:
        return []
    return [which_phase(baseline, phase_summary(baseline))]


def _rotation(r: Reading, baseline: BulletHellConfig) -> tuple[bool, list[Edit], list[str]]:
    """Rotation direction words, against the baseline of each target phase."""
    reverse = r.reverse
    edits = list(r.edits)
    notes: list[str] = []
    if r.direction:  # "rotate 25 degrees per wave clockwise": the sign comes from the direction word
        edits = [Edit(e.field, e.operation, r.direction * abs(e.value), e.said)
                 if e.field == "rotation_per_wave_deg" and e.operation == "set" else e for e in edits]
    if r.direction and r.phase_ids:
        explicit = [e for e in edits if e.field == "rotation_per_wave_deg" and e.operation == "set"]
        if not explicit:
            signs = set()
            for pid in r.phase_ids:
                phase = baseline.phase(pid)
                assert phase is not None
                rot = Fraction(repr(phase.pattern.rotation_per_wave_deg))
                signs.add((rot > 0) - (rot < 0))
            want = r.direction
            word = "counter-clockwise" if want > 0 else "clockwise"
            if signs == {-want}:
                reverse = True
            elif signs == {want}:
                notes.append(f"{', '.join(r.phase_ids)} already turn{'s' if len(r.phase_ids) == 1 else ''} {word}")
            elif signs == {0}:
                edits.append(Edit("rotation_per_wave_deg", "set", Fraction(want * DEFAULT_ROTATION_DEG), word))
                notes.append(f"the phase does not rotate yet: {word} means {fmt(want * DEFAULT_ROTATION_DEG)} "
                             "degrees per wave (the default rotation)")
            else:
                r.ask(f"The target phases turn in different directions now; which should turn {word}? "
                      "Name one phase.")
    if reverse and r.phase_ids and not r.direction:
        still = [pid for pid in r.phase_ids if baseline.phase(pid).pattern.rotation_per_wave_deg == 0]  # type: ignore[union-attr]
        if still and not (r.pattern_type in ROTATING_KINDS):
            r.ask(f"{', '.join(still)} does not rotate, so there is nothing to reverse. Should it become a "
                  "rotating pattern (e.g. 'make it a clockwise spiral')?")
    rotating = ROTATING_KINDS
    if any(e.field == "rotation_per_wave_deg" for e in edits) and r.phase_ids and not (
            r.pattern_type in rotating or r.bidirectional):
        flat = [pid for pid in r.phase_ids if baseline.phase(pid).pattern.type not in rotating]  # type: ignore[union-attr]
        if flat:
            kinds = ", ".join(f"{pid} is a {baseline.phase(pid).pattern.type}" for pid in flat)  # type: ignore[union-attr]
            r.ask(f"{kinds}, which does not rotate per wave, so a rotation would change nothing. Should it "
                  f"become a {kinds_phrase(ROTATING_KINDS)} (e.g. 'make it a spiral rotating 25 degrees per wave')?")
    return reverse, edits, notes


def _goal_number(value: Fraction) -> int | float:
    if value.denominator == 1:
        return int(value)
    return float(value)


def _goal_issues(exc: Exception, r: Reading) -> list[BlockIssue]:
    if isinstance(exc, ValidationError):
        issues = []
        for err in exc.errors(include_url=False):
            loc = ".".join(str(p) for p in err["loc"])
            issues.append(BlockIssue(field=f"goal.{loc}", asked=err.get("input"), allowed=str(err.get("ctx", "")) or
                                     "a value the goal can carry", message=f"goal.{loc}: {err['msg']}"))
        return issues
    return [BlockIssue(field="goal", asked=r.text, allowed="a valid gcv.goal/1", message=str(exc))]


__all__ = ["decide", "pending_question", "pending_asked", "MAX_REQUEST_CHARS", "DEFAULT_ROTATION_DEG"]
