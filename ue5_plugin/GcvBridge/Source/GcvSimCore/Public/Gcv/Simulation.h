// The fight, tick by tick: a port of gcv/sim/engine.py that must agree with it bit for bit.
//
// Rules that must never change without regenerating the golden vectors (and changing the
// Python reference and the C# port in the same commit):
// * One tick = the ten steps below, in this order: 1 auto-fire, 2 phase (recomputed only
//   on auto-fire ticks), 3 motion, 4 expiry (DEATH > t kept), 5 emission (aim uses the
//   player position before step 6; scatter draws Below(span) once per slot in slot order),
//   6 player move, 7 grazes then hits, 8 statistics, 9 state hash, 10 end conditions.
// * Bullets live in parallel int64 arrays in creation order; removal is stable in-place
//   compaction, never swap-remove.
// * Every shift that may see a negative value is a floor shift (Asr); divisions that may
//   see a negative numerator floor (FloorDiv).
// * The run's SplitMix64 is drawn only by scatter emission and bot decisions.
//
// The exact speed-ups of docs/simulation.md section 6.1, as the Python reference does them
// (the same formulas, integer for integer, so the two skip the same ticks even for programs
// no config compiles to):
// * Implicit motion: a bullet stores its spawn tick S; after its k-th move it is at
//   boss + k * v, the same integers as k additions. Positions are computed when something
//   reads them (collisions, the bot, the state hash, renderers through X and Y).
// * Collision skipping: after a check whose nearest bullet is at d2, no bullet can touch or
//   graze before safeUntil_ (the gap closes by at most closure_ per tick); a wave lowers the
//   bound for its new bullets from the boss-player distance.
// * Bot reach: bullets beyond the reach cannot change a decision; with nobody within reach
//   the decision depends on the position only (botClearUntil_ bounds how long that lasts).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "Gcv/Fixed.h"
#include "Gcv/Json.h"
#include "Gcv/Program.h"
#include "Gcv/Sha256.h"

namespace gcv {

struct PhaseStats {
    std::string phaseId;
    int64_t startTick = -1;  // -1: not reached (null in telemetry)
    int64_t endTick = -1;
    int64_t bulletsSpawned = 0;
    int64_t playerHits = 0;
    int64_t grazes = 0;
    int64_t peakAliveBullets = 0;
    int64_t aliveTickSum = 0;
    int64_t ticks = 0;
};

enum class RunStatus { Running, Completed, Died };

// One coordinate of every bullet after the motion step of the current tick, computed on
// demand (origin + v * age): indexable like the arrays it replaces, read-only.
class BulletAxis {
public:
    BulletAxis(const std::vector<int32_t>* velocity, const std::vector<int32_t>* spawn, const int64_t* tick,
               const int64_t* origin)
        : v_(velocity), s_(spawn), tick_(tick), origin_(origin) {}
    size_t size() const { return v_->size(); }
    bool empty() const { return v_->empty(); }
    int64_t operator[](size_t i) const { return *origin_ + int64_t((*v_)[i]) * (*tick_ - (*s_)[i]); }
    std::vector<int64_t> ToVector() const {
        std::vector<int64_t> out(size());
        for (size_t i = 0; i < out.size(); ++i) out[i] = (*this)[i];
        return out;
    }

private:
    const std::vector<int32_t>* v_;
    const std::vector<int32_t>* s_;
    const int64_t* tick_;
    const int64_t* origin_;
};

namespace detail {

// Everything a Simulation holds, apart from the X/Y views (which point into it): copying a
// Simulation copies this and re-points the views at the copy.
struct SimulationState {
    Program prog_;
    PlayerSpec player_;
    int64_t hitR2_ = 0, grazeR2_ = 0;
    int64_t reaction_ = 0, look_ = 0, mistakeThreshold_ = 0, botReach_ = 0, botReach2_ = 0;
    int64_t botStepX_[18] = {}, botStepY_[18] = {};
    // collision skipping (docs/simulation.md 6.1); noSkip_ when the closure is not positive
    int64_t playerStepMax_ = 0, closure_ = 0, radiusBound_ = 0;
    bool noSkip_ = false;

