// A small JSON value, parser and writers for the GCV run protocol. Pure C++17, no engine
// headers, no exceptions (a failed parse returns false with a message), so it compiles
// unchanged inside an Unreal module (exceptions off) and in the g++ harness.
//
// Why hand-written: the program hash is sha256 of the *canonical* JSON of the program
// exactly as Python's gcv.contract.canonical writes it (sorted keys, no whitespace,
// integers as written, strings as json.dumps(ensure_ascii=False)). Numbers therefore keep
// their token text, so integers of any size re-serialise exactly as Python prints them.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace gcv {

class Json {
public:
    enum class Type : uint8_t { Null, Bool, Number, String, Array, Object };

    Type type = Type::Null;
    bool boolean = false;
    // Numbers: `text` is the token as written (or as produced by a writer helper);
    // isInteger means no fraction and no exponent; fitsInt64 means `integer` holds it.
    bool isInteger = false;
    bool fitsInt64 = false;
    int64_t integer = 0;
    std::string text;  // string value, or number token
    std::vector<Json> items;
    // Object members as parallel vectors (std::pair<std::string, Json> would need Json to be
    // complete here; vectors of an incomplete type are fine). Keys are unique: a repeated
    // key is a parse error, as in the contract's reader (gcv.contract.loading).
    std::vector<std::string> keys;
    std::vector<Json> values;

    static Json MakeNull() { return Json(); }
    static Json MakeBool(bool v) {
        Json j;
        j.type = Type::Bool;
        j.boolean = v;
        return j;
    }
    static Json MakeInt(int64_t v) {
        Json j;
        j.type = Type::Number;
        j.isInteger = true;
        j.fitsInt64 = true;
        j.integer = v;
        j.text = std::to_string(v);
        return j;
    }
    // A number written exactly as `token` (must be valid JSON number text).
    static Json MakeNumberText(const std::string& token, bool integerToken) {
        Json j;
        j.type = Type::Number;
        j.isInteger = integerToken;
        j.text = token;
        if (integerToken) {
            auto r = std::from_chars(token.data(), token.data() + token.size(), j.integer);
            j.fitsInt64 = r.ec == std::errc() && r.ptr == token.data() + token.size();
        }
        return j;
    }
    static Json MakeString(std::string v) {
        Json j;
        j.type = Type::String;
        j.text = std::move(v);
        return j;
    }
    static Json MakeArray() {
        Json j;
        j.type = Type::Array;
        return j;
    }
    static Json MakeObject() {
        Json j;
        j.type = Type::Object;
        return j;
    }

    bool IsNull() const { return type == Type::Null; }
    bool IsBool() const { return type == Type::Bool; }
    bool IsNumber() const { return type == Type::Number; }
    bool IsInt64() const { return type == Type::Number && isInteger && fitsInt64; }
    bool IsString() const { return type == Type::String; }
    bool IsArray() const { return type == Type::Array; }
    bool IsObject() const { return type == Type::Object; }

    const Json* Find(const std::string& key) const {
        for (size_t i = 0; i < keys.size(); ++i)
            if (keys[i] == key) return &values[i];
        return nullptr;
    }
    Json& Set(const std::string& key, Json value) {
        for (size_t i = 0; i < keys.size(); ++i)
            if (keys[i] == key) {
                values[i] = std::move(value);
                return values[i];
            }
        keys.push_back(key);
        values.push_back(std::move(value));
        return values.back();
    }
    void Push(Json value) { items.push_back(std::move(value)); }
};

// "Type name" for error messages.
inline const char* JsonTypeName(const Json& j) {
    switch (j.type) {
        case Json::Type::Null: return "null";
        case Json::Type::Bool: return "boolean";
        case Json::Type::Number: return j.isInteger ? "integer" : "number";
        case Json::Type::String: return "string";
        case Json::Type::Array: return "array";
        case Json::Type::Object: return "object";
    }
    return "value";
}

