"""The phrase tables of the offline reader: every English and Chinese phrasing it knows.

A new phrasing is added here, in the table of its kind; the handler that reads that kind
(``handlers/<kind>.py``) and the documentation (docs/requirements-agent.md) name the table.
Tables are plain regular expressions over the normalised text (``numbers.normalize``):
lower case, ASCII digits and punctuation, Chinese numerals as digits.
"""

from __future__ import annotations

from fractions import Fraction

# A qualitative per-field word without a number ("faster bullets", "more layers") moves
# the field by this step; documented in docs/requirements-agent.md.
QUALITATIVE_UP = Fraction(6, 5)     # x1.2
QUALITATIVE_DOWN = Fraction(4, 5)   # x0.8
FIRE_RATE_UP = Fraction(17, 20)     # "fire more often": interval x0.85 (the pressure step)
FIRE_RATE_DOWN = Fraction(23, 20)   # "fire less often": interval x1.15

# a number is never read in part: "350" is never "35" and "0", "4.5" never "5"
NUM = r"(?<![\d.])[-+]?\d+(?:\.\d+)?(?!\d)(?!\.\d)"
# a number followed by one of these is a quantity, never a phase number
_UNIT_AHEAD = (r"\s*(?:bullets?|shots?|layers?|ms|s\b|secs?|seconds?|degrees?|deg|%|x\b|times|units?|"
               r"发|颗|层|秒|毫秒|度|倍)")
_N = rf"({NUM})"

# --------------------------------------------------------------------------------------------
# vocabulary
# --------------------------------------------------------------------------------------------

