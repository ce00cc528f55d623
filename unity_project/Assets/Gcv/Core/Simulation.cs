// The simulation: a port of gcv/sim/engine.py that agrees with it bit for bit.
//
// Bullets live in parallel long[] arrays in creation order (S, VX, VY, DEATH, PH, GR: spawn
// tick, velocity, removal tick, phase, grazed flag), with manual capacity growth; removal is
// stable in-place compaction (never swap-remove).
//
// The exact speed-ups of docs/simulation.md 6.1, with the reference's formulas integer for
// integer (so both skip the same ticks, whatever the program):
// * implicit motion: after its k-th move a bullet is at boss + k * v; X and Y are computed
//   when read (collisions, the bot, the state hash, GcvView through the X/Y properties);
// * collision skipping: no touch or graze is possible before safeUntil (the gap closes by at
//   most `closure` a tick);
// * bot reach: bullets beyond the reach cannot change a decision; with nobody within it the
//   decision depends on the position only, and botClearUntil bounds how long that lasts.
// Everything that numpy computes on int64 arrays wraps on overflow in both implementations
// alike; the scalar arithmetic that Python does with unbounded ints stays far inside int64
// for every program SimProgram.FromJson accepts (see the bounds there).
using System;
using System.Collections.Generic;
using System.Security.Cryptography;

namespace Gcv.Core
{
    public sealed class PhaseStats
    {
        public string PhaseId;
        public long? StartTick;
        public long? EndTick;
        public long BulletsSpawned, PlayerHits, Grazes, PeakAliveBullets, AliveTickSum, Ticks;
    }

    public sealed class Simulation
    {
        public const long DiagonalQ16 = 46341; // round(65536 / sqrt(2))
        // Bot candidate moves, in this order: stay, then counter-clockwise from +x; then the
        // same nine focused. Ties go to the lowest index.
        static readonly int[] BotDirX = { 0, 1, 1, 0, -1, -1, -1, 0, 1 };
        static readonly int[] BotDirY = { 0, 0, 1, 1, 1, 0, -1, -1, -1 };
        const long NoDeath = 1L << 62;

        public readonly SimProgram Program;
        public readonly PlayerSpec Player;

        // ------------------------------------------------------------------ constants
        readonly long hw, hh, despawnX, despawnY, hitR2, grazeR2, fireInterval, fireDamage, bossMaxHealth;
        readonly long reaction, look, mistakeThreshold, clearanceCap;
        readonly int homeShift;
        readonly long[] botStepX = new long[18], botStepY = new long[18];
        readonly long[] horizons = new long[4];  // the bot's: the next tick, a quarter, half and all of `look`
        readonly long botReach, botReach2;
        // collision skipping; noSkip when the closure is not positive (the reference then checks every tick too)
        readonly long playerStepMax, closure, radiusBound;
        readonly bool noSkip;
        readonly sbyte[] traceDx, traceDy, traceFocus;

        // ------------------------------------------------------------------ state
        public long Seed;
        public SplitMix64 Rng;
        public long Tick;
        public long Px, Py;
        public long Health;
        public long InvulnUntil;
        public long BossHealth;
        public int PhaseIndex;
        public long WaveIndex;
        public long NextWaveTick;
        public int BotMove;
        public long BotNextDecision;

        /// <summary>Bullet arrays; entries [0, Count) are alive, in creation order.</summary>
        public long[] S, VX, VY, DEATH, PH, GR;
        public int Count;
        long minDeath;
        long posTick;         // the last tick whose motion step ran: positions are as of it
        long safeUntil;       // no touch or graze is possible before this tick
        long botClearUntil;   // no bullet within the bot's reach before this tick
        long[] xs = new long[0], ys = new long[0];
        int version, materialized = -1;  // positions in xs/ys are those of bullet state `version`

        /// <summary>Bullet positions, [0, Count), computed from the spawn tick and velocity when read.</summary>
        public long[] X { get { Materialize(); return xs; } }
        public long[] Y { get { Materialize(); return ys; } }