    int64_t seed_ = 0;
    SplitMix64 rng_;
    int64_t tick_ = 0, px_ = 0, py_ = 0, health_ = 0, invulnUntil_ = 0, bossHealth_ = 0;
    int phaseIndex_ = -1;
    int64_t waveIndex_ = 0, nextWaveTick_ = 0, botMove_ = 0, botNextDecision_ = 0;
    int64_t posTick_ = 0;          // the last tick whose motion step ran (positions are as of it)
    int64_t safeUntil_ = 0;        // no touch or graze is possible before this tick
    int64_t botClearUntil_ = 0;    // no bullet within the bot's reach before this tick
    int64_t minDeath_ = int64_t(1) << 62;
    int64_t spawned_ = 0, hits_ = 0, grazes_ = 0, peak_ = 0, alive_ = 0;
    std::vector<int64_t> hitTicks_, frameUs_, alivePerSecond_;
    std::vector<std::string> stateHashes_;
    std::vector<PhaseStats> stats_;
    RunStatus status_ = RunStatus::Running;
    std::string endReason_;
    bool hitThisTick_ = false;

    // Bullets, creation order: spawn tick, velocity, removal tick, phase, grazed flag. Stored as
    // narrow as the program bounds allow (ticks < 2^22, speeds <= 2^20: the velocity too),
    // which halves what compaction moves; the state hash widens them to int64 as specified.
    std::vector<int32_t> S, VX, VY, PH;
    std::vector<int64_t> DEATH;
    std::vector<uint8_t> GR;

    // scratch: squared distances to the player (step 7), the bot's bullets within reach, the
    // state hash's buffer
    std::vector<int64_t> d2_, nearX_, nearY_, nearVX_, nearVY_, hX_, hY_;
    mutable std::vector<int64_t> hashScratch_;
};

inline bool HostIsLittleEndian() {
    const uint32_t one = 1;
    unsigned char first;
    std::memcpy(&first, &one, 1);
    return first == 1;
}

}  // namespace detail

class Simulation : private detail::SimulationState {
public:
    // Bot candidate moves, in this order: stay, then counter-clockwise from +x; then the
    // same nine focused. Ties go to the lowest index.
    static constexpr int kBotMoves = 18;