PATTERN_WORDS: dict[str, str] = {
    "ring": (r"\brings?\b|\bcircles?\b|\bcircular\b|\bradial\b|\bnova\b|环形|圆环|环状|圆形|环弹|圆周弹?|全方位|"
             r"(?<=[改换成为])环(?![境节绕])"),
    "spiral": (r"\bspirals?\b|\bswirl(?:s|ing|y)?\b|\bvortex\b|\bhelix\b|\bpinwheel\b|\bspinny\b|\bspinner\b|"
               r"螺旋|旋涡|漩涡|涡旋"),
    "aimed_fan": (r"\baimed[ _-]fans?\b|\baimed\b|\bfans?\b|\bfan[ -]shaped\b|\btargeted\b|\bsnip(?:e|er|ing)\b|"
                  r"\bplayer[ -]aimed\b|\bat the player\b|扇形|扇状|扇面|瞄准|自机狙|狙击|狙"),
    "petal": r"\bpetals?\b|\bflowers?\b|\bblossoms?\b|\bfloral\b|花瓣|花形|花型|花朵|花状|花弹",
    "scatter": (r"\bscatter(?:ed|shot|ing)?\b|\brandom\s+(?:spray|pattern)\b|随机弹|\brandom(?:ly|ized|ised)?\b|\bspray\b|\bshotgun\b|"
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
    "bullet_speed": (r"bullet\s+speed|\bspeed\b|\bvelocity\b|"
                     # a motion verb of the bullets with its number: "bullets go 3.5", "travel at 4"
                     r"\b(?:go|goes|travel(?:s|ling|ing)?|move|moves|moving|fly|flies|flying)\s+(?:at\s+)?(?=[0-9])|"
                     r"子弹速度|弹速|飞行速度|速度"),
    "bullet_lifetime_seconds": (r"life\s*time|life\s*span|bullet\s+life\b|\blive\b|\blast\b|"
                                r"寿命|存活时间|生存时间|持续时间|存在时间|生命周期|存活(?!子弹)"),
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
                 r"\btone\s+(?:[\w-]+\s+){0,3}?down\b|\bease\s+(?:up|off)\b|\btoo\s+(?:hard|difficult|dense|punishing|brutal)\b|"
                 r"降低(?:整体|总体)?难度|整体降低|降低一下|难度降低一?[点些]?|太难了?|太密了?|难度(?:小|低)一?[点些]|"
                 r"更稀疏|更稀|稀疏一?[点些]|稀一?[点些]|降低密度|减少密度|密度(?:降低|更低|小一?[点些]|低一?[点些])|"
                 r"降低难度|减少难度|难度(?:降低|低一?[点些])|更简单|简单一?[点些]|更容易|容易一?[点些]|"
                 r"减少子弹|子弹更少|子弹少一?[点些]|少一?[点些]子弹|更少的?子弹|减弱|削弱|更温和|轻松一?[点些]|更轻松|"
                 r"降低压迫感?|减少压迫感?|减弱压迫感?|压迫感(?:小|低|弱)一?[点些]|压迫感太强")
PRESSURE_UP = (r"\bharder\b|\bmore\s+difficult\b|\btougher\b|\bmore\s+challenging\b|\bmore\s+intense\b|"
               r"\bintense\b|\bdenser\b|\bmore\s+dense\b|\bdense\b|\bthicker\b|\bmore\s+pressure\b|"
               r"\bmore\s+bullets\b|\bheavier\b|\bmore\s+aggressive\b|\bcrank\s+(?:it\s+)?up\b|"
               r"\bramp\s+(?:it\s+)?up\b|\bbusier\b|\bmore\s+crowded\b|\bmore\s+packed\b|\bmore\s+chaotic\b|"
               r"\b(?:increase|raise|up)\s+(?:the\s+)?(?:density|pressure|difficulty|intensity)\b|"
               r"提高(?:整体|总体)?难度|难度提高一?[点些]?|难度(?:高|大)一?[点些]|太简单了?|"
               r"\bbrutal\b|\bpunishing\b|\bmore\s+oppressive\b|"
               r"更密集|更密|密集一?[点些]|密一?[点些]|加密|密集|提高密度|增加密度|提升密度|加大密度|"
               r"密度(?:更高|提高|高一?[点些])|更有压迫感|增加压迫感|加强压迫感|提高压迫感|压迫感更强|"
               r"压迫感强一?[点些]|压迫感|更难|难一?[点些]|加大难度|提高难度|增加难度|提升难度|"
               r"更具?挑战性?|更激烈|更紧张|更多的?子弹|增加子弹(?!速度|寿命|的)|子弹更多|子弹多一?[点些]|多一?[点些]子弹|"
               r"弹幕更多|更凶|更狠|强化|加强")

OFF_TOPIC: dict[str, str] = {
    "music / sound": (r"\bmusic\b|\bsoundtrack\b|\bsongs?\b|\bbgm\b|\bjingles?\b|\bthemes?\s+(?:song|tune)\b|\btunes?\b|\bsounds?\b|\bsfx\b|\baudio\b|\bvolume\b|"
                      r"\bvoices?\b|背景音乐|音乐|音效|声音|配乐|音量|歌曲|bgm|配音"),
    "UI / visuals": (r"\bui\b|\bhud\b|\bmenus?\b|\bfonts?\b|\bcolou?rs?\b|\bpalette\b|\btextures?\b|\bsprites?\b|"
                     r"\bshaders?\b|\bbackground\b|\bbackdrop\b|\bred\b|\bblue\b|\bgreen\b|\bpink\b|\bpurple\b|"
                     r"\byellow\b|\borange\b|\bparticles?\b|\banimations?\b|\bcamera\b|\bscreen\s*shake\b|"
                     r"\bskins?\b|\bicons?\b|\bart(?:work)?\b|\bsky\b|\bportraits?\b|\bcutscenes?\b|\bsplash\b|界面|颜色|配色|字体|贴图|美术|特效|背景|红色|蓝色|绿色|紫色|"
                     r"粉色|黄色|白色|黑色|动画|粒子|镜头|震屏|皮肤|立绘|图标|星空|画面|美术|模型|场景"),
    "the weather": r"\bweather\b|\brain(?:ing|y)?\b|\bsnow\w*\b|\bsunny\b|\bforecast\b|天气|下雨|下雪|气温",
    "food": r"\blunch\b|\bdinner\b|\bbreakfast\b|\brecipe\b|\bpizza\b|吃什么|午饭|晚饭|早饭|外卖|做饭",
    "sports and news": r"\bfootball\b|\bsoccer\b|\bbasketball\b|\bmatch\s+last\s+night\b|\bwho\s+won\b|\bnews\b|"
                       r"\bstock\s+market\b|足球|篮球|比赛结果|新闻|股票",
    "writing": (r"\bpoems?\b|\bpoetry\b|\bhaiku\b|\bstory\b|\blore\b|\bdialogue\b|\bjokes?\b|\bessay\b|"
                r"\btranslat\w*\b|\brecipes?\b|\bemails?\b|写诗|一首诗|首.{0,8}诗|诗|故事|剧情|对话|翻译|笑话|菜谱|作文"),
    "travel and errands": (r"\bflights?\b|\bplane\s+tickets?\b|\bhotels?\b|\btrain\s+tickets?\b|\bbook\s+a\s+(?:table|taxi|cab)\b|"
                           r"\bvacation\b|\bholiday\b|机票|酒店|火车票|高铁票|订票|旅游|旅行|打车|快递"),
    "other game systems": (r"\bsave\s*(?:game|file)s?\b|\bleaderboards?\b|\bachievements?\b|\bmultiplayer\b|"
                           r"\bnetwork\w*\b|\blogin\b|\bsubtitles?\b|\blocali[sz]ation\b|\bcontrollers?\b|"
                           r"\bkey\s*bindings?\b|\bvibration\b|\bcredits?(?:\s+screen)?\b|\btitle\s+screen\b|\btutorial\b|\bshop\b|\bstore\b|\bloot\b|制作人员|片尾|教程|商店|存档|排行榜|成就|联机|登录|字幕|手柄|按键"),
}

# Fields outside the write scope: (regex, JSON path, what the field is)
WRITE_SCOPE: list[tuple[str, str, str]] = [
    (r"\bboss(?:'s)?\s+(?:max(?:imum)?\s+)?(?:health|hp|life|hit\s*points)\b|\b(?:health|hp)\s+of\s+the\s+boss\b|"
     r"\bboss\b[^.;,]{0,30}?\b(?:hp|health|hit\s*points)\b|\b(?:more|less|extra)\s+(?:hp|health)\b|"
     r"\b(?:tankier|beefier)\s+boss\b|\bboss\s+(?:tankier|beefier|squishier|stronger|weaker)\b|boss\s*(?:的)?\s*(?:最大)?(?:血量|血|生命值|生命|hp)|首领(?:的)?(?:血量|生命值?)|"
     r"(?<!玩家)(?<!玩家的)(?<!自机)血量", "$.boss.max_health", "the boss's health"),
    (r"\bboss(?:'s)?\s+position\b|\bmove\s+the\s+boss\b|\bboss\s+(?:higher|lower|closer|further)\b|"
     r"boss\s*(?:的)?\s*位置|首领(?:的)?位置|移动\s*boss",
     "$.boss.position", "the boss's position"),
    (r"\bplayer(?:'s)?\s+(?:move(?:ment)?\s+)?speed\b|\bspeed\s+of\s+the\s+player\b|\bmove(?:ment)?\s*speed\b|"
     r"\bplayer\s+(?:moves?\s+)?(?:\d+(?:\.\d+)?%\s+|a\s+bit\s+|much\s+)?(?:faster|slower|quicker)\b|"
     r"\bplayer\s+move\s+(?:faster|slower|quicker)\b|"
     r"\bfocus\s+(?:speed|multiplier)\b|\bplayer\b[^.;,]{0,24}?\b(?:move|moves|moving|movement|walks?|runs?)\b|"
     r"玩家(?:的)?(?:移动)?速度|自机(?:的)?(?:移动)?速度|移动速度|移速|低速模式",
     "$.player.move_speed", "the player's movement speed"),
    (r"\bplayer(?:'s)?\s+(?:max(?:imum)?\s+)?(?:health|hp|lives)\b|\b(?:extra|more|fewer)\s+lives\b|\b\d+\s+lives\b|"
     r"\blives\b|"
     r"玩家(?:的)?(?:血量|生命值?|血)|残机|命数", "$.player.max_health", "the player's health"),
    (r"\bhit\s*box(?:es)?\b|\bhit\s+radius\b|\bgraz(?:e|ing)\b|判定点|判定范围|判定半径|判定|擦弹",
     "$.player.hit_radius", "the player's hitbox and graze radius"),
    (r"\binvulnerab\w*|\bi-?frames?\b|无敌时间|无敌", "$.player.invulnerability_seconds",
     "the player's invulnerability time"),
    (r"\bplayer(?:'s)?\s+(?:damage|dps|attack|firepower|shots?)\b|\bshot\s+(?:power|damage)\b|\bauto[- ]?fire\b|\bdps\b|火力|玩家伤害|攻击力",
     "$.player.auto_fire_damage", "the player's shots"),
    (r"\barena\b|\bplay\s*field\b|\bplay\s+area\b|\bscreen\s+size\b|场地|版面大小|战斗区域|地图",
     "$.scenario.arena_width", "the arena"),
    (r"\b(?:fight|battle|boss)\s+(?:duration|length|timer)\b|\bduration\b|\btime\s+limit\b|"
     r"\b(?:fight|battle)\s+(?:should\s+)?(?:last|run|take)s?\s+(?:for\s+)?\d|"
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
             r"|(?:增加|添加|新增|加上|多加|再加|加)\s*(?:\d+\s*个|一个|个)\s*(?:新的?)?\s*(?:第\s*\d+\s*个?)?"
             r"\s*(?:[^\s,，。;；\d]{0,4}?)(?:阶段|形态)"
             r"|(?:增加|添加|新增|加上|多加|再加)\s*(?:新的?)\s*(?:阶段|形态)|新增\s*(?:阶段|形态)"
             r"|(?:删除|删掉|去掉|移除|砍掉|跳过|取消)\s*(?:第\s*\d+\s*)?(?:个)?(?:阶段|形态)")

# what may stand between a figure and its bound: "must", "should stay", "stays", "doesn't", "won't ever"
_AUX = (r"(?:(?:must|should|has\s+to|have\s+to|needs?\s+to|will|can|is|are)\s+)?"
        r"(?:(?:never|not|doesn'?t|does\s+not|don'?t|do\s+not|won'?t|will\s+not|can'?t|cannot|shouldn'?t|"
        r"mustn'?t|isn'?t)\s+(?:ever\s+)?)?"
        r"(?:(?:stay|stays|be|remain|remains|keep|keeps)\s+)?")

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
    (r"(?:low(?:est)?\s+|minimum\s+|min\s+|1%\s+low\s+)?(?:fps|frame\s*rate)\s+" + _AUX +
     r"(?:at\s+least|above|over|>=|≥|no\s+(?:lower|less)\s+than|"
     r"(?:drop|drops|fall|falls|go|goes|dip|dips|sink|sinks)\s+(?:below|under)|below|under|lower\s+than)\s*" + _N,
     "min_low_fps"),
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
    (rf"{_N}\s+hits?\s+(?:max(?:imum)?|at\s+most|tops)\b", "max_player_hits"),
    (rf"(?:受击|被击中|被弹|中弹|被打中)(?:次数)?\s*(?:控制在|保持在|限制在)\s*{_N}\s*次?(?:以内|以下)?", "max_player_hits"),
    (rf"(?:最多|至多)\s*(?:被|受)?(?:击中|受击|被弹|中弹|被打中|被命中)\s*{_N}\s*次", "max_player_hits"),
    (rf"(?:受击|被击中|被弹|中弹|被命中|被打中)(?:次数)?\s*(?:不能|不得|不可|不要|不应|别|不)?\s*(?:超过|多于|大于|高于)\s*"
     rf"{_N}\s*次?", "max_player_hits"),
    (rf"(?:受击|被击中|被弹|中弹|被命中)(?:次数)?\s*(?:最多|至多|不超过|<=|≤)\s*{_N}\s*次?", "max_player_hits"),
]
ZERO_HITS = (r"\b(?:no|zero|0)\s+hits?\b(?:\s+allowed)?|\bnot\s+(?:be\s+|get\s+)?hit\s+at\s+all\b|"
             r"\bnever\s+be\s+hit\b|\bwithout\s+a\s+(?:single\s+)?hit\b|\bwithout\s+(?:getting\s+|being\s+)?hit\b|\bnever\s+(?:get\s+)?hit\b|"
             r"零受击|一次都不(?:能|可以|要)被?(?:击中|打中|命中)|不能被?(?:击中|打中)|不受击")
# "keep it dodgeable": a hard check that no tick leaves every reachable position hit (gcv fair)
DODGEABLE = (r"\b(?:keep|make\s+sure|ensure|must|should|needs?\s+to|has\s+to)\s+(?:it\s+|the\s+fight\s+|everything\s+)?"
             r"(?:stays?\s+|remains?\s+|is\s+|be\s+)?(?:still\s+)?(?:dodgeable|dodge-?able|avoidable|survivable\s+without\s+hits?)\b|"
             r"\b(?:leave|keep|always\s+(?:leave|have)|with)\s+(?:some\s+|enough\s+)?(?:room|space|a\s+gap|gaps|a\s+way)\s+"
             r"(?:to|for)\s+dodg(?:e|ing)\b|"
             r"\b(?:no|never\s+an?|without\s+(?:any\s+)?)\s*(?:unfair|undodgeable|unavoidable)\s+(?:walls?|hits?|moments?)\b|"
             r"\b(?:still|always)\s+(?:be\s+)?(?:possible|able)\s+to\s+dodge\b|\bdodgeable\b|"
             r"(?:必须|一定要|要|得|需要|保证|确保)?\s*(?:能|可以)?(?:躲(?:得)?开|躲避|闪避|躲过)(?:所有)?(?:子弹)?(?:的空间)?|"
             r"留出?(?:躲避|闪避|走位)的?(?:空间|空隙|余地)|(?:不能|不要|别)(?:出现|有)?(?:躲不开|无法躲避|必中)的?(?:弹幕|墙|时刻)?")
ALLOW_LOOSEN: list[tuple[str, str]] = [
    (rf"\b(?:allow|permit|let)\w*\s+(?:up\s+to\s+)?{_N}\s+(?:alive\s+)?bullets?(?:\s+alive)?", "max_alive_bullets"),
    (rf"\b(?:allow|permit|let)\w*\s+(?:the\s+player\s+)?(?:(?:to\s+)?(?:take|get\s+hit|be\s+hit)\s+)?(?:up\s+to\s+)?"
     rf"{_N}\s+(?:hits?|times)", "max_player_hits"),
    (rf"\b(?:allow|permit|let)\w*\s+(?:up\s+to\s+)?{_N}\s+(?:alive\s+|on-?screen\s+)?bullets?(?:\s+(?:alive|on[- ]screen))?",
     "max_alive_bullets"),
    (rf"允许(?:最多)?\s*{_N}\s*(?:颗|发|个)?(?:存活)?子弹", "max_alive_bullets"),
    (rf"允许(?:被?击中|受击|中弹)\s*{_N}\s*次", "max_player_hits"),
]

NO_CHANGE = (r"\bno\s+changes?\b|\bdon'?t\s+change\s+anything\b|\bdo\s+not\s+change\s+anything\b|\bchange\s+nothing\b|"
             r"\bkeep\s+(?:everything|it|all|things|the\s+fight|the\s+config)\s+(?:as\s+(?:it\s+is|is)|the\s+same|unchanged)\b|"
             r"\bleave\s+(?:it|everything|things|the\s+fight)\s+(?:as\s+(?:it\s+is|is)|alone|unchanged)\b|"
             r"\bas\s+is\b|\bnothing\s+to\s+change\b|\bkeep\s+the\s+baseline\b|\bunchanged\b|\bleave\s+it\b|"
             r"保持不变|保持原样|维持原样|维持不变|不用改|不要改|不需要改|不需要修改|无需修改|别改|什么都不改|"
             r"不做修改|不做任何修改|照旧|不变|"
             r"\b(?:keep|leave|maintain)\s+(?:everything|it|all|things|the\s+fight|the\s+config|the\s+current\s+\w+|"
             r"this\s+version)(?:\s+(?:exactly|just))?(?:\s+(?:the\s+way\s+it\s+is|as\s+it\s+is|as\s+is|untouched|"
             r"unchanged|alone|the\s+same))?\b|"
             r"\bleave\s+(?:the\s+\w+|everything|it)\s+(?:untouched|alone|unchanged)\b|"
             r"\b(?:don'?t|do\s+not)\s+(?:change|touch|modify|edit)\s+(?:anything|a\s+thing|it)\b|"
             r"\bnothing\s+(?:needs\s+to\s+)?(?:to\s+)?change\b|\bno\s+(?:edits?|modifications?)\b|"
             r"\bnever\s*mind\b|\bforget\s+it\b|"
             r"保持现状|维持现状|保持原来的(?:配置|样子|设置)?|不(?:用|要|需要)(?:任何)?(?:修改|改动|改|动)|"
             r"(?:都|什么都|啥都)?别(?:动|改)|什么都不用(?:动|改)|先不改了?|不改了|这版不用改")
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
           r"反向|反转|反过来转|反过来|倒转|方向相反|反方向|转向相反|翻转旋转")
