// The integer sim program (gcv.sim_program/1) and the run request (gcv.run_request/1), read
// from parsed JSON with errors that name the offending field, the way pydantic does in the
// Python runners ("field player.skill: ...").
//
// Python integers are unbounded; C++ uses int64_t. The reader therefore bounds every
// program number so that no intermediate of the tick can leave int64, with the ranges of
// ProgramBounds.h (generated from gcv/sim/program_model.py: the Python, C# and C++ readers
// accept exactly the same programs). Every program GCV can compile from a valid config is
// far inside these bounds (arena <= 100 units = 2^23 in Q16, speeds <= 12 units/s = 13107 per tick); the
// golden vectors that deliberately break validation rules are inside them too. Sums that
// grow with the run (frame-time totals) use checked arithmetic in Telemetry.h.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "Gcv/Json.h"
#include "Gcv/ProgramBounds.h"

namespace gcv {

struct PhaseSpec {
    std::string phaseId;
    int64_t triggerMicro = 0;
    std::string pattern;
    bool scatter = false;
    int64_t waveIntervalTicks = 1;
    int64_t lifetimeTicks = 1;
    int64_t rotationPerWave = 0;
    bool aim = false;
    int64_t scatterSpan = 0;
    std::vector<int64_t> slotOffset, slotSpeed, slotSign;  // one entry per bullet of a wave
};

struct BotSkill {
    int64_t reactionTicks = 0;
    int64_t lookaheadTicks = 0;
    int64_t mistakeThreshold = 0;
};

struct Program {
    std::string configHash;
    int64_t tickHz = 60;
    int64_t durationTicks = 0;
    int64_t halfWidth = 0, halfHeight = 0, despawnX = 0, despawnY = 0;
    // player
    int64_t maxHealth = 0, speed = 0, focusSpeed = 0, hitRadius = 0, grazeRadius = 0;
    int64_t startX = 0, startY = 0, invulnerabilityTicks = 0, autoFireDamage = 0, autoFireIntervalTicks = 1;
    // boss
    int64_t bossMaxHealth = 0, bossX = 0, bossY = 0;
    std::vector<PhaseSpec> phases;
    // scripted player and bot (both read for every run: the readers accept the same programs)
    int64_t rateX = 0, rateY = 0, ampX = 0, ampY = 0;
    BotSkill novice, average, expert;
    int64_t clearanceCap = 0, homeShift = 0;
    // frame model
    int64_t fixedUs = 0, perBulletUs = 0, perCheckUs = 0;
    int64_t stateHashInterval = 60;

    const BotSkill* Skill(const std::string& name) const {
        if (name == "novice") return &novice;
        if (name == "average") return &average;
        if (name == "expert") return &expert;
        return nullptr;
    }
};

struct InputStep {
    int8_t dx = 0, dy = 0, focus = 0;
};

struct PlayerSpec {
    enum class Kind { Scripted, Bot, Inputs } kind = Kind::Scripted;
    std::string skill;               // bot
    std::vector<InputStep> trace;    // inputs, expanded to one entry per tick
    Json traceJson;                  // inputs, as given (for re-recording / labels)
};

struct RunRequest {
    std::string runId;
    std::string programHash;
    std::string configHash;
    int64_t seed = 0;
    PlayerSpec player;
    std::string playerLabel;
    std::vector<int64_t> captureTicks;
    std::string outputDir;
    const Json* program = nullptr;  // points into the parsed request document
};

constexpr int64_t kMaxTraceTicks = 600 * 60;

// First-error-wins field reader. Paths are written like pydantic's `loc`: a.b.0.c
class FieldReader {
public:
    std::string error;

    bool Ok() const { return error.empty(); }
    bool Fail(const std::string& where, const std::string& message) {
        if (error.empty()) error = "field " + where + ": " + message;
        return false;
    }
    static std::string Join(const std::string& base, const std::string& key) {
        return base.empty() ? key : base + "." + key;
    }
    static std::string Join(const std::string& base, size_t index) { return Join(base, std::to_string(index)); }

