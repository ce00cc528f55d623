// Fixed-point helpers, integer trigonometry and SplitMix64: a verbatim port of
// gcv/sim/fixed.py (the reference). Integer-only; no float is touched at run time, so the
// results do not depend on the compiler's floating-point mode (still: build without
// -ffast-math and with -ffp-contract=off, see README).
//
// Portability notes (C++17):
// * Python's `>>` on a negative int is a floor shift. C++17 leaves `>>` on a negative
//   signed value implementation-defined, so every shift that may see a negative operand
//   goes through Asr(), which is a floor shift by construction.
// * `& 0xFFFF` on a negative angle: done on the uint64_t image (conversion to unsigned is
//   defined modulo 2^64), which equals Python's two's-complement `&`.
// * Python `//` floors; C++ `/` truncates. FloorDiv() floors (divisor > 0).
#pragma once

#include <cstdint>

namespace gcv {

constexpr int64_t kOne = int64_t(1) << 16;  // one world unit in Q16.16
constexpr int64_t kTickHz = 60;
constexpr int64_t kTurn = int64_t(1) << 16;  // angle units per turn
constexpr int64_t kQuarter = int64_t(1) << 14;
constexpr int64_t kAngleMask = kTurn - 1;
constexpr int64_t kDiagonalQ16 = 46341;  // round(65536 / sqrt(2))

// Floor shift (Python `x >> n`) for any sign.
inline int64_t Asr(int64_t x, int n) { return x >= 0 ? (x >> n) : ~((~x) >> n); }

// Python `a // b` for b > 0.
inline int64_t FloorDiv(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b) != 0 && (a < 0)) --q;
    return q;
}

inline int64_t AngleIndex(int64_t angle) { return static_cast<int64_t>(static_cast<uint64_t>(angle) & 0xFFFFu); }

inline int64_t MinI(int64_t a, int64_t b) { return b < a ? b : a; }
inline int64_t MaxI(int64_t a, int64_t b) { return a < b ? b : a; }
// Python min(max(v, lo), hi) (same order, so the result matches for any lo, hi).
inline int64_t ClampI(int64_t v, int64_t lo, int64_t hi) { return MinI(MaxI(v, lo), hi); }

// sin for x in [0, 16384] angle units, Q16 result; all intermediates are non-negative
// and below 2^61.
inline int64_t QuarterSinExact(int64_t x) {
    const int64_t c0 = 1686629713, c1 = 693598668, c2 = 85569306, c3 = 5026995, c4 = 172272;
    int64_t u = x << 16;  // Q30, u in [0, 2^30]
    int64_t u2 = (u * u) >> 30;
    int64_t t = c3 - ((u2 * c4) >> 30);
    t = c2 - ((u2 * t) >> 30);
    t = c1 - ((u2 * t) >> 30);
    t = c0 - ((u2 * t) >> 30);
    int64_t v = (u * t) >> 30;
    return (v + (1 << 13)) >> 14;
}

// The full-turn sine table (65536 entries, Q16), built once from the quarter polynomial.
struct SinTable {
    int32_t value[kTurn];
    SinTable() {
        int32_t quarter[kQuarter + 1];
        for (int64_t x = 0; x <= kQuarter; ++x) quarter[x] = static_cast<int32_t>(QuarterSinExact(x));
        for (int64_t a = 0; a < kTurn; ++a) {
            int64_t q = a >> 14, x = a & (kQuarter - 1);
            int32_t v;
            if (q == 0)
                v = quarter[x];
            else if (q == 1)
                v = quarter[kQuarter - x];
            else if (q == 2)
                v = -quarter[x];
            else
                v = -quarter[kQuarter - x];
            value[a] = v;
        }
    }
};

inline const SinTable& Sines() {
    static const SinTable table;  // thread-safe one-time initialisation (C++11)
    return table;
}

inline int64_t ISin(int64_t angle) { return Sines().value[AngleIndex(angle)]; }
inline int64_t ICos(int64_t angle) { return Sines().value[AngleIndex(angle + kQuarter)]; }

// atan(r) for r in [0, 65536] (Q16), in angle units [0, 8192].
inline int64_t AtanOctant(int64_t r) {
    int64_t p = (r * (kOne - r)) >> 16;
    int64_t q = 2552 + ((692 * r) >> 16);
    return (8192 * r + p * q + (1 << 15)) >> 16;
}

// Angle of (dx, dy) in [0, 65536). (0, 0) points straight down (49152).
// Requires |dx|, |dy| < 2^47 (guaranteed by the program bounds in Program.h).
inline int64_t IAtan2(int64_t dy, int64_t dx) {
    int64_t ax = dx < 0 ? -dx : dx, ay = dy < 0 ? -dy : dy;
    if (ax == 0 && ay == 0) return 3 * kQuarter;
    int64_t base;
    if (ax >= ay)
        base = AtanOctant((ay << 16) / ax);
    else
        base = kQuarter - AtanOctant((ax << 16) / ay);
    int64_t angle;
    if (dx >= 0 && dy >= 0)
        angle = base;
    else if (dx < 0 && dy >= 0)
        angle = 2 * kQuarter - base;
    else if (dx < 0)
        angle = 2 * kQuarter + base;
    else
        angle = kTurn - base;
    return AngleIndex(angle);
}

// floor(sqrt(n)) for n >= 0 (Python math.isqrt), integer only.
inline int64_t ISqrt(int64_t n) {
    if (n <= 0) return 0;
    uint64_t op = static_cast<uint64_t>(n), res = 0, one = uint64_t(1) << 62;
    while (one > op) one >>= 2;
    while (one) {
        if (op >= res + one) {
            op -= res + one;
            res = (res >> 1) + one;
        } else {
            res >>= 1;
        }
        one >>= 2;
    }
    return static_cast<int64_t>(res);
}

// The run's only random generator. Draw order is part of the spec.
class SplitMix64 {
public:
    explicit SplitMix64(uint64_t seed = 0) : state(seed) {}

    uint64_t NextU64() {
        state += 0x9E3779B97F4A7C15ull;
        uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }

    // ((next >> 32) * span) >> 32, for 0 <= span <= 2^32 (the product fits in 64 bits).
    int64_t Below(int64_t span) {
        return static_cast<int64_t>(((NextU64() >> 32) * static_cast<uint64_t>(span)) >> 32);
    }

    uint64_t state;
};

}  // namespace gcv