        public long Spawned, Hits, Grazes, Peak, Alive;
        public readonly List<long> HitTicks = new List<long>();
        public long[] FrameUs = new long[0];
        public int FrameCount;
        public readonly List<long> AlivePerSecond = new List<long>();
        public readonly List<string> StateHashes = new List<string>();
        public PhaseStats[] Stats;
        public string Status;      // null while running; "completed" | "died"
        public string EndReason;   // "player_died" | "boss_defeated" | "time_up"
        public bool HitThisTick;

        // live inputs (PlayerSpec.Live): the input of the next tick
        int liveDx, liveDy, liveFocus;

        // scratch
        byte[] touchMask = new byte[0];
        int[] nearIdx = new int[0];
        long[] nearBx = new long[0], nearBy = new long[0], nearX = new long[0], nearY = new long[0];
        readonly long[] candX = new long[18], candY = new long[18], clear = new long[18];
        byte[] hashBuf = new byte[0];
        SHA256 sha;

        public Simulation(SimProgram program, PlayerSpec player)
        {
            Program = program;
            Player = player;
            hw = program.HalfWidth; hh = program.HalfHeight;
            despawnX = program.DespawnX; despawnY = program.DespawnY;
            hitR2 = program.HitRadius * program.HitRadius;
            grazeR2 = program.GrazeRadius * program.GrazeRadius;
            fireInterval = program.AutoFireIntervalTicks;
            fireDamage = program.AutoFireDamage;
            bossMaxHealth = program.BossMaxHealth;
            if (player.Kind == PlayerKind.Bot)
            {
                BotSkill skill;
                if (!program.Skills.TryGetValue(player.Skill, out skill))
                    throw new BadRequestException("program.bot.skills." + player.Skill, "field required (the player is bot:" + player.Skill + ")");
                reaction = skill.ReactionTicks;
                look = skill.LookaheadTicks;
                horizons[0] = 1;
                horizons[1] = Math.Max(1, Fixed.FloorDiv(look, 4));
                horizons[2] = Math.Max(1, Fixed.FloorDiv(look, 2));
                horizons[3] = look;
                mistakeThreshold = skill.MistakeThreshold;
                clearanceCap = program.ClearanceCap;
                homeShift = (int)program.HomeShift;
                int c = 0;
                for (int focus = 0; focus < 2; focus++)
                {
                    long speed = focus != 0 ? program.FocusSpeed : program.Speed;
                    long diag = (speed * DiagonalQ16) >> 16;
                    for (int d = 0; d < 9; d++, c++)
                    {
                        long s = (BotDirX[d] != 0 && BotDirY[d] != 0) ? diag : speed;
                        botStepX[c] = BotDirX[d] * s;
                        botStepY[c] = BotDirY[d] * s;
                    }
                }
                // Bullets farther than this can never bring a candidate's clearance under the
                // cap, so leaving them out changes nothing (a pure speed-up, see the spec).
                // Speeds are taken as magnitudes: a program with negative speeds moves as fast.
                botReach = Fixed.IsqrtFloor(clearanceCap) + 1024 + (SlotSpeedMax(program) + Math.Abs(program.Speed)) * look;
                // reach < 2^57 by the program bounds; its square may not fit: saturate.
                botReach2 = botReach > 3037000499L ? long.MaxValue : botReach * botReach;
            }
            if (player.Kind == PlayerKind.Inputs)
                player.Trace.Expand(out traceDx, out traceDy, out traceFocus);
            // Per tick the player-bullet gap closes by at most `closure` (the fastest bullet,
            // its table slack, the player's largest step); radiusBound bounds both radii.
            long vmax = SlotSpeedMax(program);
            if (player.Kind == PlayerKind.Scripted)
                playerStepMax = ((program.AmpX * (7 * ((program.RateX >> 16) + 1) + 2)) >> 16) + 2
                              + ((program.AmpY * (7 * ((program.RateY >> 16) + 1) + 2)) >> 16) + 2;
            else
                playerStepMax = Math.Max(Math.Abs(program.Speed), Math.Abs(program.FocusSpeed)) + 2;
            closure = vmax + (vmax >> 15) + 2 + playerStepMax;
            noSkip = closure <= 0;
            radiusBound = Fixed.IsqrtFloor(Math.Max(hitR2, grazeR2)) + 1;
        }

