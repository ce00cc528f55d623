"""The reader: one request (and the designer's answers) -> a ``Reading``. Pure: no I/O, no clock.

Order (each step consumes the words it understood):

1. normalise (``numbers.normalize``): NFKC, lower case, typos, literal config names, numerals;
2. cut injected instructions out (``handlers.injection``), keeping what was ignored;
3. split into clauses (punctuation, "but", "then", 但是, 并且, ...);
4. per clause, the handlers in ``handlers.STEPS``; any number left over waits for a field;
5. once all clauses are read: the target phases, and one quantity per change (a bare
   percentage gives its size to the qualitative word it goes with; a qualitative default
   gives way to an explicit number for the same field).

Answers (``follow_ups``) are read the same way and then *refine* the reading: a bare answer
fills what was waiting (a unit, a field, a direction, a value of a range), and anything the
answer states replaces what the request said about the same thing (phases, pattern, the
edits of a field), so the request and its answers reach the decision one complete request
would.
"""

from __future__ import annotations

import re

from gcv.agents.goal_applier import fmt
from gcv.agents.offline_requirement.handlers import STEPS
from gcv.agents.offline_requirement.handlers import copies, exclusion
from gcv.agents.offline_requirement.handlers.numeric import TURN_RATE_WORDS
from gcv.agents.offline_requirement.handlers.injection import strip_injections
from gcv.agents.offline_requirement.handlers.phases import resolve
from gcv.agents.offline_requirement.numbers import normalize
from gcv.agents.offline_requirement.phrases import (ANSWER_DOWN, ANSWER_MS, ANSWER_SECONDS, ANSWER_UP, ANSWER_YES,
                                                    DOWN_WORDS, FIELD_WORDS, INTERVAL_CONTEXT, LIFETIME_CONTEXT, NUM,
                                                    UP_WORDS)
from gcv.agents.offline_requirement.questions import Asked
from gcv.agents.offline_requirement.state import Clause, Context, Edit, Pending, Reading, field_in, has, num
from gcv.contract.models import BulletHellConfig

_CLAUSE_SPLIT = re.compile(
    r"(?<!\d)\.|\.(?!\d)|[;!?。；！？\n]|,|，|\bbut\b|\bthen\b|\bwhile\b|\balso\b|\bhowever\b|"
    r"\band\b(?=\s+(?:(?:make|set|give)\s+)?(?:phase|stage)\s*\d)|"
    r"但是|但|并且|而且|同时|然后|另外|不过")
_SPEED_WORDS = r"\bfast\w*|\bslow\w*|\bquick\w*|快|慢"
ANSWER_DROP = r"(?:drop|ignore|skip|forget)\s+(?:it|that|the\s+number)|不要这个数|去掉这个数|忽略|不要了"
TARGET_ANSWERS = {"max_player_hits": r"\bhits?\b|受击|被击中|挨",
                  "min_low_fps": r"\bfps\b|frame\s*rate|帧",
                  "max_alive_bullets": r"\balive\b|on\s+screen|\bcap\b|存活|同屏"}


# the two sides of a field, as answers the reader reads back ("faster bullets" is bullet_speed x1.2)
_BOTH_WAYS = {"bullets_per_wave": ("more bullets", "fewer bullets"),
              "wave_interval_ms": ("fire less often", "fire more often"),
              "bullet_speed": ("faster bullets", "slower bullets"),
              "bullet_lifetime_seconds": ("longer-lived bullets", "shorter-lived bullets"),
              "rotation_per_wave_deg": ("rotate faster", "rotate slower"),
              "spread_angle_deg": ("wider spread", "narrower spread"),
              "layer_count": ("more layers", "fewer layers")}


