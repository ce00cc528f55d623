// Player specifications and the gcv.inputs/1 trace format (port of gcv/sim/players.py).
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace Gcv.Core
{
    public enum PlayerKind { Scripted, Bot, Inputs }

    /// <summary>The run request's player: scripted | bot (with a skill) | inputs (with a trace).</summary>
    public sealed class PlayerSpec
    {
        public static readonly string[] SkillNames = { "novice", "average", "expert" };

        public PlayerKind Kind;
        public string Skill;          // bot
        public JsonValue TraceJson;   // inputs (as given; its content hash names the player)
        public InputsTrace Trace;     // inputs
        /// <summary>Inputs come live from Simulation.SetLiveInput each tick (manual play) instead
        /// of from Trace. Record them with InputsRecorder: replaying that trace reproduces the run.</summary>
        public bool Live;

        /// <summary>A live (keyboard) player; telemetry names it by the recorded trace.</summary>
        public static PlayerSpec LiveInputs()
        {
            return new PlayerSpec { Kind = PlayerKind.Inputs, Live = true, Trace = new InputsTrace() };
        }

        public static PlayerSpec Scripted() { return new PlayerSpec { Kind = PlayerKind.Scripted }; }
        public static PlayerSpec Bot(string skill) { return new PlayerSpec { Kind = PlayerKind.Bot, Skill = skill }; }

        public static PlayerSpec FromTrace(InputsTrace trace)
        {
            var json = trace.ToJson();
            return new PlayerSpec { Kind = PlayerKind.Inputs, TraceJson = json, Trace = InputsTrace.FromJson(json, "trace") };
        }

        /// <summary>Reads the request's "player" object (a discriminated union on "kind").</summary>
        public static PlayerSpec FromJson(JsonValue v, string path)
        {
            Fields.Object(v, path);
            string kind = Fields.String(v, "kind", path);
            if (kind == "scripted")
            {
                Fields.Only(v, path, "kind");
                return Scripted();
            }
            if (kind == "bot")
            {
                Fields.Only(v, path, "kind", "skill");
                string skill = Fields.String(v, "skill", path);
                if (Array.IndexOf(SkillNames, skill) < 0)
                    throw new BadRequestException(Fields.Join(path, "skill"), "unknown bot skill \"" + skill + "\"; allowed: " + string.Join(", ", SkillNames));
                return Bot(skill);
            }
            if (kind == "inputs")
            {
                Fields.Only(v, path, "kind", "trace");
                var trace = Fields.Object(v, "trace", path);
                return new PlayerSpec { Kind = PlayerKind.Inputs, TraceJson = trace, Trace = InputsTrace.FromJson(trace, Fields.Join(path, "trace")) };
            }
            throw new BadRequestException(Fields.Join(path, "kind"), "unknown player kind \"" + kind + "\"; allowed: scripted, bot, inputs");
        }

        public JsonValue ToJson()
        {
            var o = JsonValue.NewObject();
            if (Kind == PlayerKind.Scripted) o.Set("kind", "scripted");
            else if (Kind == PlayerKind.Bot) o.Set("kind", "bot").Set("skill", Skill);
            else o.Set("kind", "inputs").Set("trace", TraceJson);
            return o;
        }

        /// <summary>player_label(): "scripted", "bot:SKILL" or "inputs:" + first 12 hex of the trace's content hash.</summary>
        public string Label()
        {
            if (Kind == PlayerKind.Scripted) return "scripted";
            if (Kind == PlayerKind.Bot) return "bot:" + Skill;
            return "inputs:" + Hashing.ContentHash(TraceJson).Substring(0, 12);
        }
    }

    /// <summary>Run-length encoded inputs: runs = [[ticks, dx, dy, focus], ...] from tick 0
    /// (dx, dy in {-1, 0, 1}, +y up; focus 0 or 1). After the last run the player stands still.</summary>
    public sealed class InputsTrace
    {
        public const string Format = "gcv.inputs/1";
        public const int MaxTraceTicks = 600 * 60;

        public readonly List<int[]> Runs = new List<int[]>();
        public string Source = "";

        public static InputsTrace FromJson(JsonValue v, string path)
        {
            Fields.Object(v, path);
            Fields.Only(v, path, "format", "tick_hz", "runs", "source");
            string format = Fields.String(v, "format", path);
            if (format != Format) throw new BadRequestException(Fields.Join(path, "format"), "expected \"" + Format + "\", got \"" + format + "\"");
            Fields.Int(v, "tick_hz", path, 60, 60);
            var trace = new InputsTrace();
            if (v.Has("source"))
            {
                trace.Source = Fields.String(v, "source", path);
                if (trace.Source.Length > 500) throw new BadRequestException(Fields.Join(path, "source"), "at most 500 characters");
            }
            var runs = Fields.Array(v, "runs", path);
            string rp = Fields.Join(path, "runs");
            if (runs.Count > MaxTraceTicks) throw new BadRequestException(rp, "at most " + MaxTraceTicks + " runs");
            long total = 0;
            for (int i = 0; i < runs.Count; i++)
            {
                string ip = Fields.Index(rp, i);
                var run = Fields.Array(runs[i], ip);
                if (run.Count != 4) throw new BadRequestException(ip, "must be [ticks, dx, dy, focus], got " + run.Count + " items");
                long ticks = Fields.Int(run[0], Fields.Index(ip, 0));
                long dx = Fields.Int(run[1], Fields.Index(ip, 1));
                long dy = Fields.Int(run[2], Fields.Index(ip, 2));
                long focus = Fields.Int(run[3], Fields.Index(ip, 3));
                if (ticks < 1 || ticks > MaxTraceTicks) throw new BadRequestException(Fields.Index(ip, 0), "(ticks) = " + ticks + "; allowed 1.." + MaxTraceTicks);
                if (dx < -1 || dx > 1 || dy < -1 || dy > 1) throw new BadRequestException(ip, "direction (" + dx + ", " + dy + "); each must be -1, 0 or 1");
                if (focus < 0 || focus > 1) throw new BadRequestException(Fields.Index(ip, 3), "(focus) = " + focus + "; allowed 0 or 1");
                total += ticks;
                trace.Runs.Add(new int[] { (int)ticks, (int)dx, (int)dy, (int)focus });
            }
            if (total > MaxTraceTicks) throw new BadRequestException(rp, "trace covers " + total + " ticks; at most " + MaxTraceTicks);
            return trace;
        }

        public int TotalTicks
        {
            get
            {
                int total = 0;
                foreach (var r in Runs) total += r[0];
                return total;
            }
        }

        /// <summary>expand_trace: per-tick (dx, dy, focus) as three parallel arrays.</summary>
        public void Expand(out sbyte[] dx, out sbyte[] dy, out sbyte[] focus)
        {
            int n = TotalTicks;
            dx = new sbyte[n]; dy = new sbyte[n]; focus = new sbyte[n];
            int t = 0;
            foreach (var r in Runs)
            {
                for (int k = 0; k < r[0]; k++, t++)
                {
                    dx[t] = (sbyte)r[1]; dy[t] = (sbyte)r[2]; focus[t] = (sbyte)r[3];
                }
            }
        }

        /// <summary>The trace as a file: sorted keys, one run per line.</summary>
        public string ToFileText()
        {
            var sb = new StringBuilder();
            sb.Append("{\n \"format\": ").Append(Json.Quote(Format)).Append(",\n \"runs\": [");
            for (int i = 0; i < Runs.Count; i++)
            {
                int[] r = Runs[i];
                sb.Append(i == 0 ? "\n  [" : ",\n  [");
                sb.Append(r[0].ToString(CultureInfo.InvariantCulture)).Append(", ")
                  .Append(r[1].ToString(CultureInfo.InvariantCulture)).Append(", ")
                  .Append(r[2].ToString(CultureInfo.InvariantCulture)).Append(", ")
                  .Append(r[3].ToString(CultureInfo.InvariantCulture)).Append(']');
            }
            sb.Append(Runs.Count > 0 ? "\n ],\n" : "],\n");
            sb.Append(" \"source\": ").Append(Json.Quote(Source ?? "")).Append(",\n \"tick_hz\": 60\n}\n");
            return sb.ToString();
        }

        public JsonValue ToJson()
        {
            var runs = JsonValue.NewArray();
            foreach (var r in Runs) runs.Add(JsonValue.ArrayOf(new long[] { r[0], r[1], r[2], r[3] }));
            return JsonValue.NewObject().Set("format", Format).Set("tick_hz", 60L).Set("runs", runs).Set("source", Source ?? "");
        }
    }

    /// <summary>Records per-tick inputs (manual play) into a run-length gcv.inputs/1 trace.</summary>
    public sealed class InputsRecorder
    {
        readonly InputsTrace trace = new InputsTrace();
        int ticks;

        public int Ticks { get { return ticks; } }

        /// <summary>One tick of input: dx, dy in {-1, 0, 1} (+y up), focus.</summary>
        public void Record(int dx, int dy, bool focus)
        {
            dx = Math.Sign(dx); dy = Math.Sign(dy);
            int f = focus ? 1 : 0;
            if (ticks >= InputsTrace.MaxTraceTicks) return; // the format's ceiling
            ticks++;
            int n = trace.Runs.Count;
            if (n > 0)
            {
                int[] last = trace.Runs[n - 1];
                if (last[1] == dx && last[2] == dy && last[3] == f)
                {
                    last[0]++;
                    return;
                }
            }
            trace.Runs.Add(new int[] { 1, dx, dy, f });
        }

        public InputsTrace ToTrace(string source)
        {
            var copy = new InputsTrace { Source = source ?? "" };
            foreach (var r in trace.Runs) copy.Runs.Add((int[])r.Clone());
            return copy;
        }

        /// <summary>The trace file text (see InputsTrace.ToFileText).</summary>
        public string ToFileText(string source)
        {
            return ToTrace(source).ToFileText();
        }
    }
}
