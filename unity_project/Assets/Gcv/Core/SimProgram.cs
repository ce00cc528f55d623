// The integer sim program (gcv.sim_program/1) as typed fields, read from its JSON with a
// named field path on every error (a bad request names the field it rejects).
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text.RegularExpressions;

namespace Gcv.Core
{
    /// <summary>A request or program field that is missing or invalid (exit code 2).</summary>
    public sealed class BadRequestException : Exception
    {
        public readonly string Field;

        public BadRequestException(string field, string message)
            : base(field + ": " + message)
        {
            Field = field;
        }
    }

    /// <summary>Strict typed access to JSON fields, like pydantic's strict mode.</summary>
    public static class Fields
    {
        public static string Join(string path, string key)
        {
            return string.IsNullOrEmpty(path) ? key : path + "." + key;
        }

        /// <summary>The path of a list item as pydantic writes it (program.phases.1.slots.4), so the
        /// three readers name a field in the same words.</summary>
        public static string Index(string path, int i)
        {
            return Join(path, i.ToString(CultureInfo.InvariantCulture));
        }

        public static JsonValue Require(JsonValue obj, string key, string path)
        {
            JsonValue v = obj.Get(key);
            if (v == null) throw new BadRequestException(Join(path, key), "field required");
            return v;
        }

        public static JsonValue Object(JsonValue v, string path)
        {
            if (v.Kind != JsonKind.Object) throw new BadRequestException(path, "expected an object, got " + v.KindName);
            return v;
        }

        public static JsonValue Object(JsonValue obj, string key, string path)
        {
            return Object(Require(obj, key, path), Join(path, key));
        }

        public static List<JsonValue> Array(JsonValue v, string path)
        {
            if (v.Kind != JsonKind.Array) throw new BadRequestException(path, "expected an array, got " + v.KindName);
            return v.Items;
        }

        public static List<JsonValue> Array(JsonValue obj, string key, string path)
        {
            return Array(Require(obj, key, path), Join(path, key));
        }

        public static long Int(JsonValue v, string path)
        {
            if (v.Kind == JsonKind.Integer) return v.Int;
            if (v.Kind == JsonKind.Number)
            {
                bool looksInt = v.Text.IndexOf('.') < 0 && v.Text.IndexOf('e') < 0 && v.Text.IndexOf('E') < 0;
                throw new BadRequestException(path, looksInt
                    ? "integer " + v.Text + " is outside the signed 64-bit range"
                    : "expected an integer, got the number " + v.Text);
            }
            throw new BadRequestException(path, "expected an integer, got " + v.KindName);
        }

        public static long Int(JsonValue obj, string key, string path)
        {
            return Int(Require(obj, key, path), Join(path, key));
        }

        public static long Int(JsonValue obj, string key, string path, long min, long max)
        {
            long v = Int(obj, key, path);
            if (v < min || v > max)
                throw new BadRequestException(Join(path, key), string.Format(CultureInfo.InvariantCulture,
                    "{0} is out of range; allowed {1}..{2}", v, min, max));
            return v;
        }

        public static bool Bool(JsonValue obj, string key, string path)
        {
            JsonValue v = Require(obj, key, path);
            if (v.Kind != JsonKind.Bool) throw new BadRequestException(Join(path, key), "expected a boolean, got " + v.KindName);
            return v.Bool;
        }

        public static string String(JsonValue v, string path)
        {
            if (v.Kind != JsonKind.String) throw new BadRequestException(path, "expected a string, got " + v.KindName);
            return v.Text;
        }

        public static string String(JsonValue obj, string key, string path)
        {
            return String(Require(obj, key, path), Join(path, key));
        }

        public static string Pattern(JsonValue obj, string key, string path, string regex, string what)
        {
            string s = String(obj, key, path);
            if (!WholeMatch(s, regex))
                throw new BadRequestException(Join(path, key), "does not match " + what + " (" + regex + ")");
            return s;
        }

        /// <summary>The pattern matches the whole string, as in pydantic: .NET's "$" also matches
        /// before a final newline, so "abc\n" would pass "^[a-z]+$" on IsMatch alone.</summary>
        public static bool WholeMatch(string s, string regex)
        {
            Match m = Regex.Match(s, regex, RegexOptions.CultureInvariant);
            return m.Success && m.Index == 0 && m.Length == s.Length;
        }

