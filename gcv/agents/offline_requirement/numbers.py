"""Number normalisation: the text the reader reads, with every quantity written one way.

Designers write numbers in many forms: full-width digits (``２０``), Chinese numerals
(``三百五十``, ``两倍``, ``一半``, ``八成``, ``零点八``), English number words (``three
layers``), fractions (``a fifth``), approximations (``about 10%``, ``大概 18 发左右``) and
units glued to the number (``0.6s``, ``450ms``, ``120°``). After :func:`normalize` every
quantity is ASCII digits, a number is one token that no rule can read in part (``350 发``
is never ``35`` and ``0 发``), approximation words are gone (an approximate number is the
number), and literal config names (``bullets_per_wave``, ``phases[2].pattern.bullet_speed``)
are rewritten as the phrases the rules read (``bullets per wave``, ``phase 3``).
"""

from __future__ import annotations

import re
import unicodedata

from gcv.agents.offline_requirement import lexicon
from gcv.agents.offline_requirement.phrases import _UNIT_AHEAD, APPROX_AFTER, APPROX_BEFORE, APPROX_WORDS
from gcv.agents.offline_requirement.spelling import correct_spelling
from gcv.contract.patterns import PATTERN_NAMES, PATTERNS

_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6,
              "七": 7, "八": 8, "九": 9}
_CN_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10000}
_CN_CHARS = "零〇一二两三四五六七八九十百千万"
_CN_RUN = re.compile(rf"[{_CN_CHARS}]+")
# a Chinese numeral followed by one of these is a quantity
_CN_AFTER = re.compile(r"\s*(?:毫秒|秒|分钟|发|颗|枚|个|条|层|次|度|倍|帧|个?阶段|%|fps|ms|s\b|个子弹|波子弹)")
# ... or preceded by one of these
_CN_BEFORE = ("第", "到", "为", "成", "至", "超过", "低于", "高于", "大于", "小于", "多于", "少于",
              "最多", "至多", "至少", "不超过", "不低于", "上限", "下限", "每", "每隔", "是", "设",
              "增加", "减少", "提高", "降低", "改成", "改为", "变成", "变为", "调到", "设为", "设成", "降到",
              "提到", "加到", "减到", "速度", "弹速", "寿命", "间隔")
# a lone 一 before these is "a" / "once", not the number one: 一次 (once), 一波 (one wave), 一下
_LONE_ONE_WORDS = ("次", "波", "下", "些", "点", "个")

_EN_NUMBERS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
               "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
               "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
               "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "hundred": 100}
_EN_NUMBER_RE = re.compile(
    r"\b(" + "|".join(_EN_NUMBERS) + r")\b(?=\s+(?:more\s+|fewer\s+|extra\s+|additional\s+|alive\s+|less\s+)?"
    r"(?:bullets?|shots?|layers?|hits?|times|seconds?|degrees?|phases?|ms|milliseconds?|fps|lives|percent)\b)"
    r"|(?<=\b(?:phase|stage) )(one|two|three|four|five|six)\b"
    r"|(?<=\b(?:by|to|at) )(" + "|".join(_EN_NUMBERS) + r")\b")
_ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6}
# a fraction of a quantity, as a percentage
_EN_FRACTIONS = {"a fifth": "20%", "one fifth": "20%", "a quarter": "25%", "one quarter": "25%", "a tenth": "10%",
                 "one tenth": "10%", "a third": "33%", "one third": "33%"}

