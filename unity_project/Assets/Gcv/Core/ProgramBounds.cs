// Generated from gcv/sim/program_model.py by `gcv schema export`; do not edit.
// The inclusive range of every program integer and list length (docs/simulation.md 2),
// the members each object of the program may have, the characters of a phase id and the
// pattern names (a phase's pattern_code is its name's index).
namespace Gcv.Core
{
    public static class ProgramBounds
    {
        public const long DurationTicksMin = 1, DurationTicksMax = 36000;  // duration_ticks
        public const long PhaseCountMin = 1, PhaseCountMax = 6;  // phases
        public const long StateHashIntervalMin = 1, StateHashIntervalMax = 36000;  // state_hash_interval
        public const long ArenaHalfWidthMin = 1, ArenaHalfWidthMax = 268435456;  // arena.half_width
        public const long ArenaHalfHeightMin = 1, ArenaHalfHeightMax = 268435456;  // arena.half_height
        public const long ArenaDespawnXMin = 1, ArenaDespawnXMax = 268435456;  // arena.despawn_x
        public const long ArenaDespawnYMin = 1, ArenaDespawnYMax = 268435456;  // arena.despawn_y
        public const long PlayerMaxHealthMin = 1, PlayerMaxHealthMax = 99;  // player.max_health
        public const long PlayerSpeedMin = 0, PlayerSpeedMax = 1048576;  // player.speed
        public const long PlayerFocusSpeedMin = 0, PlayerFocusSpeedMax = 1048576;  // player.focus_speed
        public const long PlayerHitRadiusMin = 0, PlayerHitRadiusMax = 16777216;  // player.hit_radius
        public const long PlayerGrazeRadiusMin = 0, PlayerGrazeRadiusMax = 16777216;  // player.graze_radius
        public const long PlayerStartXMin = -268435456, PlayerStartXMax = 268435456;  // player.start_x
        public const long PlayerStartYMin = -268435456, PlayerStartYMax = 268435456;  // player.start_y
        public const long PlayerInvulnerabilityTicksMin = 0, PlayerInvulnerabilityTicksMax = 36000;  // player.invulnerability_ticks
        public const long PlayerAutoFireDamageMin = 1, PlayerAutoFireDamageMax = 2147483647;  // player.auto_fire_damage
        public const long PlayerAutoFireIntervalTicksMin = 1, PlayerAutoFireIntervalTicksMax = 36000;  // player.auto_fire_interval_ticks
        public const long BossMaxHealthMin = 1, BossMaxHealthMax = 2147483647;  // boss.max_health
        public const long BossXMin = -268435456, BossXMax = 268435456;  // boss.x
        public const long BossYMin = -268435456, BossYMax = 268435456;  // boss.y
        public const long PhaseIdLengthMin = 1, PhaseIdLengthMax = 32;  // phases[].phase_id
        public const long PhaseTriggerMicroMin = 1, PhaseTriggerMicroMax = 1000000;  // phases[].trigger_micro
        public const long PhasePatternCodeMin = 0, PhasePatternCodeMax = 4;  // phases[].pattern_code
        public const long PhaseBulletsPerWaveMin = 1, PhaseBulletsPerWaveMax = 64;  // phases[].bullets_per_wave
        public const long PhaseWaveIntervalTicksMin = 1, PhaseWaveIntervalTicksMax = 36000;  // phases[].wave_interval_ticks
        public const long PhaseLifetimeTicksMin = 1, PhaseLifetimeTicksMax = 36000;  // phases[].lifetime_ticks
        public const long PhaseRotationPerWaveMin = -32768, PhaseRotationPerWaveMax = 32768;  // phases[].rotation_per_wave
        public const long PhaseScatterSpanMin = 0, PhaseScatterSpanMax = 65536;  // phases[].scatter_span
        public const long SlotCountMin = 1, SlotCountMax = 512;  // phases[].slots
        public const long SlotAngleOffsetMin = -1099511627776, SlotAngleOffsetMax = 1099511627776;  // phases[].slots[][0]
        public const long SlotSpeedMin = -1048576, SlotSpeedMax = 1048576;  // phases[].slots[][1]
        public const long SlotRotationSignMin = -1, SlotRotationSignMax = 1;  // phases[].slots[][2]
        public const long ScriptedRateXMin = -4294967296, ScriptedRateXMax = 4294967296;  // scripted.rate_x
        public const long ScriptedRateYMin = -4294967296, ScriptedRateYMax = 4294967296;  // scripted.rate_y
        public const long ScriptedAmpXMin = 0, ScriptedAmpXMax = 268435456;  // scripted.amp_x
        public const long ScriptedAmpYMin = 0, ScriptedAmpYMax = 268435456;  // scripted.amp_y
        public const long BotClearanceCapMin = 1, BotClearanceCapMax = 1125899906842624;  // bot.clearance_cap
        public const long BotHomeShiftMin = 0, BotHomeShiftMax = 62;  // bot.home_shift
        public const long SkillReactionTicksMin = 1, SkillReactionTicksMax = 600;  // bot.skills[].reaction_ticks
        public const long SkillLookaheadTicksMin = 1, SkillLookaheadTicksMax = 256;  // bot.skills[].lookahead_ticks
        public const long SkillMistakeThresholdMin = 0, SkillMistakeThresholdMax = 4294967295;  // bot.skills[].mistake_threshold
        public const long FrameModelFixedUsMin = 1, FrameModelFixedUsMax = 1000000;  // frame_model.fixed_us
        public const long FrameModelPerBulletUsMin = 0, FrameModelPerBulletUsMax = 10000;  // frame_model.per_bullet_us
        public const long FrameModelPerCheckUsMin = 0, FrameModelPerCheckUsMax = 10000;  // frame_model.per_check_us
        public const long TickHzMin = 60, TickHzMax = 60;  // tick_hz
        public const string PhaseIdChars = "abcdefghijklmnopqrstuvwxyz0123456789_-";
        public static readonly string[] PatternNames = { "ring", "spiral", "aimed_fan", "petal", "scatter" };  // index = pattern_code
        public static readonly string[] ProgramKeys = { "program", "config_hash", "tick_hz", "duration_ticks", "arena", "player", "boss", "phases", "scripted", "bot", "frame_model", "state_hash_interval" };
        public static readonly string[] ArenaKeys = { "half_width", "half_height", "despawn_x", "despawn_y" };
        public static readonly string[] PlayerKeys = { "max_health", "speed", "focus_speed", "hit_radius", "graze_radius", "start_x", "start_y", "invulnerability_ticks", "auto_fire_damage", "auto_fire_interval_ticks" };
        public static readonly string[] BossKeys = { "max_health", "x", "y" };
        public static readonly string[] PhaseKeys = { "phase_id", "trigger_micro", "pattern", "pattern_code", "bullets_per_wave", "wave_interval_ticks", "lifetime_ticks", "rotation_per_wave", "aim", "scatter_span", "slots" };
        public static readonly string[] ScriptedKeys = { "rate_x", "rate_y", "amp_x", "amp_y" };
        public static readonly string[] BotKeys = { "skills", "clearance_cap", "home_shift" };
        public static readonly string[] SkillsKeys = { "novice", "average", "expert" };
        public static readonly string[] SkillKeys = { "reaction_ticks", "lookahead_ticks", "mistake_threshold" };
        public static readonly string[] FrameModelKeys = { "fixed_us", "per_bullet_us", "per_check_us" };
    }
}