        public static void Only(JsonValue obj, string path, params string[] allowed)
        {
            foreach (string key in obj.Keys)
            {
                if (System.Array.IndexOf(allowed, key) < 0)
                    throw new BadRequestException(Join(path, key), "extra field not permitted");
            }
        }
    }

    public sealed class PhaseProgram
    {
        public string PhaseId;
        public long TriggerMicro;
        public string Pattern;
        public long WaveIntervalTicks;
        public long LifetimeTicks;
        public long RotationPerWave;
        public bool Aim;
        public bool Scatter;
        public long ScatterSpan;
        public long[] SlotOffset, SlotSpeed, SlotSign;
        public int SlotCount { get { return SlotOffset.Length; } }
    }

    public sealed class BotSkill
    {
        public long ReactionTicks, LookaheadTicks, MistakeThreshold;
    }

    public sealed class SimProgram
    {
        public const string ProgramId = "gcv.sim_program/1";

        public JsonValue Json;
        public string ConfigHash;
        public long TickHz, DurationTicks, StateHashInterval;
        public long HalfWidth, HalfHeight, DespawnX, DespawnY;
        public long MaxHealth, Speed, FocusSpeed, HitRadius, GrazeRadius, StartX, StartY;
        public long InvulnerabilityTicks, AutoFireDamage, AutoFireIntervalTicks;
        public long BossMaxHealth, BossX, BossY;
        public PhaseProgram[] Phases;
        public long RateX, RateY, AmpX, AmpY;
        public Dictionary<string, BotSkill> Skills = new Dictionary<string, BotSkill>(StringComparer.Ordinal);
        public long ClearanceCap, HomeShift;
        public long FixedUs, PerBulletUs, PerCheckUs;

        // Every range comes from ProgramBounds (generated from the Python program model), so the
        // three implementations accept the same programs; the bounds keep every intermediate of
        // a tick inside int64 (docs/simulation.md 2).