    Simulation(const Program& program, const PlayerSpec& player)
        : X(&VX, &S, &posTick_, &prog_.bossX), Y(&VY, &S, &posTick_, &prog_.bossY) {
        prog_ = program;
        player_ = player;
        const int dirs[9][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
        hitR2_ = prog_.hitRadius * prog_.hitRadius;
        grazeR2_ = prog_.grazeRadius * prog_.grazeRadius;
        // Speeds are taken as magnitudes: a program with negative speeds moves as fast.
        int64_t vmax = 0;
        for (const auto& ph : prog_.phases)
            for (int64_t v : ph.slotSpeed) vmax = MaxI(vmax, v < 0 ? -v : v);
        if (player_.kind == PlayerSpec::Kind::Bot) {
            const BotSkill* skill = prog_.Skill(player_.skill);
            reaction_ = skill->reactionTicks;
            look_ = skill->lookaheadTicks;
            mistakeThreshold_ = skill->mistakeThreshold;
            int k = 0;
            for (int focus = 0; focus < 2; ++focus) {
                int64_t speed = focus ? prog_.focusSpeed : prog_.speed;
                int64_t diag = Asr(speed * kDiagonalQ16, 16);
                for (const auto& d : dirs) {
                    int64_t s = (d[0] && d[1]) ? diag : speed;
                    botStepX_[k] = d[0] * s;
                    botStepY_[k] = d[1] * s;
                    ++k;
                }
            }
            // Bullets farther than this can never bring a candidate's clearance under the
            // cap, so leaving them out changes nothing (a pure speed-up, as in Python).
            const int64_t speed = prog_.speed < 0 ? -prog_.speed : prog_.speed;
            botReach_ = ISqrt(prog_.clearanceCap) + 1024 + (vmax + speed) * look_;
            botReach2_ = botReach_ * botReach_;
        }
        // Per tick the player-bullet gap closes by at most closure_ (vmax, its table slack,
        // and the player's largest step); R bounds both radii.
        if (player_.kind == PlayerSpec::Kind::Scripted) {
            playerStepMax_ = Asr(prog_.ampX * (7 * (Asr(prog_.rateX, 16) + 1) + 2), 16) + 2 +
                             Asr(prog_.ampY * (7 * (Asr(prog_.rateY, 16) + 1) + 2), 16) + 2;
        } else {
            const int64_t s = prog_.speed < 0 ? -prog_.speed : prog_.speed;
            const int64_t f = prog_.focusSpeed < 0 ? -prog_.focusSpeed : prog_.focusSpeed;
            playerStepMax_ = MaxI(s, f) + 2;
        }
        closure_ = vmax + (vmax >> 15) + 2 + playerStepMax_;
        // A closure that is not positive bounds nothing (Python then checks every tick too).
        noSkip_ = closure_ <= 0;
        radiusBound_ = ISqrt(MaxI(hitR2_, grazeR2_)) + 1;
    }

    Simulation(const Simulation& other)
        : detail::SimulationState(other), X(&VX, &S, &posTick_, &prog_.bossX), Y(&VY, &S, &posTick_, &prog_.bossY) {}
    Simulation& operator=(const Simulation& other) {
        detail::SimulationState::operator=(other);  // X and Y keep pointing at this object
        return *this;
    }

    // ------------------------------------------------------------------ lifecycle
    void Reset(int64_t seed) {
        seed_ = seed;
        rng_ = SplitMix64(static_cast<uint64_t>(seed));
        tick_ = 0;
        px_ = prog_.startX;
        py_ = prog_.startY;
        health_ = prog_.maxHealth;
        invulnUntil_ = 0;
        bossHealth_ = prog_.bossMaxHealth;
        phaseIndex_ = -1;
        waveIndex_ = 0;
        nextWaveTick_ = 0;
        botMove_ = 0;
        botNextDecision_ = 0;
        posTick_ = 0;
        safeUntil_ = 0;
        botClearUntil_ = 0;
        S.clear();
        VX.clear();
        VY.clear();
        DEATH.clear();
        PH.clear();
        GR.clear();
        minDeath_ = int64_t(1) << 62;
        spawned_ = hits_ = grazes_ = peak_ = alive_ = 0;
        hitTicks_.clear();
        frameUs_.clear();
        frameUs_.reserve(static_cast<size_t>(prog_.durationTicks));
        alivePerSecond_.clear();
        stateHashes_.clear();
        stats_.assign(prog_.phases.size(), PhaseStats());
        for (size_t i = 0; i < prog_.phases.size(); ++i) stats_[i].phaseId = prog_.phases[i].phaseId;
        status_ = RunStatus::Running;
        endReason_.clear();
        hitThisTick_ = false;
    }

    // Advance one tick; returns true while the fight goes on.
    bool Step() {
        if (status_ != RunStatus::Running) return false;
        const int64_t t = tick_;
        // 1. auto-fire
        const bool fired = t % prog_.autoFireIntervalTicks == 0;
        if (fired) bossHealth_ = MaxI(0, bossHealth_ - prog_.autoFireDamage);
        // 2. phase (health only changes on auto-fire ticks)
        int idx = phaseIndex_;
        if (fired) idx = PhaseIndexFor(bossHealth_);
        if (idx != phaseIndex_) {
            if (phaseIndex_ >= 0) stats_[static_cast<size_t>(phaseIndex_)].endTick = t;
            phaseIndex_ = idx;
            waveIndex_ = 0;
            nextWaveTick_ = t;
            stats_[static_cast<size_t>(idx)].startTick = t;
        }
        // 3. motion: implicit (positions are boss + v * (posTick_ - S))
        posTick_ = t;
        // 4. expiry (stable compaction); minDeath_ only skips work, it changes nothing
        if (minDeath_ <= t) CompactExpired(t);
        // 5. emission
        if (t == nextWaveTick_) {
            Emit(t);
            ++waveIndex_;
            nextWaveTick_ = t + prog_.phases[static_cast<size_t>(idx)].waveIntervalTicks;
        }
        // 6. player
        MovePlayer(t);
        // 7. collisions and grazes (skipped while no bullet can be within either radius)
        PhaseStats& st = stats_[static_cast<size_t>(idx)];
        const int64_t checks = static_cast<int64_t>(VX.size());
        hitThisTick_ = false;
        if (checks && (noSkip_ || t >= safeUntil_)) Collide(t, st);
        // 8. statistics
        const int64_t alive = static_cast<int64_t>(VX.size());
        alive_ = alive;
        if (alive > peak_) peak_ = alive;
        st.ticks += 1;
        st.aliveTickSum += alive;
        if (alive > st.peakAliveBullets) st.peakAliveBullets = alive;
        frameUs_.push_back(prog_.fixedUs + prog_.perBulletUs * alive + prog_.perCheckUs * checks);
        if (t % 60 == 0)
            alivePerSecond_.push_back(alive);
        else if (alive > alivePerSecond_.back())
            alivePerSecond_.back() = alive;
        // 9. state hash (the header's tick is still t here)
        if ((t + 1) % prog_.stateHashInterval == 0) stateHashes_.push_back(StateHash());
        // 10. end conditions
        tick_ = t + 1;
        if (health_ <= 0) {
            status_ = RunStatus::Died;
            endReason_ = "player_died";
        } else if (bossHealth_ == 0) {
            status_ = RunStatus::Completed;
            endReason_ = "boss_defeated";
        } else if (tick_ >= prog_.durationTicks) {
            status_ = RunStatus::Completed;
            endReason_ = "time_up";
        }
        if (status_ != RunStatus::Running) {
            st.endTick = tick_;
            return false;
        }
        return true;
    }

    // Whole run (no snapshots): reset, then step to the end.
    void Run(int64_t seed) {
        Reset(seed);
        while (Step()) {
        }
    }

    // For an inputs player driven live (manual play): the input of the coming tick. The
    // trace grows by one entry per tick, so replaying the recorded trace is identical.
    void PushLiveInput(int dx, int dy, int focus) {
        InputStep s;
        s.dx = static_cast<int8_t>(dx < 0 ? -1 : dx > 0 ? 1 : 0);
        s.dy = static_cast<int8_t>(dy < 0 ? -1 : dy > 0 ? 1 : 0);
        s.focus = static_cast<int8_t>(focus ? 1 : 0);
        player_.trace.resize(static_cast<size_t>(tick_));  // entries before this tick are kept
        player_.trace.push_back(s);
    }

    // ------------------------------------------------------------------ hashing
    // sha256 of the header and the seven arrays as little-endian int64, fed in whole arrays.
    std::string StateHash() const {
        const size_t n = VX.size();
        std::vector<int64_t>& buf = hashScratch_;
        buf.resize(16 + 7 * n);
        int64_t* h = buf.data();
        h[0] = tick_;
        h[1] = px_;
        h[2] = py_;
        h[3] = health_;
        h[4] = invulnUntil_;
        h[5] = bossHealth_;
        h[6] = phaseIndex_;
        h[7] = waveIndex_;
        h[8] = nextWaveTick_;
        h[9] = static_cast<int64_t>(rng_.state);
        h[10] = botMove_;
        h[11] = botNextDecision_;
        h[12] = spawned_;
        h[13] = hits_;
        h[14] = grazes_;
        h[15] = static_cast<int64_t>(n);
        // header, then X, Y, VX, VY, DEATH, PH, GR as int64: one contiguous buffer, one Update
        int64_t* xs = h + 16;
        int64_t* ys = xs + n;
        int64_t* vxs = ys + n;
        int64_t* vys = vxs + n;
        int64_t* deaths = vys + n;
        int64_t* phs = deaths + n;
        int64_t* grs = phs + n;
        const int64_t bx = prog_.bossX, by = prog_.bossY, t = posTick_;
        for (size_t i = 0; i < n; ++i) {
            const int64_t age = t - S[i];
            vxs[i] = VX[i];
            vys[i] = VY[i];
            xs[i] = bx + vxs[i] * age;
            ys[i] = by + vys[i] * age;
            phs[i] = PH[i];
            grs[i] = GR[i];
        }
        if (n) std::memcpy(deaths, DEATH.data(), n * sizeof(int64_t));
        Sha256 sha;
        if (detail::HostIsLittleEndian())
            sha.Update(buf.data(), buf.size() * sizeof(int64_t));
        else
            sha.UpdateInt64LE(buf.data(), buf.size());
        return sha.HexDigest();
    }

    // The state the hash covers, as JSON (field names as the Python test helpers use), for
    // naming the first field where two implementations diverge.
    Json StateDump() const {
        Json s = Json::MakeObject();
        const std::pair<const char*, int64_t> header[16] = {
            {"tick", tick_},           {"px", px_},
            {"py", py_},               {"health", health_},
            {"invuln_until", invulnUntil_}, {"boss_health", bossHealth_},
            {"phase_index", phaseIndex_},   {"wave_index", waveIndex_},
            {"next_wave_tick", nextWaveTick_}, {"rng_state", static_cast<int64_t>(rng_.state)},
            {"bot_move", botMove_},    {"bot_next_decision", botNextDecision_},
            {"spawned", spawned_},     {"hits", hits_},
            {"grazes", grazes_},       {"bullet_count", static_cast<int64_t>(VX.size())}};
        for (const auto& h : header) s.Set(h.first, Json::MakeInt(h.second));
        const std::vector<int64_t> xs = X.ToVector(), ys = Y.ToVector(), vxs(VX.begin(), VX.end()),
                                   vys(VY.begin(), VY.end()), phs(PH.begin(), PH.end()), grs(GR.begin(), GR.end());
        const std::pair<const char*, const std::vector<int64_t>*> arrays[7] = {
            {"X", &xs}, {"Y", &ys}, {"VX", &vxs}, {"VY", &vys}, {"DEATH", &DEATH}, {"PH", &phs}, {"GR", &grs}};
        for (const auto& a : arrays) {
            Json arr = Json::MakeArray();
            for (int64_t v : *a.second) arr.Push(Json::MakeInt(v));
            s.Set(a.first, std::move(arr));
        }
        return s;
    }

    // ------------------------------------------------------------------ accessors
    const Program& program() const { return prog_; }
    const PlayerSpec& player() const { return player_; }
    int64_t seed() const { return seed_; }
    int64_t tick() const { return tick_; }
    int64_t playerX() const { return px_; }
    int64_t playerY() const { return py_; }
    int64_t health() const { return health_; }
    int64_t invulnUntil() const { return invulnUntil_; }
    int64_t bossHealth() const { return bossHealth_; }
    int phaseIndex() const { return phaseIndex_; }
    int64_t spawned() const { return spawned_; }
    int64_t hits() const { return hits_; }
    int64_t grazes() const { return grazes_; }
    int64_t peak() const { return peak_; }
    bool hitThisTick() const { return hitThisTick_; }
    RunStatus status() const { return status_; }
    const std::string& endReason() const { return endReason_; }
    const std::vector<int64_t>& hitTicks() const { return hitTicks_; }
    const std::vector<int64_t>& frameUs() const { return frameUs_; }
    const std::vector<int64_t>& alivePerSecond() const { return alivePerSecond_; }
    const std::vector<std::string>& stateHashes() const { return stateHashes_; }
    const std::vector<PhaseStats>& stats() const { return stats_; }

    // Bullet arrays, creation order (read-only for renderers). X and Y are computed from the
    // spawn tick and the velocity when read.
    using detail::SimulationState::VX;
    using detail::SimulationState::VY;
    using detail::SimulationState::DEATH;
    using detail::SimulationState::PH;
    using detail::SimulationState::GR;
    BulletAxis X, Y;

private:
    // Last phase whose trigger ratio is >= health / max_health (exact integer comparison).
    int PhaseIndexFor(int64_t health) const {
        int active = 0;
        for (size_t i = 0; i < prog_.phases.size(); ++i)
            if (prog_.phases[i].triggerMicro * prog_.bossMaxHealth >= health * 1000000) active = static_cast<int>(i);
        return active;
    }

    // t + 1 + gap // closure for gap >= 0 (the ticks no bullet can close the gap in).
    int64_t ClearUntil(int64_t t, int64_t gap) const { return t + 1 + (gap >= 0 && !noSkip_ ? gap / closure_ : 0); }

    void Collide(int64_t t, PhaseStats& st) {
        const size_t n = VX.size();
        const int32_t* s = S.data();
        const int32_t* vx = VX.data();
        const int32_t* vy = VY.data();
        d2_.resize(n);
        int64_t* d2s = d2_.data();
        const int64_t ox = prog_.bossX - px_, oy = prog_.bossY - py_;
        int64_t nearest = INT64_MAX;
        for (size_t i = 0; i < n; ++i) {
            const int64_t age = t - s[i];
            const int64_t dx = ox + int64_t(vx[i]) * age, dy = oy + int64_t(vy[i]) * age;
            const int64_t d2 = dx * dx + dy * dy;
            d2s[i] = d2;
            if (d2 < nearest) nearest = d2;
        }
        safeUntil_ = ClearUntil(t, ISqrt(nearest) - radiusBound_ - 1);
        // Nothing can happen unless the nearest bullet is within the larger radius.
        if (!(nearest <= grazeR2_ || nearest <= hitR2_)) return;
        // Every bullet within the hit radius touches; grazes are the others within the
        // graze radius. Touching bullets are removed below (stable), in every case.
        bool touching = false;
        int64_t nGraze = 0;
        for (size_t i = 0; i < n; ++i) {
            const int64_t d2 = d2s[i];
            if (d2 <= hitR2_) {
                touching = true;
            } else if (d2 <= grazeR2_ && GR[i] == 0) {
                GR[i] = 1;
                ++nGraze;
            }
        }
        if (nGraze) {
            grazes_ += nGraze;
            st.grazes += nGraze;
        }
        if (touching) {
            if (t >= invulnUntil_) {
                health_ -= 1;
                hits_ += 1;
                hitTicks_.push_back(t);
                st.playerHits += 1;
                invulnUntil_ = t + 1 + prog_.invulnerabilityTicks;
                hitThisTick_ = true;
            }
            CompactTouching();
        }
    }

    // Keeps the bullets for which keep(i) holds, in order; minDeath_ becomes the kept minimum.
    // Bullets leave in clusters (a wave's lifetime, a side of the arena), so the kept ones are
    // moved run by run: long runs with memmove, short ones element by element.
    template <typename T>
    static void MoveRun(std::vector<T>& a, size_t to, size_t from, size_t len) {
        T* p = a.data();
        if (len >= 16)
            std::memmove(p + to, p + from, len * sizeof(T));
        else
            for (size_t j = 0; j < len; ++j) p[to + j] = p[from + j];
    }

    template <typename Keep>
    void Compact(Keep keep) {
        const size_t n = VX.size();
        const int64_t* death = DEATH.data();
        int64_t m = int64_t(1) << 62;
        size_t w = 0;
        for (; w < n && keep(w); ++w) m = MinI(m, death[w]);  // nothing moves before the first removal
        size_t i = w;
        while (i < n) {
            while (i < n && !keep(i)) ++i;
            const size_t start = i;
            for (; i < n && keep(i); ++i) m = MinI(m, death[i]);
            const size_t len = i - start;
            if (len) {
                MoveRun(S, w, start, len);
                MoveRun(VX, w, start, len);
                MoveRun(VY, w, start, len);
                MoveRun(DEATH, w, start, len);
                MoveRun(PH, w, start, len);
                MoveRun(GR, w, start, len);
            }
            w += len;
        }
        S.resize(w);
        VX.resize(w);
        VY.resize(w);
        DEATH.resize(w);
        PH.resize(w);
        GR.resize(w);
        minDeath_ = m;
    }

    void CompactExpired(int64_t t) {
        const int64_t* death = DEATH.data();
        Compact([death, t](size_t i) { return death[i] > t; });
    }

    void CompactTouching() {  // uses d2_ from Collide (positions have not moved since)
        const int64_t* d2s = d2_.data();
        const int64_t r2 = hitR2_;
        Compact([d2s, r2](size_t i) { return d2s[i] > r2; });
    }

    void Emit(int64_t t) {
        const PhaseSpec& ph = prog_.phases[static_cast<size_t>(phaseIndex_)];
        const size_t n = ph.slotOffset.size();
        const int64_t bx = prog_.bossX, by = prog_.bossY;
        const int64_t rot = waveIndex_ * ph.rotationPerWave;
        const int64_t aim = ph.aim ? IAtan2(py_ - by, px_ - bx) : 0;
        const SinTable& sines = Sines();
        const int64_t life = ph.lifetimeTicks;
        const size_t size = VX.size() + n;
        S.reserve(size);
        VX.reserve(size);
        VY.reserve(size);
        DEATH.reserve(size);
        PH.reserve(size);
        GR.reserve(size);
        for (size_t j = 0; j < n; ++j) {
            int64_t base = rot * ph.slotSign[j] + ph.slotOffset[j] + aim;
            if (ph.scatter) base += rng_.Below(ph.scatterSpan);
            const int64_t angle = AngleIndex(base);
            const int64_t speed = ph.slotSpeed[j];
            const int64_t vx = Asr(speed * sines.value[AngleIndex(angle + kQuarter)], 16);
            const int64_t vy = Asr(speed * sines.value[angle], 16);
            // Ticks until the bullet is beyond the despawn margin (removed in step 4 of
            // tick spawn + k, after its k-th move).
            int64_t k = life;
            if (vx > 0) k = MinI(k, FloorDiv(prog_.despawnX - bx, vx) + 1);
            if (vx < 0) k = MinI(k, FloorDiv(prog_.despawnX + bx, -vx) + 1);
            if (vy > 0) k = MinI(k, FloorDiv(prog_.despawnY - by, vy) + 1);
            if (vy < 0) k = MinI(k, FloorDiv(prog_.despawnY + by, -vy) + 1);
            const int64_t death = t + k;
            S.push_back(static_cast<int32_t>(t));
            VX.push_back(static_cast<int32_t>(vx));
            VY.push_back(static_cast<int32_t>(vy));
            DEATH.push_back(death);
            PH.push_back(phaseIndex_);
            GR.push_back(0);
            if (death < minDeath_) minDeath_ = death;
        }
        spawned_ += static_cast<int64_t>(n);
        stats_[static_cast<size_t>(phaseIndex_)].bulletsSpawned += static_cast<int64_t>(n);
        // New bullets start at the boss: bound how soon they can reach the player, who may
        // still move this tick (step 6) before collisions (step 7).
        const int64_t dbx = bx - px_, dby = by - py_;
        const int64_t dist = ISqrt(dbx * dbx + dby * dby);
        int64_t gap = dist - playerStepMax_ - radiusBound_ - 1;
        safeUntil_ = MinI(safeUntil_, gap >= 0 ? ClearUntil(t, gap) : t);
        if (player_.kind == PlayerSpec::Kind::Bot) {
            gap = dist - playerStepMax_ - botReach_ - 1;
            botClearUntil_ = MinI(botClearUntil_, gap >= 0 ? ClearUntil(t, gap) : t);
        }
    }

    void MovePlayer(int64_t t) {
        const int64_t hw = prog_.halfWidth, hh = prog_.halfHeight;
        if (player_.kind == PlayerSpec::Kind::Scripted) {
            const int64_t ax = Asr(t * prog_.rateX, 16);
            const int64_t ay = Asr(t * prog_.rateY, 16);
            const int64_t x = Asr(ISin(ax) * prog_.ampX, 16);
            const int64_t y = prog_.startY + Asr(ISin(ay) * prog_.ampY, 16);
            px_ = ClampI(x, -hw, hw);
            py_ = ClampI(y, -hh, hh);
            return;
        }
        int64_t sx, sy;
        if (player_.kind == PlayerSpec::Kind::Bot) {
            if (t >= botNextDecision_) {
                botMove_ = BotDecide();
                botNextDecision_ = t + reaction_;
            }
            sx = botStepX_[botMove_];
            sy = botStepY_[botMove_];
        } else {
            InputStep in;
            if (t < static_cast<int64_t>(player_.trace.size())) in = player_.trace[static_cast<size_t>(t)];
            int64_t speed = in.focus ? prog_.focusSpeed : prog_.speed;
            if (in.dx && in.dy) speed = Asr(speed * kDiagonalQ16, 16);
            sx = in.dx * speed;
            sy = in.dy * speed;
        }
        px_ = ClampI(px_ + sx, -hw, hw);
        py_ = ClampI(py_ + sy, -hh, hh);
    }

    int64_t BotDecide() {
        int64_t best = BotBest();
        if (static_cast<int64_t>(rng_.NextU64() >> 32) < mistakeThreshold_) best = rng_.Below(kBotMoves);
        return best;
    }

    // The lowest index of the highest score: clearance (capped) minus the home penalty at
    // the full look-ahead.
    int64_t BotBest() {
        const int64_t hw = prog_.halfWidth, hh = prog_.halfHeight;
        const int64_t t = posTick_;
        nearX_.clear();
        nearY_.clear();
        nearVX_.clear();
        nearVY_.clear();
        const size_t n = VX.size();
        if (n && (noSkip_ || t >= botClearUntil_)) {
            const int32_t* s = S.data();
            const int32_t* vx = VX.data();
            const int32_t* vy = VY.data();
            const int64_t bx = prog_.bossX, by = prog_.bossY;
            int64_t nearest = INT64_MAX;
            for (size_t i = 0; i < n; ++i) {
                const int64_t age = t - s[i];
                const int64_t x = bx + int64_t(vx[i]) * age, y = by + int64_t(vy[i]) * age;
                const int64_t dx = x - px_, dy = y - py_;
                const int64_t d2 = dx * dx + dy * dy;
                if (d2 < nearest) nearest = d2;
                if (d2 < botReach2_) {
                    nearX_.push_back(x);
                    nearY_.push_back(y);
                    nearVX_.push_back(vx[i]);
                    nearVY_.push_back(vy[i]);
                }
            }
            // Nobody within reach: nobody can be for the next few ticks either.
            if (nearX_.empty()) botClearUntil_ = ClearUntil(t, ISqrt(nearest) - botReach_ - 1);
        }
        int64_t clear[kBotMoves];
        int64_t cx[kBotMoves], cy[kBotMoves];
        for (int c = 0; c < kBotMoves; ++c) clear[c] = prog_.clearanceCap;
        const size_t m = nearX_.size();
        hX_.resize(m);
        hY_.resize(m);
        // The next tick, a quarter, half and all of the lookahead (docs/simulation.md). With
        // nobody within reach only the last horizon's positions matter (the home penalty);
        // the clearances stay at the cap.
        constexpr int kHorizons = 4;
        const int64_t horizons[kHorizons] = {1, MaxI(1, look_ / 4), MaxI(1, look_ / 2), look_};
        for (int hi = m ? 0 : kHorizons - 1; hi < kHorizons; ++hi) {
            const int64_t h = horizons[hi];
            for (int c = 0; c < kBotMoves; ++c) {
                cx[c] = ClampI(px_ + botStepX_[c] * h, -hw, hw);
                cy[c] = ClampI(py_ + botStepY_[c] * h, -hh, hh);
            }
            // Where each bullet within reach will be at this horizon, then each candidate's
            // nearest of them (the minimum kept in a register, bullets streamed).
            int64_t* hx = hX_.data();
            int64_t* hy = hY_.data();
            for (size_t i = 0; i < m; ++i) {
                hx[i] = nearX_[i] + nearVX_[i] * h;
                hy[i] = nearY_[i] + nearVY_[i] * h;
            }
            for (int c = 0; c < kBotMoves; ++c) {
                const int64_t x = cx[c], y = cy[c];
                int64_t best = clear[c];
                for (size_t i = 0; i < m; ++i) {
                    const int64_t ddx = hx[i] - x, ddy = hy[i] - y;
                    const int64_t d2 = ddx * ddx + ddy * ddy;
                    if (d2 < best) best = d2;
                }
                clear[c] = best;
            }
        }
        int64_t best = 0, bestScore = 0;
        for (int c = 0; c < kBotMoves; ++c) {
            const int64_t hx = cx[c] - prog_.startX, hy = cy[c] - prog_.startY;
            const int64_t score = clear[c] - Asr(hx * hx + hy * hy, static_cast<int>(prog_.homeShift));
            if (c == 0 || score > bestScore) {  // first maximum, as np.argmax
                best = c;
                bestScore = score;
            }
        }
        return best;
    }
};

}  // namespace gcv