// ----------------------------------------------------------------------------- UTF-8
// Strict UTF-8 (no overlongs, no surrogates, <= U+10FFFF), as Python's decoder.
inline bool ValidUtf8(const std::string& s, size_t* badOffset = nullptr) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    size_t n = s.size(), i = 0;
    while (i < n) {
        unsigned c = p[i];
        size_t len;
        uint32_t cp;
        if (c < 0x80) {
            ++i;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            len = 2;
            cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            len = 3;
            cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            len = 4;
            cp = c & 0x07;
        } else {
            if (badOffset) *badOffset = i;
            return false;
        }
        if (i + len > n) {
            if (badOffset) *badOffset = i;
            return false;
        }
        for (size_t k = 1; k < len; ++k) {
            if ((p[i + k] & 0xC0) != 0x80) {
                if (badOffset) *badOffset = i;
                return false;
            }
            cp = (cp << 6) | (p[i + k] & 0x3F);
        }
        bool overlong = (len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
        if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            if (badOffset) *badOffset = i;
            return false;
        }
        i += len;
    }
    return true;
}

inline void AppendUtf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

inline void WriteJsonString(std::string& out, const std::string& s, bool ensureAscii);  // below

// ----------------------------------------------------------------------------- parser
class JsonParser {
public:
    // Strict RFC 8259 JSON: no NaN/Infinity, no comments, no trailing commas, no control
    // characters inside strings, at most kMaxDepth nested containers.
    static bool Parse(const std::string& input, Json& out, std::string& error) {
        JsonParser p(input);
        p.SkipWs();
        if (!p.ParseValue(out, 0)) {
            error = p.error_;
            return false;
        }
        p.SkipWs();
        if (p.pos_ != p.s_.size()) {
            p.Fail("extra data after the JSON value");
            error = p.error_;
            return false;
        }
        return true;
    }

private:
    static constexpr int kMaxDepth = 256;
    const std::string& s_;
    size_t pos_ = 0;
    std::string error_;

    explicit JsonParser(const std::string& s) : s_(s) {}