ALL_PHASES = (r"\b(?:all|every|each)\s+(?:of\s+the\s+|the\s+)?(?:\d+\s+)?(?:phases|stages|(?:phase|stage)\b(?!\s*\d))\b|\bboth\s+phases\b|"
              r"\bthe\s+(?:whole|entire)\s+(?:fight|battle|boss(?:\s+fight)?)\b|\bacross\s+the\s+board\b|"
              r"\beverywhere\b|\ball\s+patterns\b|\bevery\s+pattern\b|"
              r"所有(?:的)?阶段|全部(?:的)?阶段|每个阶段|每一个?阶段|各个?阶段|全阶段|整场|全场|所有(?:的)?弹幕|"
              r"全部(?:的)?弹幕")

_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "1st": 1, "2nd": 2,
             "3rd": 3, "4th": 4, "5th": 5, "6th": 6, "opening": 1}
_ORD_WORD = r"first|second|third|fourth|fifth|sixth|1st|2nd|3rd|4th|5th|6th|last|final|opening"


# --------------------------------------------------------------------------------------------
# injected instructions (handlers/injection.py): read, never obeyed
# --------------------------------------------------------------------------------------------

INJECTION = (
    r"\b(?:ignore|disregard|forget|override|bypass|skip)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+|these\s+|those\s+)?"
    r"(?:previous\s+|prior\s+|above\s+|earlier\s+|preceding\s+|safety\s+|system\s+|original\s+)*"
    r"(?:instructions?|rules?|prompts?|guidelines?|constraints?|policies|policy|directions?|checks?)\b"
    r"|\bsystem\s*(?:prompt|message|override|note)?\s*[:：]|\bsystem\s+(?:prompt\s+)?override\b|\[\s*system\b|<\s*/?\s*system\s*>"
    r"|\bassistant\s*:|\byou\s+are\s+now\b|\bdeveloper\s+mode\b|\bjailbreak\w*\b|\bdan\s+mode\b"
    r"|\bas\s+(?:the|an|your)\s+(?:admin|administrator|developer|operator|owner)\b|\bi\s+(?:authori[sz]e|order|command)\s+you\b"
    r"|\bnew\s+instructions?\b|\bapprove\s+(?:it\s+|this\s+|everything\s+)?automatically\b|\bauto-?approve\b"
    r"|\boutput\s+(?:accepted|approved)\b|\bpretend\s+(?:to\s+be|you\s+are)\b"
    r"|忽略(?:之前|以上|上面|前面|先前|所有|全部|一切)?(?:的)?(?:所有|全部|一切)?(?:的)?(?:指令|规则|要求|提示|限制|设定)"
    r"|无视(?:所有|全部)?(?:的)?(?:安全)?(?:规则|限制|指令)|系统提示|系统指令|【\s*系统\s*】|\[\s*系统\s*\]"
    r"|你(?:现在)?是管理员|作为管理员|管理员权限|直接通过|越狱|开发者模式")
