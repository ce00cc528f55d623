// Telemetry (gcv.telemetry/1), identical to gcv/sim/telemetry.py for every gameplay field.
//
// Gameplay figures are integers. The few non-integers (mean alive bullets, FPS figures) are
// an integer number of thousandths computed with integer arithmetic and written as that
// decimal (milli / 1000), so Python, C# and C++ print the same number.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "Gcv/Json.h"
#include "Gcv/Program.h"
#include "Gcv/Simulation.h"

namespace gcv {

constexpr const char* kTelemetryId = "gcv.telemetry/1";
constexpr const char* kCoreVersion = "0.1.0";

// Checked int64 arithmetic for the sums that grow with a run (Python ints never overflow;
// here an overflow is reported as an internal error instead of wrapping silently).
inline bool CheckedAdd(int64_t a, int64_t b, int64_t& out) {
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return false;
    out = a + b;
    return true;
}
inline bool CheckedMulNonNeg(int64_t a, int64_t b, int64_t& out) {
    if (a < 0 || b < 0) return false;
    if (a != 0 && b > INT64_MAX / a) return false;
    out = a * b;
    return true;
}

// round_half_up(1000 * numerator / denominator) for non-negative integers.
inline bool MilliRatio(int64_t numerator, int64_t denominator, int64_t& out) {
    int64_t twice;
    if (denominator <= 0 || !CheckedMulNonNeg(2000, numerator, twice) || !CheckedAdd(twice, denominator, twice))
        return false;
    out = twice / (2 * denominator);
    return true;
}

// milli / 1000 as Python's repr of that float writes it: 41432 -> "41.432", 12000 -> "12.0".
inline std::string MilliText(int64_t milli) {
    bool neg = milli < 0;
    uint64_t m = neg ? static_cast<uint64_t>(-(milli + 1)) + 1 : static_cast<uint64_t>(milli);
    std::string frac = std::to_string(m % 1000);
    frac = std::string(3 - frac.size(), '0') + frac;
    while (frac.size() > 1 && frac.back() == '0') frac.pop_back();
    return (neg ? "-" : "") + std::to_string(m / 1000) + "." + frac;
}

inline Json MilliJson(int64_t milli) { return Json::MakeNumberText(MilliText(milli), false); }

struct FrameFigures {
    int64_t averageFpsMilli = 0;
    int64_t lowFpsMilli = 0;  // 1% low: mean frame time of the worst max(1, n / 100) frames
    int64_t worstFrameUs = 0;
};

// (average_fps_milli, low_fps_milli, worst_frame_us) of frame times in microseconds; used
// for the modeled frames (harness, commandlet) and for measured ones (game mode) alike.
inline bool ComputeFrameFigures(const std::vector<int64_t>& frameUs, FrameFigures& out, std::string& error) {
    const int64_t n = static_cast<int64_t>(frameUs.size());
    if (n == 0) {
        error = "no frames";
        return false;
    }
    int64_t total = 0;
    for (int64_t f : frameUs)
        if (f < 0 || !CheckedAdd(total, f, total)) {
            error = "frame time total overflows int64";
            return false;
        }
    const int64_t count = MaxI(1, n / 100);
    std::vector<int64_t> sorted(frameUs);
    std::nth_element(sorted.begin(), sorted.begin() + (count - 1), sorted.end(), std::greater<int64_t>());
    int64_t worstSum = 0, worst = 0;
    for (int64_t i = 0; i < count; ++i) {
        worstSum += sorted[static_cast<size_t>(i)];
        worst = MaxI(worst, sorted[static_cast<size_t>(i)]);
    }
    if (total == 0 || worstSum == 0) {
        error = "frame times are all zero";
        return false;
    }
    int64_t scaledN, scaledCount;
    if (!CheckedMulNonNeg(1000000000, n, scaledN) || !CheckedMulNonNeg(1000000000, count, scaledCount)) {
        error = "too many frames";
        return false;
    }
    out.averageFpsMilli = scaledN / total;
    out.lowFpsMilli = scaledCount / worstSum;
    out.worstFrameUs = worst;
    return true;
}

struct EngineIdentity {
    std::string name = "ue5-harness";
    std::string implementation = "cpp";
    std::string version = kCoreVersion;
    std::string engineVersion;  // e.g. "5.4.4-..." inside Unreal; omitted when empty
};

// Where the frame figures come from. "model": the program's frame model (harness,
// commandlet); "measured": real frame times of a rendering engine.
struct FrameSource {
    std::string fpsSource = "model";
    bool useModel = true;                  // compute from sim.frameUs()
    std::vector<int64_t> measuredFrameUs;  // used when !useModel
    bool hasHardware = false;
    std::string gpu, cpu;
    int64_t wallTimeMs = -1;  // omitted when < 0
};

inline Json IntArray(const std::vector<int64_t>& v) {
    Json a = Json::MakeArray();
    a.items.reserve(v.size());
    for (int64_t x : v) a.Push(Json::MakeInt(x));
    return a;
}

inline Json IntOrNull(int64_t v) { return v < 0 ? Json::MakeNull() : Json::MakeInt(v); }

// The telemetry document of a finished run. `programHash` is the verified request hash.
inline bool BuildTelemetry(const Simulation& sim, const RunRequest& req, const std::string& programHash,
                           const EngineIdentity& engine, const FrameSource& frames, Json& out, std::string& error) {
    const Program& prog = sim.program();
    if (sim.status() == RunStatus::Running) {
        error = "telemetry is only defined for a finished run";
        return false;
    }
    const bool completed = sim.status() == RunStatus::Completed;
    out = Json::MakeObject();
    out.Set("telemetry", Json::MakeString(kTelemetryId));
    Json eng = Json::MakeObject();
    eng.Set("name", Json::MakeString(engine.name));
    eng.Set("implementation", Json::MakeString(engine.implementation));
    eng.Set("version", Json::MakeString(engine.version));
    if (!engine.engineVersion.empty()) eng.Set("engine_version", Json::MakeString(engine.engineVersion));
    out.Set("engine", eng);
    out.Set("run_id", Json::MakeString(req.runId));
    out.Set("status", Json::MakeString(completed ? "completed" : "died"));
    out.Set("end_reason", Json::MakeString(sim.endReason()));
    out.Set("ticks", Json::MakeInt(sim.tick()));
    out.Set("tick_hz", Json::MakeInt(prog.tickHz));
    out.Set("duration_ticks", Json::MakeInt(prog.durationTicks));
    out.Set("seed", Json::MakeInt(sim.seed()));
    out.Set("player", Json::MakeString(req.playerLabel));
    out.Set("config_hash", Json::MakeString(prog.configHash));
    out.Set("program_hash", Json::MakeString(programHash));
    out.Set("total_bullets_spawned", Json::MakeInt(sim.spawned()));
    out.Set("peak_alive_bullets", Json::MakeInt(sim.peak()));
    out.Set("player_hits", Json::MakeInt(sim.hits()));
    out.Set("hit_ticks", IntArray(sim.hitTicks()));
    out.Set("grazes", Json::MakeInt(sim.grazes()));
    out.Set("survival_ticks", Json::MakeInt(completed ? prog.durationTicks : sim.tick() - 1));
    out.Set("player_health_remaining", Json::MakeInt(MaxI(0, sim.health())));
    out.Set("boss_health_remaining", Json::MakeInt(sim.bossHealth()));
    Json phases = Json::MakeArray();
    int64_t reached = 0;
    for (const PhaseStats& st : sim.stats()) {
        Json p = Json::MakeObject();
        const bool wasReached = st.startTick >= 0;
        reached += wasReached ? 1 : 0;
        p.Set("phase_id", Json::MakeString(st.phaseId));
        p.Set("reached", Json::MakeBool(wasReached));
        p.Set("start_tick", IntOrNull(st.startTick));
        p.Set("end_tick", IntOrNull(st.endTick));
        p.Set("ticks", Json::MakeInt(st.ticks));
        p.Set("bullets_spawned", Json::MakeInt(st.bulletsSpawned));
        p.Set("player_hits", Json::MakeInt(st.playerHits));
        p.Set("grazes", Json::MakeInt(st.grazes));
        p.Set("peak_alive_bullets", Json::MakeInt(st.peakAliveBullets));
        p.Set("alive_tick_sum", Json::MakeInt(st.aliveTickSum));
        if (st.ticks) {
            int64_t milli;
            if (!MilliRatio(st.aliveTickSum, st.ticks, milli)) {
                error = "mean_alive_bullets overflows int64";
                return false;
            }
            p.Set("mean_alive_bullets", MilliJson(milli));
        } else {
            p.Set("mean_alive_bullets", Json::MakeInt(0));
        }
        phases.Push(std::move(p));
    }
    out.Set("phases_reached", Json::MakeInt(reached));
    out.Set("phase_results", std::move(phases));
    out.Set("alive_per_second", IntArray(sim.alivePerSecond()));
    out.Set("state_hash", Json::MakeString(sim.StateHash()));
    Json hashes = Json::MakeArray();
    for (const std::string& h : sim.stateHashes()) hashes.Push(Json::MakeString(h));
    out.Set("state_hashes", std::move(hashes));

    FrameFigures fig;
    if (!ComputeFrameFigures(frames.useModel ? sim.frameUs() : frames.measuredFrameUs, fig, error)) return false;
    int64_t worstMsMilli;
    if (!MilliRatio(fig.worstFrameUs, 1000, worstMsMilli)) {
        error = "worst frame time overflows int64";
        return false;
    }
    out.Set("fps_source", Json::MakeString(frames.fpsSource));
    out.Set("average_fps", MilliJson(fig.averageFpsMilli));
    out.Set("low_fps", MilliJson(fig.lowFpsMilli));
    out.Set("worst_frame_ms", MilliJson(worstMsMilli));
    if (frames.useModel) {
        Json fm = Json::MakeObject();
        fm.Set("fixed_us", Json::MakeInt(prog.fixedUs));
        fm.Set("per_bullet_us", Json::MakeInt(prog.perBulletUs));
        fm.Set("per_check_us", Json::MakeInt(prog.perCheckUs));
        out.Set("frame_model", std::move(fm));
    }
    if (frames.hasHardware) {
        Json hw = Json::MakeObject();
        hw.Set("gpu", frames.gpu.empty() ? Json::MakeNull() : Json::MakeString(frames.gpu));
        hw.Set("cpu", frames.cpu.empty() ? Json::MakeNull() : Json::MakeString(frames.cpu));
        out.Set("hardware", std::move(hw));
    }
    if (frames.wallTimeMs >= 0) out.Set("wall_time_ms", Json::MakeInt(frames.wallTimeMs));
    return true;
}

// gcv.sim.telemetry.NON_GAMEPLAY_FIELDS: may differ between engines.
inline bool IsNonGameplayField(const std::string& key) {
    static const char* names[] = {"engine",         "run_id",      "fps_source", "average_fps", "low_fps",
                                  "worst_frame_ms", "frame_model", "hardware",   "wall_time_ms"};
    for (const char* n : names)
        if (key == n) return true;
    return false;
}

// The part of a telemetry that every implementation must reproduce exactly.
inline Json GameplayView(const Json& telemetry) {
    Json out = Json::MakeObject();
    for (size_t i = 0; i < telemetry.keys.size(); ++i)
        if (!IsNonGameplayField(telemetry.keys[i])) out.Set(telemetry.keys[i], telemetry.values[i]);
    return out;
}

}  // namespace gcv