        /// <summary>Reads and checks a program. Field paths start with "program".</summary>
        public static SimProgram FromJson(JsonValue json)
        {
            const string P = "program";
            Fields.Object(json, P);
            Fields.Only(json, P, ProgramBounds.ProgramKeys);
            var prog = new SimProgram { Json = json };
            string id = Fields.String(json, "program", P);
            if (id != ProgramId) throw new BadRequestException("program.program", "expected \"" + ProgramId + "\", got \"" + id + "\"");
            prog.ConfigHash = ConfigHashOf(json);
            prog.TickHz = Fields.Int(json, "tick_hz", P, ProgramBounds.TickHzMin, ProgramBounds.TickHzMax);
            prog.DurationTicks = Fields.Int(json, "duration_ticks", P, ProgramBounds.DurationTicksMin, ProgramBounds.DurationTicksMax);
            prog.StateHashInterval = Fields.Int(json, "state_hash_interval", P, ProgramBounds.StateHashIntervalMin, ProgramBounds.StateHashIntervalMax);

            var arena = Fields.Object(json, "arena", P);
            const string A = "program.arena";
            Fields.Only(arena, A, ProgramBounds.ArenaKeys);
            prog.HalfWidth = Fields.Int(arena, "half_width", A, ProgramBounds.ArenaHalfWidthMin, ProgramBounds.ArenaHalfWidthMax);
            prog.HalfHeight = Fields.Int(arena, "half_height", A, ProgramBounds.ArenaHalfHeightMin, ProgramBounds.ArenaHalfHeightMax);
            prog.DespawnX = Fields.Int(arena, "despawn_x", A, ProgramBounds.ArenaDespawnXMin, ProgramBounds.ArenaDespawnXMax);
            prog.DespawnY = Fields.Int(arena, "despawn_y", A, ProgramBounds.ArenaDespawnYMin, ProgramBounds.ArenaDespawnYMax);

            var pl = Fields.Object(json, "player", P);
            const string PL = "program.player";
            Fields.Only(pl, PL, ProgramBounds.PlayerKeys);
            prog.MaxHealth = Fields.Int(pl, "max_health", PL, ProgramBounds.PlayerMaxHealthMin, ProgramBounds.PlayerMaxHealthMax);
            prog.Speed = Fields.Int(pl, "speed", PL, ProgramBounds.PlayerSpeedMin, ProgramBounds.PlayerSpeedMax);
            prog.FocusSpeed = Fields.Int(pl, "focus_speed", PL, ProgramBounds.PlayerFocusSpeedMin, ProgramBounds.PlayerFocusSpeedMax);
            prog.HitRadius = Fields.Int(pl, "hit_radius", PL, ProgramBounds.PlayerHitRadiusMin, ProgramBounds.PlayerHitRadiusMax);
            prog.GrazeRadius = Fields.Int(pl, "graze_radius", PL, ProgramBounds.PlayerGrazeRadiusMin, ProgramBounds.PlayerGrazeRadiusMax);
            prog.StartX = Fields.Int(pl, "start_x", PL, ProgramBounds.PlayerStartXMin, ProgramBounds.PlayerStartXMax);
            prog.StartY = Fields.Int(pl, "start_y", PL, ProgramBounds.PlayerStartYMin, ProgramBounds.PlayerStartYMax);
            prog.InvulnerabilityTicks = Fields.Int(pl, "invulnerability_ticks", PL, ProgramBounds.PlayerInvulnerabilityTicksMin, ProgramBounds.PlayerInvulnerabilityTicksMax);
            prog.AutoFireDamage = Fields.Int(pl, "auto_fire_damage", PL, ProgramBounds.PlayerAutoFireDamageMin, ProgramBounds.PlayerAutoFireDamageMax);
            prog.AutoFireIntervalTicks = Fields.Int(pl, "auto_fire_interval_ticks", PL, ProgramBounds.PlayerAutoFireIntervalTicksMin, ProgramBounds.PlayerAutoFireIntervalTicksMax);

            var boss = Fields.Object(json, "boss", P);
            const string B = "program.boss";
            Fields.Only(boss, B, ProgramBounds.BossKeys);
            prog.BossMaxHealth = Fields.Int(boss, "max_health", B, ProgramBounds.BossMaxHealthMin, ProgramBounds.BossMaxHealthMax);
            prog.BossX = Fields.Int(boss, "x", B, ProgramBounds.BossXMin, ProgramBounds.BossXMax);
            prog.BossY = Fields.Int(boss, "y", B, ProgramBounds.BossYMin, ProgramBounds.BossYMax);

            var phases = Fields.Array(json, "phases", P);
            Count(phases.Count, ProgramBounds.PhaseCountMin, ProgramBounds.PhaseCountMax, "program.phases");
            prog.Phases = new PhaseProgram[phases.Count];
            for (int k = 0; k < phases.Count; k++)
            {
                string pp = Fields.Index("program.phases", k);
                var ph = Fields.Object(phases[k], pp);
                Fields.Only(ph, pp, ProgramBounds.PhaseKeys);
                var phase = new PhaseProgram();
                phase.PhaseId = PhaseId(ph, pp);
                phase.TriggerMicro = Fields.Int(ph, "trigger_micro", pp, ProgramBounds.PhaseTriggerMicroMin, ProgramBounds.PhaseTriggerMicroMax);
                phase.Pattern = Fields.String(ph, "pattern", pp);
                int patternCode = System.Array.IndexOf(ProgramBounds.PatternNames, phase.Pattern);
                if (patternCode < 0)
                    throw new BadRequestException(Fields.Join(pp, "pattern"), "unknown pattern \"" + phase.Pattern + "\"; allowed: " + string.Join(", ", ProgramBounds.PatternNames));
                phase.Scatter = phase.Pattern == "scatter";
                // the code must name the pattern (issue 25.13: every reader used to ignore it)
                long code = Fields.Int(ph, "pattern_code", pp, ProgramBounds.PhasePatternCodeMin, ProgramBounds.PhasePatternCodeMax);
                if (code != patternCode)
                    throw new BadRequestException(Fields.Join(pp, "pattern_code"), PatternCodeMessage(code, phase.Pattern));
                // read for its range only (the slots carry the wave): every reader accepts the same programs
                Fields.Int(ph, "bullets_per_wave", pp, ProgramBounds.PhaseBulletsPerWaveMin, ProgramBounds.PhaseBulletsPerWaveMax);
                phase.WaveIntervalTicks = Fields.Int(ph, "wave_interval_ticks", pp, ProgramBounds.PhaseWaveIntervalTicksMin, ProgramBounds.PhaseWaveIntervalTicksMax);
                phase.LifetimeTicks = Fields.Int(ph, "lifetime_ticks", pp, ProgramBounds.PhaseLifetimeTicksMin, ProgramBounds.PhaseLifetimeTicksMax);
                phase.RotationPerWave = Fields.Int(ph, "rotation_per_wave", pp, ProgramBounds.PhaseRotationPerWaveMin, ProgramBounds.PhaseRotationPerWaveMax);
                phase.Aim = Fields.Bool(ph, "aim", pp);
                phase.ScatterSpan = Fields.Int(ph, "scatter_span", pp, ProgramBounds.PhaseScatterSpanMin, ProgramBounds.PhaseScatterSpanMax);
                var slots = Fields.Array(ph, "slots", pp);
                Count(slots.Count, ProgramBounds.SlotCountMin, ProgramBounds.SlotCountMax, Fields.Join(pp, "slots"));
                phase.SlotOffset = new long[slots.Count];
                phase.SlotSpeed = new long[slots.Count];
                phase.SlotSign = new long[slots.Count];
                for (int s = 0; s < slots.Count; s++)
                {
                    string sp = Fields.Index(Fields.Join(pp, "slots"), s);
                    var slot = Fields.Array(slots[s], sp);
                    if (slot.Count != 3) throw new BadRequestException(sp, "expected [angle_offset, speed, rotation_sign]");
                    phase.SlotOffset[s] = Bounded(Fields.Int(slot[0], Fields.Index(sp, 0)), ProgramBounds.SlotAngleOffsetMin, ProgramBounds.SlotAngleOffsetMax, Fields.Index(sp, 0));
                    phase.SlotSpeed[s] = Bounded(Fields.Int(slot[1], Fields.Index(sp, 1)), ProgramBounds.SlotSpeedMin, ProgramBounds.SlotSpeedMax, Fields.Index(sp, 1));
                    phase.SlotSign[s] = Bounded(Fields.Int(slot[2], Fields.Index(sp, 2)), ProgramBounds.SlotRotationSignMin, ProgramBounds.SlotRotationSignMax, Fields.Index(sp, 2));
                }
                prog.Phases[k] = phase;
            }
            // one id per phase (issue 25.13): telemetry, goals and repairs name phases by id
            for (int k = 0; k < prog.Phases.Length; k++)
                for (int j = 0; j < k; j++)
                    if (prog.Phases[j].PhaseId == prog.Phases[k].PhaseId)
                        throw new BadRequestException(Fields.Join(Fields.Index("program.phases", k), "phase_id"),
                                                      DuplicatePhaseIdMessage(prog.Phases[k].PhaseId, j, k));

            var sc = Fields.Object(json, "scripted", P);
            const string S = "program.scripted";
            Fields.Only(sc, S, ProgramBounds.ScriptedKeys);
            prog.RateX = Fields.Int(sc, "rate_x", S, ProgramBounds.ScriptedRateXMin, ProgramBounds.ScriptedRateXMax);
            prog.RateY = Fields.Int(sc, "rate_y", S, ProgramBounds.ScriptedRateYMin, ProgramBounds.ScriptedRateYMax);
            prog.AmpX = Fields.Int(sc, "amp_x", S, ProgramBounds.ScriptedAmpXMin, ProgramBounds.ScriptedAmpXMax);
            prog.AmpY = Fields.Int(sc, "amp_y", S, ProgramBounds.ScriptedAmpYMin, ProgramBounds.ScriptedAmpYMax);

            var bot = Fields.Object(json, "bot", P);
            const string BT = "program.bot";
            Fields.Only(bot, BT, ProgramBounds.BotKeys);
            prog.ClearanceCap = Fields.Int(bot, "clearance_cap", BT, ProgramBounds.BotClearanceCapMin, ProgramBounds.BotClearanceCapMax);
            prog.HomeShift = Fields.Int(bot, "home_shift", BT, ProgramBounds.BotHomeShiftMin, ProgramBounds.BotHomeShiftMax);
            var skills = Fields.Object(bot, "skills", BT);
            Fields.Only(skills, "program.bot.skills", ProgramBounds.SkillsKeys);
            foreach (string name in ProgramBounds.SkillsKeys)  // all three, whichever player runs
            {
                string kp = Fields.Join("program.bot.skills", name);
                var sk = Fields.Object(skills, name, "program.bot.skills");
                Fields.Only(sk, kp, ProgramBounds.SkillKeys);
                prog.Skills[name] = new BotSkill
                {
                    ReactionTicks = Fields.Int(sk, "reaction_ticks", kp, ProgramBounds.SkillReactionTicksMin, ProgramBounds.SkillReactionTicksMax),
                    LookaheadTicks = Fields.Int(sk, "lookahead_ticks", kp, ProgramBounds.SkillLookaheadTicksMin, ProgramBounds.SkillLookaheadTicksMax),
                    MistakeThreshold = Fields.Int(sk, "mistake_threshold", kp, ProgramBounds.SkillMistakeThresholdMin, ProgramBounds.SkillMistakeThresholdMax),
                };
            }

            var fm = Fields.Object(json, "frame_model", P);
            const string F = "program.frame_model";
            Fields.Only(fm, F, ProgramBounds.FrameModelKeys);
            prog.FixedUs = Fields.Int(fm, "fixed_us", F, ProgramBounds.FrameModelFixedUsMin, ProgramBounds.FrameModelFixedUsMax);
            prog.PerBulletUs = Fields.Int(fm, "per_bullet_us", F, ProgramBounds.FrameModelPerBulletUsMin, ProgramBounds.FrameModelPerBulletUsMax);
            prog.PerCheckUs = Fields.Int(fm, "per_check_us", F, ProgramBounds.FrameModelPerCheckUsMin, ProgramBounds.FrameModelPerCheckUsMax);
            return prog;
        }

