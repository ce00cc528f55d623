// A small, strict JSON reader and writer (no external libraries).
//
// The reader keeps integers exact (long) and remembers whether a number was written as an
// integer, so that strict fields (ints only) can be checked like pydantic's strict mode.
// Errors carry the line, column and character offset, in the style of Python's json module.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace Gcv.Core
{
    public enum JsonKind { Null, Bool, Integer, Number, String, Array, Object }

    /// <summary>One JSON value. Objects keep their keys in document order (the parser refuses a
    /// repeated key, as the contract's reader does); writers sort keys where a canonical order is wanted.</summary>
    public sealed class JsonValue
    {
        public JsonKind Kind;
        public bool Bool;
        public long Int;            // Kind == Integer
        public string Text;         // Kind == String: the string; Kind == Number: the literal text
        public List<JsonValue> Items;               // Kind == Array
        public List<string> Keys;                   // Kind == Object (document order, unique)
        public Dictionary<string, JsonValue> Map;   // Kind == Object

        public static readonly JsonValue Null = new JsonValue { Kind = JsonKind.Null };

        public static JsonValue Of(bool b) { return new JsonValue { Kind = JsonKind.Bool, Bool = b }; }
        public static JsonValue Of(long i) { return new JsonValue { Kind = JsonKind.Integer, Int = i }; }
        public static JsonValue Of(string s) { return s == null ? Null : new JsonValue { Kind = JsonKind.String, Text = s }; }
        public static JsonValue OfNullable(long? i) { return i.HasValue ? Of(i.Value) : Null; }

        /// <summary>A number given as its literal JSON text (written verbatim).</summary>
        public static JsonValue RawNumber(string text) { return new JsonValue { Kind = JsonKind.Number, Text = text }; }

        /// <summary>milli / 1000 written as Python's repr of that float (the Python writer's
        /// bytes): 41432 -> 41.432, 500 -> 0.5, 12000 -> 12.0 (a whole number keeps ".0").</summary>
        public static JsonValue Milli(long milli)
        {
            return RawNumber(MilliText(milli));
        }

        public static string MilliText(long milli)
        {
            bool neg = milli < 0;
            ulong m = neg ? (ulong)(-(milli + 1)) + 1UL : (ulong)milli;
            ulong whole = m / 1000UL, frac = m % 1000UL;
            string f = frac.ToString("000", CultureInfo.InvariantCulture).TrimEnd('0');
            string s = whole.ToString(CultureInfo.InvariantCulture) + "." + (f.Length == 0 ? "0" : f);
            return neg ? "-" + s : s;
        }

        public static JsonValue NewArray() { return new JsonValue { Kind = JsonKind.Array, Items = new List<JsonValue>() }; }

        public static JsonValue NewObject()
        {
            return new JsonValue { Kind = JsonKind.Object, Keys = new List<string>(), Map = new Dictionary<string, JsonValue>(StringComparer.Ordinal) };
        }

        public static JsonValue ArrayOf(IEnumerable<long> values)
        {
            var a = NewArray();
            foreach (long v in values) a.Items.Add(Of(v));
            return a;
        }

        public static JsonValue ArrayOf(IEnumerable<string> values)
        {
            var a = NewArray();
            foreach (string v in values) a.Items.Add(Of(v));
            return a;
        }

        public JsonValue Set(string key, JsonValue value)
        {
            if (Kind != JsonKind.Object) throw new InvalidOperationException("not an object");
            if (!Map.ContainsKey(key)) Keys.Add(key);
            Map[key] = value ?? Null;
            return this;
        }

        public JsonValue Set(string key, long value) { return Set(key, Of(value)); }
        public JsonValue Set(string key, string value) { return Set(key, Of(value)); }
        public JsonValue Set(string key, bool value) { return Set(key, Of(value)); }

        public JsonValue Add(JsonValue value)
        {
            if (Kind != JsonKind.Array) throw new InvalidOperationException("not an array");
            Items.Add(value ?? Null);
            return this;
        }

        public bool Has(string key) { return Kind == JsonKind.Object && Map.ContainsKey(key); }

        public JsonValue Get(string key)
        {
            JsonValue v;
            if (Kind == JsonKind.Object && Map.TryGetValue(key, out v)) return v;
            return null;
        }

        public string KindName
        {
            get
            {
                switch (Kind)
                {
                    case JsonKind.Null: return "null";
                    case JsonKind.Bool: return "boolean";
                    case JsonKind.Integer: return "integer";
                    case JsonKind.Number: return "number";
                    case JsonKind.String: return "string";
                    case JsonKind.Array: return "array";
                    default: return "object";
                }
            }
        }
    }

    public sealed class JsonParseException : Exception
    {
        public readonly int Line, Column, Offset;

        public JsonParseException(string message, int line, int column, int offset)
            : base(string.Format(CultureInfo.InvariantCulture, "{0}: line {1} column {2} (char {3})", message, line, column, offset))
        {
            Line = line; Column = column; Offset = offset;
        }
    }

    public static class Json
    {
        const int MaxDepth = 512;

        public static JsonValue Parse(string text)
        {
            var p = new Parser(text);
            return p.ParseDocument();
        }

        sealed class Parser
        {
            readonly string s;
            int i;

            public Parser(string text)
            {
                s = text ?? "";
                i = 0;
                if (s.Length > 0 && s[0] == '\uFEFF') i = 1; // tolerate a UTF-8 byte order mark
            }

            Exception Error(string message, int at)
            {
                int line = 1, col = 1;
                for (int k = 0; k < at && k < s.Length; k++)
                {
                    if (s[k] == '\n') { line++; col = 1; } else col++;
                }
                return new JsonParseException(message, line, col, at);
            }

            void SkipWs()
            {
                while (i < s.Length)
                {
                    char c = s[i];
                    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') i++;
                    else break;
                }
            }

            public JsonValue ParseDocument()
            {
                SkipWs();
                if (i >= s.Length) throw Error("Expecting value", i);
                JsonValue v = ParseValue(0);
                SkipWs();
                if (i < s.Length) throw Error("Extra data", i);
                return v;
            }

            JsonValue ParseValue(int depth)
            {
                if (depth > MaxDepth) throw Error("Nesting too deep", i);
                if (i >= s.Length) throw Error("Expecting value", i);
                char c = s[i];
                switch (c)
                {
                    case '{': return ParseObject(depth);
                    case '[': return ParseArray(depth);
                    case '"': return JsonValue.Of(ParseString());
                    case 't': Literal("true"); return JsonValue.Of(true);
                    case 'f': Literal("false"); return JsonValue.Of(false);
                    case 'n': Literal("null"); return JsonValue.Null;
                    default:
                        if (c == '-' || (c >= '0' && c <= '9')) return ParseNumber();
                        throw Error("Expecting value", i);
                }
            }

            void Literal(string word)
            {
                if (string.CompareOrdinal(s, i, word, 0, word.Length) != 0) throw Error("Expecting value", i);
                i += word.Length;
            }

            JsonValue ParseObject(int depth)
            {
                var obj = JsonValue.NewObject();
                i++; // {
                SkipWs();
                if (i < s.Length && s[i] == '}') { i++; return obj; }
                while (true)
                {
                    SkipWs();
                    if (i >= s.Length || s[i] != '"') throw Error("Expecting property name enclosed in double quotes", i);
                    int keyAt = i;
                    string key = ParseString();
                    if (obj.Has(key))  // every reader used to keep the last value; the contract refuses it (issue 25.13)
                    {
                        var quoted = new StringBuilder();
                        WriteString(quoted, key, false);
                        throw Error("duplicate key " + quoted + " (each key may appear once per object)", keyAt);
                    }
                    SkipWs();
                    if (i >= s.Length || s[i] != ':') throw Error("Expecting ':' delimiter", i);
                    i++;
                    SkipWs();
                    JsonValue v = ParseValue(depth + 1);
                    obj.Set(key, v);
                    SkipWs();
                    if (i < s.Length && s[i] == ',') { i++; continue; }
                    if (i < s.Length && s[i] == '}') { i++; return obj; }
                    throw Error("Expecting ',' delimiter", i);
                }
            }

            JsonValue ParseArray(int depth)
            {
                var arr = JsonValue.NewArray();
                i++; // [
                SkipWs();
                if (i < s.Length && s[i] == ']') { i++; return arr; }
                while (true)
                {
                    SkipWs();
                    arr.Items.Add(ParseValue(depth + 1));
                    SkipWs();
                    if (i < s.Length && s[i] == ',') { i++; continue; }
                    if (i < s.Length && s[i] == ']') { i++; return arr; }
                    throw Error("Expecting ',' delimiter", i);
                }
            }

            string ParseString()
            {
                int start = i;
                i++; // opening quote
                StringBuilder sb = null;
                int runStart = i;
                while (true)
                {
                    if (i >= s.Length) throw Error("Unterminated string starting at", start);
                    char c = s[i];
                    if (c == '"')
                    {
                        string tail = s.Substring(runStart, i - runStart);
                        i++;
                        if (sb == null) return tail;
                        sb.Append(tail);
                        return sb.ToString();
                    }
                    if (c < 0x20) throw Error("Invalid control character at", i);
                    if (c != '\\') { i++; continue; }
                    if (sb == null) sb = new StringBuilder();
                    sb.Append(s, runStart, i - runStart);
                    if (i + 1 >= s.Length) throw Error("Unterminated string starting at", start);
                    char e = s[i + 1];
                    switch (e)
                    {
                        case '"': sb.Append('"'); i += 2; break;
                        case '\\': sb.Append('\\'); i += 2; break;
                        case '/': sb.Append('/'); i += 2; break;
                        case 'b': sb.Append('\b'); i += 2; break;
                        case 'f': sb.Append('\f'); i += 2; break;
                        case 'n': sb.Append('\n'); i += 2; break;
                        case 'r': sb.Append('\r'); i += 2; break;
                        case 't': sb.Append('\t'); i += 2; break;
                        case 'u':
                            if (i + 6 > s.Length) throw Error("Invalid \\uXXXX escape", i + 1);
                            int code = 0;
                            for (int k = 2; k < 6; k++)
                            {
                                int d = HexDigit(s[i + k]);
                                if (d < 0) throw Error("Invalid \\uXXXX escape", i + 1);
                                code = code * 16 + d;
                            }
                            sb.Append((char)code);
                            i += 6;
                            break;
                        default:
                            throw Error("Invalid \\escape", i);
                    }
                    runStart = i;
                }
            }

            static int HexDigit(char c)
            {
                if (c >= '0' && c <= '9') return c - '0';
                if (c >= 'a' && c <= 'f') return c - 'a' + 10;
                if (c >= 'A' && c <= 'F') return c - 'A' + 10;
                return -1;
            }

            JsonValue ParseNumber()
            {
                int start = i;
                bool isInt = true;
                if (s[i] == '-') i++;
                if (i >= s.Length) throw Error("Expecting value", start);
                if (s[i] == '0') i++;
                else if (s[i] >= '1' && s[i] <= '9') { while (i < s.Length && s[i] >= '0' && s[i] <= '9') i++; }
                else throw Error("Expecting value", start);
                if (i < s.Length && s[i] == '.')
                {
                    int dot = i;
                    i++;
                    if (i >= s.Length || s[i] < '0' || s[i] > '9') { i = dot; }
                    else { isInt = false; while (i < s.Length && s[i] >= '0' && s[i] <= '9') i++; }
                }
                if (i < s.Length && (s[i] == 'e' || s[i] == 'E'))
                {
                    int ePos = i;
                    int j = i + 1;
                    if (j < s.Length && (s[j] == '+' || s[j] == '-')) j++;
                    if (j < s.Length && s[j] >= '0' && s[j] <= '9')
                    {
                        isInt = false;
                        while (j < s.Length && s[j] >= '0' && s[j] <= '9') j++;
                        i = j;
                    }
                    else i = ePos;
                }
                string text = s.Substring(start, i - start);
                if (isInt)
                {
                    long v;
                    if (long.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out v))
                        return JsonValue.Of(v);
                    // An integer outside int64: kept as text; strict integer fields reject it.
                    var big = JsonValue.RawNumber(text);
                    return big;
                }
                return JsonValue.RawNumber(text);
            }
        }

        // ------------------------------------------------------------------ writing

        /// <summary>Plain JSON text. sortKeys orders object keys by code point; indent &lt; 0 is compact.</summary>
        public static string Write(JsonValue value, bool sortKeys, int indent)
        {
            var sb = new StringBuilder();
            WriteValue(sb, value, sortKeys, indent, 0, true);
            return sb.ToString();
        }

        /// <summary>Canonical JSON (gcv.contract.canonical): sorted keys, no whitespace, strings
        /// as Python's json.dumps(ensure_ascii=False). Integers, strings, booleans, null, arrays
        /// and objects only: a non-integer number throws (the sim program is integer-only).</summary>
        public static string Canonical(JsonValue value)
        {
            var sb = new StringBuilder();
            WriteCanonical(sb, value);
            return sb.ToString();
        }

        static void WriteCanonical(StringBuilder sb, JsonValue v)
        {
            switch (v.Kind)
            {
                case JsonKind.Null: sb.Append("null"); return;
                case JsonKind.Bool: sb.Append(v.Bool ? "true" : "false"); return;
                case JsonKind.Integer: sb.Append(v.Int.ToString(CultureInfo.InvariantCulture)); return;
                case JsonKind.Number:
                    throw new FormatException("canonical JSON of a non-integer number (" + v.Text + ") is not supported");
                case JsonKind.String: WriteString(sb, v.Text, false); return;
                case JsonKind.Array:
                    sb.Append('[');
                    for (int k = 0; k < v.Items.Count; k++)
                    {
                        if (k > 0) sb.Append(',');
                        WriteCanonical(sb, v.Items[k]);
                    }
                    sb.Append(']');
                    return;
                default:
                    sb.Append('{');
                    var keys = SortedKeys(v);
                    for (int k = 0; k < keys.Count; k++)
                    {
                        if (k > 0) sb.Append(',');
                        WriteString(sb, keys[k], false);
                        sb.Append(':');
                        WriteCanonical(sb, v.Map[keys[k]]);
                    }
                    sb.Append('}');
                    return;
            }
        }

        static void WriteValue(StringBuilder sb, JsonValue v, bool sortKeys, int indent, int level, bool asciiOnly)
        {
            switch (v.Kind)
            {
                case JsonKind.Null: sb.Append("null"); return;
                case JsonKind.Bool: sb.Append(v.Bool ? "true" : "false"); return;
                case JsonKind.Integer: sb.Append(v.Int.ToString(CultureInfo.InvariantCulture)); return;
                case JsonKind.Number: sb.Append(v.Text); return;
                case JsonKind.String: WriteString(sb, v.Text, asciiOnly); return;
                case JsonKind.Array:
                    if (v.Items.Count == 0) { sb.Append("[]"); return; }
                    sb.Append('[');
                    for (int k = 0; k < v.Items.Count; k++)
                    {
                        if (k > 0) sb.Append(',');
                        NewLine(sb, indent, level + 1);
                        WriteValue(sb, v.Items[k], sortKeys, indent, level + 1, asciiOnly);
                    }
                    NewLine(sb, indent, level);
                    sb.Append(']');
                    return;
                default:
                    if (v.Keys.Count == 0) { sb.Append("{}"); return; }
                    sb.Append('{');
                    var keys = sortKeys ? SortedKeys(v) : v.Keys;
                    for (int k = 0; k < keys.Count; k++)
                    {
                        if (k > 0) sb.Append(',');
                        NewLine(sb, indent, level + 1);
                        WriteString(sb, keys[k], asciiOnly);
                        sb.Append(indent >= 0 ? ": " : ":");
                        WriteValue(sb, v.Map[keys[k]], sortKeys, indent, level + 1, asciiOnly);
                    }
                    NewLine(sb, indent, level);
                    sb.Append('}');
                    return;
            }
        }

        static void NewLine(StringBuilder sb, int indent, int level)
        {
            if (indent < 0) return;
            sb.Append('\n');
            sb.Append(' ', indent * level);
        }

        static List<string> SortedKeys(JsonValue obj)
        {
            var keys = new List<string>(obj.Keys);
            keys.Sort(CodePointCompare);
            return keys;
        }

        /// <summary>Compares strings by Unicode code point (Python's str ordering), not by UTF-16 unit.</summary>
        public static int CodePointCompare(string a, string b)
        {
            int n = Math.Min(a.Length, b.Length);
            for (int k = 0; k < n; k++)
            {
                char x = a[k], y = b[k];
                if (x == y) continue;
                return Fixup(x) - Fixup(y);
            }
            return a.Length - b.Length;
        }

        static int Fixup(char c)
        {
            // Move surrogates (code points >= U+10000) above U+E000..U+FFFF.
            if (c >= 0xE000) return c - 0x800;
            if (c >= 0xD800) return c + 0x2000;
            return c;
        }

        /// <summary>Python json.dumps string form. asciiOnly = ensure_ascii=True (non-ASCII as \uXXXX).</summary>
        public static void WriteString(StringBuilder sb, string s, bool asciiOnly)
        {
            sb.Append('"');
            for (int k = 0; k < s.Length; k++)
            {
                char c = s[k];
                switch (c)
                {
                    case '"': sb.Append("\\\""); break;
                    case '\\': sb.Append("\\\\"); break;
                    case '\n': sb.Append("\\n"); break;
                    case '\r': sb.Append("\\r"); break;
                    case '\t': sb.Append("\\t"); break;
                    case '\b': sb.Append("\\b"); break;
                    case '\f': sb.Append("\\f"); break;
                    default:
                        if (c < 0x20 || (asciiOnly && c > 0x7E))
                            sb.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
                        else sb.Append(c);
                        break;
                }
            }
            sb.Append('"');
        }

        public static string Quote(string s)
        {
            var sb = new StringBuilder();
            WriteString(sb, s, true);
            return sb.ToString();
        }
    }
}
