"""The lexicon: many ways of saying one thing, rewritten to the one way the handlers read.

The handlers read a small canonical language ("every 500 ms", "-200 ms", "rotate faster",
"easier", "phases 2&3"); designers write a large one. This module maps classes of phrasing
onto the canonical words, each class in one table, so a new synonym is one line here and no
handler changes:

* script: traditional characters -> simplified (``階段`` -> ``阶段``), typos of 阶段
  (``阶断``, ``接段``, ``介段``), camelCase field names (``bulletsPerWave``), ``phase1``;
* units: hyphens (``600-ms``, ``4-second``, ``90-degree``, ``20-bullet waves``), misspelt
  unit words (``secondes``, ``milisecond``), ``/wave``, ``/s``;
* numbers: number words and fractions (``a dozen``, ``twenty-four``, ``four point five``,
  ``one and a half``, ``three quarters``, ``1/2``, ``四秒半``, ``三分之二``);
* words: jargon (``TTL``, ``cooldown``, ``volley size``, ``ROF``), colloquial directions
  (``hang around longer``, ``closer together``, ``zippier``), rotation verbs (``twist``,
  ``spin``, ``whirl`` -> ``rotate``), easing and intensifying (``go easy on``, ``放水``,
  ``crank up``, ``再狠一点``), amounts (``cut 200 ms off`` -> ``-200 ms``, ``延长 1 秒``),
  rates (``2 waves per second`` -> ``every 500 ms``, ``twice as often``), list markers.

Nothing here guesses: a rewrite only ever replaces words with words of the same meaning; a
phrase the lexicon does not know stays as written, and the reader asks about what is left.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction

# -- script -------------------------------------------------------------------------------------

_TRADITIONAL = dict(zip(
    "階彈發間層減點兩擊過數為轉難變設後個這麼讓場體開時從對與環隨機準縮長壽勁現態區輪圍單雙嗎幀鐘顆總們邊裡還擋覺頻較級錯誤關閉調條輕鬆換應該實際話說請給讓夠並並經變動慢",
    "阶弹发间层减点两击过数为转难变设后个这么让场体开时从对与环随机准缩长寿劲现态区轮围单双吗帧钟颗总们边里还挡觉频较级错误关闭调条轻松换应该实际话说请给让够并并经变动慢"))
_PHASE_TYPOS = r"阶断|接段|介段|阶叚|阶端|街段|阶殷|皆段|结段|解段"

_CAMEL = re.compile(r"\b([a-z]+)((?:[A-Z][a-z0-9]*)+)\b")

# -- units --------------------------------------------------------------------------------------

_UNIT_TYPOS = [
    (r"\b(?:secondes|secnds?|secods?|secounds?|seconsd|secomds?|seocnds?|secodns?)\b", "seconds"),
    (r"\bmil+i?sec(?:ond)?s?\b|\bmil+iseconds?\b|\bmilisecs?\b|\bmsecs?\b", "ms"),
    (r"\bdegress\b|\bdegres\b|\bdegreees?\b|\bdegs\b", "degrees"),
]
_HYPHEN_UNIT = re.compile(r"(\d)-(?=(?:ms|millisecond|second|sec|s|degree|deg|bullet|layer|wave|shot)s?\b)")

# -- numbers ------------------------------------------------------------------------------------

_ONES = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60}
_SMALL = {**_ONES, "zero": 0, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
          "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, **_TENS, "a": 1, "an": 1}
_WORD_NUM = "|".join(sorted(_SMALL, key=len, reverse=True))
_FRACTION_WORDS = {"half": Fraction(1, 2), "third": Fraction(1, 3), "quarter": Fraction(1, 4),
                   "fifth": Fraction(1, 5), "tenth": Fraction(1, 10)}
_CN_FRACTION = re.compile(r"([一二两三四五六七八九\d])分之([一二两三四五六七八九\d])")
_CN_DIGIT = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}


def _dec(value: Fraction, places: int = 6) -> str:
    """A fraction as the decimal the handlers read (6 places, what a goal may carry; the applier
    rounds the result once, later, so a third of 700 ms is 467 ms)."""
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):.{places}f}".rstrip("0").rstrip(".")


def _pct(value: Fraction) -> str:
    return _dec(value * 100, 4) + "%"


_TURNS = {"quarter": 90, "half": 180, "full": 360, "whole": 360}


def _numbers(t: str) -> str:
    t = re.sub(r"\b(?:a|one)\s+dozen\s+and\s+a\s+half\b", "18", t)
    t = re.sub(r"\bhalf\s+a\s+dozen\b", "6", t)
    t = re.sub(r"\btwo\s+dozen\b", "24", t)
    t = re.sub(r"\b(?:a|one)\s+dozen\b", "12", t)
    # turns are degrees: "a quarter turn", "a half-turn", "half a turn", "a full turn"
    t = re.sub(r"\b(?:a|one)\s+(quarter|half|full|whole)[- ]?turns?\b", lambda m: f"{_TURNS[m.group(1)]} degrees", t)
    t = re.sub(r"\bhalf\s+a\s+turn\b", "180 degrees", t)
    t = re.sub(rf"\b({'|'.join(_TENS)})[- ]({'|'.join(_ONES)})\b",
               lambda m: str(_TENS[m.group(1)] + _ONES[m.group(2)]), t)
    t = re.sub(rf"\b({_WORD_NUM}|\d+)\s+point\s+({'|'.join(_ONES)}|zero|\d)\b",
               lambda m: f"{_SMALL.get(m.group(1), m.group(1))}.{_SMALL.get(m.group(2), m.group(2))}", t)
    # "one and a half", "three-and-a-half", "2 and a half"
    t = re.sub(rf"\b({_WORD_NUM}|\d+)[- ]and[- ]a[- ]half\b",
               lambda m: f"{_SMALL.get(m.group(1), m.group(1))}.5", t)
    # "1/4 fewer bullets": a share; "1/2 second": a number
    t = re.sub(r"\b(\d+)\s*/\s*([1-9]\d*)\b(?=\s+(?:more|fewer|less|slower|faster|longer|shorter|higher|lower)\b)",
               lambda m: _pct(Fraction(int(m.group(1)), int(m.group(2)))), t)
    t = re.sub(r"\b(\d+)\s*/\s*([1-9]\d*)\b", lambda m: _dec(Fraction(int(m.group(1)), int(m.group(2)))), t)
    # "half a unit", "half a point": the amount 0.5 ("lower the speed by half a unit")
    t = re.sub(r"\bhalf\s+(?:a|an|of\s+a|one)\s+(?:unit|point)\b", "0.5", t)
    # "three quarters of a second": a time, never a share of the field ("a quarter of a second" = 0.25 s)
    t = re.sub(rf"\b({_WORD_NUM}|a)[- ]({'|'.join(_FRACTION_WORDS)})s?\s+of\s+an?\s+(?:second|sec)\b",
               lambda m: f"{_dec((_SMALL.get(m.group(1), 1)) * _FRACTION_WORDS[m.group(2)], 3)} s", t)
    # "two thirds of their current speed": the share belongs to the field named after it, not
    # to the noun before it ("the ring's bullets fly at ...")
    t = re.sub(rf"\b({_WORD_NUM})[- ]({'|'.join(_FRACTION_WORDS)})s?\s+of\s+(?:its|the|their)?\s*(?:current\s+|present\s+|"
               r"original\s+|usual\s+)?(bullet\s+speed|speed|interval|lifetime|rotation)\b",
               lambda m: f" {m.group(3)} x{_dec(_SMALL[m.group(1)] * _FRACTION_WORDS[m.group(2)])} ", t)
    # "two-thirds as fast", "three quarters of its speed": a share of the value
    t = re.sub(rf"\b({_WORD_NUM})[- ]({'|'.join(_FRACTION_WORDS)})s?\s+as\s+(?:fast|quick(?:ly)?|speedy)\b",
               lambda m: f" speed to {_pct(_SMALL[m.group(1)] * _FRACTION_WORDS[m.group(2)])} ", t)
    t = re.sub(rf"\b({_WORD_NUM})[- ]({'|'.join(_FRACTION_WORDS)})s?\s+(?:as\s+\w+|of\s+(?:its|the|their)?\s*"
               r"(?:current\s+)?)",
               lambda m: f"to {_pct(_SMALL[m.group(1)] * _FRACTION_WORDS[m.group(2)])} of the ", t)
    # "by a third", "a quarter more": the exact share as a percentage
    t = re.sub(rf"\b(?:a|one)\s+({'|'.join(_FRACTION_WORDS)})\b(?=\s+(?:more|fewer|less|slower|faster|longer|"
               r"shorter|higher|lower|quicker)\b)", lambda m: _pct(_FRACTION_WORDS[m.group(1)]), t)
    t = re.sub(rf"\bby\s+(?:a|one)\s+({'|'.join(_FRACTION_WORDS)})\b",
               lambda m: "by " + _pct(_FRACTION_WORDS[m.group(1)]), t)
    t = re.sub(r"(\d+(?:\.\d+)?)\s*times\s+the\b", r"x\1 the", t)  # "1.5 times the bullets"
    # "speed times 1.5", "multiplied by 2": a factor, never the new value
    t = re.sub(r"\b(?:times|multiplied\s+by)\s+(\d+(?:\.\d+)?)\b(?!\s*(?:as|more|less|faster|slower|%))", r" x\1 ", t)
    # Chinese: 四秒半 -> 4.5秒, 三分之二 -> 66.67%, 原来的三分之二 -> 66.67%
    t = re.sub(r"([一二两三四五六七八九十\d]+)秒半", lambda m: f"{_cn_small(m.group(1))}.5秒", t)
    t = _CN_FRACTION.sub(lambda m: _pct(Fraction(_cn_small(m.group(2)), _cn_small(m.group(1)))), t)
    return t


def _cn_small(text: str) -> int:
    if text.isdigit():
        return int(text)
    if text == "十":
        return 10
    if text.startswith("十"):
        return 10 + _CN_DIGIT[text[1]]
    if text.endswith("十"):
        return _CN_DIGIT[text[0]] * 10
    if "十" in text:
        a, b = text.split("十")
        return _CN_DIGIT[a] * 10 + _CN_DIGIT[b]
    return _CN_DIGIT[text]


# -- words --------------------------------------------------------------------------------------

# (pattern, canonical words); applied in order, after the numbers
WORDS: list[tuple[str, str | Callable[[re.Match[str]], str]]] = [
    # jargon
    (r"\bttl\b|\btime[- ]to[- ]live\b", "lifetime"),
    (r"\bcool-?downs?\s+(?:between\s+(?:volleys|waves|bursts|shots))?|\bcool-?down\b", "interval "),
    (r"\bvolley\s+size\b|\bburst\s+size\b|\bbullets?\s+per\s+volley\b|\bvolley\s+count\b", "bullets per wave"),
    (r"\bvolleys?\b|\bbursts?\b", "waves"),
    (r"\brof\b|\brate\s+of\s+fire\b", "fire rate"),
    (r"\bprojectile\s+(?:velocity|speed)\b|\bbullet\s+velocity\b|\bvelocity\b", "bullet speed"),
    (r"\b(?:more|higher)\s+bullet\s+density\b|\bdensity\s+up\b|\bspawn\s+rate\s+up\b|\bmore\s+spawns?\b", " denser "),
    (r"\b(?:less|lower)\s+bullet\s+density\b|\bdensity\s+down\b|\bspawn\s+rate\s+down\b", " sparser "),
    (r"\bbullet\s*数量|bullets?\s*数|子弹\s*count\b|子弹\s*数量?\s*(?=[+\-x\d])", "bullet count "),
    # colloquial directions of one field
    (r"\b(?:hang\s+around|stick\s+around|live|last|survive|stay)\s+(?:a\s+bit\s+|a\s+little\s+)?longer\b",
     " longer-lived "),
    (r"\b(?:die|vanish|disappear|despawn|expire|fade)\s+(?:a\s+bit\s+|a\s+little\s+)?(?:sooner|earlier|faster|quicker)\b",
     " shorter-lived "),
    (r"\bwaves?\s+(?:a\s+bit\s+|a\s+little\s+)?(?:closer\s+together|more\s+frequent(?:ly)?)\b", " fire more often "),
    (r"\bwaves?\s+(?:a\s+bit\s+|a\s+little\s+)?(?:further|farther|more\s+spread)\s+apart\b|\bwaves?\s+less\s+frequent\b",
     " fire less often "),
    (r"\b(?:zippier|snappier|speedier|quicker)\b", "faster"),
    (r"\bquick(?=\s+bullets?\b)|\bspeedy\b", "faster"),
    (r"\ba\s+(?:tad|touch|smidge|hair)\b", "a bit"),
    (r"活(?:得)?(?:久|长)(?:一点|一些|点)?", "寿命更长"),
    (r"(?:消失|死)(?:得)?(?:快|早)(?:一点|一些|点)?", "寿命更短"),
    (r"(?:间)?隔(?:得)?(?:久|长)(?:一点|一些|点)", "间隔更长"),
    (r"(?:间)?隔(?:得)?(?:短|近)(?:一点|一些|点)", "间隔更短"),
    (r"飞(?:得)?快(?:一点|一些|点)?", "更快"),
    (r"飞(?:得)?慢(?:一点|一些|点)?", "更慢"),
    # "live one second longer": an amount of lifetime added, not the new lifetime
    (r"\b(?:live|last|survive|stay|linger|hang\s+around|stick\s+around)\s+(\d+(?:\.\d+)?)\s*(seconds?|secs?|s)\s+longer\b",
     r" lifetime increase by \1 s "),
    (r"\b(?:die|vanish|disappear|despawn|expire|fade)\s+(\d+(?:\.\d+)?)\s*(seconds?|secs?|s)\s+(?:sooner|earlier)\b",
     r" lifetime reduce by \1 s "),
    # "slow the ring to 2.5", "speed the spiral up to 4": the verb names the field its number sets
    (r"\b(?:slow(?:\s+down)?|speed\s+up)\s+((?:[^\s,.;]+\s+){0,4}?)(?:down\s+|up\s+)?to\s+(\d+(?:\.\d+)?)(?![\d.])"
     r"(?!\s*(?:%|ms\b|s\b|secs?\b|seconds?\b|degrees?\b|deg\b|bullets?\b))", r" \1 bullet speed \2 "),
    (r"\b(?:slow|speed)\s+((?:[^\s,.;]+\s+){1,4}?)(?:down|up)\s+to\s+(\d+(?:\.\d+)?)(?![\d.])"
     r"(?!\s*(?:%|ms\b|s\b|secs?\b|seconds?\b|degrees?\b|deg\b|bullets?\b))", r" \1 bullet speed \2 "),
    # "instead of what it does now": the current value, not an old pattern
    (r"\binstead\s+of\s+(?:what\s+(?:it|they)\s+(?:does|do|has|have|is|are)\s+(?:now|currently|today)|"
     r"the\s+current\s+(?:one|value|amount|number))\b", " "),
    # jargon of one field or one phase: "BPW", "P2"
    (r"\bbpw\b", "bullets per wave"),
    (r"\bp\s?([1-9])\b(?!\s*(?:%|ms|s\b))", r"phase \1"),
    # rotation verbs: the rotation, never the bullet speed
    (r"\b(?:twist|spin|whirl|swirl|turn|rotat)\w*\s+(?:a\s+bit\s+|a\s+little\s+|way\s+)?(faster|slower|quicker|more|less)\b",
     r"rotate \1"),
    (r"\brotation\s+(?:speed\s+)?(faster|slower|quicker)\b|\b(faster|slower|quicker)\s+(?:rotation|spin)\b",
     lambda m: f"rotate {m.group(1) or m.group(2)}"),
    (r"\b(?:rotat\w*|spin|twist)\s+speed\b|\bspin\s+rate\b|\brotation\s+rate\b", "rotation"),
    (r"\b(?:spin|twist|whirl|turn)\s+(?:it\s+|them\s+)?(?:the\s+)?other\s+way\b", "reverse"),
    (r"\breverse\s+the\s+(?:spin|rotation|twist)\b|\bspin\s+(?:it\s+)?(?:backwards|the\s+opposite\s+way)\b", "reverse"),
    (r"\bspin\b(?=\s+(?:\w+\s+)?(?:clockwise|counter|anti))|\btwist\b(?=\s+(?:\w+\s+)?(?:clockwise|counter|anti))",
     "rotate"),
    (r"旋转速度|转速", "旋转"),
    (r"反着转|倒着转|转反方向|反过来转|旋转方向反过来|反方向转", "反向旋转"),
    (r"转(?:得)?慢(?:一点|一些|点)", "转得更慢"),
    # "stop the spiral from rotating", "no rotation", "不要旋转": a rotation of 0 degrees a wave
    (r"\bstop\s+((?:[^\s,.;]+\s+){0,4}?)(?:from\s+)?(?:rotating|spinning|turning|twisting)\b", r" \1 rotate 0 degrees per wave "),
    (r"\b(?:no|without(?:\s+any)?)\s+(?:more\s+)?(?:rotation|spin(?:ning)?)\b", " rotate 0 degrees per wave "),
    (r"\b(?:don'?t|do\s+not|never)\s+(?:rotate|spin)(?:\s+(?:it|them))?(?=\s*(?:$|[,.;!]|and\b|anymore\b|at\s+all\b))",
     " rotate 0 degrees per wave "),
    (r"(?:不要|别|不再|停止|不用|不)\s*(?:再)?(?:旋转|转动|转圈|转)(?:了)?(?!得|速度|方向|更|快|慢|的|\d)", " 每波旋转0度 "),
    (r"转(?:得)?快(?:一点|一些|点)", "转得更快"),
    # easing and intensifying: the pressure words
    (r"\bgo\s+easy\s+on\b|\bgo\s+easier\s+on\b|\bease\s+(?:up|off)(?:\s+on)?\b|\blet\s+up\b|"
     r"\bchill\s+out\b|\bback\s+off(?:\s+on)?\b|\bless\s+brutal\b|\bless\s+punishing\b|"
     r"\bmore\s+forgiving\b|\bforgiving\b|\bnerf\b", " easier "),
    # a complaint is the ask: "phase 2 is brutal", "feels too hard" -> easier; "way too easy" -> harder
    (r"\b(?:is|are|feels?|seems?|gets?)\s+(?:way\s+|far\s+|much\s+|a\s+bit\s+|kind\s+of\s+|so\s+|really\s+|just\s+)?"
     r"(?:too\s+(?:hard|difficult|tough|much|brutal|punishing|dense|crowded)|brutal|punishing|overwhelming|unfair)\b", " easier "),
    (r"\b(?:is|are|feels?|seems?|gets?)\s+(?:way\s+|far\s+|much\s+|a\s+bit\s+|kind\s+of\s+|so\s+|really\s+|just\s+)?"
     r"too\s+(?:easy|tame|boring|sparse)\b", " harder "),
    (r"\bturn\s+up\s+the\s+heat\b|\bmore\s+brutal\b|\bmore\s+punishing\b|\bbuff\b|\bmake\s+it\s+hurt\b|"
     r"\bmore\s+aggressive\b|\bspicier\b", " harder "),
    (r"放(?:点|一点|些|一些)?水|难度(?:降低|减小|下调|降|低一?[点些]|小一?[点些])|太(?:难|狠|凶)了?(?!\S*更)|温柔|手下留情|别那么难|不要那么难|没那么难|收敛|放松|轻松(?:一点|一些|点)|简单点|降降难度|太难了", " 更简单 "),
    (r"难度(?:加大|提高|提升|增加|大一?[点些]|高一?[点些])|太(?:简单|容易|无聊)了?|再狠|狠一点|狠一些|加点难度|加大难度|更狠|更凶|凶一点|凶一些|刺激一点|更刺激", " 更难 "),
    # no-op phrasings
    (r"\bleave\s+(?:[^\s,.;]+\s+){0,3}?(?:alone|be|as\s+(?:it\s+)?is)\b(?=\s*(?:$|[.!]))|\blooks\s+good\b|\bship\s+it\b|\blgtm\b|\bfine\s+as\s+(?:is|it\s+is)\b|\bgood\s+as\s+is\b|"
     r"\bleave\s+it\b|\bleave\s+it\s+be\b|\ball\s+good\b", " keep everything as is "),
    (r"原封不动|这样挺好|这样就好|这样就行|挺好的?|就这样吧?|目前这样", " 保持不变 "),
]

# verbs around their object: "chill phase 2 out", "crank the spiral up" (the object is kept)
PHRASAL: list[tuple[str, str, str]] = [
    (r"chill|calm|tone|dial|ease|wind|settle", r"out|down|back", " easier "),
    (r"crank|spice|amp|ramp|juice|beef", r"up", " harder "),
]

# amounts taken off or added: the sign and the amount, in the form counts.read reads ("-200 ms")
_AMOUNT_UNITS = (r"ms|milliseconds?|seconds?|secs?|s|degrees?|deg|bullets?|shots?|layers?|毫秒|秒|发|颗|枚|层|度")
AMOUNTS: list[tuple[str, str]] = [
    # "提高一倍" doubles (one more of it, not "x1"); "提高一半" is half again, "降低一半" halves
    (r"(?:提高|增加|提升|增大|加大|加快|多)了?(?:一|1)倍", " x2 "),
    (r"(?:提高|增加|提升|增大|加大|加快)了?(?:一|1)半", " 增加 50% "),
    (r"(?:降低|减少|减慢|减小|降|减|少)了?(?:一|1)半", " 减少 50% "),
    (rf"\b(?:cut|shave|knock|trim|take|chop|lop|strip|remove|subtract|drop)\s+(?:an?\s+)?(?:extra\s+)?"
     rf"(\d+(?:\.\d+)?)\s*(?:({_AMOUNT_UNITS})\b(?:\s+(?:off|from|out\s+of|away)\b)?|()(?=\s+(?:off|from)\b)\s+(?:off|from)\b)",
     r" reduce by \1 \2 "),
    (r"(?:每波)?多转\s*(\d+(?:\.\d+)?)\s*度", r" 旋转角度 增加 \1 度 "),
    (r"(?:每波)?少转\s*(\d+(?:\.\d+)?)\s*度", r" 旋转角度 减少 \1 度 "),
    (rf"\b(?:add|tack\s+on|throw\s+in|give\s+(?:it\s+|them\s+)?)\s+(?:an?\s+)?(?:extra\s+|another\s+|more\s+)?"
     rf"(\d+(?:\.\d+)?)\s*(?:extra\s+|more\s+)?({_AMOUNT_UNITS})\b", r" increase by \1 \2 "),
    (rf"(?:延长|加长|延后|拉长|多给|多加|多转|再加|再多)\s*了?\s*(\d+(?:\.\d+)?)\s*({_AMOUNT_UNITS})?", r" 增加 \1\2 "),
    (rf"(?:缩短|少给|少转|减掉|砍掉|去掉|削减)\s*了?\s*(\d+(?:\.\d+)?)\s*({_AMOUNT_UNITS})", r" 减少 \1\2 "),
]

# rates: waves per second are an interval; "N times as often" scales it
_PER_SECOND = r"(?:per\s+second|per\s+sec|a\s+second|each\s+second|every\s+second|/\s*s(?:ec)?\b|/\s*second)"


def _every(n: str) -> str:
    value = Fraction(n)
    return f" every {_dec(Fraction(1000) / value)} ms " if value > 0 else f" {n} waves per second "


def _rates(t: str) -> str:
    t = re.sub(rf"\b(\d+(?:\.\d+)?)\s*(?:bullets?|shots?|projectiles?)\s*{_PER_SECOND}", r" \1 bps-rate ", t)
    t = re.sub(r"每秒\s*(?:打|发射|射|放|出)?\s*(\d+(?:\.\d+)?)\s*(?:发|颗|枚)(?:子弹)?", r" \1 bps-rate ", t)
    t = re.sub(rf"\b(\d+(?:\.\d+)?)\s*(?:waves?|volleys?|bursts?|shots?|times)\s*{_PER_SECOND}",
               lambda m: _every(m.group(1)), t)
    t = re.sub(rf"\bfire\s+rate\s*(?:of|to|at|=|:)?\s*(\d+(?:\.\d+)?)\s*(?:waves?\s*)?{_PER_SECOND}",
               lambda m: _every(m.group(1)), t)
    t = re.sub(r"(?:每秒|一秒(?:钟)?|1秒(?:钟)?)\s*(?:打|发射|射|放|出)?\s*(\d+(?:\.\d+)?)\s*(?:波|次|轮|waves?)",
               lambda m: _every(m.group(1)), t)
    t = re.sub(r"(?:每秒|一秒(?:钟)?|1秒(?:钟)?)\s*(?:打|发射|射|放|出)?\s*([一二两三四五六七八九])\s*(?:波|次|轮)",
               lambda m: _every(str(_CN_DIGIT[m.group(1)])), t)
    t = re.sub(r"\b(?:fire|shoot|attack)?\s*(twice|thrice|half|(\d+(?:\.\d+)?)\s*(?:x|times))\s+as\s+(?:often|frequently)\b",
               lambda m: " interval x" + _dec(Fraction(1) / {"twice": Fraction(2), "thrice": Fraction(3),
                                                              "half": Fraction(1, 2)}.get(m.group(1).split()[0],
                                                                                           Fraction(m.group(2) or 1)))
               + " ", t)
    # "bump ROF by 20%": N % faster firing is an N % shorter interval (the fire rate rule)
    t = re.sub(r"\b(?:bump|raise|increase|up|boost)\w*\s+(?:the\s+)?fire\s+rate\s+((?:\w+\s+){0,3}?)by\s+(\d+(?:\.\d+)?)%",
               r" \1 fire \2% faster ", t)
    t = re.sub(r"\bfire\s+rate\s+\+\s*(\d+(?:\.\d+)?)%", r" fire \1% faster ", t)
    t = re.sub(r"(?:发射频率|射速|射击频率|开火频率)(?:提高到|提高为|变成|变为|改成|提到|调到)?(?:原来的)?\s*(\d+(?:\.\d+)?)\s*倍",
               lambda m: " 间隔 x" + _dec(Fraction(1) / Fraction(m.group(1))) + " ", t)
    t = re.sub(r"(?:发射频率|射速|射击频率)(?:提高到|变成|变为)?(?:原来的)?(?:两|2)倍", " 间隔 x0.5 ", t)
    t = re.sub(r"(?:发射频率|射速|射击频率)(?:减半|降低一半|降一半)", " 间隔 x2 ", t)
    # "提高一倍" is twice the rate (one more of it), "提高一半" one and a half times
    t = re.sub(r"(?:发射频率|射速|射击频率|开火频率)(?:提高|增加|提升|加快)了?(?:一|1)倍", " 间隔 x0.5 ", t)
    t = re.sub(r"(?:发射频率|射速|射击频率|开火频率)(?:提高|增加|提升|加快)了?(?:一|1)半", " 间隔 x0.666667 ", t)
    return t


def _list_markers(t: str) -> str:
    """'1) 20 bullets 2) every 0.5 s', '1. faster 2. lifetime 4 s': the markers are not numbers."""
    t = re.sub(r"(?:(?<=^)|(?<=[\s:：;；,，(（]))[1-9]\s*[)）](?=\s*\S)", " ; ", t)
    t = re.sub(r"(?:(?<=^)|(?<=[\n:：;；]))\s*[1-9]\.\s+(?=\D)", " ; ", t)
    t = re.sub(r"(?<=[%\w\u4e00-\u9fff])\s+[1-9]\.\s+(?=[^\d\s])", " ; ", t)
    t = re.sub(r"(?:(?<=^)|(?<=\n))\s*[-*•]\s+", " ; ", t)
    return t


def before_lower(text: str) -> str:
    """What must be read before lower-casing: camelCase names ('bulletsPerWave', 'phase1')."""
    def snake(m: re.Match[str]) -> str:
        def lower(c: re.Match[str]) -> str:
            return "_" + c.group(1).lower()
        return m.group(1) + re.sub(r"([A-Z])", lower, m.group(2))
    text = _CAMEL.sub(snake, text)
    return re.sub(r"\b(phase|stage)(\d)\b", r"\1 \2", text, flags=re.IGNORECASE)


def script(t: str) -> str:
    """Traditional characters and typos of 阶段 (before the Chinese numerals are read)."""
    t = "".join(_TRADITIONAL.get(ch, ch) for ch in t)
    return re.sub(_PHASE_TYPOS, "阶段", t)


def numbers_first(t: str) -> str:
    """Units, list markers and number words (before the number-word table of ``numbers.py``)."""
    for pattern, repl in _UNIT_TYPOS:
        t = re.sub(pattern, repl, t)
    t = _HYPHEN_UNIT.sub(r"\1 ", t)
    t = re.sub(r"\b(?:a\s+)?half[- ](?:a\s+)?second\b", "0.5 s", t)
    t = _list_markers(t)
    return _numbers(t)


def _before_object(verb: str) -> Callable[[re.Match[str]], str]:
    """The replacement of a phrasal verb: ``verb`` put before its object."""
    return lambda m: f"{verb}{m.group(1)}"


def canonical(t: str) -> str:
    """Words, amounts and rates (after every number is digits)."""
    t = re.sub(r"(\d+)\s+bullets?\s+waves?\b", r"\1 bullets per wave", t)
    t = re.sub(r"(\d+(?:\.\d+)?)\s*(?:°|degrees?|deg)\s*(?:/|per|each|every)\s*wave\b", r"rotate \1 degrees per wave", t)
    t = re.sub(r"\b(?:rotat\w*|spin\w*|turn\w*)\s+rotate\b", "rotate", t)
    # coordination: "longer and shorter lifetime" is "longer lifetime and shorter lifetime"
    comparative = r"faster|slower|longer|shorter|more|fewer|less|wider|narrower|bigger|smaller|higher|lower"
    t = re.sub(rf"\b({comparative})\s+(?:and|or|but|yet|then|and\s+also)\s+({comparative})\s+([a-z-]+)",
               r"\1 \3 and \2 \3", t)
    t = re.sub(r"挨\s*([一二两三四五六七八九]|\d+)\s*下", lambda m: f"受击 {_cn_small(m.group(1))} 次", t)
    # negated directions are not asks: "not slower", "不要更多子弹" (pressure words have their own rule)
    t = re.sub(r"\b(?:not|never|no)\s+(?:any\s+)?(?!longer\s+(?:be|a|an|the|use|need|want|have|has|as)\b)(?:more|fewer|less|faster|slower|longer|shorter|bigger|smaller|wider|"
               r"narrower|quicker)\b(?!\s+than)(?:\s+bullets?)?", " ", t)
    t = re.sub(r"\b(?:shouldn'?t|should\s+not|mustn'?t|must\s+not|needn'?t|isn'?t|aren'?t|won'?t|doesn'?t\s+need\s+to)\s+"
               r"(?:be|get|go|become|feel)\s+(?:any\s+)?(?:more|fewer|less|faster|slower|longer|shorter|bigger|smaller|wider|"
               r"narrower|quicker|denser|sparser|harder|easier)\b(?!\s+than)", " ", t)
    t = re.sub(r"\b(?:don'?t|do\s+not|never)\s+make\s+(?:it\s+|them\s+)?(?:\S+\s+){0,3}?(?:faster|slower|longer|shorter|"
               r"bigger|smaller|wider|narrower)\b", lambda m: " " + re.sub(r"\b(?:don'?t|do\s+not|never|make|it|them|faster|"
               r"slower|longer|shorter|bigger|smaller|wider|narrower)\b", " ", m.group()) + " ", t)
    t = re.sub(r"(?:不要|别|不)(?:再)?更?(?:多|少|快|慢|长|短)(?![\d于])(?:的)?(?:子弹)?", " ", t)
    t = re.sub(r"(?:不要|别|不是)\s*(?:more|fewer|less|faster|slower|longer|shorter|quicker)\b", " ", t)
    t = re.sub(r"\b(?:don'?t|do\s+not)\s+want\s+((?:\S+\s+){0,3}?)any\s+(denser|harder|sparser|easier)\b", r"\1 not \2", t)
    for pattern, repl in WORDS:
        t = re.sub(pattern, repl, t)
    for verb, particle, repl in PHRASAL:
        t = re.sub(rf"\b(?:{verb})\s+((?:[^\s,.;]+\s+){{0,4}}?)(?:{particle})\b", _before_object(repl), t)
    t = _rates(t)
    for pattern, repl in AMOUNTS:
        t = re.sub(pattern, repl, t)
    return t


__all__ = ["before_lower", "script", "numbers_first", "canonical", "WORDS", "AMOUNTS"]
