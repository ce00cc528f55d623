"""The parse state of one request: what the handlers understood, and the helpers they share.

``Reading`` gathers everything understood (phases, pattern, edits, constraints, blocks,
questions, what was ignored) before it becomes a goal; ``Context`` is what a handler may
ask of the reader (the baseline, adding a phase, recording an edit); ``sub_all`` is how a
handler reads: it calls a function for every match and blanks the match, so a later
handler can never read the same words again.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

from gcv.agents.base import BlockIssue
from gcv.agents.goal_applier import fmt
from gcv.agents.offline_requirement.phrases import FIELD_WORDS
from gcv.contract.models import BulletHellConfig

MAX_QUESTIONS = 8  # a request that raises more questions than this needs rewriting, not answers

@dataclass
class Edit:
    field: str
    operation: str
    value: Fraction
    said: str
    qualitative: bool = False  # a word without a number ("faster"): a default step an explicit number replaces
    note: str = ""  # what the rationale says about it (removed with the edit)


@dataclass
class Pending:
    """Something the request said but did not finish; a question asks for the rest, an answer fills it.

    ``kind``: ``field`` (a number without a field), ``direction`` (a percentage without more/less),
    ``time_field`` (seconds: interval or lifetime?), ``angle_field`` (degrees: rotation or spread?),
    ``unit`` (an interval below 100 without a unit), ``range`` (two values), ``multiplier`` (double
    what?).
    """

    kind: str
    said: str
    value: Fraction = Fraction(0)
    operation: str = "set"
    field: str | None = None
    options: tuple[Fraction, ...] = ()
    unit: str = ""


@dataclass
class Clause:
    phases: list[int] = field(default_factory=list)      # 1-based positions
    signals: list[str] = field(default_factory=list)


@dataclass
class Reading:
    """Everything the rules understood in one request, before it becomes a goal."""

    text: str
    phase_positions: list[int] = field(default_factory=list)
    phase_ids: list[str] = field(default_factory=list)
    all_phases: bool = False
    referenced_by_pattern: list[str] = field(default_factory=list)
    excluded_positions: list[int] = field(default_factory=list)  # "except phase 1": 1-based, left out
    pattern_type: str | None = None
    bidirectional: bool | None = None
    reverse: bool = False
    direction: int = 0  # +1 counter-clockwise, -1 clockwise
    pressure: str = "keep"
    pressure_negated: bool = False
    edits: list[Edit] = field(default_factory=list)
    constraints: dict[str, Fraction] = field(default_factory=dict)
    preserve_visual: bool = False
    no_change: bool = False
    blocks: list[BlockIssue] = field(default_factory=list)
    off_topic: list[str] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)
    understood: list[str] = field(default_factory=list)
    clauses: list[Clause] = field(default_factory=list)
    bad_phase: bool = False
    whole_fight: bool = False      # "overall", "the whole fight", 整体: every phase
    ignored: list[str] = field(default_factory=list)   # injected instructions, read and not obeyed
    pending: list[Pending] = field(default_factory=list)
    off_topic_confirmed: bool = False  # an answer said: verify only the pattern change
    asked: dict[str, Any] = field(default_factory=dict)  # question text -> its questions.Asked (kind, zh, choices)

    @property
    def has_change(self) -> bool:
        return bool(self.pattern_type or self.bidirectional is not None or self.reverse or self.direction
                    or self.pressure != "keep" or self.edits or self.constraints)

    def note(self, text: str) -> None:
        if text not in self.understood:
            self.understood.append(text)

    def ask(self, question: Any) -> None:
        """Ask a question: a plain English text, or a ``questions.Asked`` (kind, Chinese text, choices)."""
        text = question if isinstance(question, str) else question.en
        if not isinstance(question, str):
            self.asked[text] = question
        if text not in self.questions and len(self.questions) < MAX_QUESTIONS:
            self.questions.append(text)

    def drop_edit(self, edit: Edit) -> None:
        self.edits = [e for e in self.edits if e is not edit]
        if edit.note in self.understood:
            self.understood.remove(edit.note)

    def wait(self, pending: Pending) -> None:
        """Something unfinished: asked about unless an answer completes it."""
        self.pending.append(pending)


def num(text: str) -> Fraction:
    return Fraction(text.replace("+", ""))


def consume(text: str, m: re.Match[str]) -> str:
    return text[:m.start()] + " " * (m.end() - m.start()) + text[m.end():]


def sub_all(pattern: str, text: str, handle: Callable[[re.Match[str]], Any]) -> str:
    """Call ``handle`` for every match of ``pattern`` (left to right) and blank the matches.

    Blanking keeps every position, so the search resumes where the last match ended and a
    handler may read the text around its match.
    """
    compiled = re.compile(pattern)
    pos = 0
    while True:
        m = compiled.search(text, pos)
        if m is None:
            return text
        if m.end() == m.start():
            pos = m.end() + 1
            if pos > len(text):
                return text
            continue
        handle(m)
        text = consume(text, m)
        pos = m.end()


@functools.lru_cache(maxsize=256)
def field_keywords(segment: str) -> tuple[tuple[int, int, str], ...]:
    found: list[tuple[int, int, str]] = []
    for name, pattern in FIELD_WORDS.items():
        found.extend((m.start(), m.end(), name) for m in re.finditer(pattern, segment))
    return tuple(found)


def nearest_field(segment: str, start: int, end: int) -> str | None:
    """The field whose keyword is closest to ``segment[start:end]`` (ties: before it, then by name)."""
    best: tuple[int, int, str] | None = None
    for k_start, k_end, name in field_keywords(segment):
        if k_end <= start:
            dist, after = start - k_end, 0
        elif k_start >= end:
            dist, after = k_start - end, 1
        else:
            continue
        key = (dist, after, name)
        if best is None or key < best:
            best = key
    return best[2] if best else None


def has(pattern: str, text: str) -> bool:
    return re.search(pattern, text) is not None


def field_in(text: str) -> str | None:
    """The field whose keyword comes first in ``text`` (None if none does)."""
    best: tuple[int, str] | None = None
    for name, pattern in FIELD_WORDS.items():
        m = re.search(pattern, text)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), name)
    return best[1] if best else None


def is_reference(before: str, after: str) -> bool:
    """'the spiral', 'the ring phase', '把螺旋', '螺旋阶段': the word names an existing phase, not a new type.

    "make it the spiral" / "into the ring" are not references: there the word is the type asked for.
    """
    definite = (re.search(r"\bthe\s+(?:[\w-]+\s+)?$", before) is not None
                and (re.search(r"\b(?:into|to|as|make\s+it|becomes?)\s+the\s+(?:[\w-]+\s+)?$", before) is None
                     # "add 3 degrees ... to the spiral": the phase that gets the amount
                     or re.search(r"\b(?:add|apply|give)\b[^.;,]*\bto\s+the\s+(?:[\w-]+\s+)?$", before) is not None))
    return (definite or re.search(r"把\s*(?:那个|这个)?\s*$", before) is not None
            # "spiral: one wave every 0.5 s": a name before a colon heads what follows
            or re.match(r"\s*[:：]", after) is not None
            or re.match(r"\s*(?:phase|stage|rotation|rotate|spin|bullets?|speed|interval|lifetime|layers?|spread|"
                        r"waves?|bit|part|section|one|pattern)\b|"
                        r"\s*(?:的)?(?:阶段|子弹|弹速|速度|间隔|旋转|转速|那段|那关|那个|那一段|部分|弹幕)", after) is not None)


def phase_summary(baseline: BulletHellConfig) -> str:
    return ", ".join(f"{p.phase_id} ({p.pattern.type}, '{p.title}')" for p in baseline.phases)



@dataclass
class Context:
    """What a handler may ask of the reader: the baseline, and the two ways to record."""

    baseline: BulletHellConfig

    @property
    def count(self) -> int:
        return len(self.baseline.phases)

    def add_phase(self, n: int, r: Reading, clause: Clause) -> None:
        if not 1 <= n <= self.count:
            r.bad_phase = True
            r.ask(f"The fight has {self.count} phases ({phase_summary(self.baseline)}); there is no "
                  f"phase {n}. Which phase did you mean?")
            return
        if n not in r.phase_positions:
            r.phase_positions.append(n)
        if n not in clause.phases:
            clause.phases.append(n)

    def edit(self, r: Reading, clause: Clause, name: str, op: str, value: Fraction, said: str,
             qualitative: bool = False) -> None:
        said = " ".join(said.split())
        words = {"set": "set to", "scale": "x", "add": "+"}
        note = f"edit: {name} {words[op]} {fmt(value)} ('{said.strip()}')"
        r.edits.append(Edit(name, op, value, said, qualitative, note))
        clause.signals.append(f"edit:{name}:{op}:{value}")
        r.note(note)


Handler = Callable[[Context, str, Reading, Clause], str]

__all__ = ["Reading", "Clause", "Edit", "Pending", "Context", "Handler", "MAX_QUESTIONS", "num", "consume", "sub_all",
           "nearest_field", "field_in", "has", "is_reference", "phase_summary"]