    bool Fail(const char* what) {
        if (error_.empty()) {
            size_t line = 1, col = 1;
            for (size_t i = 0; i < pos_ && i < s_.size(); ++i) {
                if (s_[i] == '\n') {
                    ++line;
                    col = 1;
                } else {
                    ++col;
                }
            }
            error_ = std::string(what) + " at line " + std::to_string(line) + " column " + std::to_string(col);
        }
        return false;
    }
    void SkipWs() {
        while (pos_ < s_.size()) {
            char c = s_[pos_];
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
                ++pos_;
            else
                break;
        }
    }
    bool Literal(const char* word) {
        size_t n = std::strlen(word);
        if (s_.compare(pos_, n, word) != 0) return Fail("invalid literal");
        pos_ += n;
        return true;
    }
    bool ParseValue(Json& out, int depth) {
        if (pos_ >= s_.size()) return Fail("unexpected end of input, expected a value");
        char c = s_[pos_];
        switch (c) {
            case '{': return ParseObject(out, depth + 1);
            case '[': return ParseArray(out, depth + 1);
            case '"':
                out.type = Json::Type::String;
                return ParseString(out.text);
            case 't':
                out = Json::MakeBool(true);
                return Literal("true");
            case 'f':
                out = Json::MakeBool(false);
                return Literal("false");
            case 'n':
                out = Json();
                return Literal("null");
            default:
                if (c == '-' || (c >= '0' && c <= '9')) return ParseNumber(out);
                return Fail("expected a value");
        }
    }
    bool ParseNumber(Json& out) {
        size_t start = pos_;
        bool integer = true;
        if (s_[pos_] == '-') ++pos_;
        if (pos_ >= s_.size()) return Fail("invalid number");
        if (s_[pos_] == '0') {
            ++pos_;
        } else if (s_[pos_] >= '1' && s_[pos_] <= '9') {
            while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
        } else {
            return Fail("invalid number");
        }
        if (pos_ < s_.size() && s_[pos_] == '.') {
            integer = false;
            ++pos_;
            size_t digits = pos_;
            while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
            if (pos_ == digits) return Fail("invalid number: digits expected after '.'");
        }
        if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
            integer = false;
            ++pos_;
            if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
            size_t digits = pos_;
            while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
            if (pos_ == digits) return Fail("invalid number: digits expected in the exponent");
        }
        out = Json::MakeNumberText(s_.substr(start, pos_ - start), integer);
        return true;
    }
    bool Hex4(uint32_t& v) {
        if (pos_ + 4 > s_.size()) return Fail("truncated \\u escape");
        v = 0;
        for (int i = 0; i < 4; ++i) {
            char c = s_[pos_++];
            v <<= 4;
            if (c >= '0' && c <= '9')
                v |= static_cast<uint32_t>(c - '0');
            else if (c >= 'a' && c <= 'f')
                v |= static_cast<uint32_t>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                v |= static_cast<uint32_t>(c - 'A' + 10);
            else
                return Fail("invalid \\u escape");
        }
        return true;
    }
    bool ParseString(std::string& out) {
        ++pos_;  // opening quote
        out.clear();
        while (true) {
            if (pos_ >= s_.size()) return Fail("unterminated string");
            char c = s_[pos_];
            if (c == '"') {
                ++pos_;
                return true;
            }
            if (static_cast<unsigned char>(c) < 0x20) return Fail("invalid control character in string");
            if (c != '\\') {
                out += c;
                ++pos_;
                continue;
            }
            ++pos_;
            if (pos_ >= s_.size()) return Fail("unterminated string");
            char e = s_[pos_++];
            switch (e) {
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case '/': out += '/'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    uint32_t cp = 0;
                    if (!Hex4(cp)) return false;
                    if (cp >= 0xD800 && cp <= 0xDBFF) {
                        uint32_t lo = 0;
                        if (pos_ + 2 > s_.size() || s_[pos_] != '\\' || s_[pos_ + 1] != 'u')
                            return Fail("lone surrogate in \\u escape");
                        pos_ += 2;
                        if (!Hex4(lo)) return false;
                        if (lo < 0xDC00 || lo > 0xDFFF) return Fail("lone surrogate in \\u escape");
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                        return Fail("lone surrogate in \\u escape");
                    }
                    AppendUtf8(out, cp);
                    break;
                }
                default: return Fail("invalid escape in string");
            }
        }
    }
    bool ParseArray(Json& out, int depth) {
        if (depth > kMaxDepth) return Fail("nesting too deep");
        out = Json::MakeArray();
        ++pos_;
        SkipWs();
        if (pos_ < s_.size() && s_[pos_] == ']') {
            ++pos_;
            return true;
        }
        while (true) {
            SkipWs();
            Json item;
            if (!ParseValue(item, depth)) return false;
            out.items.push_back(std::move(item));
            SkipWs();
            if (pos_ >= s_.size()) return Fail("unterminated array");
            if (s_[pos_] == ',') {
                ++pos_;
                continue;
            }
            if (s_[pos_] == ']') {
                ++pos_;
                return true;
            }
            return Fail("expected ',' or ']'");
        }
    }
    bool ParseObject(Json& out, int depth) {
        if (depth > kMaxDepth) return Fail("nesting too deep");
        out = Json::MakeObject();
        ++pos_;
        SkipWs();
        if (pos_ < s_.size() && s_[pos_] == '}') {
            ++pos_;
            return true;
        }
        // The keys seen so far, hashed: a linear search per key made a 100,000-key object take
        // over a minute (Json::Set and Find scan the vector).
        std::unordered_set<std::string> seen;
        while (true) {
            SkipWs();
            if (pos_ >= s_.size() || s_[pos_] != '"') return Fail("expected a property name in double quotes");
            const size_t keyAt = pos_;
            std::string key;
            if (!ParseString(key)) return false;
            if (!seen.insert(key).second) {  // refused, as the contract's reader refuses it (every reader used to keep the last)
                pos_ = keyAt;
                std::string quoted;
                WriteJsonString(quoted, key, false);
                return Fail(("duplicate key " + quoted + " (each key may appear once per object)").c_str());
            }
            SkipWs();
            if (pos_ >= s_.size() || s_[pos_] != ':') return Fail("expected ':'");
            ++pos_;
            SkipWs();
            Json value;
            if (!ParseValue(value, depth)) return false;
            out.keys.push_back(std::move(key));  // unique: checked above
            out.values.push_back(std::move(value));
            SkipWs();
            if (pos_ >= s_.size()) return Fail("unterminated object");
            if (s_[pos_] == ',') {
                ++pos_;
                continue;
            }
            if (s_[pos_] == '}') {
                ++pos_;
                return true;
            }
            return Fail("expected ',' or '}'");
        }
    }
};