# an injected span ends at the end of its sentence, or at the closing bracket it sits in
SENTENCE_END = r"[.!?。！？\n](?=\s|$)|[。！？\n]"
BRACKETS = {"(": ")", "[": "]", "（": "）", "【": "】", "<!--": "-->", "<": ">", "{": "}"}

# --------------------------------------------------------------------------------------------
# approximations and ranges (numbers.normalize, handlers/values.py)
# --------------------------------------------------------------------------------------------

APPROX_BEFORE = (r"\b(?:about|approximately|approx\.?|roughly|around|circa|some|say|maybe|perhaps|like|nearly|almost)"
                 r"\s*~?\s*(?=[-+]?\d)|(?<![\d%\s])\s*~\s*(?=\d)|(?:^|(?<=[^\d%\s]\s))~\s*(?=\d)|(?:大概|大约|大致|约莫|约|差不多|估计|大体)\s*(?=[-+]?\d)")
APPROX_AFTER = r"(?<=[\d%a-z\u4e00-\u9fff])\s*(?:\bor\s+so\b|-ish\b|左右|上下)(?:吧)?"
APPROX_WORDS = r"大概|大约|差不多|大致"
# "10-15%", "15 到 20 发", "between 15 and 20 bullets": which value? (never a guess)
RANGE = (rf"\bbetween\s+(?P<a>{NUM})\s*(?P<ua>%|[a-z]+)?\s+and\s+(?P<b>{NUM})"
         rf"|(?<![\w.])(?P<c>{NUM})\s*(?P<uc>%|ms|s|发|颗|秒|毫秒|度)?\s*(?:-|~|\bto\b|到|至)\s*(?P<d>{NUM})\s*"
         r"(?P<ud>%|ms\b|s\b|seconds?\b|bullets?\b|degrees?\b|发|颗|枚|秒|毫秒|度)")
