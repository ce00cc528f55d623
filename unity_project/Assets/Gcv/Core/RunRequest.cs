// The run request (gcv.run_request/1), read strictly: unknown fields, wrong types and
// out-of-range values are a bad request that names the field (exit code 2).
using System;
using System.Collections.Generic;
using System.Globalization;

namespace Gcv.Core
{
    public sealed class RunRequest
    {
        public const string RequestId = "gcv.run_request/1";
        public const long MaxSeed = long.MaxValue;
        public const string RunIdPattern = "^[A-Za-z0-9_.\\-]{1,80}$";

        public string RunId;
        public JsonValue ProgramJson;
        public string ProgramHash;
        public string ConfigHash;
        public long Seed;
        public PlayerSpec Player;
        public string PlayerLabel;
        public readonly List<long> CaptureTicks = new List<long>();
        public string OutputDir;

        /// <summary>The run_id if the document has a valid one (for the handshake), else "".</summary>
        public static string PeekRunId(JsonValue doc)
        {
            if (doc == null || doc.Kind != JsonKind.Object) return "";
            var v = doc.Get("run_id");
            if (v == null || v.Kind != JsonKind.String) return "";
            return Fields.WholeMatch(v.Text, RunIdPattern) ? v.Text : "";
        }

        public static RunRequest FromJson(JsonValue doc)
        {
            const string P = "";
            if (doc.Kind != JsonKind.Object) throw new BadRequestException("request", "expected a JSON object, got " + doc.KindName);
            Fields.Only(doc, P, "run_request", "run_id", "program", "program_hash", "config_hash", "seed",
                        "player", "player_label", "capture_ticks", "output_dir");
            var r = new RunRequest();
            if (doc.Has("run_request"))
            {
                string id = Fields.String(doc, "run_request", P);
                if (id != RequestId) throw new BadRequestException("run_request", "expected \"" + RequestId + "\", got \"" + id + "\"");
            }
            r.RunId = Fields.Pattern(doc, "run_id", P, RunIdPattern, "the run id pattern");
            r.ProgramJson = Fields.Object(doc, "program", P);
            r.ProgramHash = Fields.Pattern(doc, "program_hash", P, "^[0-9a-f]{64}$", "a sha256 hex digest");
            r.ConfigHash = Fields.Pattern(doc, "config_hash", P, "^[0-9a-f]{64}$", "a sha256 hex digest");
            r.Seed = Fields.Int(doc, "seed", P, 0, MaxSeed);
            r.Player = PlayerSpec.FromJson(Fields.Require(doc, "player", P), "player");
            r.PlayerLabel = Fields.String(doc, "player_label", P);
            if (r.PlayerLabel.Length < 1 || r.PlayerLabel.Length > 80)
                throw new BadRequestException("player_label", "must be 1..80 characters long");
            if (doc.Has("capture_ticks"))
            {
                var ticks = Fields.Array(doc, "capture_ticks", P);
                if (ticks.Count > 64) throw new BadRequestException("capture_ticks", "at most 64 ticks, got " + ticks.Count);
                for (int i = 0; i < ticks.Count; i++) r.CaptureTicks.Add(Fields.Int(ticks[i], Fields.Index("capture_ticks", i)));
            }
            r.OutputDir = Fields.String(doc, "output_dir", P);
            if (r.OutputDir.Length < 1) throw new BadRequestException("output_dir", "must not be empty");
            RequireIntegerOnly(r.ProgramJson, "program");
            return r;
        }

        /// <summary>The sim program is integer-only: a non-integer number is a bad request.</summary>
        public static void RequireIntegerOnly(JsonValue v, string path)
        {
            switch (v.Kind)
            {
                case JsonKind.Number:
                    throw new BadRequestException(path, "the sim program is integer-only, got the number " + v.Text);
                case JsonKind.Array:
                    for (int i = 0; i < v.Items.Count; i++) RequireIntegerOnly(v.Items[i], Fields.Index(path, i));
                    return;
                case JsonKind.Object:
                    foreach (string k in v.Keys) RequireIntegerOnly(v.Map[k], Fields.Join(path, k));
                    return;
                default:
                    return;
            }
        }

        public JsonValue ToJson()
        {
            var o = JsonValue.NewObject();
            o.Set("run_request", RequestId);
            o.Set("run_id", RunId);
            o.Set("program", ProgramJson);
            o.Set("program_hash", ProgramHash);
            o.Set("config_hash", ConfigHash);
            o.Set("seed", Seed);
            o.Set("player", Player.ToJson());
            o.Set("player_label", PlayerLabel);
            o.Set("capture_ticks", JsonValue.ArrayOf(CaptureTicks));
            o.Set("output_dir", OutputDir);
            return o;
        }
    }

    /// <summary>Structural comparison of parsed JSON (numbers by value), naming the first difference.</summary>
    public static class JsonCompare
    {
        /// <summary>null when equal, else "path: expected X, got Y".</summary>
        public static string FirstDifference(JsonValue expected, JsonValue actual, string path)
        {
            if (IsNumber(expected) && IsNumber(actual))
            {
                decimal a, b;
                if (ToDecimal(expected, out a) && ToDecimal(actual, out b) && a == b) return null;
                return Describe(path, expected, actual);
            }
            if (expected.Kind != actual.Kind) return Describe(path, expected, actual);
            switch (expected.Kind)
            {
                case JsonKind.Null: return null;
                case JsonKind.Bool: return expected.Bool == actual.Bool ? null : Describe(path, expected, actual);
                case JsonKind.String: return expected.Text == actual.Text ? null : Describe(path, expected, actual);
                case JsonKind.Array:
                    int n = Math.Min(expected.Items.Count, actual.Items.Count);
                    for (int i = 0; i < n; i++)
                    {
                        string d = FirstDifference(expected.Items[i], actual.Items[i], Fields.Index(path, i));
                        if (d != null) return d;
                    }
                    if (expected.Items.Count != actual.Items.Count)
                        return path + ": expected " + expected.Items.Count + " items, got " + actual.Items.Count;
                    return null;
                default:
                    var keys = new List<string>(expected.Keys);
                    keys.Sort(Json.CodePointCompare);
                    foreach (string k in keys)
                    {
                        var other = actual.Get(k);
                        if (other == null) return Fields.Join(path, k) + ": missing";
                        string d = FirstDifference(expected.Map[k], other, Fields.Join(path, k));
                        if (d != null) return d;
                    }
                    foreach (string k in actual.Keys)
                        if (!expected.Has(k)) return Fields.Join(path, k) + ": unexpected field";
                    return null;
            }
        }

        static bool IsNumber(JsonValue v) { return v.Kind == JsonKind.Integer || v.Kind == JsonKind.Number; }

        static bool ToDecimal(JsonValue v, out decimal d)
        {
            if (v.Kind == JsonKind.Integer) { d = v.Int; return true; }
            return decimal.TryParse(v.Text, NumberStyles.Float, CultureInfo.InvariantCulture, out d);
        }

        static string Describe(string path, JsonValue expected, JsonValue actual)
        {
            string e = Json.Write(expected, true, -1), a = Json.Write(actual, true, -1);
            if (e.Length > 200) e = e.Substring(0, 200) + "...";
            if (a.Length > 200) a = a.Substring(0, 200) + "...";
            return (path.Length == 0 ? "(root)" : path) + ": expected " + e + ", got " + a;
        }
    }
}