// ----------------------------------------------------------------------------- writers
// String escaping as Python's json.dumps: ensure_ascii=true escapes every non-ASCII
// character as \uXXXX (surrogate pairs above U+FFFF); false keeps UTF-8 bytes as they are.
inline void WriteJsonString(std::string& out, const std::string& s, bool ensureAscii) {
    static const char* hex = "0123456789abcdef";
    out += '"';
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    size_t n = s.size();
    for (size_t i = 0; i < n; ++i) {
        unsigned char c = p[i];
        switch (c) {
            case '"': out += "\\\""; continue;
            case '\\': out += "\\\\"; continue;
            case '\n': out += "\\n"; continue;
            case '\r': out += "\\r"; continue;
            case '\t': out += "\\t"; continue;
            case '\b': out += "\\b"; continue;
            case '\f': out += "\\f"; continue;
            default: break;
        }
        if (c < 0x20) {
            out += "\\u00";
            out += hex[c >> 4];
            out += hex[c & 15];
            continue;
        }
        if (c < 0x7F || !ensureAscii) {  // ensure_ascii escapes DEL (0x7F) too
            out += static_cast<char>(c);
            continue;
        }
        if (c == 0x7F) {
            out += "\\u007f";
            continue;
        }
        // Decode one UTF-8 sequence (input strings were validated) and escape it.
        uint32_t cp;
        size_t len;
        if ((c & 0xE0) == 0xC0) {
            cp = c & 0x1F;
            len = 2;
        } else if ((c & 0xF0) == 0xE0) {
            cp = c & 0x0F;
            len = 3;
        } else {
            cp = c & 0x07;
            len = 4;
        }
        for (size_t k = 1; k < len && i + k < n; ++k) cp = (cp << 6) | (p[i + k] & 0x3F);
        i += len - 1;
        auto emit = [&](uint32_t u) {
            out += "\\u";
            out += hex[(u >> 12) & 15];
            out += hex[(u >> 8) & 15];
            out += hex[(u >> 4) & 15];
            out += hex[u & 15];
        };
        if (cp >= 0x10000) {
            cp -= 0x10000;
            emit(0xD800 + (cp >> 10));
            emit(0xDC00 + (cp & 0x3FF));
        } else {
            emit(cp);
        }
    }
    out += '"';
}

