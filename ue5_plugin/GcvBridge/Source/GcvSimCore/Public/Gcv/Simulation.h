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
#pragma once

#include <cstdint>
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

class Simulation {
public:
    // Bot candidate moves, in this order: stay, then counter-clockwise from +x; then the
    // same nine focused. Ties go to the lowest index.
    static constexpr int kBotMoves = 18;

    Simulation(const Program& program, const PlayerSpec& player) : prog_(program), player_(player) {
        const int dirs[9][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
        hitR2_ = prog_.hitRadius * prog_.hitRadius;
        grazeR2_ = prog_.grazeRadius * prog_.grazeRadius;
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
            // Speeds are taken as magnitudes: a program with negative speeds moves as fast.
            int64_t vmax = 0;
            for (const auto& ph : prog_.phases)
                for (int64_t v : ph.slotSpeed) {
                    const int64_t a = v < 0 ? -v : v;
                    if (a > vmax) vmax = a;
                }
            const int64_t speed = prog_.speed < 0 ? -prog_.speed : prog_.speed;
            int64_t reach = ISqrt(prog_.clearanceCap) + 1024 + (vmax + speed) * look_;
            botReach2_ = reach * reach;
        }
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
        X.clear();
        Y.clear();
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
        // 3. motion
        const size_t n0 = X.size();
        {
            int64_t* x = X.data();
            int64_t* y = Y.data();
            const int64_t* vx = VX.data();
            const int64_t* vy = VY.data();
            for (size_t i = 0; i < n0; ++i) {
                x[i] += vx[i];
                y[i] += vy[i];
            }
        }
        // 4. expiry (stable compaction); min_death only skips work, it changes nothing
        if (minDeath_ <= t) CompactExpired(t);
        // 5. emission
        if (t == nextWaveTick_) {
            Emit(t);
            ++waveIndex_;
            nextWaveTick_ = t + prog_.phases[static_cast<size_t>(idx)].waveIntervalTicks;
        }
        // 6. player
        MovePlayer(t);
        // 7. collisions and grazes
        PhaseStats& st = stats_[static_cast<size_t>(idx)];
        const int64_t checks = static_cast<int64_t>(X.size());
        hitThisTick_ = false;
        if (checks) {
            // Every bullet within the hit radius touches; grazes are the others within the
            // graze radius. The gate below only skips work: nothing can happen unless the
            // nearest bullet is within the larger of the two radii.
            const size_t n = X.size();
            d2_.resize(n);
            int64_t minD2 = INT64_MAX;
            for (size_t i = 0; i < n; ++i) {
                const int64_t dx = X[i] - px_, dy = Y[i] - py_;
                d2_[i] = dx * dx + dy * dy;
                if (d2_[i] < minD2) minD2 = d2_[i];
            }
            bool touching = false;
            int64_t nGraze = 0;
            if (minD2 <= grazeR2_ || minD2 <= hitR2_) {
                for (size_t i = 0; i < n; ++i) {
                    if (d2_[i] <= hitR2_) {
                        touching = true;
                    } else if (d2_[i] <= grazeR2_ && GR[i] == 0) {
                        GR[i] = 1;
                        ++nGraze;
                    }
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
        // 8. statistics
        const int64_t alive = static_cast<int64_t>(X.size());
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
    std::string StateHash() const {
        const int64_t header[16] = {tick_,
                                    px_,
                                    py_,
                                    health_,
                                    invulnUntil_,
                                    bossHealth_,
                                    phaseIndex_,
                                    waveIndex_,
                                    nextWaveTick_,
                                    static_cast<int64_t>(rng_.state),
                                    botMove_,
                                    botNextDecision_,
                                    spawned_,
                                    hits_,
                                    grazes_,
                                    static_cast<int64_t>(X.size())};
        Sha256 h;
        uint8_t buf[8 * 64];
        size_t used = 0;
        auto put = [&](int64_t v) {
            uint64_t u = static_cast<uint64_t>(v);
            for (int b = 0; b < 8; ++b) buf[used++] = static_cast<uint8_t>(u >> (8 * b));  // little-endian
            if (used == sizeof buf) {
                h.Update(buf, used);
                used = 0;
            }
        };
        for (int64_t v : header) put(v);
        for (const std::vector<int64_t>* arr : {&X, &Y, &VX, &VY, &DEATH, &PH, &GR})
            for (int64_t v : *arr) put(v);
        h.Update(buf, used);
        return h.HexDigest();
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
            {"grazes", grazes_},       {"bullet_count", static_cast<int64_t>(X.size())}};
        for (const auto& h : header) s.Set(h.first, Json::MakeInt(h.second));
        const std::pair<const char*, const std::vector<int64_t>*> arrays[7] = {
            {"X", &X}, {"Y", &Y}, {"VX", &VX}, {"VY", &VY}, {"DEATH", &DEATH}, {"PH", &PH}, {"GR", &GR}};
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

    // Bullet arrays, creation order (read-only for renderers).
    std::vector<int64_t> X, Y, VX, VY, DEATH, PH, GR;

private:
    Program prog_;
    PlayerSpec player_;
    int64_t hitR2_ = 0, grazeR2_ = 0;
    int64_t reaction_ = 0, look_ = 0, mistakeThreshold_ = 0, botReach2_ = 0;
    int64_t botStepX_[kBotMoves] = {}, botStepY_[kBotMoves] = {};

    int64_t seed_ = 0;
    SplitMix64 rng_;
    int64_t tick_ = 0, px_ = 0, py_ = 0, health_ = 0, invulnUntil_ = 0, bossHealth_ = 0;
    int phaseIndex_ = -1;
    int64_t waveIndex_ = 0, nextWaveTick_ = 0, botMove_ = 0, botNextDecision_ = 0;
    int64_t minDeath_ = int64_t(1) << 62;
    int64_t spawned_ = 0, hits_ = 0, grazes_ = 0, peak_ = 0, alive_ = 0;
    std::vector<int64_t> hitTicks_, frameUs_, alivePerSecond_;
    std::vector<std::string> stateHashes_;
    std::vector<PhaseStats> stats_;
    RunStatus status_ = RunStatus::Running;
    std::string endReason_;
    bool hitThisTick_ = false;
    // scratch: squared distances to the player (step 7), the bot's prefiltered bullets
    std::vector<int64_t> d2_, nearX_, nearY_, nearVX_, nearVY_;

    // Last phase whose trigger ratio is >= health / max_health (exact integer comparison).
    int PhaseIndexFor(int64_t health) const {
        int active = 0;
        for (size_t i = 0; i < prog_.phases.size(); ++i)
            if (prog_.phases[i].triggerMicro * prog_.bossMaxHealth >= health * 1000000) active = static_cast<int>(i);
        return active;
    }

    void RecomputeMinDeath() {
        int64_t m = int64_t(1) << 62;
        for (int64_t d : DEATH)
            if (d < m) m = d;
        minDeath_ = m;
    }

    void CompactExpired(int64_t t) {
        const size_t n = X.size();
        size_t w = 0;
        for (size_t i = 0; i < n; ++i) {
            if (DEATH[i] > t) {
                if (w != i) MoveBullet(i, w);
                ++w;
            }
        }
        Truncate(w);
        RecomputeMinDeath();
    }

    void CompactTouching() {  // uses d2_ from step 7 (positions have not moved since)
        const size_t n = X.size();
        size_t w = 0;
        for (size_t i = 0; i < n; ++i) {
            if (d2_[i] > hitR2_) {
                if (w != i) MoveBullet(i, w);
                ++w;
            }
        }
        Truncate(w);
        RecomputeMinDeath();
    }

    void MoveBullet(size_t from, size_t to) {
        X[to] = X[from];
        Y[to] = Y[from];
        VX[to] = VX[from];
        VY[to] = VY[from];
        DEATH[to] = DEATH[from];
        PH[to] = PH[from];
        GR[to] = GR[from];
    }

    void Truncate(size_t n) {
        X.resize(n);
        Y.resize(n);
        VX.resize(n);
        VY.resize(n);
        DEATH.resize(n);
        PH.resize(n);
        GR.resize(n);
    }

    void Emit(int64_t t) {
        const PhaseSpec& ph = prog_.phases[static_cast<size_t>(phaseIndex_)];
        const size_t n = ph.slotOffset.size();
        const int64_t bx = prog_.bossX, by = prog_.bossY;
        const int64_t rot = waveIndex_ * ph.rotationPerWave;
        const int64_t aim = ph.aim ? IAtan2(py_ - by, px_ - bx) : 0;
        const SinTable& sines = Sines();
        const int64_t life = ph.lifetimeTicks;
        X.reserve(X.size() + n);
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
            X.push_back(bx);
            Y.push_back(by);
            VX.push_back(vx);
            VY.push_back(vy);
            DEATH.push_back(death);
            PH.push_back(phaseIndex_);
            GR.push_back(0);
            if (death < minDeath_) minDeath_ = death;
        }
        spawned_ += static_cast<int64_t>(n);
        stats_[static_cast<size_t>(phaseIndex_)].bulletsSpawned += static_cast<int64_t>(n);
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
        const int64_t hw = prog_.halfWidth, hh = prog_.halfHeight;
        int64_t clear[kBotMoves];
        int64_t cx[kBotMoves], cy[kBotMoves];
        for (int c = 0; c < kBotMoves; ++c) clear[c] = prog_.clearanceCap;
        nearX_.clear();
        nearY_.clear();
        nearVX_.clear();
        nearVY_.clear();
        const size_t n = X.size();
        for (size_t i = 0; i < n; ++i) {
            int64_t dx = X[i] - px_, dy = Y[i] - py_;
            if (dx * dx + dy * dy < botReach2_) {
                nearX_.push_back(X[i]);
                nearY_.push_back(Y[i]);
                nearVX_.push_back(VX[i]);
                nearVY_.push_back(VY[i]);
            }
        }
        const size_t m = nearX_.size();
        const int64_t horizons[2] = {MaxI(1, look_ / 2), look_};
        for (int64_t h : horizons) {
            for (int c = 0; c < kBotMoves; ++c) {
                cx[c] = ClampI(px_ + botStepX_[c] * h, -hw, hw);
                cy[c] = ClampI(py_ + botStepY_[c] * h, -hh, hh);
            }
            for (size_t i = 0; i < m; ++i) {
                const int64_t bx = nearX_[i] + nearVX_[i] * h;
                const int64_t by = nearY_[i] + nearVY_[i] * h;
                for (int c = 0; c < kBotMoves; ++c) {
                    const int64_t ddx = bx - cx[c], ddy = by - cy[c];
                    const int64_t d2 = ddx * ddx + ddy * ddy;
                    if (d2 < clear[c]) clear[c] = d2;
                }
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
        if (static_cast<int64_t>(rng_.NextU64() >> 32) < mistakeThreshold_) best = rng_.Below(kBotMoves);
        return best;
    }
};

}  // namespace gcv
