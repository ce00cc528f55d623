"""The offline Requirement Agent: a deterministic, rule-based reader of English and Chinese.

It is the product's default provider (no API key, no network) and the yardstick the model
providers are compared against, so it is deliberately conservative: it maps what it can
map exactly and refuses the rest instead of guessing.

* ``accepted``: every part of the request mapped onto the goal; the candidate comes from
  :func:`gcv.agents.goal_applier.apply_goal` (the parser never writes a config number).
* ``needs_clarification``: the request is vague, names no phase while the fight has several,
  mixes a change with something GCV does not change, or holds a number whose meaning is
  unclear (``0.9 seconds``: interval or lifetime?). The questions are concrete.
* ``out_of_scope``: the request is about something else (music, colours, the weather).
* ``blocked``: it asks for something unsafe or outside the contract (limits, new phases,
  boss/player fields, unknown pattern types, values out of range). Every issue names the
  field, what was asked and what is allowed.
* ``no_change``: the request asks for nothing, or for what the baseline already is.

How it reads (the order matters, because each step *consumes* the words it understood so
that a later step cannot read them again, e.g. the ``350`` of "never more than 350 bullets
alive" is a constraint and never becomes bullets per wave):

1. normalise: NFKC (full-width digits and punctuation), lower case, Chinese numerals
   next to a unit (``二十发``, ``第二``, ``百分之二十``) and English number words next to a
   unit (``three layers``) become digits;
2. split into clauses (punctuation, "but", "then", 但是, 并且, 同时, ...);
3. per clause: blocked asks, phase references, designer constraints, "no change" and
   "keep the look" phrases, bidirectional, rotation direction, pattern names, numeric
   edits, qualitative edits, pressure words, off-topic words; any number left over is a
   question, never a guess.

The phrase tables are documented in ``docs/requirements-agent.md``.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

from pydantic import ValidationError

from gcv.agents.base import AgentCall, BlockIssue, RequirementDecision
from gcv.agents.goal_applier import (
    DEFAULT_ROTATION_DEG,
    PATTERN_RANGES,
    GoalRangeError,
    apply_goal_with_notes,
    fmt,
)
from gcv.contract.canonical import canonical_json, config_hash, sha256_hex
from gcv.contract.goal import DesignerConstraints, Goal, ParameterEdit
from gcv.contract.models import PATTERN_TYPES, BulletHellConfig

PROVIDER_NAME = "offline"
MODEL_NAME = "rules-v1"
PROMPT_ID = "requirement/offline-v1"
MAX_REQUEST_CHARS = 4000
MAX_QUESTIONS = 8  # a request that raises more questions than this needs rewriting, not answers

# A qualitative per-field word without a number ("faster bullets", "more layers") moves
# the field by this step; documented in docs/requirements-agent.md.
QUALITATIVE_UP = Fraction(6, 5)     # x1.2
QUALITATIVE_DOWN = Fraction(4, 5)   # x0.8
FIRE_RATE_UP = Fraction(17, 20)     # "fire more often": interval x0.85 (the pressure step)
FIRE_RATE_DOWN = Fraction(23, 20)   # "fire less often": interval x1.15

NUM = r"[-+]?\d+(?:\.\d+)?"
# a number followed by one of these is a quantity, never a phase number
_UNIT_AHEAD = (r"\s*(?:bullets?|shots?|layers?|ms|s\b|secs?|seconds?|degrees?|deg|%|x\b|times|units?|"
               r"发|颗|层|秒|毫秒|度|倍)")
_N = rf"({NUM})"

# --------------------------------------------------------------------------------------------
# normalisation
# --------------------------------------------------------------------------------------------

_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6,
              "七": 7, "八": 8, "九": 9}
_CN_UNITS = {"十": 10, "百": 100, "千": 1000}
_CN_RUN = re.compile(r"[零〇一二两三四五六七八九十百千]+")
_CN_AFTER = re.compile(r"\s*(?:毫秒|秒|发|颗|枚|层|次|度|倍|帧|个?阶段|%|fps|个子弹)")
_CN_BEFORE = ("第", "到", "为", "成", "至", "超过", "低于", "高于", "大于", "小于", "多于", "少于",
              "最多", "至多", "至少", "不超过", "不低于", "上限", "下限", "每", "每隔", "是", "设",
              "增加", "减少", "提高", "降低")

_EN_NUMBERS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
               "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15,
               "sixteen": 16, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50}
_EN_NUMBER_RE = re.compile(
    r"\b(" + "|".join(_EN_NUMBERS) + r")\b(?=\s+(?:more\s+|fewer\s+|extra\s+|additional\s+|alive\s+)?"
    r"(?:bullets?|shots?|layers?|hits?|times|seconds?|degrees?|phases?|ms|milliseconds?|fps)\b)"
    r"|(?<=\b(?:phase|stage) )(one|two|three|four|five|six)\b"
    r"|(?<=\bby )(" + "|".join(_EN_NUMBERS) + r")\b")
_ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6}


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


def _convert_cn_numbers(text: str) -> str:
    text = re.sub(r"百分之([零〇一二两三四五六七八九十百]+)", lambda m: f"{cn_to_int(m.group(1))}%", text)
    out, pos = [], 0
    for m in _CN_RUN.finditer(text):
        before = text[:m.start()].rstrip()
        after = _CN_AFTER.match(text, m.end()) is not None
        # a lone 一 after a verb is "a bit" (增加一些, 提高一点), not the number one
        if after or before.endswith("第") or (before.endswith(_CN_BEFORE) and m.group() != "一"):
            out.append(text[pos:m.start()])
            out.append(str(cn_to_int(m.group())))
            pos = m.end()
    out.append(text[pos:])
    return "".join(out)


def normalize(text: str) -> str:
    """The text the rules read: NFKC, lower case, digits for numerals next to a unit."""
    t = unicodedata.normalize("NFKC", text).lower()
    t = t.replace("−", "-").replace("–", "-").replace("’", "'").replace("‘", "'")
    t = t.replace("“", '"').replace("”", '"').replace("×", " x ")
    t = _convert_cn_numbers(t)
    t = re.sub(r"\b(?:negative|minus)\s+(\d)", r"-\1", t)
    t = re.sub(r"负\s*(\d)", r"-\1", t)
    t = re.sub(r"\b(\d+(?:\.\d+)?)\s*(?:percent|per cent|pct)\b", r"\1%", t)
    t = re.sub(r"\bhalf (?:a )?second\b", "0.5 s", t)
    t = re.sub(r"半秒", "0.5秒", t)
    t = _EN_NUMBER_RE.sub(lambda m: str(_EN_NUMBERS[next(g for g in m.groups() if g)]), t)
    t = re.sub(r"\b(phase|stage)\s+(i{1,3}|iv|vi?)\b", lambda m: f"{m.group(1)} {_ROMAN[m.group(2)]}", t)
    # "phases 1, 2 and 3": keep a phase list inside one clause (commas split clauses)
    t = re.sub(rf"\b(phases?|stages?)\s*(\d(?:\s*(?:,|and|&|or)\s*(?:phase\s*)?\d(?![\d.]|{_UNIT_AHEAD}))+)\b",
               lambda m: f"{m.group(1)} " + "&".join(re.findall(r"\d", m.group(2))), t)
    t = re.sub(r"[ \t]+", " ", t)
    return t.strip()


_CLAUSE_SPLIT = re.compile(
    r"(?<!\d)\.|\.(?!\d)|[;!?。；！？\n]|,|，|\bbut\b|\bthen\b|\bwhile\b|\balso\b|\bhowever\b|"
    r"但是|但|并且|而且|同时|然后|另外|不过")
_SEGMENT_SPLIT = re.compile(r"\band\b|\bwith\b|\bplus\b|&|、|和|并|且|及|以及")

# --------------------------------------------------------------------------------------------
# vocabulary
# --------------------------------------------------------------------------------------------

PATTERN_WORDS: dict[str, str] = {
    "ring": r"\brings?\b|\bcircles?\b|\bcircular\b|\bradial\b|\bnova\b|环形|圆环|环状|圆形|环弹|圆周弹?|全方位",
    "spiral": r"\bspirals?\b|\bswirl(?:s|ing)?\b|\bvortex\b|\bhelix\b|\bpinwheel\b|螺旋|旋涡|漩涡|涡旋",
    "aimed_fan": (r"\baimed[ -]fans?\b|\baimed\b|\bfans?\b|\bfan[ -]shaped\b|\btargeted\b|\bsnip(?:e|er|ing)\b|"
                  r"\bplayer[ -]aimed\b|\bat the player\b|扇形|扇状|扇面|瞄准|自机狙|狙击|狙"),
    "petal": r"\bpetals?\b|\bflowers?\b|\bblossoms?\b|\bfloral\b|花瓣|花形|花型|花朵|花状|花弹",
    "scatter": (r"\bscatter(?:ed|shot|ing)?\b|\brandom(?:ly|ized|ised)?\b|\bspray\b|\bshotgun\b|"
                r"随机|散射|乱射|散弹"),
}
UNKNOWN_PATTERNS = (r"\blasers?\b|\bbeams?\b|\bhoming\b|\bmissiles?\b|\bbombs?\b|\bzig-?zag\b|\bsine[ -]waves?\b|"
                    r"\bbounc(?:e|ing|y)\b|\bricochet\w*\b|\bexplod\w*\b|\bsplitting\b|\bcurv(?:ed|ing|y) bullets\b|"
                    r"\bwall of bullets\b|\bstar[ -](?:pattern|shape)\b|\bcross[ -]pattern\b|\bgrid\b|"
                    r"激光|镭射|光束|追踪弹|追踪|诱导弹|导弹|炸弹|反弹|弹跳|十字|星形|锯齿|正弦|分裂弹?|爆炸弹?|网格")

FIELD_WORDS: dict[str, str] = {
    "bullets_per_wave": (r"bullets?\s+(?:per|in each|in a|each|a)\s+wave|shots?\s+per\s+wave|bullet\s+count|"
                         r"number\s+of\s+bullets|\bbullets\b|\bshots\b|\bprojectiles\b|"
                         r"每波子弹数?|子弹数量?|子弹个数|弹数|发数|每波|子弹"),
    "wave_interval_ms": (r"wave\s+interval|\binterval\b|fire\s+rate|rate\s+of\s+fire|firing\s+rate|\bcadence\b|"
                         r"between\s+waves|发射间隔|间隔|射速|发射频率|频率"),
    "bullet_speed": r"bullet\s+speed|\bspeed\b|\bvelocity\b|子弹速度|弹速|飞行速度|速度",
    "bullet_lifetime_seconds": (r"life\s*time|life\s*span|bullet\s+life\b|\blive\b|\blast\b|"
                                r"寿命|存活时间|生存时间|持续时间|生命周期"),
    "rotation_per_wave_deg": r"\brotat\w*|\bturn\w*|\bspin\w*|\btwist\w*|旋转|转速|转角|转",
    "spread_angle_deg": (r"\bspread\b|\barc\b|\bangle\b|\bwide\b|\bwidth\b|\bcone\b|扩散角?|扇角|张角|散布角|"
                         r"角度|夹角|展开角"),
    "layer_count": r"\blayers?\b|层数|层",
}
RATE_WORDS = r"fire\s+rate|rate\s+of\s+fire|firing\s+rate|\bfire\b|\bfiring\b|\bshoot\w*|射速|发射|射击|频率"
LIFETIME_CONTEXT = FIELD_WORDS["bullet_lifetime_seconds"] + r"|\blinger\b|\bdespawn\b|\bexpire\b|消失"
INTERVAL_CONTEXT = (FIELD_WORDS["wave_interval_ms"] + r"|\bevery\b|\beach\b|\bapart\b|\bwaves?\b|"
                    r"\bfire\b|\bshoot\b|每隔?|一波|发射")
UP_WORDS = (r"\bmore\b|\bfaster\b|\bhigher\b|\blonger\b|\blarger\b|\bbigger\b|\bwider\b|\bincreas\w*|\braise\w*|"
            r"\bup\b|\bboost\w*|\bdenser\b|\bextra\b|\blengthen\w*|\bextend\w*|"
            r"提高|增加|加快|提升|增大|延长|加大|多|快|加|增")
DOWN_WORDS = (r"\bless\b|\bfewer\b|\bslower\b|\blower\b|\bshorter\b|\bsmaller\b|\bnarrower\b|\bdecreas\w*|"
              r"\breduc\w*|\bcut\b|\bdown\b|\bdrop\b|\bsparser\b|\bshorten\w*|"
              r"降低|减少|减慢|缩短|减小|下调|少|慢|减|降")

PRESSURE_NEGATED = (r"(?:\bnot\b|n't|\bnever\b|\bwithout\b|\bno\b)\s+(?:make\s+(?:it|them)\s+|be\s+|get\s+|any\s+|too\s+)?"
                    r"(?:harder|denser|more\s+intense|easier|sparser|more\s+difficult)"
                    r"|(?:不要|别|不用|无需|不能|不)(?:更|太|变得?)?(?:难|密|简单|稀)")
PRESSURE_DOWN = (r"\beasier\b|\bsparser\b|\bless\s+dense\b|\bmore\s+sparse\b|\bsparse\b|\bless\s+pressure\b|"
                 r"\bfewer\s+bullets\b|\bless\s+bullets\b|\bless\s+intense\b|\bgentler\b|\bmore\s+forgiving\b|"
                 r"\blighter\b|\bcalmer\b|\btone\s+(?:it\s+|this\s+)?down\b|\bdial\s+(?:it\s+)?back\b|"
                 r"\b(?:reduce|lower|decrease)\s+(?:the\s+)?(?:density|pressure|difficulty|intensity)\b|"
                 r"\bless\s+difficult\b|\bless\s+aggressive\b|\bthinner\b|\bnerf\b|\bsimpler\b|"
                 r"\bless\s+crowded\b|\bmore\s+breathing\s+room\b|\bnot\s+as\s+hard\b|"
                 r"更稀疏|更稀|稀疏一?[点些]|稀一?[点些]|降低密度|减少密度|密度(?:降低|更低|小一?[点些]|低一?[点些])|"
                 r"降低难度|减少难度|难度(?:降低|低一?[点些])|更简单|简单一?[点些]|更容易|容易一?[点些]|"
                 r"减少子弹|子弹更少|少一?[点些]子弹|更少的?子弹|减弱|削弱|更温和|轻松一?[点些]|更轻松|"
                 r"降低压迫感?|减少压迫感?|减弱压迫感?|压迫感(?:小|低|弱)一?[点些]|压迫感太强")
PRESSURE_UP = (r"\bharder\b|\bmore\s+difficult\b|\btougher\b|\bmore\s+challenging\b|\bmore\s+intense\b|"
               r"\bintense\b|\bdenser\b|\bmore\s+dense\b|\bdense\b|\bthicker\b|\bmore\s+pressure\b|"
               r"\bmore\s+bullets\b|\bheavier\b|\bmore\s+aggressive\b|\bcrank\s+(?:it\s+)?up\b|"
               r"\bramp\s+(?:it\s+)?up\b|\bbusier\b|\bmore\s+crowded\b|\bmore\s+packed\b|\bmore\s+chaotic\b|"
               r"\b(?:increase|raise|up)\s+(?:the\s+)?(?:density|pressure|difficulty|intensity)\b|"
               r"\bbrutal\b|\bpunishing\b|\bmore\s+oppressive\b|"
               r"更密集|更密|密集一?[点些]|密一?[点些]|加密|密集|提高密度|增加密度|提升密度|加大密度|"
               r"密度(?:更高|提高|高一?[点些])|更有压迫感|增加压迫感|加强压迫感|提高压迫感|压迫感更强|"
               r"压迫感强一?[点些]|压迫感|更难|难一?[点些]|加大难度|提高难度|增加难度|提升难度|"
               r"更具?挑战性?|更激烈|更紧张|更多的?子弹|增加子弹(?!速度|寿命|的)|子弹更多|多一?[点些]子弹|"
               r"弹幕更多|更凶|更狠|强化|加强")

OFF_TOPIC: dict[str, str] = {
    "music / sound": (r"\bmusic\b|\bsoundtrack\b|\bsongs?\b|\bbgm\b|\bsounds?\b|\bsfx\b|\baudio\b|\bvolume\b|"
                      r"\bvoices?\b|背景音乐|音乐|音效|声音|配乐|音量|歌曲|bgm|配音"),
    "UI / visuals": (r"\bui\b|\bhud\b|\bmenus?\b|\bfonts?\b|\bcolou?rs?\b|\bpalette\b|\btextures?\b|\bsprites?\b|"
                     r"\bshaders?\b|\bbackground\b|\bbackdrop\b|\bred\b|\bblue\b|\bgreen\b|\bpink\b|\bpurple\b|"
                     r"\byellow\b|\borange\b|\bparticles?\b|\banimations?\b|\bcamera\b|\bscreen\s*shake\b|"
                     r"\bskins?\b|\bicons?\b|界面|颜色|配色|字体|贴图|美术|特效|背景|红色|蓝色|绿色|紫色|"
                     r"粉色|黄色|白色|黑色|动画|粒子|镜头|震屏|皮肤|立绘|图标"),
    "the weather": r"\bweather\b|\braining\b|\bsnow\w*\b|\bsunny\b|天气|下雨|下雪|气温",
    "writing": (r"\bpoems?\b|\bpoetry\b|\bhaiku\b|\bstory\b|\blore\b|\bdialogue\b|\bjokes?\b|\bessay\b|"
                r"\btranslat\w*\b|\brecipes?\b|\bemails?\b|写诗|一首诗|诗歌|故事|剧情|对话|翻译|笑话|菜谱|作文"),
    "other game systems": (r"\bsave\s*(?:game|file)s?\b|\bleaderboards?\b|\bachievements?\b|\bmultiplayer\b|"
                           r"\bnetwork\w*\b|\blogin\b|\bsubtitles?\b|\blocali[sz]ation\b|\bcontrollers?\b|"
                           r"\bkey\s*bindings?\b|\bvibration\b|存档|排行榜|成就|联机|登录|字幕|手柄|按键"),
}

# Fields outside the write scope: (regex, JSON path, what the field is)
WRITE_SCOPE: list[tuple[str, str, str]] = [
    (r"\bboss(?:'s)?\s+(?:max(?:imum)?\s+)?(?:health|hp|life|hit\s*points)\b|\b(?:health|hp)\s+of\s+the\s+boss\b|"
     r"\b(?:tankier|beefier)\s+boss\b|\bboss\s+(?:tankier|beefier|squishier|stronger|weaker)\b|boss\s*(?:的)?\s*(?:最大)?(?:血量|血|生命值|生命|hp)|首领(?:的)?(?:血量|生命值?)|"
     r"(?<!玩家)(?<!玩家的)(?<!自机)血量", "$.boss.max_health", "the boss's health"),
    (r"\bboss(?:'s)?\s+position\b|\bmove\s+the\s+boss\b|boss\s*(?:的)?\s*位置|首领(?:的)?位置",
     "$.boss.position", "the boss's position"),
    (r"\bplayer(?:'s)?\s+(?:move(?:ment)?\s+)?speed\b|\bspeed\s+of\s+the\s+player\b|\bmove(?:ment)?\s*speed\b|"
     r"\bplayer\s+(?:moves?\s+)?(?:faster|slower)\b|\bfocus\s+(?:speed|multiplier)\b|"
     r"玩家(?:的)?(?:移动)?速度|自机(?:的)?(?:移动)?速度|移动速度|移速|低速模式",
     "$.player.move_speed", "the player's movement speed"),
    (r"\bplayer(?:'s)?\s+(?:max(?:imum)?\s+)?(?:health|hp|lives)\b|\b(?:extra|more|fewer)\s+lives\b|"
     r"玩家(?:的)?(?:血量|生命值?|血)|残机|命数", "$.player.max_health", "the player's health"),
    (r"\bhit\s*box(?:es)?\b|\bhit\s+radius\b|\bgraz(?:e|ing)\b|判定点|判定范围|判定半径|判定|擦弹",
     "$.player.hit_radius", "the player's hitbox and graze radius"),
    (r"\binvulnerab\w*|\bi-?frames?\b|无敌时间|无敌", "$.player.invulnerability_seconds",
     "the player's invulnerability time"),
    (r"\bplayer\s+damage\b|\bshot\s+(?:power|damage)\b|\bauto[- ]?fire\b|\bdps\b|火力|玩家伤害|攻击力",
     "$.player.auto_fire_damage", "the player's shots"),
    (r"\barena\b|\bplay\s*field\b|\bplay\s+area\b|\bscreen\s+size\b|场地|版面大小|战斗区域",
     "$.scenario.arena_width", "the arena"),
    (r"\b(?:fight|battle|boss)\s+(?:duration|length|timer)\b|\bduration\b|\btime\s+limit\b|"
     r"\b(?:longer|shorter)\s+fight\b|战斗时长|战斗时间|时长|时间限制",
     "$.scenario.duration_seconds", "the fight's duration"),
    (r"\btriggers?\b|\bthresholds?\b|\bhp\s+percent\w*\b|\bphase\s+transitions?\b|\bswitch(?:es)?\s+(?:phases?\s+)?at\b|"
     r"阈值|触发|转阶段|切换阶段", "$.phases[*].trigger_boss_hp_below", "when a phase starts"),
    (r"\brename\b|\bphase\s+(?:title|name)s?\b|改名|重命名|标题", "$.phases[*].title", "the phase titles"),
    (r"\bsurviv\w*\s+(?:at\s+least\s+)?\d|生存\s*\d|坚持\s*\d", "$.targets.min_survival_seconds",
     "the survival target (not a constraint a request can state)"),
]

LIMIT_SUBJECTS: list[tuple[str, str]] = [
    (r"alive|bullet|projectile|on[- ]screen|存活|子弹|同屏|弹幕", "max_alive_bullets"),
    (r"hit|damage|受击|被弹|击中|中弹|命中", "max_player_hits"),
    (r"fps|frame|帧", "min_low_fps"),
]
LIMIT_CHANGE = (
    r"\b(?:remove|drop|lift|disable|ignore|raise|increase|loosen|relax|bump|double|triple|change|set|"
    r"get\s+rid\s+of|turn\s+off|kill|lower|reduce|decrease|up|override|bypass|break)\s+(?:up\s+)?"
    r"(?:the\s+|a\s+|any\s+|all\s+)?(?:[\w-]+\s+){0,3}?(?:limits?|caps?|ceilings?)\b"
    rf"(?:\s*(?:to|=|at|of)?\s*{NUM}(?:\s*(?:fps|hits?|bullets?))?)?"
    r"|\b(?:no|without|unlimited|uncapped|infinite)\s+(?:[\w-]+\s+){0,2}?(?:limits?|caps?)\b"
    r"|\bunlimited\s+(?:bullets|hits)\b|\buncap\w*\b"
    rf"|\b(?:[\w-]+\s+){{0,2}}limits?\s+(?:to|=)\s*{NUM}"
    r"|(?:取消|去掉|去除|移除|放宽|提高|提升|增加|调高|调低|降低|解除|无视|忽略|修改|改|放开|突破|打破)\s*(?:一下)?\s*"
    r"(?:[^\s,，。;；]{0,8}?)(?:上限|下限|硬限制|限制)"
    rf"(?:\s*(?:到|为|成|至)?\s*{NUM}\s*(?:fps|次|发|颗)?)?"
    r"|(?:存活子弹|同屏子弹|子弹|受击|被弹|fps|帧率|低帧)(?:数量|数|次数)?(?:的)?(?:上限|下限|限制)\s*"
    rf"(?:提高|提升|放宽|取消|改|调高|增加|设)(?:到|为|成|至)?\s*(?:{NUM})?\s*(?:fps|次|发|颗)?"
    r"|不限(?:制)?(?:子弹|受击|帧率)|无限(?:子弹|受击)")

ADD_PHASE = (r"\b(?:add|insert|create|append|introduce)\s+(?:a|an|one|another|the|\d+)?\s*(?:[\w-]+\s+)?"
             r"(?:new\s+|extra\s+|additional\s+|more\s+)?(?:phases?|stages?)\b(?!\s*\d)"
             r"|\b(?:more|fewer|extra|additional)\s+(?:phases|stages)\b"
             r"|\b(?:remove|delete|skip)\s+(?:the\s+)?(?:(?:first|second|third|fourth|fifth|sixth|last|final)\s+)?"
             r"(?:phase|stage)\b(?:\s*\d+)?"
             r"|(?:增加|添加|新增|加上|多加|再加)\s*(?:\d+\s*个|一个|个)?\s*(?:新的?)?\s*(?:阶段|形态)"
             r"|(?:删除|删掉|去掉|移除|砍掉|跳过|取消)\s*(?:第\s*\d+\s*)?(?:个)?(?:阶段|形态)")

CONSTRAINTS: list[tuple[str, str]] = [
    # alive bullets
    (rf"(?:never|not|no)\s+more\s+than\s+{_N}\s+(?:alive\s+|live\s+|active\s+)?(?:bullets?|projectiles?)"
     r"(?:\s+(?:alive|on[- ]screen|at\s+once|at\s+the\s+same\s+time|in\s+flight|active))?", "max_alive_bullets"),
    (rf"(?:at\s+most|up\s+to|max(?:imum)?(?:\s+of)?|under|below|fewer\s+than|less\s+than|cap(?:ped)?\s+at|"
     rf"limit(?:ed)?\s+to|<=|≤|<)\s*{_N}\s+(?:alive\s+|live\s+|active\s+|simultaneous\s+|on-screen\s+)?"
     r"(?:bullets?|projectiles?)(?!\s*(?:per|each|a|every|in\s+each|in\s+a)\s+wave)"
     r"(?:\s+(?:alive|on[- ]screen|at\s+once|at\s+the\s+same\s+time|in\s+flight|active))?", "max_alive_bullets"),
    (r"(?:peak\s+)?(?:alive|live|active|on-screen|simultaneous)\s+(?:bullets?\s+)?(?:count\s+)?"
     r"(?:must\s+|should\s+|can\s+|may\s+|to\s+)?(?:stay\s+|be\s+|remain\s+)?(?:not\s+|never\s+)?"
     r"(?:exceed|go\s+(?:above|over|past)|above|over|more\s+than|at\s+most|under|below|<=|≤|<|max(?:imum)?(?:\s+of)?)"
     rf"\s*{_N}", "max_alive_bullets"),
    (r"(?:keep|hold)\s+(?:the\s+)?(?:peak\s+)?(?:alive\s+|live\s+)?(?:bullets?|bullet\s+count)\s+(?:alive\s+)?"
     rf"(?:under|below|at\s+or\s+below|at\s+most|<=|≤|<)\s*{_N}", "max_alive_bullets"),
    (rf"\bbullets?\s+alive\s+(?:must\s+|should\s+)?(?:stay\s+|be\s+)?(?:under|below|at\s+most|<=|≤|<)\s*{_N}",
     "max_alive_bullets"),
    (rf"(?:峰值)?(?:存活|同屏|同时存在|场上|在场)(?:的)?子弹(?:数量?|数)?(?:峰值)?\s*(?:不能|不得|不可|不要|不应|别|不)?\s*"
     rf"(?:超过|超出|高于|大于|多于)\s*{_N}", "max_alive_bullets"),
    (rf"(?:峰值)?(?:存活|同屏)子弹(?:数量?|数)?\s*(?:最多|至多|上限为?|<=|≤|控制在|保持在)\s*{_N}", "max_alive_bullets"),
    (rf"(?:最多|至多|不超过)\s*{_N}\s*(?:颗|发|个)?(?:存活|同屏)?子弹", "max_alive_bullets"),
    (rf"子弹(?:数量?|数)?\s*(?:不能|不得|不要)?\s*(?:超过|最多)\s*{_N}(?!\s*(?:发|颗))", "max_alive_bullets"),
    # low fps
    (r"(?:keep|hold|maintain)\s+(?:the\s+)?(?:low(?:est)?\s+|1%\s+low\s+|minimum\s+|min\s+|p1\s+|percentile\s+)?"
     r"(?:fps|frame\s*rate)\s+(?:at\s+)?(?:or\s+)?(?:at\s+least|above|over|>=|≥|no\s+lower\s+than|not\s+below)?\s*"
     rf"{_N}(?:\s*fps)?(?:\s+or\s+(?:above|more|higher|better))?", "min_low_fps"),
    (r"(?:low(?:est)?\s+|minimum\s+|min\s+|1%\s+low\s+)?(?:fps|frame\s*rate)\s+(?:must\s+|should\s+|has\s+to\s+|needs?\s+to\s+)?"
     r"(?:stay\s+|be\s+|remain\s+)?(?:never\s+|not\s+)?(?:at\s+least|above|over|>=|≥|no\s+(?:lower|less)\s+than|"
     r"(?:drop|fall|go|dip)\s+(?:below|under)|below|under|lower\s+than)\s*" + _N, "min_low_fps"),
    (rf"(?:at\s+least|min(?:imum)?(?:\s+of)?|>=|≥)\s*{_N}\s*(?:fps|frames\s+per\s+second)", "min_low_fps"),
    (rf"{_N}\s*fps\s+(?:or\s+(?:above|more|higher|better)|minimum|min|at\s+least|floor)", "min_low_fps"),
    (rf"(?:fps|frame\s*rate)\s+floor\s+(?:of\s+)?{_N}", "min_low_fps"),
    (r"(?:低分位\s*)?(?:fps|帧率|低帧|帧数|1%\s*low)(?:的)?\s*(?:不能|不得|不可|不要|不应|别|不)?\s*"
     rf"(?:低于|小于|少于|跌破|掉到|掉破)\s*{_N}", "min_low_fps"),
    (rf"(?:低分位\s*)?(?:fps|帧率|低帧)\s*(?:至少|最低|>=|≥|保持在?)\s*{_N}(?:\s*(?:fps)?\s*(?:以上|及以上))?",
     "min_low_fps"),
    # player hits
    (rf"(?:at\s+most|no\s+more\s+than|never\s+more\s+than|not\s+more\s+than|max(?:imum)?(?:\s+of)?|up\s+to|<=|≤)\s*{_N}\s+"
     r"(?:player\s+)?hits?\b", "max_player_hits"),
    (rf"\b(?:get\s+|be\s+|gets\s+|take\s+)?hit\s+(?:at\s+most|no\s+more\s+than|max(?:imum)?)\s+{_N}\s+times?",
     "max_player_hits"),
    (r"(?:player\s+)?hits?\s+(?:must\s+|should\s+)?(?:stay\s+|be\s+)?(?:at\s+most|<=|≤|under|below|not\s+exceed|"
     rf"no\s+more\s+than|max(?:imum)?)\s*{_N}", "max_player_hits"),
    (rf"(?:take|taking|get|gets|getting)\s+(?:hit\s+)?(?:at\s+most|no\s+more\s+than|max)\s+{_N}\s+(?:times|hits)",
     "max_player_hits"),
    (rf"(?:最多|至多)\s*(?:被|受)?(?:击中|受击|被弹|中弹|被打中|被命中)\s*{_N}\s*次", "max_player_hits"),
    (rf"(?:受击|被击中|被弹|中弹|被命中|被打中)(?:次数)?\s*(?:不能|不得|不可|不要|不应|别|不)?\s*(?:超过|多于|大于|高于)\s*"
     rf"{_N}\s*次?", "max_player_hits"),
    (rf"(?:受击|被击中|被弹|中弹|被命中)(?:次数)?\s*(?:最多|至多|不超过|<=|≤)\s*{_N}\s*次?", "max_player_hits"),
]
ZERO_HITS = r"\b(?:no|zero)\s+hits\b|\bwithout\s+(?:getting\s+|being\s+)?hit\b|零受击|不能被?击中|不受击"
ALLOW_LOOSEN: list[tuple[str, str]] = [
    (rf"\b(?:allow|permit|let)\w*\s+(?:up\s+to\s+)?{_N}\s+(?:alive\s+)?bullets?(?:\s+alive)?", "max_alive_bullets"),
    (rf"\b(?:allow|permit|let)\w*\s+(?:the\s+player\s+)?(?:(?:to\s+)?take\s+)?(?:up\s+to\s+)?{_N}\s+hits?",
     "max_player_hits"),
    (rf"允许(?:最多)?\s*{_N}\s*(?:颗|发|个)?(?:存活)?子弹", "max_alive_bullets"),
    (rf"允许(?:被?击中|受击|中弹)\s*{_N}\s*次", "max_player_hits"),
]

NO_CHANGE = (r"\bno\s+changes?\b|\bdon'?t\s+change\s+anything\b|\bdo\s+not\s+change\s+anything\b|\bchange\s+nothing\b|"
             r"\bkeep\s+(?:everything|it|all|things|the\s+fight|the\s+config)\s+(?:as\s+(?:it\s+is|is)|the\s+same|unchanged)\b|"
             r"\bleave\s+(?:it|everything|things|the\s+fight)\s+(?:as\s+(?:it\s+is|is)|alone|unchanged)\b|"
             r"\bas\s+is\b|\bnothing\s+to\s+change\b|\bkeep\s+the\s+baseline\b|\bunchanged\b|\bleave\s+it\b|"
             r"保持不变|保持原样|维持原样|维持不变|不用改|不要改|不需要改|不需要修改|无需修改|别改|什么都不改|"
             r"不做修改|不做任何修改|照旧|不变")
PRESERVE_VISUAL = (r"\b(?:keep|preserve|retain)\s+(?:the\s+)?(?:same\s+)?(?:look|visuals?|visual\s+style|style|feel|"
                   r"aesthetics?)\b|\bsame\s+look\b|\bvisually\s+the\s+same\b|\bdon'?t\s+change\s+the\s+look\b|"
                   r"保持(?:原有的?)?(?:视觉风格|视觉|外观|风格|观感|样子|美术风格)|视觉风格不变|风格不变|外观不变")
BIDIR_OFF = (r"\b(?:one|single)[- ]direction(?:al)?\b|\bunidirectional\b|\bone-way\b|\bnot\s+bi-?directional\b|"
             r"\bno\s+longer\s+bi-?directional\b|\bremove\s+(?:the\s+)?bi-?directional(?:ity)?\b|"
             r"\bjust\s+one\s+direction\b|单向|单方向|取消双向|不要双向|去掉双向|一个方向")
BIDIR_ON = (r"\bbi-?directional\b|\bboth\s+directions\b|\btwo\s+directions\b|\btwo-way\b|\b2-way\b|"
            r"\bdual[- ]direction(?:al)?\b|\bcounter-rotating\b|\bmirrored\b|双向|两个方向|双方向|正反两个?方向|正反向|"
            r"反向对转|对称旋转")
BIDIR_SPIRAL = r"\b(?:double|twin)\s+spirals?\b|双螺旋"
DIRECTION_CCW = r"\bcounter-?clockwise\b|\banti-?clockwise\b|\bccw\b|\bpositive\s+rotation\b|逆时针"
DIRECTION_CW = r"\bclockwise\b|\bcw\b|\bnegative\s+rotation\b|顺时针"
REVERSE = (r"\breverse[ds]?\b(?!\s+(?:the\s+)?(?:change|last|previous|edit|that))|\bin\s+reverse\b|"
           r"\bopposite\s+(?:direction|way|rotation|spin)\b|\bthe\s+other\s+way\b|"
           r"\b(?:flip|invert)\s+(?:the\s+|its\s+)?(?:rotation|direction|spin)\b|"
           r"反向|反转|反过来转|倒转|方向相反|反方向|转向相反|翻转旋转")
ALL_PHASES = (r"\b(?:all|every|each)\s+(?:of\s+the\s+|the\s+)?(?:\d+\s+)?(?:phases?|stages?)\b|\bboth\s+phases\b|"
              r"\bthe\s+(?:whole|entire)\s+(?:fight|battle|boss(?:\s+fight)?)\b|\bacross\s+the\s+board\b|"
              r"\beverywhere\b|\ball\s+patterns\b|\bevery\s+pattern\b|"
              r"所有(?:的)?阶段|全部(?:的)?阶段|每个阶段|每一个?阶段|各个?阶段|全阶段|整场|全场|所有(?:的)?弹幕|"
              r"全部(?:的)?弹幕")

_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "1st": 1, "2nd": 2,
             "3rd": 3, "4th": 4, "5th": 5, "6th": 6, "opening": 1}
_ORD_WORD = r"first|second|third|fourth|fifth|sixth|1st|2nd|3rd|4th|5th|6th|last|final|opening"


# --------------------------------------------------------------------------------------------
# the parse state
# --------------------------------------------------------------------------------------------

@dataclass
class _Edit:
    field: str
    operation: str
    value: Fraction
    said: str


@dataclass
class _Clause:
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
    pattern_type: str | None = None
    bidirectional: bool | None = None
    reverse: bool = False
    direction: int = 0  # +1 counter-clockwise, -1 clockwise
    pressure: str = "keep"
    pressure_negated: bool = False
    edits: list[_Edit] = field(default_factory=list)
    constraints: dict[str, Fraction] = field(default_factory=dict)
    preserve_visual: bool = False
    no_change: bool = False
    blocks: list[BlockIssue] = field(default_factory=list)
    off_topic: list[str] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)
    understood: list[str] = field(default_factory=list)
    clauses: list[_Clause] = field(default_factory=list)
    bad_phase: bool = False

    @property
    def has_change(self) -> bool:
        return bool(self.pattern_type or self.bidirectional is not None or self.reverse or self.direction
                    or self.pressure != "keep" or self.edits or self.constraints)

    def note(self, text: str) -> None:
        if text not in self.understood:
            self.understood.append(text)

    def ask(self, question: str) -> None:
        if question not in self.questions and len(self.questions) < MAX_QUESTIONS:
            self.questions.append(question)


def _num(text: str) -> Fraction:
    return Fraction(text.replace("+", ""))


def _consume(text: str, m: re.Match[str]) -> str:
    return text[:m.start()] + " " * (m.end() - m.start()) + text[m.end():]


def _sub_all(pattern: str, text: str, handle: Callable[[re.Match[str]], Any]) -> str:
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
        text = _consume(text, m)
        pos = m.end()


@functools.lru_cache(maxsize=256)
def _field_keywords(segment: str) -> tuple[tuple[int, int, str], ...]:
    found = []
    for name, pattern in FIELD_WORDS.items():
        found.extend((m.start(), m.end(), name) for m in re.finditer(pattern, segment))
    return tuple(found)


def _nearest_field(segment: str, start: int, end: int) -> str | None:
    """The field whose keyword is closest to ``segment[start:end]`` (ties: before it, then by name)."""
    best: tuple[int, int, str] | None = None
    for k_start, k_end, name in _field_keywords(segment):
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


def _has(pattern: str, text: str) -> bool:
    return re.search(pattern, text) is not None


def _field_in(text: str) -> str | None:
    """The field whose keyword comes first in ``text`` (None if none does)."""
    best: tuple[int, str] | None = None
    for name, pattern in FIELD_WORDS.items():
        m = re.search(pattern, text)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), name)
    return best[1] if best else None


def _is_reference(before: str, after: str) -> bool:
    """'the spiral', 'the ring phase', '把螺旋', '螺旋阶段': the word names an existing phase, not a new type.

    "make it the spiral" / "into the ring" are not references: there the word is the type asked for.
    """
    definite = (re.search(r"\bthe\s+(?:[\w-]+\s+)?$", before) is not None
                and re.search(r"\b(?:into|to|as|make\s+it|becomes?)\s+the\s+(?:[\w-]+\s+)?$", before) is None)
    return (definite or re.search(r"把\s*(?:那个|这个)?\s*$", before) is not None
            or re.match(r"\s*(?:phase|stage)\b|\s*(?:的)?阶段", after) is not None)


def _phase_summary(baseline: BulletHellConfig) -> str:
    return ", ".join(f"{p.phase_id} ({p.pattern.type}, '{p.title}')" for p in baseline.phases)


# --------------------------------------------------------------------------------------------
# the reader
# --------------------------------------------------------------------------------------------

class RequestReader:
    """Reads one request against one baseline. Pure: no I/O, no clock, no randomness."""

    def __init__(self, baseline: BulletHellConfig) -> None:
        self.baseline = baseline
        self.count = len(baseline.phases)

    # -- public ------------------------------------------------------------------------------

    def read(self, request_text: str) -> Reading:
        reading = Reading(text=normalize(request_text))
        clauses = [c for c in _CLAUSE_SPLIT.split(reading.text) if c and c.strip()]
        for raw in clauses:
            clause = _Clause()
            self._read_clause(raw, reading, clause)
            reading.clauses.append(clause)
        self._resolve_phases(reading)
        return reading

    # -- one clause ---------------------------------------------------------------------------

    def _read_clause(self, text: str, r: Reading, clause: _Clause) -> None:
        text = self._blocks(text, r)
        text = self._phases(text, r, clause)
        text = self._constraints(text, r, clause)
        text = _sub_all(PRESERVE_VISUAL, text, lambda m: setattr(r, "preserve_visual", True))
        text = _sub_all(NO_CHANGE, text, lambda m: setattr(r, "no_change", True))
        text = self._bidirectional(text, r, clause)
        text = self._direction(text, r, clause)
        text = self._patterns(text, r, clause)
        text = self._numeric_edits(text, r, clause)
        text = self._qualitative_edits(text, r, clause)
        text = self._pressure(text, r, clause)
        for topic, pattern in OFF_TOPIC.items():
            if _has(pattern, text) and topic not in r.off_topic:
                r.off_topic.append(topic)
                text = re.sub(pattern, " ", text)
        for m in re.finditer(NUM, text):
            r.ask(f"What does '{m.group()}' refer to in \"{text.strip()}\"? Name the field, e.g. "
                  "'bullets per wave to 20', 'every 0.5 s', 'speed 4.5', 'lifetime 4 s', "
                  "'rotate 25 degrees per wave', '3 layers'.")

    # -- blocked asks ----------------------------------------------------------------------------

    def _blocks(self, text: str, r: Reading) -> str:
        def add_phase(m: re.Match[str]) -> None:
            r.blocks.append(BlockIssue(
                field="$.phases", asked=m.group().strip(),
                allowed=f"the baseline's {self.count} phases ({', '.join(p.phase_id for p in self.baseline.phases)}); "
                        "contract maximum 6",
                message="a change request edits the patterns of the existing phases; it never adds, "
                        "removes or reorders phases"))
        text = _sub_all(ADD_PHASE, text, add_phase)

        hint = ("To be stricter, state a constraint instead (e.g. 'never more than 300 bullets alive', "
                "'at most 2 hits', 'keep the low FPS at 60 or above').")

        def limit(m: re.Match[str]) -> None:
            said = m.group().strip()
            if re.search(r"(?:\bnot|n't|\bnever|\bwithout|不要|不能|别|不得)\s*$", text[:m.start()]):
                return  # "don't break the limit": a promise, not a request
            fields = [name for pattern, name in LIMIT_SUBJECTS if _has(pattern, said)]
            for name in fields:
                value = getattr(self.baseline.limits, name)
                r.blocks.append(BlockIssue(
                    field=f"$.limits.{name}", asked=said, allowed=f"unchanged ({fmt(value)}): limits are the baseline's",
                    message=f"limits.{name} is the platform's hard limit ({fmt(value)}); limits are owned by "
                            f"the baseline and never change. {hint}"))
            if not fields:
                r.blocks.append(BlockIssue(
                    field="$.limits", asked=said, allowed="unchanged: limits are the baseline's",
                    message=f"the hard limits are owned by the baseline and never change. {hint}"))
        text = _sub_all(LIMIT_CHANGE, text, limit)

        for pattern, path, what in WRITE_SCOPE:
            def scope(m: re.Match[str], path: str = path, what: str = what) -> None:
                r.blocks.append(BlockIssue(
                    field=path, asked=m.group().strip(), allowed="only phases[*].pattern.* and targets.* may change",
                    message=f"{what} is outside what a change request may edit: only the phases' patterns and "
                            "the targets (tightened by stated constraints) may change"))
            text = _sub_all(pattern, text, scope)

        def unknown(m: re.Match[str]) -> None:
            r.blocks.append(BlockIssue(
                field="$.phases[*].pattern.type", asked=m.group().strip(), allowed=", ".join(PATTERN_TYPES),
                message=f"'{m.group().strip()}' is not a pattern type the simulator and engines implement; "
                        f"the contract knows {', '.join(PATTERN_TYPES)}"))
        text = _sub_all(UNKNOWN_PATTERNS, text, unknown)

        def negative_speed(m: re.Match[str]) -> None:
            lo, hi = PATTERN_RANGES["bullet_speed"]
            r.blocks.append(BlockIssue(
                field="$.phases[*].pattern.bullet_speed", asked=m.group().strip(), allowed=f"{fmt(lo)}..{fmt(hi)}",
                message="bullet speed cannot be negative or zero; to turn a pattern the other way, ask to "
                        "reverse its rotation"))
        text = _sub_all(r"\bnegative\s+(?:bullet\s+)?speeds?\b|\bzero\s+speed\b|\bbackwards?\s+bullets\b|"
                        r"负(?:的)?速度|速度为负|速度(?:设为|为)?零", text, negative_speed)
        return text

    # -- phases ----------------------------------------------------------------------------------

    def _add_phase(self, n: int, r: Reading, clause: _Clause) -> None:
        if not 1 <= n <= self.count:
            r.bad_phase = True
            r.ask(f"The fight has {self.count} phases ({_phase_summary(self.baseline)}); there is no "
                  f"phase {n}. Which phase did you mean?")
            return
        if n not in r.phase_positions:
            r.phase_positions.append(n)
        if n not in clause.phases:
            clause.phases.append(n)

    def _phases(self, text: str, r: Reading, clause: _Clause) -> str:
        def all_phases(m: re.Match[str]) -> None:
            r.all_phases = True
            clause.phases.extend(n for n in range(1, self.count + 1) if n not in clause.phases)
        text = _sub_all(ALL_PHASES, text, all_phases)

        def counted(m: re.Match[str]) -> None:
            n = int(m.group(1))
            if n == self.count:
                all_phases(m)
            else:
                r.ask(f"You mention {n} phases, but the fight has {self.count} ({_phase_summary(self.baseline)}). "
                      "Which phases should change?")
        text = _sub_all(r"(?:这|全部|所有)?\s*(\d+)\s*个阶段(?:都|全部)?", text, counted)

        for phase in self.baseline.phases:  # ids and titles as written in the baseline
            for token in {phase.phase_id.lower(), phase.title.lower()}:
                if len(token) < 3 or token.isdigit():
                    continue  # an id like "a" or "1" would match ordinary words and numbers
                pattern = rf"(?<![\w]){re.escape(token)}(?![\w])"
                position = self.baseline.phases.index(phase) + 1
                text = _sub_all(pattern, text, lambda m, n=position: self._add_phase(n, r, clause))

        def listed(m: re.Match[str]) -> None:
            body = m.group(1)
            for a, b in re.findall(r"(\d+)\s*(?:-|to|through|~|到|至)\s*(\d+)", body):
                for n in range(int(a), int(b) + 1):
                    self._add_phase(n, r, clause)
            body = re.sub(r"(\d+)\s*(?:-|to|through|~|到|至)\s*(\d+)", " ", body)
            for n in re.findall(r"\d+", body):
                self._add_phase(int(n), r, clause)
        sep = r"\s*(?:,|and|&|or|/|、|和|与|及|跟|或)\s*(?:the\s+)?(?:phase\s*|stage\s*|p)?"
        rng = r"\s*(?:-|to|through|~)\s*"
        # a continuation is one digit not followed by a unit ("phase 2 to 20 bullets" is not a range)
        first = r"\d+(?![\d.%]|\s*%|\s*(?:x|times)\b)"
        more = rf"[1-9](?![\d.]|{_UNIT_AHEAD})"
        text = _sub_all(rf"\b(?:phases?|stages?)[ _-]?({first}(?:(?:{sep}|{rng}){more})*)(?![\w.])", text, listed)
        text = _sub_all(r"\bp(\d)\b", text, lambda m: self._add_phase(int(m.group(1)), r, clause))

        def ordinal(m: re.Match[str]) -> None:
            word = m.group(1)
            self._add_phase(self.count if word in ("last", "final") else _ORDINALS[word], r, clause)
        text = _sub_all(rf"\b({_ORD_WORD})\b(?:\s+(?:phase|stage)\b|(?=(?:\s*(?:,|and|&|or)\s*(?:the\s+)?(?:{_ORD_WORD}))*"
                        rf"\s+(?:phase|stage)s?\b))", text, ordinal)

        def zh_listed(m: re.Match[str]) -> None:
            for n in re.findall(r"\d+", m.group(0)):
                self._add_phase(int(n), r, clause)
        text = _sub_all(r"(?:第\s*\d+\s*(?:[、,和与及跟或]\s*)?)+\s*个?\s*(?:阶段|形态)", text, zh_listed)
        text = _sub_all(r"(?<![\d第])(\d)\s*阶段|阶段\s*(\d)", text,
                        lambda m: self._add_phase(int(m.group(1) or m.group(2)), r, clause))
        text = _sub_all(r"最后(?:一个)?(?:阶段|形态)|最终阶段|末阶段|最终形态|尾段", text,
                        lambda m: self._add_phase(self.count, r, clause))
        text = _sub_all(r"首个阶段|开场阶段|第一个阶段", text, lambda m: self._add_phase(1, r, clause))
        text = re.sub(r"\b(?:phases?|stages?)\b", " ", text) if clause.phases else text
        return text

    def _resolve_phases(self, r: Reading) -> None:
        ids = [p.phase_id for p in self.baseline.phases]
        if r.all_phases:
            r.phase_ids = list(ids)
        elif r.phase_positions:
            r.phase_ids = [ids[n - 1] for n in sorted(r.phase_positions)]
        elif r.referenced_by_pattern:
            r.phase_ids = [pid for pid in ids if pid in r.referenced_by_pattern]
        elif self.count == 1:
            r.phase_ids = list(ids)
        # two clauses that each name different phases and each ask for a change cannot share one goal
        named = [c for c in r.clauses if c.phases and c.signals]
        if len({tuple(sorted(c.phases)) for c in named}) > 1 and len({tuple(c.signals) for c in named}) > 1:
            r.ask("The request asks for different changes in different phases; GCV verifies one change at a "
                  "time. Submit each phase's change as its own request (e.g. first 'make phase 2 denser').")

    # -- constraints -------------------------------------------------------------------------------

    def _constraints(self, text: str, r: Reading, clause: _Clause) -> str:
        labels = {"max_alive_bullets": "max alive bullets", "min_low_fps": "min low FPS",
                  "max_player_hits": "max player hits"}

        def record(name: str, value: Fraction, said: str) -> None:
            if name in r.constraints and r.constraints[name] != value:
                r.ask(f"The request states two values for {labels[name]} ({fmt(r.constraints[name])} and "
                      f"{fmt(value)}); which one applies?")
                return
            r.constraints[name] = value
            clause.signals.append(f"constraint:{name}")
            r.note(f"constraint: {labels[name]} {fmt(value)} ('{said.strip()}')")

        for pattern, name in ALLOW_LOOSEN:
            def allow(m: re.Match[str], name: str = name) -> None:
                value = _num(m.group(1))
                limit = Fraction(str(getattr(self.baseline.limits, name)))
                if value > limit:
                    r.blocks.append(BlockIssue(
                        field=f"$.limits.{name}", asked=fmt(value), allowed=f"<= {fmt(limit)} (the baseline's hard limit)",
                        message=f"allowing {fmt(value)} would loosen the hard limit {name} = {fmt(limit)}; limits are "
                                "owned by the baseline and never change"))
                else:
                    record(name, value, m.group())
            text = _sub_all(pattern, text, allow)
        for pattern, name in CONSTRAINTS:
            text = _sub_all(pattern, text, lambda m, name=name: record(name, _num(m.group(1)), m.group()))
        text = _sub_all(ZERO_HITS, text, lambda m: record("max_player_hits", Fraction(0), m.group()))
        return text

    # -- pattern shape -------------------------------------------------------------------------------

    def _bidirectional(self, text: str, r: Reading, clause: _Clause) -> str:
        def set_bidir(value: bool, said: str) -> None:
            if r.bidirectional is not None and r.bidirectional != value:
                r.ask("The request asks for both a bidirectional and a one-directional pattern; which one?")
            r.bidirectional = value
            clause.signals.append(f"bidirectional:{value}")
            r.note(f"bidirectional: {str(value).lower()} ('{said.strip()}')")
        text = _sub_all(BIDIR_OFF, text, lambda m: set_bidir(False, m.group()))
        text = re.sub(BIDIR_SPIRAL, lambda m: (set_bidir(True, m.group()), " spiral ")[1], text)
        text = _sub_all(BIDIR_ON, text, lambda m: set_bidir(True, m.group()))
        return text

    def _direction(self, text: str, r: Reading, clause: _Clause) -> str:
        def turn(sign: int, said: str) -> None:
            if r.direction and r.direction != sign:
                r.ask("The request asks for both clockwise and counter-clockwise rotation; which one?")
            r.direction = sign
            clause.signals.append(f"direction:{sign}")
            r.note(f"rotation: {'counter-clockwise' if sign > 0 else 'clockwise'} ('{said.strip()}')")
        text = _sub_all(DIRECTION_CCW, text, lambda m: turn(+1, m.group()))
        text = _sub_all(DIRECTION_CW, text, lambda m: turn(-1, m.group()))

        def rev(m: re.Match[str]) -> None:
            r.reverse = True
            clause.signals.append("reverse")
            r.note(f"reverse the rotation ('{m.group().strip()}')")
        return _sub_all(REVERSE, text, rev)

    def _patterns(self, text: str, r: Reading, clause: _Clause) -> str:
        found: list[tuple[int, int, str]] = []
        for name, pattern in PATTERN_WORDS.items():
            for m in re.finditer(pattern, text):
                found.append((m.start(), m.end(), name))
        found.sort()
        # drop overlaps (first one wins)
        kept: list[tuple[int, int, str]] = []
        for item in found:
            if not kept or item[0] >= kept[-1][1]:
                kept.append(item)
        if not kept:
            return text
        names = []
        for _, _, name in kept:
            if name not in names:
                names.append(name)
        target: str | None
        source: str | None = None
        if len(names) == 1:
            target = names[0]
            referring = _is_reference(text[:kept[0][0]], text[kept[0][1]:])
            if referring and not clause.phases and not r.phase_positions and not r.all_phases:
                same = [p.phase_id for p in self.baseline.phases if p.pattern.type == target]
                if len(same) == 1:
                    r.referenced_by_pattern.append(same[0])
                    r.note(f"'{text[kept[0][0]:kept[0][1]]}' refers to {same[0]} (the baseline's only {target})")
                    for s, e, _ in reversed(kept):
                        text = text[:s] + " " * (e - s) + text[e:]
                    return text
        elif len(names) == 2:
            first_end = next(e for s, e, n in kept if n == names[0])
            second_start = next(s for s, e, n in kept if n == names[1])
            between = text[first_end:second_start]
            first_start = next(s for s, e, n in kept if n == names[0])
            if _has(r"\binto\b|\bto\b|->|\bwith\b|\binstead\b|成|为|换|变", between) or (
                    _is_reference(text[:first_start], "") and re.search(r"\b(?:a|an)\s+(?:[\w-]+\s+)?$", between)):
                source, target = names
                same = [p.phase_id for p in self.baseline.phases if p.pattern.type == source]
                if not clause.phases and not r.phase_positions and not r.all_phases and len(same) == 1:
                    r.referenced_by_pattern.append(same[0])
                    r.note(f"the {source} is {same[0]}")
            else:
                r.ask(f"The request names two patterns ({names[0]} and {names[1]}); which one should the phase "
                      "become?")
                target = None
        else:
            r.ask(f"The request names several patterns ({', '.join(names)}); which one should the phase become?")
            target = None
        if target is not None:
            if r.pattern_type is not None and r.pattern_type != target:
                r.ask(f"The request names two target patterns ({r.pattern_type} and {target}); which one?")
            r.pattern_type = target
            clause.signals.append(f"pattern:{target}")
            r.note(f"pattern: {target}" + (f" (from {source})" if source else ""))
        for s, e, _ in reversed(kept):
            text = text[:s] + " " * (e - s) + text[e:]
        return text

    # -- numeric edits ---------------------------------------------------------------------------------

    def _edit(self, r: Reading, clause: _Clause, name: str, op: str, value: Fraction, said: str) -> None:
        said = " ".join(said.split())
        r.edits.append(_Edit(name, op, value, said))
        clause.signals.append(f"edit:{name}:{op}:{value}")
        words = {"set": "set to", "scale": "x", "add": "+"}
        r.note(f"edit: {name} {words[op]} {fmt(value)} ('{said.strip()}')")

    def _time_field(self, segment: str) -> str | None:
        """For a number in seconds: the interval, the lifetime, or (None) unclear."""
        lifetime = _has(LIFETIME_CONTEXT, segment)
        interval = _has(INTERVAL_CONTEXT, segment)
        if lifetime and not interval:
            return "bullet_lifetime_seconds"
        if interval and not lifetime:
            return "wave_interval_ms"
        return None

    def _numeric_edits(self, text: str, r: Reading, clause: _Clause) -> str:
        out = []
        for segment in _SEGMENT_SPLIT.split(text):
            out.append(self._numeric_segment(segment, r, clause))
        return " ; ".join(out)

    def _numeric_segment(self, seg: str, r: Reading, clause: _Clause) -> str:
        rate_said = _has(RATE_WORDS, seg)

        def resolve(m: re.Match[str], default: str | None = None) -> str | None:
            name = _nearest_field(seg, m.start(), m.end())
            return name or default

        # multipliers without a number: halve, double, triple, 减半, 翻倍
        def multiplier(m: re.Match[str]) -> None:
            word = m.group()
            factor = (Fraction(1, 2) if _has(r"half|halve|一半|减半|砍半", word)
                      else Fraction(3) if _has(r"triple|三倍", word) else Fraction(2))
            name = resolve(m)
            if name is None and _has(r"\bfast\b|快", seg):
                name = "bullet_speed"
            if name is None and _has(r"\bmany\b|\bmuch\b", seg):
                name = "bullets_per_wave"
            if name is None:
                r.ask(f"'{word.strip()}' what? Name the field, e.g. 'double the bullets per wave' or "
                      "'halve the wave interval'.")
                return
            if name == "wave_interval_ms" and _has(r"rate|射速|频率|often|frequen", seg):
                factor = 1 / factor  # double the fire rate = halve the interval
                if factor not in (Fraction(1, 2), Fraction(2)):
                    r.ask("Say the wave interval instead of a fire-rate multiple (e.g. 'every 0.4 s').")
                    return
            self._edit(r, clause, name, "scale", factor, word)
        seg = _sub_all(r"\bhalve[ds]?\b|\bhalf\s+as\s+(?:many|much|fast)\b|\bin\s+half\b|\bhalf\b|"
                       r"\bdouble[ds]?\b|\btwice\b|\btriple[ds]?\b|减少一半|减半|砍半|砍一半|一半|翻倍|加倍|"
                       r"翻1倍|翻番|双倍|三倍(?!以)", seg, multiplier)

        # N times / xN / N倍
        def times(m: re.Match[str]) -> None:
            value = _num(next(g for g in m.groups() if g))
            name = resolve(m)
            if name is None and _has(r"\bfast\w*|快", seg):
                name = "bullet_speed"
            if name is None:
                r.ask(f"'{m.group().strip()}' of what? Name the field (bullets per wave, interval, speed, ...).")
                return
            if name == "wave_interval_ms" and _has(r"rate|射速|频率|often|frequen", seg):
                inv = 1 / value
                if inv * 10 ** 6 != int(inv * 10 ** 6):
                    r.ask("Say the wave interval instead of a fire-rate multiple (e.g. 'every 0.4 s').")
                    return
                value = inv
            self._edit(r, clause, name, "scale", value, m.group())
        seg = _sub_all(rf"{_N}\s*(?:x|times)\b(?:\s+as\s+(?:many|much|fast))?|\bx\s*{_N}\b|{_N}\s*倍",
                       seg, times)

        # percentages
        def percent(m: re.Match[str]) -> None:
            p = _num(m.group(1)) / 100
            window = seg[max(0, m.start() - 24): m.end() + 24]
            up, down = _has(UP_WORDS, window), _has(DOWN_WORDS, window)
            if up == down:
                r.ask(f"'{m.group().strip()}' more or less? Say e.g. '20% slower' or 'bullets per wave +20%'.")
                return
            sign = 1 if up else -1
            name = resolve(m)
            if name == "bullets_per_wave" and _has(r"\bfast\w*|\bslow\w*|快|慢", window):
                name = None  # "bullets 20% faster" is about speed
            if name is None and _has(r"\bfast\w*|\bslow\w*|快|慢", window):
                name = "wave_interval_ms" if rate_said else "bullet_speed"
                if name == "wave_interval_ms":
                    sign = -sign  # fire faster = shorter interval
            if name is None and _has(r"\bdenser\b|\bsparser\b|密|稀", window):
                name = "bullets_per_wave"
            if name is None:
                r.ask(f"'{m.group().strip()}' of what? Name the field (bullets per wave, interval, speed, "
                      "lifetime, rotation, spread, layers).")
                return
            if name == "wave_interval_ms" and _has(r"rate|射速|频率|often|frequen", window) and \
                    not _has(r"\bfast\w*|\bslow\w*|快|慢", window):
                sign = -sign  # a higher fire rate = a shorter interval
            factor = 1 + sign * p
            if factor <= 0:
                r.blocks.append(BlockIssue(
                    field=f"$.phases[*].pattern.{name}", asked=m.group().strip(),
                    allowed=f"{fmt(PATTERN_RANGES[name][0])}..{fmt(PATTERN_RANGES[name][1])}",
                    message=f"reducing {name} by {fmt(p * 100)}% leaves nothing (or less than nothing)"))
                return
            self._edit(r, clause, name, "scale", factor, m.group())
        adjectives = (r"faster|slower|quicker|more|fewer|less|longer|shorter|higher|lower|denser|sparser|bigger|"
                      r"smaller|wider|narrower")
        verbs = r"提高|增加|加快|提升|增大|延长|加大|降低|减少|减慢|缩短|减小|下调"
        seg = _sub_all(rf"(?:(?:{verbs})\s*了?\s*)?(?:by\s+)?{_N}\s*%(?:\s*(?:{adjectives})\b)?", seg, percent)

        # add / subtract a count
        def add(m: re.Match[str]) -> None:
            groups = m.groupdict()
            value = _num(groups["n"])
            sign = -1 if _has(DOWN_WORDS + r"|\bremove\b|\bsubtract\b|\bminus\b|\btake\s+away\b|去掉", m.group()) else 1
            unit = groups.get("unit") or groups.get("what") or ""
            name = self._unit_field(unit, seg, r) or _field_in(m.group()) or resolve(m)
            if name is None:
                r.ask(f"'{m.group().strip()}' of what? Name the field.")
                return
            if name == "wave_interval_ms" and _has(r"^(?:s|secs?|seconds?|秒)$", unit.strip()):
                value *= 1000
            self._edit(r, clause, name, "add", sign * value, m.group())
        units = (r"bullets?|shots?|projectiles?|layers?|degrees?|deg|°|ms|milliseconds?|seconds?|secs?|s\b|"
                 r"毫秒|秒|发|颗|枚|层|度")
        seg = _sub_all(rf"(?P<n>{NUM})\s*(?P<unit>{units})?\s*(?:more|fewer|less|extra|additional)\b"
                       rf"(?:\s+(?P<what>bullets?|layers?|degrees?))?", seg, add)
        seg = _sub_all(rf"\b(?:add|plus|remove|subtract|minus|take\s+away)\s+(?:an?\s+)?(?:extra\s+)?(?P<n>{NUM})\s*"
                       rf"(?P<unit>{units})", seg, add)
        seg = _sub_all(rf"\b(?:increase|raise|boost|up|lengthen|extend|decrease|reduce|lower|cut|shorten|drop)\w*\s+"
                       rf"(?:the\s+)?(?:[\w-]+\s+){{0,3}}?by\s+(?P<n>{NUM})\s*(?P<unit>{units})?", seg, add)
        seg = _sub_all(rf"(?:增加|多加|多|加上|加|提高|增多|减少|少|减去|减|降低|去掉)\s*了?\s*(?P<n>{NUM})\s*"
                       rf"(?P<unit>毫秒|秒|发|颗|枚|层|度)?", seg, add)

        # set: everything else with a number
        def set_value(m: re.Match[str]) -> None:
            value = _num(m.group("n"))
            unit = (m.group("unit") or "").strip()
            name = self._unit_field(unit, seg, r)
            said = m.group()
            if name is None and unit and _has(r"^(?:s|secs?|seconds?|秒钟?)$", unit):
                name = self._time_field(seg)
                if name is None:
                    r.ask(f"Is '{said.strip()}' the wave interval (e.g. 'every {fmt(value)} s') or the bullet "
                          f"lifetime (e.g. 'lifetime {fmt(value)} s')?")
                    return
            if name is None and unit and _has(r"^(?:degrees?|deg|°|度)$", unit):
                if _has(FIELD_WORDS["rotation_per_wave_deg"], seg):
                    name = "rotation_per_wave_deg"
                elif _has(FIELD_WORDS["spread_angle_deg"] + r"|\bfan\b|扇", seg) or r.pattern_type == "aimed_fan":
                    name = "spread_angle_deg"
                else:
                    r.ask(f"Is '{said.strip()}' the rotation per wave or the spread angle?")
                    return
            if name is None:
                name = resolve(m)
            if name is None:
                r.ask(f"What does '{said.strip()}' refer to? Name the field, e.g. 'bullets per wave to 20', "
                      "'every 0.5 s', 'speed 4.5', 'lifetime 4 s', 'rotate 25 degrees per wave', '3 layers'.")
                return
            if name == "wave_interval_ms":
                if unit and _has(r"^(?:s|secs?|seconds?|秒钟?)$", unit):
                    value *= 1000
                elif not unit and value < PATTERN_RANGES["wave_interval_ms"][0]:
                    r.ask(f"Is the interval '{fmt(value)}' in seconds or milliseconds? Say e.g. "
                          f"'every {fmt(value)} s' or '{fmt(value)} ms'.")
                    return
            self._edit(r, clause, name, "set", value, said)
        units_set = (r"bullets?|shots?|projectiles?|rounds?|layers?|degrees?|deg|°|ms|msec|millis(?:econds?)?|"
                     r"milliseconds?|seconds?|secs?|s(?![a-z])|units?\s*/\s*s|units?\s+per\s+second|u/s|"
                     r"毫秒|秒钟?|发|颗|枚|层|度")
        seg = _sub_all(rf"(?P<n>{NUM})\s*(?P<unit>{units_set})?", seg, set_value)
        return seg

    def _unit_field(self, unit: str, seg: str, r: Reading) -> str | None:
        unit = unit.strip()
        if not unit:
            return None
        if re.fullmatch(r"bullets?|shots?|projectiles?|rounds?|发|颗|枚", unit):
            return "bullets_per_wave"
        if re.fullmatch(r"layers?|层", unit):
            return "layer_count"
        if re.fullmatch(r"ms|msec|millis(?:econds?)?|milliseconds?|毫秒", unit):
            return "wave_interval_ms"
        if re.fullmatch(r"units?\s*/\s*s|units?\s+per\s+second|u/s", unit):
            return "bullet_speed"
        if re.fullmatch(r"s|secs?|seconds?|秒钟?", unit):
            return None if not _has(FIELD_WORDS["bullet_lifetime_seconds"], seg) and not _has(
                INTERVAL_CONTEXT, seg) else self._time_field(seg)
        if re.fullmatch(r"degrees?|deg|°|度", unit):
            if _has(FIELD_WORDS["rotation_per_wave_deg"], seg):
                return "rotation_per_wave_deg"
            if _has(FIELD_WORDS["spread_angle_deg"] + r"|\bfan\b|扇", seg) or r.pattern_type == "aimed_fan":
                # an aimed fan does not rotate per wave: its degrees are its spread
                return "spread_angle_deg"
        return None

    # -- qualitative edits --------------------------------------------------------------------------------

    def _qualitative_edits(self, text: str, r: Reading, clause: _Clause) -> str:
        table: list[tuple[str, str, str, Fraction]] = [
            (r"\b(?:rotate|spin|turn)\w*\s+faster\b|\bfaster\s+(?:rotation|spin)\b|转得?更快|旋转更快|转速(?:更快|提高|加快)",
             "rotation_per_wave_deg", "scale", QUALITATIVE_UP),
            (r"\b(?:rotate|spin|turn)\w*\s+slower\b|\bslower\s+(?:rotation|spin)\b|转得?更慢|旋转更慢|转速(?:更慢|降低|减慢)",
             "rotation_per_wave_deg", "scale", QUALITATIVE_DOWN),
            (r"\b(?:fire|shoot)\w*\s+(?:faster|more\s+often|more\s+frequently)\b|\bmore\s+frequent\w*\b|"
             r"\bshorter\s+(?:wave\s+)?intervals?\b|射速更快|射速加快|发射更频繁|更频繁|间隔更短|缩短间隔",
             "wave_interval_ms", "scale", FIRE_RATE_UP),
            (r"\b(?:fire|shoot)\w*\s+(?:slower|less\s+often|less\s+frequently)\b|\bless\s+frequent\w*\b|"
             r"\blonger\s+(?:wave\s+)?intervals?\b|射速更慢|射速减慢|发射更慢|间隔更长|延长间隔",
             "wave_interval_ms", "scale", FIRE_RATE_DOWN),
            (r"\bmore\s+layers\b|\badd\s+(?:a|one|another)\s+layer\b|\bextra\s+layer\b|多一层|增加一层|加一层",
             "layer_count", "add", Fraction(1)),
            (r"\bfewer\s+layers\b|\bless\s+layers\b|\bremove\s+(?:a|one)\s+layer\b|少一层|减少一层|减一层",
             "layer_count", "add", Fraction(-1)),
            (r"\blonger[- ]lived\b|\blive\s+longer\b|\blast\s+longer\b|\blonger\s+lifetime\b|存在更久|寿命更长|延长寿命",
             "bullet_lifetime_seconds", "scale", QUALITATIVE_UP),
            (r"\bshorter[- ]lived\b|\bshorter\s+lifetime\b|\bdisappear\s+sooner\b|寿命更短|缩短寿命|消失更快",
             "bullet_lifetime_seconds", "scale", QUALITATIVE_DOWN),
            (r"\bwider\s+(?:spread|fan|arc|cone)\b|\bspread\s+(?:it\s+)?wider\b|扩散更大|角度更大|更宽",
             "spread_angle_deg", "scale", QUALITATIVE_UP),
            (r"\bnarrower\s+(?:spread|fan|arc|cone)\b|\bnarrower\b|角度更小|更窄",
             "spread_angle_deg", "scale", QUALITATIVE_DOWN),
            (r"\bfaster\s+bullets\b|\bbullets?\s+(?:move\s+|fly\s+|travel\s+)?faster\b|\bspeed\s+(?:it\s+|them\s+)?up\b|"
             r"\b(?:increase|raise|boost)\s+(?:the\s+)?(?:bullet\s+)?speed\b|\bfaster\b|\bquicker\b|"
             r"子弹更快|弹速更快|弹速加快|速度更快|加快速度|提高速度|加快子弹速度|提高子弹速度|快一?[点些]|更快",
             "bullet_speed", "scale", QUALITATIVE_UP),
            (r"\bslower\s+bullets\b|\bbullets?\s+(?:move\s+|fly\s+|travel\s+)?slower\b|\bslow\s+(?:it\s+|them\s+|the\s+bullets\s+)?down\b|"
             r"\b(?:decrease|reduce|lower)\s+(?:the\s+)?(?:bullet\s+)?speed\b|\bslower\b|"
             r"子弹更慢|弹速更慢|弹速减慢|速度更慢|减慢速度|降低速度|降低子弹速度|减慢子弹速度|放慢|慢一?[点些]|更慢",
             "bullet_speed", "scale", QUALITATIVE_DOWN),
        ]
        for pattern, name, op, value in table:
            text = _sub_all(pattern, text, lambda m, n=name, o=op, v=value: self._edit(r, clause, n, o, v, m.group()))
        return text

    def _pressure(self, text: str, r: Reading, clause: _Clause) -> str:
        def negated(m: re.Match[str]) -> None:
            r.pressure_negated = True
            r.note(f"keep the pressure ('{m.group().strip()}')")

        def press(kind: str, m: re.Match[str]) -> None:
            if r.pressure != "keep" and r.pressure != kind:
                r.ask("The request asks for both more and less pressure; which one?")
            r.pressure = kind
            clause.signals.append(f"pressure:{kind}")
            r.note(f"pressure: {kind} ('{m.group().strip()}')")
        text = _sub_all(PRESSURE_NEGATED, text, negated)
        text = _sub_all(PRESSURE_DOWN, text, lambda m: press("decrease", m))
        text = _sub_all(PRESSURE_UP, text, lambda m: press("increase", m))
        return text


# --------------------------------------------------------------------------------------------
# reading -> decision
# --------------------------------------------------------------------------------------------

def _vague_questions(baseline: BulletHellConfig, phase_known: bool) -> list[str]:
    questions = []
    if not phase_known and len(baseline.phases) > 1:
        questions.append(f"Which phase should change? The fight has {_phase_summary(baseline)}; or say 'all phases'.")
    questions.append("What should change: more pressure (denser, harder) or less (sparser, easier)? A different "
                     "pattern (ring, spiral, aimed fan, petal, scatter)? Bidirectional or reversed rotation? "
                     "Or an explicit value such as 'bullets per wave to 20' or 'every 0.5 s'?")
    return questions


def decide(request_text: str, baseline: BulletHellConfig) -> RequirementDecision:
    """The offline provider's whole answer for one request (pure)."""
    if len(request_text) > MAX_REQUEST_CHARS:
        return RequirementDecision(
            decision="needs_clarification",
            questions=[f"The request is {len(request_text)} characters long; GCV reads at most "
                       f"{MAX_REQUEST_CHARS}. Please state the change in a few sentences."],
            rationale="request too long")
    if not request_text.strip():
        return RequirementDecision(decision="needs_clarification",
                                   questions=_vague_questions(baseline, False),
                                   rationale="the request is empty")
    reader = RequestReader(baseline)
    r = reader.read(request_text)
    understood = "; ".join(r.understood)
    # a value no phase could take is refused whatever phase was meant
    for e in r.edits:
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
                      + (f" (understood: {understood})" if understood else ""))
    if r.off_topic and not r.has_change:
        return RequirementDecision(
            decision="out_of_scope",
            rationale=f"the request is about {', '.join(r.off_topic)}, which GCV does not change; GCV verifies "
                      "changes to the boss fight's bullet patterns and their targets")
    if r.off_topic:
        r.ask(f"The request also asks about {', '.join(r.off_topic)}, which GCV does not change. Should GCV verify "
              "only the pattern change? If so, submit it without that part (nothing is dropped silently).")
    if not r.has_change:
        if r.no_change or r.pressure_negated or r.preserve_visual:
            return RequirementDecision(decision="no_change",
                                       rationale="the request asks to keep the fight as it is")
        phase_known = bool(r.phase_positions or r.all_phases or r.referenced_by_pattern)
        questions = list(r.questions)
        if questions and not phase_known and len(baseline.phases) > 1:
            questions.append(_vague_questions(baseline, False)[0])
        return RequirementDecision(decision="needs_clarification",
                                   questions=questions or _vague_questions(baseline, phase_known),
                                   rationale="the request does not say what should change")
    if r.pressure_negated and r.pressure != "keep":
        r.ask("The request asks for more or less pressure but also says 'not denser/harder'; the default pressure "
              "step changes bullets per wave and the wave interval. Say how instead (e.g. 'faster bullets', "
              "'3 layers').")
    if not r.phase_ids:
        if r.bad_phase:
            pass  # already asked which phase was meant
        elif r.edits or r.pattern_type or r.bidirectional is not None or r.reverse or r.direction or r.pressure != "keep":
            r.ask(f"Which phase should change? The fight has {_phase_summary(baseline)}; or say 'all phases'.")
        else:  # constraints only: they are fight-wide
            r.phase_ids = [p.phase_id for p in baseline.phases]
    # rotation direction words, against the baseline of each target phase
    reverse = r.reverse
    edits = list(r.edits)
    notes: list[str] = []
    if r.direction:  # "rotate 25 degrees per wave clockwise": the sign comes from the direction word
        edits = [_Edit(e.field, e.operation, r.direction * abs(e.value), e.said)
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
                edits.append(_Edit("rotation_per_wave_deg", "set", Fraction(want * DEFAULT_ROTATION_DEG), word))
                notes.append(f"the phase does not rotate yet: {word} means {fmt(want * DEFAULT_ROTATION_DEG)} "
                             "degrees per wave (the default rotation)")
            else:
                r.ask(f"The target phases turn in different directions now; which should turn {word}? "
                      "Name one phase.")
    if reverse and r.phase_ids and not r.direction:
        still = [pid for pid in r.phase_ids if baseline.phase(pid).pattern.rotation_per_wave_deg == 0]  # type: ignore[union-attr]
        if still and not (r.pattern_type in ("spiral", "petal")):
            r.ask(f"{', '.join(still)} does not rotate, so there is nothing to reverse. Should it become a "
                  "rotating pattern (e.g. 'make it a clockwise spiral')?")
    rotating = ("spiral", "petal")
    if any(e.field == "rotation_per_wave_deg" for e in edits) and r.phase_ids and not (
            r.pattern_type in rotating or r.bidirectional):
        flat = [pid for pid in r.phase_ids if baseline.phase(pid).pattern.type not in rotating]  # type: ignore[union-attr]
        if flat:
            kinds = ", ".join(f"{pid} is a {baseline.phase(pid).pattern.type}" for pid in flat)  # type: ignore[union-attr]
            r.ask(f"{kinds}, which does not rotate per wave, so a rotation would change nothing. Should it "
                  "become a spiral or petal (e.g. 'make it a spiral rotating 25 degrees per wave')?")
    fields_set: dict[str, Fraction] = {}
    for e in edits:
        if e.operation == "set":
            if e.field in fields_set and fields_set[e.field] != e.value:
                r.ask(f"The request sets {e.field} to both {fmt(fields_set[e.field])} and {fmt(e.value)}; which one?")
            fields_set[e.field] = e.value
    if r.questions:
        return RequirementDecision(decision="needs_clarification", questions=r.questions,
                                   rationale="the request cannot be mapped without guessing"
                                             + (f" (understood so far: {understood})" if understood else ""))
    try:
        goal = Goal(
            target_phase_ids=r.phase_ids,
            pattern_type=r.pattern_type,  # type: ignore[arg-type]
            bidirectional=r.bidirectional,
            reverse_rotation=reverse,
            pressure=r.pressure,  # type: ignore[arg-type]
            edits=[ParameterEdit(field=e.field, operation=e.operation, value=_goal_number(e.value))  # type: ignore[arg-type]
                   for e in edits],
            constraints=DesignerConstraints(**{k: (int(v) if k != "min_low_fps" else _goal_number(v))
                                               for k, v in r.constraints.items()}),
            preserve_visual_style=r.preserve_visual,
            source_text=request_text,
        )
    except (ValidationError, ValueError) as exc:
        return RequirementDecision(decision="blocked", issues=_goal_issues(exc, r),
                                   rationale="the request cannot be written as a valid goal")
    try:
        applied = apply_goal_with_notes(baseline, goal)
    except GoalRangeError as exc:
        return RequirementDecision(decision="blocked", goal=goal, issues=exc.issues,
                                   rationale=f"understood: {understood}; but a value leaves the contract range")
    rationale = "understood: " + understood
    all_notes = notes + applied.notes
    if all_notes:
        rationale += ". Notes: " + "; ".join(all_notes)
    if applied.candidate == baseline:
        return RequirementDecision(decision="no_change", goal=goal,
                                   rationale=rationale + ". The baseline already is what the request asks for.")
    return RequirementDecision(decision="accepted", goal=goal, candidate=applied.candidate, rationale=rationale)


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


# --------------------------------------------------------------------------------------------
# the provider
# --------------------------------------------------------------------------------------------

class OfflineRequirementProvider:
    """The embedded default Requirement Agent provider: rules, no network, deterministic."""

    name = PROVIDER_NAME
    model = MODEL_NAME
    prompt_id = PROMPT_ID

    def propose(self, request_text: str, baseline: BulletHellConfig) -> tuple[RequirementDecision, list[AgentCall]]:
        decision = decide(request_text, baseline)
        raw = canonical_json(decision.model_dump(mode="json"))
        prompt = canonical_json({"prompt_id": PROMPT_ID, "request": request_text,
                                 "baseline_hash": config_hash(baseline)})
        call = AgentCall(agent="requirement", provider=PROVIDER_NAME, model=MODEL_NAME, prompt_id=PROMPT_ID,
                         prompt_sha256=sha256_hex(prompt.encode("utf-8")),
                         request_bytes=len(request_text.encode("utf-8")), latency_ms=0,
                         raw_output=raw)
        return decision, [call]


__all__ = ["OfflineRequirementProvider", "RequestReader", "Reading", "decide", "normalize", "cn_to_int"]