        static long SlotSpeedMax(SimProgram program)
        {
            long vmax = 0;
            foreach (var ph in program.Phases)
                for (int s = 0; s < ph.SlotCount; s++)
                    if (Math.Abs(ph.SlotSpeed[s]) > vmax) vmax = Math.Abs(ph.SlotSpeed[s]);
            return vmax;
        }

        /// <summary>t + 1 + gap // closure for gap >= 0: the ticks no bullet can close the gap in.</summary>
        long ClearUntil(long t, long gap)
        {
            return t + 1 + (gap >= 0 && !noSkip ? gap / closure : 0);
        }

        void Materialize()
        {
            if (materialized == version) return;
            int n = Count;
            if (xs.Length < n)
            {
                xs = new long[S.Length];
                ys = new long[S.Length];
            }
            long bx = Program.BossX, by = Program.BossY, t = posTick;
            for (int i = 0; i < n; i++)
            {
                long age = t - S[i];
                xs[i] = bx + VX[i] * age;
                ys[i] = by + VY[i] * age;
            }
            materialized = version;
        }

        /// <summary>The input used by the next Step() of a live player (dx, dy in {-1, 0, 1}, +y up).</summary>
        public void SetLiveInput(int dx, int dy, bool focus)
        {
            liveDx = Math.Sign(dx);
            liveDy = Math.Sign(dy);
            liveFocus = focus ? 1 : 0;
        }

        // ------------------------------------------------------------------ lifecycle
        public void Reset(long seed)
        {
            if (seed < 0) throw new ArgumentOutOfRangeException("seed", "seed " + seed + " out of range; allowed 0..9223372036854775807");
            var pr = Program;
            Seed = seed;
            Rng = new SplitMix64((ulong)seed);
            Tick = 0;
            Px = pr.StartX; Py = pr.StartY;
            Health = pr.MaxHealth;
            InvulnUntil = 0;
            BossHealth = pr.BossMaxHealth;
            PhaseIndex = -1;
            WaveIndex = 0;
            NextWaveTick = 0;
            BotMove = 0;
            BotNextDecision = 0;
            EnsureCapacity(64);
            Count = 0;
            minDeath = NoDeath;
            posTick = 0;
            safeUntil = 0;
            botClearUntil = 0;
            version++;
            Spawned = 0; Hits = 0; Grazes = 0; Peak = 0; Alive = 0;
            HitTicks.Clear();
            if (FrameUs.Length < pr.DurationTicks) FrameUs = new long[pr.DurationTicks];
            FrameCount = 0;
            AlivePerSecond.Clear();
            StateHashes.Clear();
            Stats = new PhaseStats[pr.Phases.Length];
            for (int i = 0; i < Stats.Length; i++) Stats[i] = new PhaseStats { PhaseId = pr.Phases[i].PhaseId };
            Status = null;
            EndReason = null;
            HitThisTick = false;
            liveDx = 0; liveDy = 0; liveFocus = 0;
        }

        void EnsureCapacity(int needed)
        {
            int cap = S == null ? 0 : S.Length;
            if (needed <= cap) return;
            int n = Math.Max(needed, Math.Max(64, cap * 2));
            S = Grow(S, n); VX = Grow(VX, n); VY = Grow(VY, n);
            DEATH = Grow(DEATH, n); PH = Grow(PH, n); GR = Grow(GR, n);
            var m = new byte[n];
            touchMask = m;
        }

        long[] Grow(long[] a, int n)
        {
            var b = new long[n];
            if (a != null) Array.Copy(a, b, Count);
            return b;
        }

        public bool Finished { get { return Status != null; } }