# literal config names -> the words the rules read
_FIELD_LITERALS = [
    (r"wave_interval_ms\s*(?:=|:|->|to|is|改成|改为|设为|设成|调到|为)?\s*([-+]?\d+(?:\.\d+)?)(?!\s*(?:s\b|秒|ms\b|毫秒))",
     r"wave interval \1 ms"),
    (r"wave_interval_ms", "wave interval"),
    (r"bullet_lifetime_seconds\s*(?:=|:|->|to|is|改成|改为|设为|设成|调到|为)?\s*([-+]?\d+(?:\.\d+)?)(?!\s*(?:s\b|秒|ms\b|毫秒))",
     r"bullet lifetime \1 s"),
    (r"bullet_lifetime_seconds", "bullet lifetime"),
    (r"rotation_per_wave_deg\s*(?:=|:|->|to|is|改成|改为|设为|设成|调到|为)?\s*([-+]?\d+(?:\.\d+)?)",
     r"rotation per wave \1 degrees"),
    (r"rotation_per_wave_deg", "rotation per wave"),
    (r"spread_angle_deg\s*(?:=|:|->|to|is|改成|改为|设为|设成|调到|为)?\s*([-+]?\d+(?:\.\d+)?)", r"spread angle \1 degrees"),
    (r"spread_angle_deg", "spread angle"),
    (r"layer_count\s*(?:=|:|->|to|is|改成|改为|设为|设成|调到|为)?\s*([-+]?\d+)", r"\1 layers"),
    (r"layer_count", "layer count"),
    (r"bullets_per_wave", "bullets per wave"),
    (r"bullet_speed", "bullet speed"),
    (r"\bbidirectional\s*(?:=|:|is)\s*(?:true|yes|on|1)\b", "bidirectional"),
    (r"\bbidirectional\s*(?:=|:|is)\s*(?:false|no|off|0)\b", "not bidirectional"),
    (r"\btype\s*(?:=|:|->|to|is)?\s*(?=" + "|".join(rf"{name}\b" for name in PATTERN_NAMES) + ")", " a "),
    *[(name, spec.label) for name, spec in PATTERNS.items() if spec.label != name],  # aimed_fan -> aimed fan
    (r"targets#max_alive_bullets|\bmax_alive_bullets\b(?!#)", "max alive bullets target"),
    (r"targets#min_low_fps|\bmin_low_fps\b(?!#)", "low fps target"),
    (r"targets#max_player_hits|\bmax_player_hits\b(?!#)", "max player hits target"),
    (r"limits#max_alive_bullets", "alive bullets limit"),
    (r"limits#min_low_fps", "low fps limit"),
    (r"limits#max_player_hits", "player hits limit"),
    (r"targets#min_survival_seconds|\bmin_survival_seconds\b", "survival target"),
]


def cn_to_int(text: str) -> int:
    """``二十`` -> 20, ``三百五十`` -> 350, ``三百五`` -> 350, ``十五`` -> 15, ``二零`` -> 20."""
    if not any(ch in _CN_UNITS for ch in text):
        return int("".join(str(_CN_DIGITS[ch]) for ch in text))
    total, num, last_unit = 0, 0, 0
    for ch in text:
        if ch in _CN_DIGITS:
            num = _CN_DIGITS[ch]
        else:
            unit = _CN_UNITS[ch]
            total += (num or 1) * unit
            num, last_unit = 0, unit
    if num and last_unit >= 100 and text[-1] in _CN_DIGITS and text[-2] in _CN_UNITS:
        num *= last_unit // 10  # colloquial 三百五 = 350
    return total + num


def _cn_decimal(m: re.Match[str]) -> str:
    whole = cn_to_int(m.group(1))
    frac = "".join(str(_CN_DIGITS[ch]) for ch in m.group(2))
    return f"{whole}.{frac}"


def _convert_cn_numbers(text: str) -> str:
    text = re.sub(r"翻(?:一|1)?倍|翻(?:一)?番", "翻倍", text)
    text = re.sub(rf"百分之([{_CN_CHARS}]+|\d+(?:\.\d+)?)",
                  lambda m: f"{m.group(1) if m.group(1)[0].isdigit() else cn_to_int(m.group(1))}%", text)
    # 零点八 -> 0.8, 四点五 -> 4.5, 一点五倍 -> 1.5倍 (a digit must follow 点: 快一点 stays "a bit")
    text = re.sub(r"([零〇一二两三四五六七八九十百]+)点([零〇一二三四五六七八九]+)", _cn_decimal, text)
    # 八成 -> 80%, 两成 -> 20% (not 改成 / 变成 / 成为: the character before 成 must be a numeral)
    text = re.sub(r"(?<![改变换做分完组形达构造生])([一二两三四五六七八九])成(?![为功绩员])",
                  lambda m: f"{_CN_DIGITS[m.group(1)] * 10}%", text)
    out, pos = [], 0
    for m in _CN_RUN.finditer(text):
        word = m.group()
        before = text[:m.start()].rstrip()
        after_unit = _CN_AFTER.match(text, m.end()) is not None
        if word == "一":
            rest = text[m.end():].lstrip()
            lone = rest.startswith(_LONE_ONE_WORDS) and not before.endswith(("受击", "击中", "被弹", "中弹", "最多", "至多"))
            convert = (after_unit and not lone) or before.endswith("第")
        elif word in ("一半", "两", "万"):
            convert = after_unit or before.endswith("第")
        else:
            convert = after_unit or before.endswith(_CN_BEFORE)
        if word.endswith("半") or "半" in word:
            convert = False
        if convert:
            out.append(text[pos:m.start()])
            out.append(str(cn_to_int(word)))
            pos = m.end()
    out.append(text[pos:])
    return "".join(out)


