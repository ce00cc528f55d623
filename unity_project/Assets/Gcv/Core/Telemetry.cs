// Telemetry (gcv.telemetry/1): port of gcv/sim/telemetry.py.
//
// Gameplay figures are integers. The few non-integers (mean alive bullets, FPS) are an
// integer number of thousandths computed with integer arithmetic and written as that
// decimal (milli / 1000), so every implementation prints the same number.
using System;
using System.Collections.Generic;

namespace Gcv.Core
{
    /// <summary>Frame-time figures measured by a rendering engine (instead of the model).</summary>
    public sealed class MeasuredFrames
    {
        public double AverageFps;
        public double LowFps;        // 1% low: mean frame time of the worst max(1, n/100) frames, as FPS
        public double WorstFrameMs;
        public int FrameCount;
        public string GpuName = "";
        public string CpuName = "";

        /// <summary>Figures from real frame times (milliseconds), same 1%-low rule as the model.</summary>
        public static MeasuredFrames FromFrameTimesMs(IList<double> frameMs)
        {
            var m = new MeasuredFrames();
            int n = frameMs.Count;
            m.FrameCount = n;
            if (n == 0) return m;
            var sorted = new List<double>(frameMs);
            sorted.Sort();
            sorted.Reverse();
            double total = 0;
            foreach (double f in frameMs) total += f;
            int worstN = Math.Max(1, n / 100);
            double worstSum = 0;
            for (int i = 0; i < worstN; i++) worstSum += sorted[i];
            m.AverageFps = total > 0 ? 1000.0 * n / total : 0;
            m.LowFps = worstSum > 0 ? 1000.0 * worstN / worstSum : 0;
            m.WorstFrameMs = sorted[0];
            return m;
        }
    }

    public sealed class EngineInfo
    {
        public string Name = "unity-harness";
        public string Implementation = "csharp";
        public string Version = "0.1.0";
        /// <summary>The engine's own version (e.g. Application.unityVersion); omitted when null.</summary>
        public string EngineVersion;
    }

    public static class Telemetry
    {
        public const string TelemetryId = "gcv.telemetry/1";

        /// <summary>The fields that may differ between engines (gcv.sim.telemetry.NON_GAMEPLAY_FIELDS).</summary>
        public static readonly string[] NonGameplayFields = {
            "engine", "run_id", "fps_source", "average_fps", "low_fps", "worst_frame_ms",
            "frame_model", "hardware", "wall_time_ms",
        };

        /// <summary>round_half_up(1000 * numerator / denominator) for non-negative integers.</summary>
        public static long MilliRatio(long numerator, long denominator)
        {
            return (2000 * numerator + denominator) / (2 * denominator);
        }

        /// <summary>(average_fps_milli, low_fps_milli, worst_frame_us) of the modeled frame times.</summary>
        public static void FrameFigures(long[] frameUs, int n, out long average, out long low, out long worst)
        {
            long total = 0;
            for (int i = 0; i < n; i++) total += frameUs[i];
            var sorted = new long[n];
            Array.Copy(frameUs, sorted, n);
            Array.Sort(sorted);
            int k = Math.Max(1, n / 100);
            long worstSum = 0;
            for (int i = 0; i < k; i++) worstSum += sorted[n - 1 - i];
            average = (1000000000L * n) / total;
            low = (1000000000L * k) / worstSum;
            worst = sorted[n - 1];
        }

        static long Milli(double value)
        {
            if (double.IsNaN(value) || double.IsInfinity(value)) return 0;
            return (long)Math.Floor(value * 1000.0 + 0.5);
        }

        /// <summary>The telemetry of a finished run. measured == null: modeled frame figures
        /// (fps_source "model"); otherwise the engine's measured figures and hardware names.</summary>
        public static JsonValue Build(Simulation sim, string runId, string playerLabel, string programHash,
                                      EngineInfo engine, MeasuredFrames measured)
        {
            return Build(sim, runId, playerLabel, programHash, engine, measured, -1);
        }