        /// <summary>program.config_hash in the words of pydantic (the Python reader). The protocol
        /// reads it before it compares any hash, so a missing or mistyped one is a bad request
        /// (exit 2) naming the field in every reader, never a hash mismatch (issue 25.14).</summary>
        public static string ConfigHashOf(JsonValue program)
        {
            const string at = "program.config_hash";
            JsonValue v = program.Get("config_hash");
            if (v == null) throw new BadRequestException(at, "Field required");
            if (v.Kind != JsonKind.String) throw new BadRequestException(at, "Input should be a valid string");
            if (!Fields.WholeMatch(v.Text, "^[0-9a-f]{64}$"))
                throw new BadRequestException(at, "String should match pattern '^[0-9a-f]{64}$'");
            return v.Text;
        }

        /// <summary>The refusals of a program that contradicts itself, word for word those of
        /// gcv/sim/program_model.py (pattern_code_message, duplicate_phase_id_message).</summary>
        public static string PatternCodeMessage(long code, string pattern)
        {
            return string.Format(CultureInfo.InvariantCulture,
                "pattern_code {0} contradicts pattern '{1}' (whose code is {2}); the two must name the same pattern",
                code, pattern, System.Array.IndexOf(ProgramBounds.PatternNames, pattern));
        }

        public static string DuplicatePhaseIdMessage(string id, int first, int again)
        {
            return string.Format(CultureInfo.InvariantCulture,
                "phase id '{0}' is used by phases {1} and {2}; goals, telemetry and repairs name phases by id, so each id must be unique",
                id, first, again);
        }