        // ------------------------------------------------------------------ the tick
        /// <summary>Advance one tick; return true while the fight goes on.</summary>
        public bool Step()
        {
            if (Status != null) throw new InvalidOperationException("the run has ended; call Reset(seed) to start another");
            var pr = Program;
            long t = Tick;
            // 1. auto-fire
            bool fired = t % fireInterval == 0;
            if (fired) BossHealth = Math.Max(0, BossHealth - fireDamage);
            // 2. phase (health only changes on auto-fire ticks)
            int idx = PhaseIndex;
            if (fired) idx = PhaseIndexFor(BossHealth, bossMaxHealth, pr.Phases);
            if (idx != PhaseIndex)
            {
                if (PhaseIndex >= 0) Stats[PhaseIndex].EndTick = t;
                PhaseIndex = idx;
                WaveIndex = 0;
                NextWaveTick = t;
                Stats[idx].StartTick = t;
            }
            // 3. motion: implicit (positions are boss + v * (posTick - S))
            posTick = t;
            version++;
            // 4. expiry (stable compaction)
            if (minDeath <= t) CompactExpired(t);
            // 5. emission
            if (t == NextWaveTick)
            {
                Emit(t);
                WaveIndex += 1;
                NextWaveTick = t + pr.Phases[idx].WaveIntervalTicks;
            }
            // 6. player
            MovePlayer(t);
            // 7. collisions and grazes (skipped while no bullet can be within either radius)
            long checks = Count;
            HitThisTick = false;
            if (checks > 0 && (noSkip || t >= safeUntil)) Collide(t, Stats[idx]);
            // 8. statistics
            long alive = Count;
            Alive = alive;
            if (alive > Peak) Peak = alive;
            var st = Stats[idx];
            st.Ticks += 1;
            st.AliveTickSum += alive;
            if (alive > st.PeakAliveBullets) st.PeakAliveBullets = alive;
            if (FrameCount == FrameUs.Length) Array.Resize(ref FrameUs, Math.Max(64, FrameUs.Length * 2));
            FrameUs[FrameCount++] = pr.FixedUs + pr.PerBulletUs * alive + pr.PerCheckUs * checks;
            if (t % 60 == 0) AlivePerSecond.Add(alive);
            else if (alive > AlivePerSecond[AlivePerSecond.Count - 1]) AlivePerSecond[AlivePerSecond.Count - 1] = alive;
            // 9. state hash
            if ((t + 1) % pr.StateHashInterval == 0) StateHashes.Add(StateHash());
            // 10. end conditions
            Tick = t + 1;
            if (Health <= 0) { Status = "died"; EndReason = "player_died"; }
            else if (BossHealth == 0) { Status = "completed"; EndReason = "boss_defeated"; }
            else if (Tick >= pr.DurationTicks) { Status = "completed"; EndReason = "time_up"; }
            if (Status != null)
            {
                st.EndTick = Tick;
                return false;
            }
            return true;
        }

        /// <summary>Last phase whose trigger ratio is >= health / max_health (exact integer comparison).</summary>
        public static int PhaseIndexFor(long health, long maxHealth, PhaseProgram[] phases)
        {
            int active = 0;
            for (int i = 0; i < phases.Length; i++)
                if (phases[i].TriggerMicro * maxHealth >= health * 1000000L) active = i;
            return active;
        }

        void Collide(long t, PhaseStats st)
        {
            int n = Count;
            long[] s = S, vx = VX, vy = VY;
            long ox = Program.BossX - Px, oy = Program.BossY - Py;
            long nearest = long.MaxValue;
            for (int i = 0; i < n; i++)
            {
                long age = t - s[i];
                long dx = ox + vx[i] * age, dy = oy + vy[i] * age;
                long d2 = dx * dx + dy * dy;
                if (d2 < nearest) nearest = d2;
            }
            safeUntil = ClearUntil(t, Fixed.IsqrtFloor(nearest) - radiusBound - 1);
            // Nothing can happen unless the nearest bullet is within the larger radius.
            if (!(nearest <= grazeR2 || nearest <= hitR2)) return;
            long h2 = hitR2, g2 = grazeR2;
            long[] gr = GR;
            byte[] mask = touchMask;
            int nGraze = 0;
            bool anyTouch = false;
            for (int i = 0; i < n; i++)
            {
                long age = t - s[i];
                long dx = ox + vx[i] * age, dy = oy + vy[i] * age;
                long d2 = dx * dx + dy * dy;
                if (d2 <= h2)
                {
                    mask[i] = 1;
                    anyTouch = true;
                }
                else
                {
                    mask[i] = 0;
                    if (d2 <= g2 && gr[i] == 0)
                    {
                        gr[i] = 1;
                        nGraze++;
                    }
                }
            }
            if (nGraze > 0)
            {
                Grazes += nGraze;
                st.Grazes += nGraze;
            }
            if (anyTouch)
            {
                if (t >= InvulnUntil)
                {
                    Health -= 1;
                    Hits += 1;
                    HitTicks.Add(t);
                    st.PlayerHits += 1;
                    InvulnUntil = t + 1 + Program.InvulnerabilityTicks;
                    HitThisTick = true;
                }
                CompactTouching();
            }
        }