# "from 16 to 24", "16 发 -> 24 发", "由 16 改为 24": the new value is the second one
FROM_TO = (rf"(?:\bfrom\s+|由\s*|从\s*)?(?P<a>{NUM})\s*(?P<ua>%|[a-z]+|发|颗|枚|秒|毫秒|度|层)?"
           rf"(?:\s+(?:between|per|each|a|every)(?:\s+waves?)?)?\s*(?:->|=>|→|⇒)\s*(?P<b>{NUM})"
           rf"|(?:\bfrom\s+|由\s*|从\s*)(?P<c>{NUM})\s*(?P<uc>%|[a-z]+|发|颗|枚|秒|毫秒|度|层)?\s*(?:\bto\b|到|改为|改成|变为|变成|提到|提高到|降到|降低到|调到|加到|减到|缩短到|延长到)\s*(?P<d>{NUM})")
# "every 1.5 s instead of 1.2", "not 1.2", "而不是 1.2": the old value is context, not a change
OLD_VALUE = (rf"\b(?:instead\s+of|rather\s+than|not|was|currently|down\s+from|up\s+from)\s+(?:the\s+)?"
             rf"(?:current\s+)?{NUM}\s*(?:%|ms|s\b|seconds?\b|bullets?\b|degrees?\b)?"
             rf"|(?:而不是|不是|原来是|现在是|原本是)\s*{NUM}\s*(?:%|毫秒|秒|发|颗|度)?")