namespace detail {
// Member indices in key order. Byte order of UTF-8 equals code-point order, which is how
// Python sorts str keys.
inline std::vector<size_t> SortedMembers(const Json& j) {
    std::vector<size_t> v(j.keys.size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = i;
    std::sort(v.begin(), v.end(), [&j](size_t a, size_t b) { return j.keys[a] < j.keys[b]; });
    return v;
}

inline void WriteCompact(std::string& out, const Json& j, bool sortKeys, bool ensureAscii) {
    switch (j.type) {
        case Json::Type::Null: out += "null"; return;
        case Json::Type::Bool: out += j.boolean ? "true" : "false"; return;
        case Json::Type::Number: out += j.text; return;
        case Json::Type::String: WriteJsonString(out, j.text, ensureAscii); return;
        case Json::Type::Array:
            out += '[';
            for (size_t i = 0; i < j.items.size(); ++i) {
                if (i) out += ',';
                WriteCompact(out, j.items[i], sortKeys, ensureAscii);
            }
            out += ']';
            return;
        case Json::Type::Object: {
            out += '{';
            bool first = true;
            auto one = [&](size_t i) {
                if (!first) out += ',';
                first = false;
                WriteJsonString(out, j.keys[i], ensureAscii);
                out += ':';
                WriteCompact(out, j.values[i], sortKeys, ensureAscii);
            };
            if (sortKeys) {
                for (size_t i : SortedMembers(j)) one(i);
            } else {
                for (size_t i = 0; i < j.keys.size(); ++i) one(i);
            }
            out += '}';
            return;
        }
    }
}

inline void WritePretty(std::string& out, const Json& j, int indent, int level) {
    auto newline = [&](int lvl) {
        out += '\n';
        out.append(static_cast<size_t>(indent * lvl), ' ');
    };
    if (j.type == Json::Type::Array && !j.items.empty()) {
        out += '[';
        for (size_t i = 0; i < j.items.size(); ++i) {
            if (i) out += ',';
            newline(level + 1);
            WritePretty(out, j.items[i], indent, level + 1);
        }
        newline(level);
        out += ']';
        return;
    }
    if (j.type == Json::Type::Object && !j.keys.empty()) {
        out += '{';
        bool first = true;
        for (size_t i : SortedMembers(j)) {
            if (!first) out += ',';
            first = false;
            newline(level + 1);
            WriteJsonString(out, j.keys[i], true);
            out += ": ";
            WritePretty(out, j.values[i], indent, level + 1);
        }
        newline(level);
        out += '}';
        return;
    }
    WriteCompact(out, j, true, true);
}
}  // namespace detail

// Compact, sorted keys, ASCII only: json.dumps(v, sort_keys=True, separators=(",", ":")).
inline std::string ToCompactJson(const Json& j) {
    std::string out;
    detail::WriteCompact(out, j, true, true);
    return out;
}

// json.dumps(v, indent=indent, sort_keys=True): how the Python runners write telemetry.
inline std::string ToPrettyJson(const Json& j, int indent = 1) {
    std::string out;
    detail::WritePretty(out, j, indent, 0);
    return out;
}

// ----------------------------------------------------------------------------- canonical
// Canonical number text of a non-integer token, as gcv.contract.canonical._number:
// shortest round-trip digits of the double, written the ECMAScript way.
inline bool CanonicalFloatText(const std::string& token, std::string& out) {
    double v = std::strtod(token.c_str(), nullptr);
    if (!std::isfinite(v)) return false;
    if (v == 0) {
        out = "0";
        return true;
    }
    char buf[128];
    if (v == std::floor(v) && std::fabs(v) < 1e21) {
        // str(int(value)): the exact integer value of the double.
        auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 0);
        if (r.ec != std::errc()) return false;
        out.assign(buf, r.ptr);
        return true;
    }
    auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    if (r.ec != std::errc()) return false;
    std::string sci(buf, r.ptr);  // [-]d[.ddd]e(+|-)xx, shortest round-trip digits
    bool neg = !sci.empty() && sci[0] == '-';
    if (neg) sci.erase(0, 1);
    size_t epos = sci.find('e');
    std::string mant = sci.substr(0, epos);
    int e = std::atoi(sci.c_str() + epos + 1);
    std::string digits;
    for (char c : mant)
        if (c != '.') digits += c;
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
    int k = static_cast<int>(digits.size());
    int n = e + 1;  // value = 0.digits * 10^n
    std::string s;
    if (k <= n && n <= 21) {
        s = digits + std::string(static_cast<size_t>(n - k), '0');
    } else if (0 < n && n <= 21) {
        s = digits.substr(0, static_cast<size_t>(n)) + "." + digits.substr(static_cast<size_t>(n));
    } else if (-6 < n && n <= 0) {
        s = "0." + std::string(static_cast<size_t>(-n), '0') + digits;
    } else {
        int ee = n - 1;
        s = digits.substr(0, 1);
        if (k > 1) s += "." + digits.substr(1);
        s += "e";
        s += ee > 0 ? "+" : "-";
        s += std::to_string(ee < 0 ? -ee : ee);
    }
    out = (neg ? "-" : "") + s;
    return true;
}