class RequestReader:
    """Reads one request against one baseline."""

    def __init__(self, baseline: BulletHellConfig) -> None:
        self.baseline = baseline
        self.ctx = Context(baseline)
        self.count = len(baseline.phases)

    # -- one request ------------------------------------------------------------------------

    def read(self, request_text: str) -> Reading:
        reading = Reading(text="")
        text = strip_injections(normalize(request_text), reading)
        reading.text = text
        # phases left out are read across clauses ("all phases but phase 1": "but" splits clauses)
        text = exclusion.read(self.ctx, text, reading, Clause())
        text = copies.read(self.ctx, text, reading, Clause())  # "as fast as the spiral's": a value, not a phase
        for raw in (c for c in _CLAUSE_SPLIT.split(text) if c and c.strip()):
            clause = Clause()
            self._read_clause(raw, reading, clause)
            reading.clauses.append(clause)
        self.finish(reading)
        return reading

    def _read_clause(self, text: str, r: Reading, clause: Clause) -> None:
        for step in STEPS:
            text = step(self.ctx, text, r, clause)
        for m in re.finditer(NUM, text):
            r.wait(Pending("field", m.group(), num(m.group()), "set"))

    def finish(self, r: Reading) -> None:
        """Target phases; one quantity per change; opposite directions for one field are a question."""
        resolve(self.ctx, r)
        self._opposites(r)
        qualitative = [e for e in r.edits if e.qualitative]
        explicit_scales = [e for e in r.edits if not e.qualitative and e.operation == "scale"]
        if len({e.field for e in qualitative}) == 1 and len(explicit_scales) == 1:
            # "whirl faster, like 20% faster": the percentage sizes the word it goes with
            q, e = qualitative[-1], explicit_scales[0]
            if e.field != q.field and field_in(e.said) is None and (e.value > 1) == (q.value > 1):
                r.drop_edit(q)
                r.drop_edit(e)
                r.edits.append(Edit(q.field, "scale", e.value, f"{q.said}, {e.said}"))
                r.note(f"'{q.said}' and '{e.said}' are one change: {q.field} x {fmt(e.value)}")
        fields = {e.field for e in qualitative}
        if len(fields) == 1:
            q = qualitative[-1]
            for p in list(r.pending):
                if p.kind == "direction" or (p.kind == "field" and p.operation == "scale" and p.said.endswith("%")):
                    if p.kind == "direction":
                        factor = 1 + p.value if q.value > 1 else 1 - p.value
                    elif (p.value > 1) == (q.value > 1):
                        factor = p.value
                    else:
                        continue
                    r.pending.remove(p)
                    r.drop_edit(q)
                    r.edits.append(Edit(q.field, "scale", factor, f"{q.said}, {p.said}"))
                    r.note(f"'{q.said}' and '{p.said}' are one change: {q.field} x {fmt(factor)}")
                    break
        if r.pressure != "keep" and not qualitative:
            # "slightly fewer bullets, around 25% fewer": the size of the pressure change, on bullets per wave
            for p in list(r.pending):
                if p.kind == "field" and p.operation == "scale" and p.said.endswith(("%", "fewer", "more", "less")) \
                        and (p.value < 1) == (r.pressure == "decrease"):
                    r.pending.remove(p)
                    r.edits.append(Edit("bullets_per_wave", "scale", p.value, p.said))
                    r.note(f"'{p.said}' is the size of the pressure change: bullets_per_wave x {fmt(p.value)}")
                    break
        explicit = {e.field for e in r.edits if not e.qualitative}
        for e in [e for e in r.edits if e.qualitative and e.field in explicit]:
            r.drop_edit(e)

    @staticmethod
    def _opposites(r: Reading) -> None:
        """'faster and slower', '更快又更慢': both directions of one field; never both applied."""
        by_field: dict[str, list[Edit]] = {}
        def way(e: Edit) -> int:  # +1 up, -1 down, 0 a value to set
            if e.operation == "scale":
                return (e.value > 1) - (e.value < 1)
            return (e.value > 0) - (e.value < 0) if e.operation == "add" else 0
        for e in r.edits:
            if way(e):
                by_field.setdefault(e.field, []).append(e)
        for name, edits in by_field.items():
            if {way(e) for e in edits} == {1, -1}:
                for e in edits:
                    r.drop_edit(e)
                said = " / ".join(dict.fromkeys(e.said for e in edits))
                up, down = _BOTH_WAYS[name]
                r.ask(Asked("contradiction", f"contradiction:{name}",
                            f"The request asks for both more and less {name} ({said}); which one?",
                            f"请求对 {name} 同时要求增加和减少（{said}），要哪一个？",
                            [(up, f"增加 {name}", up), (down, f"减少 {name}", down)]))

    # -- answers ----------------------------------------------------------------------------

    def answer(self, r: Reading, answer_text: str) -> None:
        """Refine ``r`` with one answer of the designer (in order)."""
        bare = normalize(answer_text).strip(" .,!。，！")
        ordinal = re.fullmatch(r"(?:the\s+)?(first|second|third|fourth|fifth|sixth|last|final)(?:\s+one)?", bare)
        if ordinal:  # "the second one": the answer to "which phase?"
            answer_text = f"the {ordinal.group(1)} phase"
        elif re.fullmatch(r"\d", bare) and not r.pending and not r.phase_ids and 1 <= int(bare) <= self.count:
            answer_text = f"phase {bare}"
        a = self.read(answer_text)
        filled = self._fill(r, bare, a)
        if a.phase_positions or a.all_phases or a.whole_fight:
            r.phase_positions = list(a.phase_positions)
            r.all_phases, r.whole_fight = a.all_phases, a.whole_fight
            r.bad_phase = False
            r.questions = [q for q in r.questions if "there is no phase" not in q]
            for c in r.clauses:
                c.phases = []
        r.referenced_by_pattern = list(dict.fromkeys([*r.referenced_by_pattern, *a.referenced_by_pattern]))
        if any(e.field == "rotation_per_wave_deg" for e in a.edits):  # degrees per wave answer a turn rate
            r.questions = [q for q in r.questions if TURN_RATE_WORDS not in q]
        if a.pattern_type is not None:
            r.pattern_type = a.pattern_type
            r.questions = [q for q in r.questions if "patterns" not in q]
        for name in ("bidirectional",):
            if getattr(a, name) is not None:
                setattr(r, name, getattr(a, name))
        if a.reverse:
            r.reverse = True
        if a.direction:
            r.direction = a.direction
        if a.pressure != "keep":
            r.pressure = a.pressure
        if not filled and a.pending and not a.edits:
            filled = self._correct(r, a)
        if not filled:
            for e in a.edits:
                for x in [x for x in r.edits if x.field == e.field]:
                    r.drop_edit(x)
                r.edits.append(e)
            r.pending.extend(a.pending)
        # an answer that picks one side settles the contradiction it answers
        settled = {f"contradiction:{e.field}" for e in a.edits}
        settled |= {"contradiction:pressure"} if a.pressure != "keep" else set()
        settled |= {"contradiction:bidirectional"} if a.bidirectional is not None else set()
        settled |= {"contradiction:direction"} if a.direction else set()
        r.questions = [q for q in r.questions if getattr(r.asked.get(q), "key", None) not in settled]
        r.constraints.update(a.constraints)
        r.blocks.extend(a.blocks)
        r.ignored.extend(i for i in a.ignored if i not in r.ignored)
        for topic in a.off_topic:
            if topic not in r.off_topic:
                r.off_topic.append(topic)
        if a.no_change and not a.has_change:
            r.no_change = True
        r.preserve_visual = r.preserve_visual or a.preserve_visual
        for note in a.understood:
            r.note(note)
        r.questions.extend(q for q in a.questions if "there is no phase" in q and q not in r.questions)
        self.finish(r)

    def _fill(self, r: Reading, bare: str, a: Reading) -> bool:
        """A bare answer completes what was waiting; True if it did."""
        if r.off_topic and re.match(ANSWER_YES, bare):
            r.off_topic_confirmed = True
            if not a.has_change:
                return True
        numbers = [p for p in r.pending if p.kind == "field" and p.operation == "set"]
        if numbers and re.fullmatch(ANSWER_DROP, bare):  # the choice "drop it": the number was not a change
            r.pending.remove(numbers[0])
            r.note(f"'{numbers[0].said}' dropped (answer '{bare}')")
            return True
        target = next((name for name, word in TARGET_ANSWERS.items() if has(word, bare)), None)
        if numbers and target and not a.constraints and numbers[0].value.denominator == 1:
            # "2" + "the hit limit": the number is a target (a constraint), not a pattern field
            p = numbers[0]
            r.pending.remove(p)
            r.constraints[target] = p.value
            r.note(f"constraint: {target} {fmt(p.value)} ('{p.said}' + answer '{bare}')")
            return True
        for p in list(r.pending):
            edit = self._complete(p, bare, a)
            if edit is None:
                continue
            r.pending.remove(p)
            if isinstance(edit, Pending):
                r.pending.append(edit)
            else:
                for e in [e for e in r.edits if e.field == edit.field and e.qualitative]:
                    r.drop_edit(e)
                r.edits.append(edit)
                r.note(f"edit: {edit.field} {edit.operation} {fmt(edit.value)} ('{p.said}' + answer '{bare}')")
            return True
        return False

    def _correct(self, r: Reading, a: Reading) -> bool:
        """'actually 0.6 s', 'make it 24': a bare value replaces the one value the request set."""
        sets = [e for e in r.edits if e.operation == "set"]
        p = a.pending[0]
        if len(sets) != 1 or len(a.pending) != 1 or p.kind not in ("time_field", "field", "unit"):
            return False
        old = sets[0]
        value = p.value
        if p.kind == "time_field" and old.field not in ("wave_interval_ms", "bullet_lifetime_seconds"):
            return False
        if old.field == "wave_interval_ms" and (p.kind == "time_field" or value < 100):
            value *= 1000
        r.drop_edit(old)
        r.edits.append(Edit(old.field, "set", value, p.said))
        r.note(f"edit: {old.field} set to {fmt(value)} (answer '{p.said}' replaces '{old.said}')")
        return True

    def _answer_field(self, bare: str, a: Reading) -> str | None:
        for e in a.edits:
            if e.qualitative:
                return e.field
        name = field_in(bare)
        if name is None and has(r"\binterval\b|间隔|between\s+waves|每波之间", bare):
            name = "wave_interval_ms"
        if name is None and has(_SPEED_WORDS + r"|\bspeed\b|速度", bare):
            name = "bullet_speed"
        return name

    def _complete(self, p: Pending, bare: str, a: Reading) -> Edit | Pending | None:
        seconds, ms = has(r"\bs\b|\bsecs?\b|\bseconds?\b|秒", bare), has(r"\bms\b|millisec\w*|毫秒", bare)
        if p.kind == "unit":
            if re.match(ANSWER_SECONDS, bare) or (seconds and not ms):
                return Edit("wave_interval_ms", "set", p.value * 1000, p.said)
            if re.match(ANSWER_MS, bare) or ms:
                return Edit("wave_interval_ms", "set", p.value, p.said)
            return None
        if p.kind == "time_field":
            if has(LIFETIME_CONTEXT, bare):
                return Edit("bullet_lifetime_seconds", "set", p.value, p.said)
            if has(INTERVAL_CONTEXT, bare):
                return Edit("wave_interval_ms", "set", p.value * 1000, p.said)
            return None
        if p.kind == "angle_field":
            if has(FIELD_WORDS["rotation_per_wave_deg"], bare):
                return Edit("rotation_per_wave_deg", "set", p.value, p.said)
            if has(FIELD_WORDS["spread_angle_deg"] + r"|\bfan\b|扇", bare):
                return Edit("spread_angle_deg", "set", p.value, p.said)
            return None
        if p.kind == "direction":
            up = re.match(ANSWER_UP, bare) is not None or has(UP_WORDS, bare)
            down = re.match(ANSWER_DOWN, bare) is not None or has(DOWN_WORDS, bare)
            if up == down:
                return None
            if has(_SPEED_WORDS, bare) and p.field in (None, "bullets_per_wave"):
                name: str | None = "bullet_speed"  # "bullets 25%" + "faster": the bullets' speed
            else:
                name = p.field or self._answer_field(bare, a)
            factor = 1 + p.value if up else 1 - p.value
            if name is None:
                return Pending("field", p.said, factor, "scale")
            return Edit(name, "scale", factor, p.said)
        if p.kind in ("field", "multiplier"):
            name = self._answer_field(bare, a)
            if name is None:
                return None
            value = p.value
            if name == "wave_interval_ms" and p.operation in ("set", "add"):
                if seconds and not ms or re.fullmatch(r"s|secs?|seconds?|秒", p.unit or ""):
                    value *= 1000
                elif not ms and p.operation == "set" and value < 100:
                    return Pending("unit", p.said, value, "set", name)
            return Edit(name, p.operation, value, p.said)
        if p.kind == "range":
            m = re.search(NUM, bare)
            if m is None:
                return None
            sub = Reading(text="")
            self._read_clause(f"{m.group()} {p.unit}", sub, Clause())
            return sub.edits[0] if sub.edits else (sub.pending[0] if sub.pending else None)
        return None


__all__ = ["RequestReader"]
