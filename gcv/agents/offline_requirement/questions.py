"""Questions the offline reader asks: a kind, the text in the request's language, the choices.

A designer answers a question best with one click, so every question that has a closed set of
answers carries them (``Choice(label, answer)``): the answer text is one the reader itself
understands, so clicking a choice always moves the request on. The text is written in the
language of the request (Chinese for a request written mostly in Chinese): a designer who wrote
"第二阶段更快又更慢" gets "第二阶段要更快还是更慢？", not English.

``key`` names what a question is about ("field:2", "phase", "contradiction:pressure"); the
decision uses it to never ask the same thing twice (an answer that settles nothing gets a
different question, then a clear stop).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction

from gcv.agents.base import Choice, Question
from gcv.agents.goal_applier import fmt
from gcv.contract.models import BulletHellConfig
from gcv.contract.ranges import PATTERN_RANGES

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")


def language_of(text: str) -> str:
    """'zh' when Chinese carries the request (at least a third of its letters), else 'en'."""
    cjk = len(_CJK.findall(text))
    latin = len(_LATIN.findall(text))
    return "zh" if cjk and cjk * 3 >= latin else "en"


@dataclass
class Asked:
    """One question before it is written out: kind, what it is about, both languages, choices."""

    kind: str
    key: str
    en: str
    zh: str = ""
    choices: list[tuple[str, str, str]] = field(default_factory=list)  # (label en, label zh, answer)

    def text(self, lang: str) -> str:
        return self.zh if lang == "zh" and self.zh else self.en

    def question(self, lang: str, prefix: str = "") -> Question:
        return Question(kind=self.kind, text=prefix + self.text(lang),  # type: ignore[arg-type]
                        choices=[Choice(label=(zh if lang == "zh" and zh else en), answer=ans)
                                 for en, zh, ans in self.choices])


# -- the words of each field, as a choice (the answer is a phrase the reader reads back) -------

FIELD_CHOICES: dict[str, tuple[str, str, str]] = {
    "bullets_per_wave": ("bullets per wave", "每波子弹数", "bullets per wave"),
    "wave_interval_ms": ("the wave interval", "波间隔", "the wave interval"),
    "bullet_speed": ("the bullet speed", "子弹速度", "bullet speed"),
    "bullet_lifetime_seconds": ("the bullet lifetime", "子弹寿命", "the bullet lifetime"),
    "rotation_per_wave_deg": ("the rotation per wave", "每波旋转角度", "rotation per wave"),
    "spread_angle_deg": ("the spread angle", "扇形角度", "spread angle"),
    "layer_count": ("layers", "层数", "layers"),
}
TARGET_CHOICES: dict[str, tuple[str, str, str]] = {
    "max_player_hits": ("at most that many player hits (a target)", "玩家受击上限（目标）", "the player hit limit"),
    "min_low_fps": ("the low-FPS floor (a target)", "低帧下限（目标）", "the low fps floor"),
    "max_alive_bullets": ("at most that many bullets alive (a target)", "同屏子弹上限（目标）",
                          "the alive bullet cap"),
}
TARGET_RANGES = {"max_player_hits": (Fraction(0), Fraction(99)), "min_low_fps": (Fraction(1), Fraction(240)),
                 "max_alive_bullets": (Fraction(1), Fraction(350))}


def field_choices(value: Fraction, operation: str = "set") -> list[tuple[str, str, str]]:
    """The fields (and targets) a bare number could be: those whose range holds it."""
    out = []
    for name, choice in FIELD_CHOICES.items():
        lo, hi = PATTERN_RANGES[name]
        seconds_ok = name == "wave_interval_ms" and lo <= value * 1000 <= hi
        if operation != "set" or lo <= value <= hi or seconds_ok:
            out.append(choice)
    if operation == "set" and value.denominator == 1:
        for name, choice in TARGET_CHOICES.items():
            lo, hi = TARGET_RANGES[name]
            if lo <= value <= hi:
                out.append(choice)
    return out


def phase_choices(baseline: BulletHellConfig) -> list[tuple[str, str, str]]:
    out = [(f"{p.phase_id} ({p.pattern.type}, '{p.title}')", f"第{i}阶段（{p.pattern.type}，{p.title}）", f"phase {i}")
           for i, p in enumerate(baseline.phases, 1)]
    out.append(("all phases", "所有阶段", "all phases"))
    return out


# each pattern kind in the words of the Chinese questions
ZH_PATTERNS = {"ring": "环形", "spiral": "螺旋", "aimed_fan": "扇形自机狙", "petal": "花瓣", "scatter": "散射"}


def phase_summary_zh(baseline: BulletHellConfig) -> str:
    return "、".join(f"第{i}阶段（{ZH_PATTERNS.get(p.pattern.type, p.pattern.type)}，{p.title}）"
                    for i, p in enumerate(baseline.phases, 1))


def which_phase(baseline: BulletHellConfig, summary_en: str) -> Asked:
    return Asked("phase", "phase",
                 f"Which phase should change? The fight has {summary_en}; or say 'all phases'.",
                 f"要改哪个阶段？这场战斗有{phase_summary_zh(baseline)}；也可以说“所有阶段”。",
                 phase_choices(baseline))


UP_DOWN = [("more (up)", "更多（提高）", "more"), ("less (down)", "更少（降低）", "less")]
PRESSURE_CHOICES = [("more pressure (denser, harder)", "更有压迫感（更密、更难）", "denser"),
                    ("less pressure (sparser, easier)", "更轻松（更稀、更简单）", "easier")]


def contradiction(key: str, en: str, zh: str, choices: list[tuple[str, str, str]]) -> Asked:
    return Asked("contradiction", f"contradiction:{key}", en, zh, choices)


def restate(said: str, kind: str = "field") -> Asked:
    """The different question after an answer that settled nothing: say it again in other words."""
    if kind == "time_field":  # seconds without a field: interval or lifetime
        en_eg = f"'every {said}' (the wave interval) or 'lifetime {said}' (the bullet lifetime)"
        zh_eg = f"“每 {said} 一波”（波间隔）或“寿命 {said}”（子弹寿命）"
    elif kind == "unit":
        en_eg, zh_eg = f"'every {said} s' or '{said} ms'", f"“每 {said} 秒”或“{said} 毫秒”"
    elif kind == "angle_field":
        en_eg, zh_eg = f"'rotate {said} per wave' or 'a {said} spread'", f"“每波转 {said}”或“扇角 {said}”"
    elif re.search(r"\d", said):
        en_eg = f"'{said} bullets per wave', 'at most {said} player hits', 'every {said} s', or 'drop it'"
        zh_eg = f"“每波 {said} 发”、“受击不超过 {said} 次”、“每 {said} 秒”，或者“不要这个数”"
    elif kind == "phase":
        en_eg, zh_eg = "'phase 2', 'the last phase' or 'all phases'", "“第二阶段”、“最后一个阶段”或“所有阶段”"
    else:
        en_eg, zh_eg = "the field and the value in one phrase", "一个带字段和数值的短语"
    return Asked("restate", f"restate:{said}",
                 f"The answer did not settle '{said}'. Please say it in one phrase, e.g. {en_eg}.",
                 f"回答没有说清“{said}”。请用一句话说明，例如{zh_eg}。",
                 [("drop it", "不要这个数", "drop it")] if kind == "field" and re.search(r"\d", said) else [])


def stop(said: str) -> Asked:
    """The clear stop: the same thing was asked and not settled twice; no third round of it."""
    return Asked("restate", f"stop:{said}",
                 f"GCV stops asking about '{said}': two answers did not settle it. Start a new request that names "
                 f"the field of every number (e.g. gcv run \"phase 3 denser, at most 2 player hits\").",
                 f"“{said}”问了两次仍未说清，GCV 不再追问。请重新提交一个写明每个数字含义的请求"
                 f"（例如 gcv run \"第三阶段更密，受击不超过 2 次\"）。")


def value_choices(options: tuple[Fraction, ...]) -> list[tuple[str, str, str]]:
    return [(fmt(v), fmt(v), fmt(v)) for v in options]


__all__ = ["Asked", "language_of", "field_choices", "phase_choices", "which_phase", "contradiction", "restate",
           "stop", "value_choices", "UP_DOWN", "PRESSURE_CHOICES", "FIELD_CHOICES", "TARGET_CHOICES",
           "phase_summary_zh"]