namespace detail {
inline bool WriteCanonical(std::string& out, const Json& j, std::string& error) {
    switch (j.type) {
        case Json::Type::Null: out += "null"; return true;
        case Json::Type::Bool: out += j.boolean ? "true" : "false"; return true;
        case Json::Type::Number:
            if (j.isInteger) {
                out += (j.text == "-0") ? std::string("0") : j.text;
                return true;
            } else {
                std::string t;
                if (!CanonicalFloatText(j.text, t)) {
                    error = "NaN and Infinity have no canonical JSON form";
                    return false;
                }
                out += t;
                return true;
            }
        case Json::Type::String: WriteJsonString(out, j.text, false); return true;
        case Json::Type::Array:
            out += '[';
            for (size_t i = 0; i < j.items.size(); ++i) {
                if (i) out += ',';
                if (!WriteCanonical(out, j.items[i], error)) return false;
            }
            out += ']';
            return true;
        case Json::Type::Object: {
            out += '{';
            bool first = true;
            for (size_t i : SortedMembers(j)) {
                if (!first) out += ',';
                first = false;
                WriteJsonString(out, j.keys[i], false);
                out += ':';
                if (!WriteCanonical(out, j.values[i], error)) return false;
            }
            out += '}';
            return true;
        }
    }
    return true;
}
}  // namespace detail

// gcv.contract.canonical.canonical_json: sorted keys, no whitespace, UTF-8 kept as is.
inline bool CanonicalJson(const Json& j, std::string& out, std::string& error) {
    out.clear();
    return detail::WriteCanonical(out, j, error);
}

// ----------------------------------------------------------------------------- equality
// Equality of parsed JSON the way Python compares json.loads results: numbers by value
// (12 == 12.0), objects regardless of key order. On a difference, `where` names the path.
inline bool JsonNumbersEqual(const Json& a, const Json& b) {
    if (a.isInteger && b.isInteger) {
        auto norm = [](const std::string& t) { return t == "-0" ? std::string("0") : t; };
        return norm(a.text) == norm(b.text);
    }
    return std::strtod(a.text.c_str(), nullptr) == std::strtod(b.text.c_str(), nullptr);
}

inline bool JsonEqual(const Json& a, const Json& b, std::string* where = nullptr, const std::string& path = "$") {
    auto differ = [&](const std::string& why) {
        if (where && where->empty()) *where = path + ": " + why;
        return false;
    };
    if (a.type != b.type) return differ(std::string(JsonTypeName(a)) + " vs " + JsonTypeName(b));
    switch (a.type) {
        case Json::Type::Null: return true;
        case Json::Type::Bool: return a.boolean == b.boolean ? true : differ(a.boolean ? "true vs false" : "false vs true");
        case Json::Type::Number: return JsonNumbersEqual(a, b) ? true : differ(a.text + " vs " + b.text);
        case Json::Type::String: return a.text == b.text ? true : differ("\"" + a.text + "\" vs \"" + b.text + "\"");
        case Json::Type::Array:
            for (size_t i = 0; i < a.items.size() && i < b.items.size(); ++i)
                if (!JsonEqual(a.items[i], b.items[i], where, path + "[" + std::to_string(i) + "]")) return false;
            if (a.items.size() != b.items.size())
                return differ("length " + std::to_string(a.items.size()) + " vs " + std::to_string(b.items.size()));
            return true;
        case Json::Type::Object:
            for (size_t i : detail::SortedMembers(a)) {
                const std::string& key = a.keys[i];
                const Json* other = b.Find(key);
                if (!other) return differ("key \"" + key + "\" only on the left");
                if (!JsonEqual(a.values[i], *other, where, path + "." + key)) return false;
            }
            for (const std::string& key : b.keys)
                if (!a.Find(key)) return differ("key \"" + key + "\" only on the right");
            return true;
    }
    return true;
}

}  // namespace gcv