        void CompactExpired(long t)
        {
            int n = Count, w = 0;
            long md = NoDeath;
            long[] sp = S, vx = VX, vy = VY, de = DEATH, ph = PH, gr = GR;
            for (int i = 0; i < n; i++)
            {
                long d = de[i];
                if (d > t)
                {
                    if (w != i)
                    {
                        sp[w] = sp[i]; vx[w] = vx[i]; vy[w] = vy[i];
                        de[w] = d; ph[w] = ph[i]; gr[w] = gr[i];
                    }
                    if (d < md) md = d;
                    w++;
                }
            }
            Count = w;
            minDeath = md;
            version++;
        }

        void CompactTouching()
        {
            int n = Count, w = 0;
            long md = NoDeath;
            long[] sp = S, vx = VX, vy = VY, de = DEATH, ph = PH, gr = GR;
            byte[] mask = touchMask;
            for (int i = 0; i < n; i++)
            {
                if (mask[i] == 0)
                {
                    long d = de[i];
                    if (w != i)
                    {
                        sp[w] = sp[i]; vx[w] = vx[i]; vy[w] = vy[i];
                        de[w] = d; ph[w] = ph[i]; gr[w] = gr[i];
                    }
                    if (d < md) md = d;
                    w++;
                }
            }
            Count = w;
            minDeath = md;
            version++;
        }

        void Emit(long t)
        {
            var pr = Program;
            var ph = pr.Phases[PhaseIndex];
            int n = ph.SlotCount;
            long bx = pr.BossX, by = pr.BossY;
            long rot = WaveIndex * ph.RotationPerWave;
            long aim = ph.Aim ? Fixed.Iatan2(Py - by, Px - bx) : 0;
            long life = ph.LifetimeTicks;
            EnsureCapacity(Count + n);
            long[] sin = Fixed.SinTable, cos = Fixed.CosTable;
            int o = Count;
            long md = minDeath;
            for (int s = 0; s < n; s++)
            {
                long a = rot * ph.SlotSign[s] + ph.SlotOffset[s];
                if (ph.Aim) a += aim;
                if (ph.Scatter) a += Rng.Below(ph.ScatterSpan); // one draw per slot, in slot order
                int angle = (int)(a & 0xFFFF);
                long speed = ph.SlotSpeed[s];
                long vx = (speed * cos[angle]) >> 16;
                long vy = (speed * sin[angle]) >> 16;
                // Ticks until the bullet is beyond the despawn margin (removed in step 4 of
                // tick spawn + k, after its k-th move). Numerators are >= 0 for a boss inside
                // the arena; FloorDiv keeps Python's // semantics regardless.
                long k = life;
                if (vx > 0) k = Math.Min(k, Fixed.FloorDiv(despawnX - bx, vx) + 1);
                else if (vx < 0) k = Math.Min(k, Fixed.FloorDiv(despawnX + bx, -vx) + 1);
                if (vy > 0) k = Math.Min(k, Fixed.FloorDiv(despawnY - by, vy) + 1);
                else if (vy < 0) k = Math.Min(k, Fixed.FloorDiv(despawnY + by, -vy) + 1);
                long death = t + k;
                S[o] = t; VX[o] = vx; VY[o] = vy;
                DEATH[o] = death; PH[o] = PhaseIndex; GR[o] = 0;
                if (death < md) md = death;
                o++;
            }
            Count = o;
            minDeath = md;
            version++;
            Spawned += n;
            Stats[PhaseIndex].BulletsSpawned += n;
            // New bullets start at the boss: bound how soon they can reach the player, who may
            // still move this tick (step 6) before collisions (step 7).
            long dbx = bx - Px, dby = by - Py;
            long dist = Fixed.IsqrtFloor(dbx * dbx + dby * dby);
            long gap = dist - playerStepMax - radiusBound - 1;
            safeUntil = Math.Min(safeUntil, gap >= 0 ? ClearUntil(t, gap) : t);
            if (Player.Kind == PlayerKind.Bot)
            {
                gap = dist - playerStepMax - botReach - 1;
                botClearUntil = Math.Min(botClearUntil, gap >= 0 ? ClearUntil(t, gap) : t);
            }
        }