        /// <summary>A phase id: PhaseIdLength characters, each one of PhaseIdChars (the pattern of the Python model).</summary>
        static string PhaseId(JsonValue ph, string path)
        {
            string id = Fields.String(ph, "phase_id", path);
            string at = Fields.Join(path, "phase_id");
            if (id.Length < ProgramBounds.PhaseIdLengthMin || id.Length > ProgramBounds.PhaseIdLengthMax)
                throw new BadRequestException(at, string.Format(CultureInfo.InvariantCulture,
                    "{0} characters; allowed {1}..{2}", id.Length, ProgramBounds.PhaseIdLengthMin, ProgramBounds.PhaseIdLengthMax));
            foreach (char c in id)
            {
                if (ProgramBounds.PhaseIdChars.IndexOf(c) < 0)
                    throw new BadRequestException(at, "may use only " + ProgramBounds.PhaseIdChars);
            }
            return id;
        }

        static void Count(int count, long min, long max, string path)
        {
            if (count < min || count > max)
                throw new BadRequestException(path, string.Format(CultureInfo.InvariantCulture,
                    "{0} items; allowed {1}..{2}", count, min, max));
        }

        static long Bounded(long v, long min, long max, string path)
        {
            if (v < min || v > max)
                throw new BadRequestException(path, string.Format(CultureInfo.InvariantCulture,
                    "{0} is out of range; allowed {1}..{2}", v, min, max));
            return v;
        }

        /// <summary>sha256 (lowercase hex) of the canonical JSON of the program.</summary>
        public static string HashOf(JsonValue programJson)
        {
            return Hashing.Sha256Hex(System.Text.Encoding.UTF8.GetBytes(Gcv.Core.Json.Canonical(programJson)));
        }
    }
}