def _field_literals(t: str) -> str:
    # dotted config paths: keep their dots out of the clause splitter ("phases[1].pattern.x")
    t = re.sub(r"(?<=[a-z0-9_\]])\.(?=[a-z_])", "#", t)
    t = re.sub(r"\bphases\[(\d)\](?:#pattern)?#?", lambda m: f" phase {int(m.group(1)) + 1} ", t)
    t = re.sub(r"\b(phase_\d)#(?:pattern#)?", r" \1 ", t)
    for pattern, repl in _FIELD_LITERALS:
        t = re.sub(pattern, repl, t)
    return t


def normalize(text: str) -> str:
    """The text the rules read (see the module docstring)."""
    t = lexicon.script(lexicon.before_lower(unicodedata.normalize("NFKC", text)).lower())
    t = t.replace("−", "-").replace("–", "-").replace("—", " - ").replace("’", "'").replace("‘", "'")
    t = t.replace("“", '"').replace("”", '"').replace("×", " x ").replace("≥", ">=").replace("≤", "<=")
    t = re.sub(r"\s*(?:→|⇒|=>)\s*", " -> ", t)
    t = correct_spelling(t)
    t = _field_literals(t)
    t = _convert_cn_numbers(t)
    t = re.sub(r"\b(?:negative|minus)\s+(\d)", r"-\1", t)
    t = re.sub(r"负\s*(\d)", r"-\1", t)
    t = re.sub(r"\b(\d+(?:\.\d+)?)\s*(?:percent|per cent|pct)\b", r"\1%", t)
    t = re.sub(r"\b(?:half (?:a )?second|(?:a|one) half second)\b", "0.5 s", t)
    t = re.sub(r"半秒", "0.5秒", t)
    t = re.sub(r"(\d)\s*秒钟", r"\1秒", t)
    t = re.sub(r"每秒(?=\s*(?:一|1)?\s*波|发射|一次)", "每1秒", t)
    t = lexicon.numbers_first(t)
    for words, pct in _EN_FRACTIONS.items():  # "by a fifth", "a fifth slower" (not "a fifth phase")
        t = re.sub(rf"\b(by\s+){words}\b|\b{words}(?=\s+(?:slower|faster|more|less|fewer|longer|shorter|"
                   rf"higher|lower|quicker|denser|sparser)\b)", lambda m: (m.group(1) or "") + pct, t)
    t = re.sub(r"\bbetween\s+(\d+(?:\.\d+)?)\s*(%|[a-z]+)?\s+and\s+(?=\d)",
               lambda m: f"{m.group(1)}{m.group(2) or ''} - ", t)  # a range, kept in one segment
    t = _EN_NUMBER_RE.sub(lambda m: str(_EN_NUMBERS[next(g for g in m.groups() if g)]), t)
    t = re.sub(r"\b(phase|stage)\s+(i{1,3}|iv|vi?)\b", lambda m: f"{m.group(1)} {_ROMAN[m.group(2)]}", t)
    # units glued to a number, written one way: 0.6s -> 0.6 s, 450ms -> 450 ms, 120° -> 120 degrees
    t = re.sub(r"(\d)°", r"\1 degrees", t)
    t = re.sub(r"(\d)(ms|s|sec|secs)\b", r"\1 \2", t)
    t = lexicon.canonical(t)
    # an approximate number is the number
    t = re.sub(APPROX_BEFORE, " ", t)
    t = re.sub(APPROX_AFTER, " ", t)
    t = re.sub(APPROX_WORDS, "", t)
    # "phases 1, 2 and 3": keep a phase list inside one clause (commas split clauses)
    t = re.sub(rf"\b(phases?|stages?)\s*(\d(?:\s*(?:,|and|&|or)\s*(?:phase\s*)?\d(?![\d.]|{_UNIT_AHEAD}))+)\b",
               lambda m: f"{m.group(1)} " + "&".join(re.findall(r"\d", m.group(2))), t)
    t = re.sub(r"[ \t]+", " ", t)
    return t.strip()


__all__ = ["normalize", "cn_to_int"]