        // ------------------------------------------------------------------ players
        void MovePlayer(long t)
        {
            var pr = Program;
            long sx, sy;
            if (Player.Kind == PlayerKind.Scripted)
            {
                long ax = (t * pr.RateX) >> 16;
                long ay = (t * pr.RateY) >> 16;
                long x = (Fixed.Isin(ax) * pr.AmpX) >> 16;
                long y = pr.StartY + ((Fixed.Isin(ay) * pr.AmpY) >> 16);
                Px = Math.Min(Math.Max(x, -hw), hw);
                Py = Math.Min(Math.Max(y, -hh), hh);
                return;
            }
            if (Player.Kind == PlayerKind.Bot)
            {
                if (t >= BotNextDecision)
                {
                    BotMove = BotDecide();
                    BotNextDecision = t + reaction;
                }
                sx = botStepX[BotMove];
                sy = botStepY[BotMove];
            }
            else
            {
                int dx = 0, dy = 0, focus = 0;
                if (Player.Live)
                {
                    dx = liveDx; dy = liveDy; focus = liveFocus;
                }
                else if (t < traceDx.Length)
                {
                    dx = traceDx[t]; dy = traceDy[t]; focus = traceFocus[t];
                }
                long speed = focus != 0 ? pr.FocusSpeed : pr.Speed;
                if (dx != 0 && dy != 0) speed = (speed * DiagonalQ16) >> 16;
                sx = dx * speed;
                sy = dy * speed;
            }
            Px = Math.Min(Math.Max(Px + sx, -hw), hw);
            Py = Math.Min(Math.Max(Py + sy, -hh), hh);
        }

        int BotDecide()
        {
            long cap = clearanceCap;
            for (int c = 0; c < 18; c++) clear[c] = cap;
            int n = Count;
            int nn = 0;
            long t = posTick;
            if (n > 0 && (noSkip || t >= botClearUntil))
            {
                if (nearIdx.Length < n)
                {
                    int size = Math.Max(n, nearIdx.Length * 2);
                    nearIdx = new int[size]; nearBx = new long[size]; nearBy = new long[size];
                    nearX = new long[size]; nearY = new long[size];
                }
                long px = Px, py = Py, r2 = botReach2, bx0 = Program.BossX, by0 = Program.BossY;
                long[] sp = S, vx = VX, vy = VY;
                long nearest = long.MaxValue;
                for (int i = 0; i < n; i++)
                {
                    long age = t - sp[i];
                    long x = bx0 + vx[i] * age, y = by0 + vy[i] * age;
                    long dx = x - px, dy = y - py;
                    long d2 = dx * dx + dy * dy;
                    if (d2 < nearest) nearest = d2;
                    if (d2 < r2)
                    {
                        nearIdx[nn] = i; nearX[nn] = x; nearY[nn] = y;
                        nn++;
                    }
                }
                // Nobody within reach: nobody can be for the next few ticks either.
                if (nn == 0) botClearUntil = ClearUntil(t, Fixed.IsqrtFloor(nearest) - botReach - 1);
            }
            // The next tick, a quarter, half and all of the lookahead (docs/simulation.md). With
            // nobody within reach only the last horizon's positions matter (the home penalty);
            // the clearances stay at the cap.
            for (int pass = nn > 0 ? 0 : horizons.Length - 1; pass < horizons.Length; pass++)
            {
                long h = horizons[pass];
                for (int c = 0; c < 18; c++)
                {
                    candX[c] = Math.Min(Math.Max(Px + botStepX[c] * h, -hw), hw);
                    candY[c] = Math.Min(Math.Max(Py + botStepY[c] * h, -hh), hh);
                }
                if (nn > 0)
                {
                    long[] bxs = nearBx, bys = nearBy;
                    for (int j = 0; j < nn; j++)
                    {
                        int i = nearIdx[j];
                        bxs[j] = nearX[j] + VX[i] * h;
                        bys[j] = nearY[j] + VY[i] * h;
                    }
                    for (int c = 0; c < 18; c++)
                    {
                        long cx = candX[c], cy = candY[c];
                        long best = long.MaxValue;
                        for (int j = 0; j < nn; j++)
                        {
                            long ddx = bxs[j] - cx, ddy = bys[j] - cy;
                            long d2 = ddx * ddx + ddy * ddy;
                            if (d2 < best) best = d2;
                        }
                        if (best < clear[c]) clear[c] = best;
                    }
                }
            }
            long sx0 = Program.StartX, sy0 = Program.StartY;
            int arg = 0;
            long bestScore = 0;
            for (int c = 0; c < 18; c++)
            {
                long hx = candX[c] - sx0, hy = candY[c] - sy0;
                long score = clear[c] - ((hx * hx + hy * hy) >> homeShift);
                if (c == 0 || score > bestScore) { bestScore = score; arg = c; }
            }
            if ((long)(Rng.NextU64() >> 32) < mistakeThreshold) arg = (int)Rng.Below(18);
            return arg;
        }