# --------------------------------------------------------------------------------------------
# design-target statements (handlers/targets.py): "raise the low FPS target to 60"
# --------------------------------------------------------------------------------------------

TARGET_SUBJECTS: dict[str, str] = {
    "max_alive_bullets": (r"(?:max(?:imum)?\s+|peak\s+)?(?:alive|live|on-?screen|simultaneous|active)[- ]?"
                          r"(?:bullets?|bullet|projectiles?)?(?:\s+count)?|存活子弹(?:数量?)?|同屏子弹(?:数量?)?|"
                          r"在场子弹(?:数量?)?|子弹上限"),
    "min_low_fps": (r"(?:min(?:imum)?\s+)?(?:low(?:est)?[- ]?|1%\s*low\s+)?(?:fps|frame\s*rate)|低分位\s*fps|低帧率?|帧率"),
    "max_player_hits": (r"(?:max(?:imum)?\s+)?(?:player\s+)?hits?(?:\s+count)?|hit\s+(?:allowance|count|budget)|"
                        r"受击(?:次数)?|被击中(?:次数)?|被弹(?:次数)?"),
}
TARGET_KIND = (r"targets?|goals?|floor|cap|ceiling|limits?|allowance|threshold|budget|max(?:imum)?|min(?:imum)?|"
               r"上限|下限|目标|限制|要求|阈值")