        /// <summary>As above; wallTimeMs >= 0 adds "wall_time_ms" (not gameplay: how long the run took).</summary>
        public static JsonValue Build(Simulation sim, string runId, string playerLabel, string programHash,
                                      EngineInfo engine, MeasuredFrames measured, long wallTimeMs)
        {
            var pr = sim.Program;
            if (sim.Status == null) throw new InvalidOperationException("telemetry is only defined for a finished run");
            long survival = sim.Status == "completed" ? pr.DurationTicks : sim.Tick - 1;
            var phases = JsonValue.NewArray();
            long reachedCount = 0;
            foreach (var st in sim.Stats)
            {
                bool reached = st.StartTick.HasValue;
                if (reached) reachedCount++;
                phases.Add(JsonValue.NewObject()
                    .Set("phase_id", st.PhaseId)
                    .Set("reached", reached)
                    .Set("start_tick", JsonValue.OfNullable(st.StartTick))
                    .Set("end_tick", JsonValue.OfNullable(st.EndTick))
                    .Set("ticks", st.Ticks)
                    .Set("bullets_spawned", st.BulletsSpawned)
                    .Set("player_hits", st.PlayerHits)
                    .Set("grazes", st.Grazes)
                    .Set("peak_alive_bullets", st.PeakAliveBullets)
                    .Set("alive_tick_sum", st.AliveTickSum)
                    .Set("mean_alive_bullets", st.Ticks != 0 ? JsonValue.Milli(MilliRatio(st.AliveTickSum, st.Ticks)) : JsonValue.Of(0L)));
            }
            var t = JsonValue.NewObject();
            t.Set("telemetry", TelemetryId);
            var eng = JsonValue.NewObject().Set("name", engine.Name).Set("implementation", engine.Implementation).Set("version", engine.Version);
            if (!string.IsNullOrEmpty(engine.EngineVersion)) eng.Set("engine_version", engine.EngineVersion);
            t.Set("engine", eng);
            t.Set("run_id", runId ?? "");
            t.Set("status", sim.Status);
            t.Set("end_reason", sim.EndReason);
            t.Set("ticks", sim.Tick);
            t.Set("tick_hz", pr.TickHz);
            t.Set("duration_ticks", pr.DurationTicks);
            t.Set("seed", sim.Seed);
            t.Set("player", playerLabel);
            t.Set("config_hash", pr.ConfigHash);
            t.Set("program_hash", programHash);
            t.Set("total_bullets_spawned", sim.Spawned);
            t.Set("peak_alive_bullets", sim.Peak);
            t.Set("player_hits", sim.Hits);
            t.Set("hit_ticks", JsonValue.ArrayOf(sim.HitTicks));
            t.Set("grazes", sim.Grazes);
            t.Set("survival_ticks", survival);
            t.Set("player_health_remaining", Math.Max(0, sim.Health));
            t.Set("boss_health_remaining", sim.BossHealth);
            t.Set("phases_reached", reachedCount);
            t.Set("phase_results", phases);
            t.Set("alive_per_second", JsonValue.ArrayOf(sim.AlivePerSecond));
            t.Set("state_hash", sim.StateHash());
            t.Set("state_hashes", JsonValue.ArrayOf(sim.StateHashes));
            if (measured == null)
            {
                long average, low, worst;
                FrameFigures(sim.FrameUs, sim.FrameCount, out average, out low, out worst);
                t.Set("fps_source", "model");
                t.Set("average_fps", JsonValue.Milli(average));
                t.Set("low_fps", JsonValue.Milli(low));
                t.Set("worst_frame_ms", JsonValue.Milli(MilliRatio(worst, 1000)));
            }
            else
            {
                t.Set("fps_source", "measured");
                t.Set("average_fps", JsonValue.Milli(Milli(measured.AverageFps)));
                t.Set("low_fps", JsonValue.Milli(Milli(measured.LowFps)));
                t.Set("worst_frame_ms", JsonValue.Milli(Milli(measured.WorstFrameMs)));
                t.Set("hardware", JsonValue.NewObject()
                    .Set("gpu", measured.GpuName ?? "")
                    .Set("cpu", measured.CpuName ?? ""));
            }
            if (wallTimeMs >= 0) t.Set("wall_time_ms", wallTimeMs);
            t.Set("frame_model", JsonValue.NewObject()
                .Set("fixed_us", pr.FixedUs).Set("per_bullet_us", pr.PerBulletUs).Set("per_check_us", pr.PerCheckUs));
            return t;
        }

        /// <summary>gameplay_view: the telemetry without its non-gameplay fields.</summary>
        public static JsonValue GameplayView(JsonValue telemetry)
        {
            var o = JsonValue.NewObject();
            foreach (string k in telemetry.Keys)
                if (Array.IndexOf(NonGameplayFields, k) < 0) o.Set(k, telemetry.Map[k]);
            return o;
        }
    }
}