        // ------------------------------------------------------------------ hashing
        /// <summary>sha256 over 16 int64 LE header values, then X, Y, VX, VY, DEATH, PH, GR as int64 LE.</summary>
        public string StateHash()
        {
            if (sha == null) sha = SHA256.Create();
            int n = Count;
            int need = Math.Max(16, n) * 8;
            if (hashBuf.Length < need) hashBuf = new byte[Math.Max(need, hashBuf.Length * 2)];
            long[] header = {
                Tick, Px, Py, Health, InvulnUntil, BossHealth,
                PhaseIndex, WaveIndex, NextWaveTick, unchecked((long)Rng.State),
                BotMove, BotNextDecision, Spawned, Hits, Grazes, n,
            };
            sha.Initialize();
            PutLongs(header, 16);
            sha.TransformBlock(hashBuf, 0, 16 * 8, null, 0);
            long[][] arrays = { X, Y, VX, VY, DEATH, PH, GR };
            foreach (var a in arrays)
            {
                if (n == 0) continue;
                PutLongs(a, n);
                sha.TransformBlock(hashBuf, 0, n * 8, null, 0);
            }
            sha.TransformFinalBlock(hashBuf, 0, 0);
            return Hashing.Hex(sha.Hash);
        }

        /// <summary>Everything the state hash covers, by name (header fields, then the bullet arrays).</summary>
        public JsonValue StateJson()
        {
            int n = Count;
            var o = JsonValue.NewObject()
                .Set("tick", Tick).Set("px", Px).Set("py", Py).Set("health", Health)
                .Set("invuln_until", InvulnUntil).Set("boss_health", BossHealth)
                .Set("phase_index", (long)PhaseIndex).Set("wave_index", WaveIndex)
                .Set("next_wave_tick", NextWaveTick).Set("rng_state", unchecked((long)Rng.State))
                .Set("bot_move", (long)BotMove).Set("bot_next_decision", BotNextDecision)
                .Set("spawned", Spawned).Set("hits", Hits).Set("grazes", Grazes).Set("bullet_count", (long)n);
            string[] names = { "X", "Y", "VX", "VY", "DEATH", "PH", "GR" };
            long[][] arrays = { X, Y, VX, VY, DEATH, PH, GR };
            for (int k = 0; k < names.Length; k++)
            {
                var a = JsonValue.NewArray();
                for (int i = 0; i < n; i++) a.Items.Add(JsonValue.Of(arrays[k][i]));
                o.Set(names[k], a);
            }
            return o;
        }

        void PutLongs(long[] a, int n)
        {
            if (BitConverter.IsLittleEndian)
            {
                Buffer.BlockCopy(a, 0, hashBuf, 0, n * 8);
                return;
            }
            for (int i = 0; i < n; i++)
            {
                ulong v = unchecked((ulong)a[i]);
                for (int b = 0; b < 8; b++) hashBuf[i * 8 + b] = (byte)(v >> (8 * b));
            }
        }

        // ------------------------------------------------------------------ whole runs
        /// <summary>Reset and step until the fight ends.</summary>
        public void Run(long seed)
        {
            Reset(seed);
            while (Step()) { }
        }
    }
}