TARGET_VERB = (r"raise|increase|lift|bump|up|lower|reduce|drop|decrease|cut|tighten|loosen|relax|set|change|make|cap|"
               r"move|put|hold|push")
TARGET_TO = r"\s*(?:to|at|of|=|:|->|→|is|be|到|为|成|在|至)?\s*"
TARGET_CN_VERB = r"提高到|提到|提升到|提升至|升到|加到|降低到|降到|降为|降至|减到|收紧到|收紧为|放宽到|放宽为|改成|改为|调到|调整为|设为|设成|设置为|定为|改到"
TARGET_UNIT = r"\s*(?:fps|hits?|times|bullets?|次|发|颗|帧)?"
LIMIT_WORDS = r"\blimits?\b|\bcaps?\b|\bceilings?\b|上限|下限|硬限制"

# --------------------------------------------------------------------------------------------
# the whole fight (handlers/phases.py): "easier overall", 降低整体难度
# --------------------------------------------------------------------------------------------

WHOLE_FIGHT = (r"\boverall\b|\bacross\s+the\s+board\b|\beverywhere\b|\beverything\b|\bin\s+general\b|\bglobally\b|"
               r"\bthe\s+(?:whole|entire)\s+(?:fight|battle|boss(?:\s+fight)?|thing|encounter)\b|"
               r"\b(?:whole|entire)\s+(?:fight|battle|boss)\b|\ball\s+(?:the\s+)?(?:bullets|patterns|of\s+them)\b|"
               r"\bevery\s+(?:bullet|pattern)\b|\bthroughout\b|"
               r"整体|整场|全场|全局|全部阶段|所有阶段|每个阶段|各个?阶段|全阶段|所有(?:的)?弹幕|全部(?:的)?弹幕|"
               r"所有子弹|全部子弹|boss\s*战整体|都要")

# --------------------------------------------------------------------------------------------
# switches (handlers/patterns.py): which named pattern is the old one and which the new one
# --------------------------------------------------------------------------------------------

# cues right before a pattern word that make it the OLD pattern ("instead of a ring", "把环形")
SWITCH_OLD_BEFORE = (r"(?:\binstead\s+of|\brather\s+than|\bnot|\bno\s+more|\bno\s+longer(?:\s+be)?|\bin\s+place\s+of|\bfrom|\breplac\w*|\bswap\w*|"
                     r"\bturn\w*|\bchange\w*|\bswitch\w*|\bconvert\w*|\bdon'?t\s+want|\bget\s+rid\s+of|\bdrop|"
                     r"\bremove|\bditch|代替|替换|替代|取代|不要|不用|把|由|从|将)"
                     r"(?:\s+|'s\b|的|the\b|an?\b|its\b|current\b|old\b|existing\b)*$")
