// Generated from gcv/sim/program_model.py by `gcv schema export`; do not edit.
// The inclusive range of every program integer and list length (docs/simulation.md 2),
// the members each object of the program may have, the characters of a phase id and the
// pattern names (a phase's pattern_code is its name's index).
#pragma once

#include <cstdint>

namespace gcv {
namespace program_bounds {
constexpr int64_t kDurationTicksMin = 1LL, kDurationTicksMax = 36000LL;  // duration_ticks
constexpr int64_t kPhaseCountMin = 1LL, kPhaseCountMax = 6LL;  // phases
constexpr int64_t kStateHashIntervalMin = 1LL, kStateHashIntervalMax = 36000LL;  // state_hash_interval
constexpr int64_t kArenaHalfWidthMin = 1LL, kArenaHalfWidthMax = 268435456LL;  // arena.half_width
constexpr int64_t kArenaHalfHeightMin = 1LL, kArenaHalfHeightMax = 268435456LL;  // arena.half_height
constexpr int64_t kArenaDespawnXMin = 1LL, kArenaDespawnXMax = 268435456LL;  // arena.despawn_x
constexpr int64_t kArenaDespawnYMin = 1LL, kArenaDespawnYMax = 268435456LL;  // arena.despawn_y
constexpr int64_t kPlayerMaxHealthMin = 1LL, kPlayerMaxHealthMax = 99LL;  // player.max_health
constexpr int64_t kPlayerSpeedMin = 0LL, kPlayerSpeedMax = 1048576LL;  // player.speed
constexpr int64_t kPlayerFocusSpeedMin = 0LL, kPlayerFocusSpeedMax = 1048576LL;  // player.focus_speed
constexpr int64_t kPlayerHitRadiusMin = 0LL, kPlayerHitRadiusMax = 16777216LL;  // player.hit_radius
constexpr int64_t kPlayerGrazeRadiusMin = 0LL, kPlayerGrazeRadiusMax = 16777216LL;  // player.graze_radius
constexpr int64_t kPlayerStartXMin = (-268435456LL), kPlayerStartXMax = 268435456LL;  // player.start_x
constexpr int64_t kPlayerStartYMin = (-268435456LL), kPlayerStartYMax = 268435456LL;  // player.start_y
constexpr int64_t kPlayerInvulnerabilityTicksMin = 0LL, kPlayerInvulnerabilityTicksMax = 36000LL;  // player.invulnerability_ticks
constexpr int64_t kPlayerAutoFireDamageMin = 1LL, kPlayerAutoFireDamageMax = 2147483647LL;  // player.auto_fire_damage
constexpr int64_t kPlayerAutoFireIntervalTicksMin = 1LL, kPlayerAutoFireIntervalTicksMax = 36000LL;  // player.auto_fire_interval_ticks
constexpr int64_t kBossMaxHealthMin = 1LL, kBossMaxHealthMax = 2147483647LL;  // boss.max_health
constexpr int64_t kBossXMin = (-268435456LL), kBossXMax = 268435456LL;  // boss.x
constexpr int64_t kBossYMin = (-268435456LL), kBossYMax = 268435456LL;  // boss.y
constexpr int64_t kPhaseIdLengthMin = 1LL, kPhaseIdLengthMax = 32LL;  // phases[].phase_id
constexpr int64_t kPhaseTriggerMicroMin = 1LL, kPhaseTriggerMicroMax = 1000000LL;  // phases[].trigger_micro
constexpr int64_t kPhasePatternCodeMin = 0LL, kPhasePatternCodeMax = 4LL;  // phases[].pattern_code
constexpr int64_t kPhaseBulletsPerWaveMin = 1LL, kPhaseBulletsPerWaveMax = 64LL;  // phases[].bullets_per_wave
constexpr int64_t kPhaseWaveIntervalTicksMin = 1LL, kPhaseWaveIntervalTicksMax = 36000LL;  // phases[].wave_interval_ticks
constexpr int64_t kPhaseLifetimeTicksMin = 1LL, kPhaseLifetimeTicksMax = 36000LL;  // phases[].lifetime_ticks
constexpr int64_t kPhaseRotationPerWaveMin = (-32768LL), kPhaseRotationPerWaveMax = 32768LL;  // phases[].rotation_per_wave
constexpr int64_t kPhaseScatterSpanMin = 0LL, kPhaseScatterSpanMax = 65536LL;  // phases[].scatter_span
constexpr int64_t kSlotCountMin = 1LL, kSlotCountMax = 512LL;  // phases[].slots
constexpr int64_t kSlotAngleOffsetMin = (-1099511627776LL), kSlotAngleOffsetMax = 1099511627776LL;  // phases[].slots[][0]
constexpr int64_t kSlotSpeedMin = (-1048576LL), kSlotSpeedMax = 1048576LL;  // phases[].slots[][1]
constexpr int64_t kSlotRotationSignMin = (-1LL), kSlotRotationSignMax = 1LL;  // phases[].slots[][2]
constexpr int64_t kScriptedRateXMin = (-4294967296LL), kScriptedRateXMax = 4294967296LL;  // scripted.rate_x
constexpr int64_t kScriptedRateYMin = (-4294967296LL), kScriptedRateYMax = 4294967296LL;  // scripted.rate_y
constexpr int64_t kScriptedAmpXMin = 0LL, kScriptedAmpXMax = 268435456LL;  // scripted.amp_x
constexpr int64_t kScriptedAmpYMin = 0LL, kScriptedAmpYMax = 268435456LL;  // scripted.amp_y
constexpr int64_t kBotClearanceCapMin = 1LL, kBotClearanceCapMax = 1125899906842624LL;  // bot.clearance_cap
constexpr int64_t kBotHomeShiftMin = 0LL, kBotHomeShiftMax = 62LL;  // bot.home_shift
constexpr int64_t kSkillReactionTicksMin = 1LL, kSkillReactionTicksMax = 600LL;  // bot.skills[].reaction_ticks
constexpr int64_t kSkillLookaheadTicksMin = 1LL, kSkillLookaheadTicksMax = 256LL;  // bot.skills[].lookahead_ticks
constexpr int64_t kSkillMistakeThresholdMin = 0LL, kSkillMistakeThresholdMax = 4294967295LL;  // bot.skills[].mistake_threshold
constexpr int64_t kFrameModelFixedUsMin = 1LL, kFrameModelFixedUsMax = 1000000LL;  // frame_model.fixed_us
constexpr int64_t kFrameModelPerBulletUsMin = 0LL, kFrameModelPerBulletUsMax = 10000LL;  // frame_model.per_bullet_us
constexpr int64_t kFrameModelPerCheckUsMin = 0LL, kFrameModelPerCheckUsMax = 10000LL;  // frame_model.per_check_us
constexpr int64_t kTickHzMin = 60LL, kTickHzMax = 60LL;  // tick_hz
constexpr const char kPhaseIdChars[] = "abcdefghijklmnopqrstuvwxyz0123456789_-";
constexpr const char* kPatternNames[] = {"ring", "spiral", "aimed_fan", "petal", "scatter"};  // index = pattern_code
constexpr const char* kProgramKeys[] = {"program", "config_hash", "tick_hz", "duration_ticks", "arena", "player", "boss", "phases", "scripted", "bot", "frame_model", "state_hash_interval"};
constexpr const char* kArenaKeys[] = {"half_width", "half_height", "despawn_x", "despawn_y"};
constexpr const char* kPlayerKeys[] = {"max_health", "speed", "focus_speed", "hit_radius", "graze_radius", "start_x", "start_y", "invulnerability_ticks", "auto_fire_damage", "auto_fire_interval_ticks"};
constexpr const char* kBossKeys[] = {"max_health", "x", "y"};
constexpr const char* kPhaseKeys[] = {"phase_id", "trigger_micro", "pattern", "pattern_code", "bullets_per_wave", "wave_interval_ticks", "lifetime_ticks", "rotation_per_wave", "aim", "scatter_span", "slots"};
constexpr const char* kScriptedKeys[] = {"rate_x", "rate_y", "amp_x", "amp_y"};
constexpr const char* kBotKeys[] = {"skills", "clearance_cap", "home_shift"};
constexpr const char* kSkillsKeys[] = {"novice", "average", "expert"};
constexpr const char* kSkillKeys[] = {"reaction_ticks", "lookahead_ticks", "mistake_threshold"};
constexpr const char* kFrameModelKeys[] = {"fixed_us", "per_bullet_us", "per_check_us"};
}  // namespace program_bounds
}  // namespace gcv