    const Json* Member(const Json& obj, const std::string& key, const std::string& base) {
        const Json* v = obj.Find(key);
        if (!v) Fail(Join(base, key), "Field required");
        return v;
    }
    const Json* Object(const Json& obj, const std::string& key, const std::string& base) {
        const Json* v = Member(obj, key, base);
        if (v && !v->IsObject()) {
            Fail(Join(base, key), std::string("Input should be an object, not ") + JsonTypeName(*v));
            return nullptr;
        }
        return v;
    }
    const Json* Array(const Json& obj, const std::string& key, const std::string& base) {
        const Json* v = Member(obj, key, base);
        if (v && !v->IsArray()) {
            Fail(Join(base, key), std::string("Input should be an array, not ") + JsonTypeName(*v));
            return nullptr;
        }
        return v;
    }
    bool IntValue(const Json& v, const std::string& where, int64_t lo, int64_t hi, int64_t& out) {
        if (!v.IsNumber() || !v.isInteger)
            return Fail(where, std::string("Input should be a valid integer, not ") + JsonTypeName(v));
        if (!v.fitsInt64 || v.integer < lo || v.integer > hi)
            return Fail(where, "Input should be between " + std::to_string(lo) + " and " + std::to_string(hi) +
                                   " (got " + v.text + ")");
        out = v.integer;
        return true;
    }
    bool Count(size_t n, const std::string& where, int64_t lo, int64_t hi) {
        if (static_cast<int64_t>(n) < lo) return Fail(where, "List should have at least " + std::to_string(lo) + " item(s)");
        if (static_cast<int64_t>(n) > hi) return Fail(where, "List should have at most " + std::to_string(hi) + " items");
        return true;
    }
    int64_t Int(const Json& obj, const std::string& key, const std::string& base, int64_t lo, int64_t hi) {
        const Json* v = Member(obj, key, base);
        int64_t out = 0;
        if (v) IntValue(*v, Join(base, key), lo, hi, out);
        return out;
    }
    std::string String(const Json& obj, const std::string& key, const std::string& base) {
        const Json* v = Member(obj, key, base);
        if (!v) return std::string();
        if (!v->IsString()) {
            Fail(Join(base, key), std::string("Input should be a valid string, not ") + JsonTypeName(*v));
            return std::string();
        }
        return v->text;
    }
    bool Bool(const Json& obj, const std::string& key, const std::string& base) {
        const Json* v = Member(obj, key, base);
        if (!v) return false;
        if (!v->IsBool()) {
            Fail(Join(base, key), std::string("Input should be a valid boolean, not ") + JsonTypeName(*v));
            return false;
        }
        return v->boolean;
    }
    // pydantic extra="forbid": name the first member not in `allowed`.
    bool NoExtra(const Json& obj, const std::string& base, std::initializer_list<const char*> allowed) {
        return NoExtra(obj, base, allowed.begin(), allowed.end());
    }
    template <size_t N>
    bool NoExtra(const Json& obj, const std::string& base, const char* const (&allowed)[N]) {
        return NoExtra(obj, base, allowed, allowed + N);
    }
    bool NoExtra(const Json& obj, const std::string& base, const char* const* first, const char* const* last) {
        for (const std::string& key : obj.keys) {
            bool known = false;
            for (const char* const* a = first; a != last; ++a)
                if (key == *a) known = true;
            if (!known) return Fail(Join(base, key), "Extra inputs are not permitted");
        }
        return true;
    }
    // A string of `lo`..`hi` characters, each one of `chars` (the phase id's pattern).
    std::string Token(const Json& obj, const std::string& key, const std::string& base, int64_t lo, int64_t hi,
                      const char* chars) {
        std::string s = String(obj, key, base);
        if (!Ok()) return s;
        if (static_cast<int64_t>(s.size()) < lo || static_cast<int64_t>(s.size()) > hi) {
            Fail(Join(base, key), "String should have " + std::to_string(lo) + " to " + std::to_string(hi) +
                                      " characters (got " + std::to_string(s.size()) + ")");
            return s;
        }
        for (char c : s) {
            bool allowed = false;
            for (const char* a = chars; *a; ++a)
                if (c == *a) allowed = true;
            if (!allowed) {
                Fail(Join(base, key), std::string("String should use only ") + chars);
                return s;
            }
        }
        return s;
    }
};

inline bool IsSha256Hex(const std::string& s) {
    if (s.size() != 64) return false;
    for (char c : s)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

// program.config_hash in the words of pydantic (the Python reader). The protocol reads it
// before it compares any hash, so a missing or mistyped one is a bad request (exit 2) naming
// the field in every reader, never a hash mismatch (issue 25.14).
inline std::string ReadConfigHash(const Json& prog, FieldReader& r) {
    const Json* v = prog.Find("config_hash");
    if (!v) {
        r.Fail("program.config_hash", "Field required");
        return std::string();
    }
    if (!v->IsString()) {
        r.Fail("program.config_hash", "Input should be a valid string");
        return std::string();
    }
    if (!IsSha256Hex(v->text)) {
        r.Fail("program.config_hash", "String should match pattern '^[0-9a-f]{64}$'");
        return std::string();
    }
    return v->text;
}

// The pattern's code: its index in kPatternNames (generated from the Python model), or -1.
inline int64_t PatternCode(const std::string& name) {
    using namespace program_bounds;
    for (size_t i = 0; i < sizeof(kPatternNames) / sizeof(kPatternNames[0]); ++i)
        if (name == kPatternNames[i]) return static_cast<int64_t>(i);
    return -1;
}

// The refusals of a program that contradicts itself, word for word those of
// gcv/sim/program_model.py (pattern_code_message, duplicate_phase_id_message).
inline std::string PatternCodeMessage(int64_t code, const std::string& pattern) {
    return "pattern_code " + std::to_string(code) + " contradicts pattern '" + pattern + "' (whose code is " +
           std::to_string(PatternCode(pattern)) + "); the two must name the same pattern";
}

inline std::string DuplicatePhaseIdMessage(const std::string& id, size_t first, size_t again) {
    return "phase id '" + id + "' is used by phases " + std::to_string(first) + " and " + std::to_string(again) +
           "; goals, telemetry and repairs name phases by id, so each id must be unique";
}

// Reads the whole program, every section whichever player runs, as the Python model does:
// every range (all inclusive), the members each object may have and the characters of a
// phase id come from ProgramBounds.h, generated from the Python program model, so the three
// implementations accept the same programs; the table of why each range keeps every tick
// inside int64 is in gcv/sim/program_model.py and docs/simulation.md section 2. `player` is
// the run's (a bot's skill must be one the program carries: all three always are).
inline bool ReadProgram(const Json& prog, const PlayerSpec& player, Program& out, std::string& error) {
    using namespace program_bounds;
    FieldReader r;
    const std::string base = "program";
    if (!prog.IsObject()) {
        error = "field program: Input should be an object";
        return false;
    }
    r.NoExtra(prog, base, kProgramKeys);
    const std::string id = r.String(prog, "program", base);
    if (r.Ok() && id != "gcv.sim_program/1")
        r.Fail(base + ".program", "Input should be 'gcv.sim_program/1'");
    if (r.Ok()) out.configHash = ReadConfigHash(prog, r);
    out.tickHz = r.Int(prog, "tick_hz", base, kTickHzMin, kTickHzMax);
    out.durationTicks = r.Int(prog, "duration_ticks", base, kDurationTicksMin, kDurationTicksMax);
    if (const Json* a = r.Object(prog, "arena", base)) {
        std::string b = base + ".arena";
        r.NoExtra(*a, b, kArenaKeys);
        out.halfWidth = r.Int(*a, "half_width", b, kArenaHalfWidthMin, kArenaHalfWidthMax);
        out.halfHeight = r.Int(*a, "half_height", b, kArenaHalfHeightMin, kArenaHalfHeightMax);
        out.despawnX = r.Int(*a, "despawn_x", b, kArenaDespawnXMin, kArenaDespawnXMax);
        out.despawnY = r.Int(*a, "despawn_y", b, kArenaDespawnYMin, kArenaDespawnYMax);
    }
    if (const Json* p = r.Object(prog, "player", base)) {
        std::string b = base + ".player";
        r.NoExtra(*p, b, kPlayerKeys);
        out.maxHealth = r.Int(*p, "max_health", b, kPlayerMaxHealthMin, kPlayerMaxHealthMax);
        out.speed = r.Int(*p, "speed", b, kPlayerSpeedMin, kPlayerSpeedMax);
        out.focusSpeed = r.Int(*p, "focus_speed", b, kPlayerFocusSpeedMin, kPlayerFocusSpeedMax);
        out.hitRadius = r.Int(*p, "hit_radius", b, kPlayerHitRadiusMin, kPlayerHitRadiusMax);
        out.grazeRadius = r.Int(*p, "graze_radius", b, kPlayerGrazeRadiusMin, kPlayerGrazeRadiusMax);
        out.startX = r.Int(*p, "start_x", b, kPlayerStartXMin, kPlayerStartXMax);
        out.startY = r.Int(*p, "start_y", b, kPlayerStartYMin, kPlayerStartYMax);
        out.invulnerabilityTicks = r.Int(*p, "invulnerability_ticks", b, kPlayerInvulnerabilityTicksMin, kPlayerInvulnerabilityTicksMax);
        out.autoFireDamage = r.Int(*p, "auto_fire_damage", b, kPlayerAutoFireDamageMin, kPlayerAutoFireDamageMax);
        out.autoFireIntervalTicks = r.Int(*p, "auto_fire_interval_ticks", b, kPlayerAutoFireIntervalTicksMin, kPlayerAutoFireIntervalTicksMax);
    }
    if (const Json* bo = r.Object(prog, "boss", base)) {
        std::string b = base + ".boss";
        r.NoExtra(*bo, b, kBossKeys);
        out.bossMaxHealth = r.Int(*bo, "max_health", b, kBossMaxHealthMin, kBossMaxHealthMax);
        out.bossX = r.Int(*bo, "x", b, kBossXMin, kBossXMax);
        out.bossY = r.Int(*bo, "y", b, kBossYMin, kBossYMax);
    }
    if (const Json* phases = r.Array(prog, "phases", base)) {
        r.Count(phases->items.size(), base + ".phases", kPhaseCountMin, kPhaseCountMax);
        out.phases.clear();
        for (size_t i = 0; i < phases->items.size() && r.Ok(); ++i) {
            std::string b = FieldReader::Join(base + ".phases", i);
            const Json& ph = phases->items[i];
            if (!ph.IsObject()) {
                r.Fail(b, "Input should be an object");
                break;
            }
            r.NoExtra(ph, b, kPhaseKeys);
            PhaseSpec s;
            s.phaseId = r.Token(ph, "phase_id", b, kPhaseIdLengthMin, kPhaseIdLengthMax, kPhaseIdChars);
            s.triggerMicro = r.Int(ph, "trigger_micro", b, kPhaseTriggerMicroMin, kPhaseTriggerMicroMax);
            s.pattern = r.String(ph, "pattern", b);
            if (r.Ok() && PatternCode(s.pattern) < 0)
                r.Fail(b + ".pattern", "Input should be 'ring', 'spiral', 'aimed_fan', 'petal' or 'scatter'");
            s.scatter = s.pattern == "scatter";
            // the code must name the pattern (issue 25.13: every reader used to ignore it)
            const int64_t code = r.Int(ph, "pattern_code", b, kPhasePatternCodeMin, kPhasePatternCodeMax);
            if (r.Ok() && code != PatternCode(s.pattern)) r.Fail(b + ".pattern_code", PatternCodeMessage(code, s.pattern));
            // read for its range only (the slots carry the wave): every reader accepts the same programs
            r.Int(ph, "bullets_per_wave", b, kPhaseBulletsPerWaveMin, kPhaseBulletsPerWaveMax);
            s.waveIntervalTicks = r.Int(ph, "wave_interval_ticks", b, kPhaseWaveIntervalTicksMin, kPhaseWaveIntervalTicksMax);
            s.lifetimeTicks = r.Int(ph, "lifetime_ticks", b, kPhaseLifetimeTicksMin, kPhaseLifetimeTicksMax);
            s.rotationPerWave = r.Int(ph, "rotation_per_wave", b, kPhaseRotationPerWaveMin, kPhaseRotationPerWaveMax);
            s.aim = r.Bool(ph, "aim", b);
            s.scatterSpan = r.Int(ph, "scatter_span", b, kPhaseScatterSpanMin, kPhaseScatterSpanMax);
            if (const Json* slots = r.Array(ph, "slots", b)) {
                std::string sb = b + ".slots";
                r.Count(slots->items.size(), sb, kSlotCountMin, kSlotCountMax);
                for (size_t k = 0; k < slots->items.size() && r.Ok(); ++k) {
                    const Json& sl = slots->items[k];
                    std::string kb = FieldReader::Join(sb, k);
                    if (!sl.IsArray() || sl.items.size() != 3) {
                        r.Fail(kb, "should be [angle_offset, speed, rotation_sign]");
                        break;
                    }
                    int64_t off = 0, spd = 0, sign = 0;
                    r.IntValue(sl.items[0], FieldReader::Join(kb, size_t(0)), kSlotAngleOffsetMin, kSlotAngleOffsetMax, off);
                    r.IntValue(sl.items[1], FieldReader::Join(kb, size_t(1)), kSlotSpeedMin, kSlotSpeedMax, spd);
                    r.IntValue(sl.items[2], FieldReader::Join(kb, size_t(2)), kSlotRotationSignMin, kSlotRotationSignMax, sign);
                    s.slotOffset.push_back(off);
                    s.slotSpeed.push_back(spd);
                    s.slotSign.push_back(sign);
                }
            }
            out.phases.push_back(std::move(s));
        }
        // one id per phase (issue 25.13): telemetry, goals and repairs name phases by id
        for (size_t i = 0; i < out.phases.size() && r.Ok(); ++i)
            for (size_t j = 0; j < i && r.Ok(); ++j)
                if (out.phases[j].phaseId == out.phases[i].phaseId)
                    r.Fail(FieldReader::Join(base + ".phases", i) + ".phase_id",
                           DuplicatePhaseIdMessage(out.phases[i].phaseId, j, i));
    }
    if (const Json* sc = r.Object(prog, "scripted", base)) {
        std::string b = base + ".scripted";
        r.NoExtra(*sc, b, kScriptedKeys);
        out.rateX = r.Int(*sc, "rate_x", b, kScriptedRateXMin, kScriptedRateXMax);
        out.rateY = r.Int(*sc, "rate_y", b, kScriptedRateYMin, kScriptedRateYMax);
        out.ampX = r.Int(*sc, "amp_x", b, kScriptedAmpXMin, kScriptedAmpXMax);
        out.ampY = r.Int(*sc, "amp_y", b, kScriptedAmpYMin, kScriptedAmpYMax);
    }
    if (const Json* bot = r.Object(prog, "bot", base)) {
        std::string b = base + ".bot";
        r.NoExtra(*bot, b, kBotKeys);
        out.clearanceCap = r.Int(*bot, "clearance_cap", b, kBotClearanceCapMin, kBotClearanceCapMax);
        out.homeShift = r.Int(*bot, "home_shift", b, kBotHomeShiftMin, kBotHomeShiftMax);
        if (const Json* skills = r.Object(*bot, "skills", b)) {
            std::string sb = b + ".skills";
            r.NoExtra(*skills, sb, kSkillsKeys);
            for (const char* name : kSkillsKeys) {
                BotSkill* target = const_cast<BotSkill*>(out.Skill(name));
                if (const Json* sk = r.Object(*skills, name, sb)) {
                    std::string kb = FieldReader::Join(sb, std::string(name));
                    r.NoExtra(*sk, kb, kSkillKeys);
                    target->reactionTicks = r.Int(*sk, "reaction_ticks", kb, kSkillReactionTicksMin, kSkillReactionTicksMax);
                    target->lookaheadTicks = r.Int(*sk, "lookahead_ticks", kb, kSkillLookaheadTicksMin, kSkillLookaheadTicksMax);
                    target->mistakeThreshold = r.Int(*sk, "mistake_threshold", kb, kSkillMistakeThresholdMin, kSkillMistakeThresholdMax);
                }
            }
        }
    }
    if (player.kind == PlayerSpec::Kind::Bot && r.Ok() && !out.Skill(player.skill))
        r.Fail("player.skill", "Input should be 'novice', 'average' or 'expert'");
    if (const Json* fm = r.Object(prog, "frame_model", base)) {
        std::string b = base + ".frame_model";
        r.NoExtra(*fm, b, kFrameModelKeys);
        out.fixedUs = r.Int(*fm, "fixed_us", b, kFrameModelFixedUsMin, kFrameModelFixedUsMax);
        out.perBulletUs = r.Int(*fm, "per_bullet_us", b, kFrameModelPerBulletUsMin, kFrameModelPerBulletUsMax);
        out.perCheckUs = r.Int(*fm, "per_check_us", b, kFrameModelPerCheckUsMin, kFrameModelPerCheckUsMax);
    }
    out.stateHashInterval = r.Int(prog, "state_hash_interval", base, kStateHashIntervalMin, kStateHashIntervalMax);
    if (!r.Ok()) {
        error = r.error;
        return false;
    }
    return true;
}

// gcv.inputs/1 (gcv.sim.players.InputsTrace): strict, extra keys forbidden.
inline bool ReadInputsTrace(const Json& trace, const std::string& base, std::vector<InputStep>& out, FieldReader& r) {
    if (!trace.IsObject()) return r.Fail(base, "Input should be an object");
    r.NoExtra(trace, base, {"format", "tick_hz", "runs", "source"});
    std::string format = r.String(trace, "format", base);
    if (r.Ok() && format != "gcv.inputs/1") r.Fail(FieldReader::Join(base, "format"), "Input should be 'gcv.inputs/1'");
    const Json* hz = r.Member(trace, "tick_hz", base);
    if (hz && (!hz->IsInt64() || hz->integer != 60)) r.Fail(FieldReader::Join(base, "tick_hz"), "Input should be 60");
    if (const Json* src = trace.Find("source")) {
        if (!src->IsString())
            r.Fail(FieldReader::Join(base, "source"), "Input should be a valid string");
        else if (src->text.size() > 2000)  // 500 characters of up to 4 bytes
            r.Fail(FieldReader::Join(base, "source"), "String should have at most 500 characters");
    }
    const Json* runs = r.Array(trace, "runs", base);
    if (!r.Ok() || !runs) return false;
    std::string rb = FieldReader::Join(base, "runs");
    int64_t total = 0;
    out.clear();
    for (size_t i = 0; i < runs->items.size(); ++i) {
        const Json& run = runs->items[i];
        std::string ib = FieldReader::Join(rb, i);
        if (!run.IsArray() || run.items.size() != 4) return r.Fail(ib, "must be [ticks, dx, dy, focus]");
        int64_t ticks = 0, dx = 0, dy = 0, focus = 0;
        if (!r.IntValue(run.items[0], FieldReader::Join(ib, size_t(0)), 1, kMaxTraceTicks, ticks)) return false;
        if (!r.IntValue(run.items[1], FieldReader::Join(ib, size_t(1)), -1, 1, dx)) return false;
        if (!r.IntValue(run.items[2], FieldReader::Join(ib, size_t(2)), -1, 1, dy)) return false;
        if (!r.IntValue(run.items[3], FieldReader::Join(ib, size_t(3)), 0, 1, focus)) return false;
        total += ticks;
        if (total > kMaxTraceTicks)
            return r.Fail(rb, "trace covers " + std::to_string(total) + " ticks; at most " + std::to_string(kMaxTraceTicks));
        InputStep step;
        step.dx = static_cast<int8_t>(dx);
        step.dy = static_cast<int8_t>(dy);
        step.focus = static_cast<int8_t>(focus);
        out.insert(out.end(), static_cast<size_t>(ticks), step);
    }
    return true;
}

inline bool IsLowerHex64(const std::string& s) {
    if (s.size() != 64) return false;
    for (char c : s)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

inline bool IsRunId(const std::string& s) {
    if (s.empty() || s.size() > 80) return false;
    for (char c : s) {
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
                  c == '.' || c == '-';
        if (!ok) return false;
    }
    return true;
}

// Number of Unicode characters of valid UTF-8 text (for pydantic's length limits).
inline size_t Utf8Length(const std::string& s) {
    size_t n = 0;
    for (char c : s)
        if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
    return n;
}

// The request's "player" (a union on "kind": scripted | bot | inputs), errors under "player".
inline bool ReadPlayerSpec(const Json& pl, PlayerSpec& out, FieldReader& r) {
    std::string kind = r.String(pl, "kind", "player");
    if (!r.Ok()) return false;
    if (kind == "scripted") {
        out.kind = PlayerSpec::Kind::Scripted;
        r.NoExtra(pl, "player", {"kind"});
    } else if (kind == "bot") {
        out.kind = PlayerSpec::Kind::Bot;
        r.NoExtra(pl, "player", {"kind", "skill"});
        out.skill = r.String(pl, "skill", "player");
        if (r.Ok() && out.skill != "novice" && out.skill != "average" && out.skill != "expert")
            r.Fail("player.skill", "Input should be 'novice', 'average' or 'expert'");
    } else if (kind == "inputs") {
        out.kind = PlayerSpec::Kind::Inputs;
        r.NoExtra(pl, "player", {"kind", "trace"});
        if (const Json* tr = r.Object(pl, "trace", "player")) {
            out.traceJson = *tr;
            ReadInputsTrace(*tr, "player.trace", out.trace, r);
        }
    } else {
        r.Fail("player.kind", "Input tag '" + kind + "' does not match any of the expected tags: "
                              "'scripted', 'bot', 'inputs'");
    }
    return r.Ok();
}

// The run request model of engine_runners/protocol.py (strict, extra keys forbidden).
// `doc` must outlive `out` (out.program points into it).
inline bool ReadRunRequest(const Json& doc, RunRequest& out, std::string& error) {
    FieldReader r;
    const std::string base;
    if (!doc.IsObject()) {
        error = "field $: Input should be an object";
        return false;
    }
    r.NoExtra(doc, base, {"run_request", "run_id", "program", "program_hash", "config_hash", "seed", "player",
                          "player_label", "capture_ticks", "output_dir"});
    if (const Json* kind = doc.Find("run_request")) {
        if (!kind->IsString() || kind->text != "gcv.run_request/1")
            r.Fail("run_request", "Input should be 'gcv.run_request/1'");
    }
    out.runId = r.String(doc, "run_id", base);
    if (r.Ok() && !IsRunId(out.runId))
        r.Fail("run_id", "String should match pattern '^[A-Za-z0-9_.\\-]{1,80}$'");
    out.program = r.Object(doc, "program", base);
    out.programHash = r.String(doc, "program_hash", base);
    if (r.Ok() && !IsLowerHex64(out.programHash)) r.Fail("program_hash", "String should match pattern '^[0-9a-f]{64}$'");
    out.configHash = r.String(doc, "config_hash", base);
    if (r.Ok() && !IsLowerHex64(out.configHash)) r.Fail("config_hash", "String should match pattern '^[0-9a-f]{64}$'");
    out.seed = r.Int(doc, "seed", base, 0, INT64_MAX);
    if (const Json* pl = r.Object(doc, "player", base)) ReadPlayerSpec(*pl, out.player, r);
    out.playerLabel = r.String(doc, "player_label", base);
    if (r.Ok() && (out.playerLabel.empty() || Utf8Length(out.playerLabel) > 80))
        r.Fail("player_label", "String should have 1 to 80 characters");
    out.captureTicks.clear();
    if (const Json* ct = doc.Find("capture_ticks")) {
        if (!ct->IsArray()) {
            r.Fail("capture_ticks", "Input should be a valid list");
        } else if (ct->items.size() > 64) {
            r.Fail("capture_ticks", "List should have at most 64 items after validation");
        } else {
            for (size_t i = 0; i < ct->items.size() && r.Ok(); ++i) {
                int64_t v = 0;
                if (r.IntValue(ct->items[i], FieldReader::Join("capture_ticks", i), INT64_MIN, INT64_MAX, v))
                    out.captureTicks.push_back(v);
            }
        }
    }
    out.outputDir = r.String(doc, "output_dir", base);
    if (r.Ok() && out.outputDir.empty()) r.Fail("output_dir", "String should have at least 1 character");
    if (!r.Ok()) {
        error = r.error;
        return false;
    }
    return true;
}

}  // namespace gcv