# cues right before a pattern word that make it the NEW pattern ("into a spiral", "改成螺旋")
SWITCH_NEW_BEFORE = (r"(?:\binto|\bto|\bwith|\bfor|\bby|->|\bmake\s+it|\bbecomes?|\bbe|\bas|\buse|\busing|\bwant|"
                     r"\blike|\bprefer|\bopen\s+with|\bgo\s+with|改成|改为|换成|变成|变为|改用|换为|成为|成|(?<!不)用|(?<![不想])要|(?<!不)改|换)"
                     r"(?:\s+|the\b|an?\b|some\b)*$")
# cues right after a pattern word that make it the NEW pattern ("an aimed fan instead")
SWITCH_NEW_AFTER = r"^\s*(?:pattern\s+|phase\s+)?(?:instead\b|rather\b|代替|替换|替代|取代)"
SWITCH_OLD_AFTER = r"^\s*(?:弹幕\s*)?(?:的?那段|那个阶段|\s*out\b|\s*anymore\b|\s*no\s+more\b|不要了|换掉|去掉)"

# --------------------------------------------------------------------------------------------
# typos (spelling.py): words a request may misspell, corrected only to these
# --------------------------------------------------------------------------------------------

VOCABULARY = (
    "the phase phases stage stages spiral spirals petal petals flower scatter aimed bidirectional clockwise "
    "counterclockwise anticlockwise reverse rotate rotation denser sparser faster slower harder easier quicker tougher "
    "bullets bullet speed interval lifetime layers spread angle degrees seconds waves pressure intense double "
    "triple halve reduce increase decrease should every overall whole fewer please change everything nothing often "
    "shoot lower higher slow fast"
).split()
# words that are right as written although they are one slip from a VOCABULARY word
KNOWN_WORDS = set(
    # one slip from "slow" or "fast": everyday words, never read as either
    "flow show glow blow slot snow slew plow stow slop slob sloe blow low last east vast mast past cast fact fat "
    "fist feast fasts lost "
    # contractions split at the apostrophe: "shouldn't" is never "should't"
    "shouldn couldn wouldn didn doesn isn aren wasn weren mustn needn hasn haven "
    "a an and are as at be but by can do for from had has have he her his i if in is it its me my no not of on or "
    "our she so than that them then they this to too up us was we were what when which who why will with you your "
    "second secondly state stags stave stake stale stare stager speeds spend steed spied sped metal metals pedal "
    "pedals timed armed named famed gamed maimed tenser master caster easter taster vaster fasten foster slowed "
    "blower harden hander warder larder hardy players player payers payer layer later laser lasers lager lawyer "
    "angel angels ankle tangle dangle bangle angled waved saves caves valve valves deduce ever very whose whale "
    "wholly fever newer sewer chance charge noting soften short shout shook shatter ballet gullet mullet phrase "
    "phrases chases chase power tower lover mover laser beam beams homing bomb bombs missile missiles music art "
    "rings bring king wing sing rang rung ping rind thing among ones bones wave rate late fate hate mate date gate "
    "face pace place space case base life lives wife knife five fine line mine nine pine wine fast last past cast "
    "east least lease shot shots spot slot plot lot time times tile while wide side ride slide rest best test less "
    "mess press spin spins thin seen seed need feed speech steer sheer cheer same sane lane ease dense sparse "
    "halved halves reduced doubles doubled tripled triples rotated reversed faster slower lowest highest phased "
    "stayed static staged stagey spires spiraled flowed flowers shooter shooting shots lifetime intent intend "
    "intends intensely angles spreads degree interval intervals layered "
    .split()) | set(VOCABULARY)

# --------------------------------------------------------------------------------------------
# answers to the reader's questions (reader.py): bare words that fill what was missing
# --------------------------------------------------------------------------------------------

ANSWER_UP = r"^(?:more|higher|up|faster|increase|raise|bigger|larger|longer|wider|denser|harder|多|增加|提高|加快|更快|快|更多|上调)$"
ANSWER_DOWN = r"^(?:less|lower|down|slower|decrease|reduce|smaller|shorter|narrower|sparser|easier|少|减少|降低|减慢|更慢|慢|更少|下调)$"
ANSWER_YES = (r"^(?:yes|yeah|yep|ok|okay|sure|right|correct|only\s+the\s+pattern(?:\s+change)?|just\s+the\s+pattern|"
              r"是的?|对|好的?|可以|行|只改弹幕|只要弹幕)\b")
ANSWER_SECONDS = r"^(?:in\s+)?(?:s|secs?|seconds?|秒|秒钟)$"
ANSWER_MS = r"^(?:in\s+)?(?:ms|msecs?|millis(?:econds?)?|milliseconds?|毫秒)$"
