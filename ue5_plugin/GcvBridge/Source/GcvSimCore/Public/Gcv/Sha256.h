// SHA-256 (FIPS 180-4), self-contained: the state hash and the program hash must not depend
// on OpenSSL or on an engine's hashing module. Checked against the FIPS test vectors in the
// harness self-test and against Python's hashlib through the golden vectors.
//
// Speed matters: the state hash covers every bullet every 60 ticks, and it was most of the
// core's time. Whole arrays are fed at once (Update hashes 64-byte blocks straight from the
// caller's memory). Two block functions, same answers:
// * portable C++ written for the compiler: the 64 rounds unrolled in groups of eight with the
//   working variables renamed instead of shifted, the message schedule in a 16-word ring;
// * on x86 with GCC or Clang, the CPU's SHA extensions (SHA-NI: sha256rnds2, sha256msg1/2)
//   when cpuid says the CPU has them, several times faster. No library, no build flag: the
//   function is compiled for that instruction set alone and called only after the check.
//   Define GCV_SHA256_PORTABLE_ONLY to leave it out (other compilers always leave it out).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#if !defined(GCV_SHA256_PORTABLE_ONLY) && (defined(__GNUC__) || defined(__clang__)) && \
    (defined(__x86_64__) || defined(__i386__))
#define GCV_SHA256_SHANI 1
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace gcv {

class Sha256 {
public:
    Sha256() { Reset(); }

    void Reset() {
        static const uint32_t init[8] = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
                                         0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u};
        std::memcpy(h_, init, sizeof h_);
        bufferLen_ = 0;
        totalLen_ = 0;
    }

    void Update(const void* data, size_t len) {
        const auto* p = static_cast<const uint8_t*>(data);
        totalLen_ += len;
        if (bufferLen_) {
            size_t take = 64 - bufferLen_;
            if (take > len) take = len;
            std::memcpy(buffer_ + bufferLen_, p, take);
            bufferLen_ += take;
            p += take;
            len -= take;
            if (bufferLen_ == 64) {
                Blocks(buffer_, 1);
                bufferLen_ = 0;
            }
        }
        if (len >= 64) {
            const size_t blocks = len / 64;
            Blocks(p, blocks);
            p += blocks * 64;
            len -= blocks * 64;
        }
        if (len) {
            std::memcpy(buffer_, p, len);
            bufferLen_ = len;
        }
    }

    void Update(const std::string& s) { Update(s.data(), s.size()); }

    // `count` signed 64-bit integers as little-endian bytes, whatever the host's byte order.
    void UpdateInt64LE(const int64_t* values, size_t count) {
        uint8_t chunk[8 * 64];
        size_t used = 0;
        for (size_t i = 0; i < count; ++i) {
            const uint64_t u = static_cast<uint64_t>(values[i]);
            for (int b = 0; b < 8; ++b) chunk[used++] = static_cast<uint8_t>(u >> (8 * b));
            if (used == sizeof chunk) {
                Update(chunk, used);
                used = 0;
            }
        }
        Update(chunk, used);
    }

    // Finishes the hash and returns it as 64 lowercase hex digits. Call Reset() to reuse.
    std::string HexDigest() {
        uint8_t digest[32];
        Finish(digest);
        static const char* hex = "0123456789abcdef";
        std::string out(64, '0');
        for (int i = 0; i < 32; ++i) {
            out[static_cast<size_t>(2 * i)] = hex[digest[i] >> 4];
            out[static_cast<size_t>(2 * i + 1)] = hex[digest[i] & 15];
        }
        return out;
    }

    void Finish(uint8_t digest[32]) {
        const uint64_t bits = totalLen_ * 8;
        uint8_t tail[128] = {0x80};
        const size_t pad = (bufferLen_ < 56 ? 56 : 120) - bufferLen_;  // 0x80, zeros, up to 8 short of a block
        for (int i = 0; i < 8; ++i) tail[pad + static_cast<size_t>(i)] = static_cast<uint8_t>(bits >> (56 - 8 * i));
        Update(tail, pad + 8);
        for (int i = 0; i < 8; ++i) {
            digest[4 * i] = static_cast<uint8_t>(h_[i] >> 24);
            digest[4 * i + 1] = static_cast<uint8_t>(h_[i] >> 16);
            digest[4 * i + 2] = static_cast<uint8_t>(h_[i] >> 8);
            digest[4 * i + 3] = static_cast<uint8_t>(h_[i]);
        }
    }

    static std::string Hex(const void* data, size_t len) {
        Sha256 s;
        s.Update(data, len);
        return s.HexDigest();
    }
    static std::string Hex(const std::string& s) { return Hex(s.data(), s.size()); }

    // Whether this process hashes with the CPU's SHA instructions (see the file comment).
    static bool Accelerated() { return AccelerationAllowed() && CpuHasShaNi(); }
    // Tests switch the accelerated path off to compare it with the portable one.
    static bool& AccelerationAllowed() {
        static bool allowed = true;
        return allowed;
    }
    static bool CpuHasShaNi() {
#if defined(GCV_SHA256_SHANI)
        static const bool has = [] {
            unsigned a = 0, b = 0, c = 0, d = 0;
            if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
            const bool sse41 = (c >> 19) & 1u, ssse3 = (c >> 9) & 1u;
            if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
            return sse41 && ssse3 && ((b >> 29) & 1u);
        }();
        return has;
#else
        return false;
#endif
    }

private:
    uint32_t h_[8];
    uint8_t buffer_[64];
    size_t bufferLen_;
    uint64_t totalLen_;

    static inline uint32_t Rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
    static inline uint32_t LoadBE(const uint8_t* p) {
        return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
    }

    void Blocks(const uint8_t* p, size_t count) {
#if defined(GCV_SHA256_SHANI)
        if (Accelerated()) {
            BlocksShaNi(h_, p, count);
            return;
        }
#endif
        BlocksPortable(p, count);
    }

    static const uint32_t* RoundConstants() {
        static const uint32_t k[64] = {
            0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
            0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
            0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
            0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
            0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
            0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
            0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
            0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u};
        return k;
    }

#if defined(GCV_SHA256_SHANI)
    // The state is kept as two vectors, ABEF and CDGH, the layout sha256rnds2 works on; each
    // call of it does two rounds, so four message words (plus constants) make two calls.
    __attribute__((target("sha,sse4.1,ssse3"))) static void BlocksShaNi(uint32_t state[8], const uint8_t* p,
                                                                           size_t count) {
        const uint32_t* k = RoundConstants();
        const __m128i byteSwap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
        __m128i dcba = _mm_loadu_si128(reinterpret_cast<const __m128i*>(state));
        __m128i hgfe = _mm_loadu_si128(reinterpret_cast<const __m128i*>(state + 4));
        const __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
        const __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
        __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
        __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
        for (; count; --count, p += 64) {
            const __m128i abefSaved = abef, cdghSaved = cdgh;
            __m128i w0 = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), byteSwap);
            __m128i w1 = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16)), byteSwap);
            __m128i w2 = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 32)), byteSwap);
            __m128i w3 = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 48)), byteSwap);
// Four rounds with the message words `w` of group g (two sha256rnds2, two rounds each).
#define GCV_SHA_NI_ROUNDS(w, g)                                                                             \
    do {                                                                                                    \
        __m128i wk = _mm_add_epi32((w), _mm_loadu_si128(reinterpret_cast<const __m128i*>(k + 4 * (g)))); \
        cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);                                                       \
        abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0E));                              \
    } while (0)
// The next four schedule words into w4 (the oldest group), from the four groups before it.
#define GCV_SHA_NI_SCHEDULE(w4, w3, w2, w1) \
    (w4) = _mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32((w4), (w3)), _mm_alignr_epi8((w1), (w2), 4)), (w1))
            GCV_SHA_NI_ROUNDS(w0, 0);
            GCV_SHA_NI_ROUNDS(w1, 1);
            GCV_SHA_NI_ROUNDS(w2, 2);
            GCV_SHA_NI_ROUNDS(w3, 3);
            for (int g = 4; g < 16; g += 4) {
                GCV_SHA_NI_SCHEDULE(w0, w1, w2, w3);
                GCV_SHA_NI_ROUNDS(w0, g);
                GCV_SHA_NI_SCHEDULE(w1, w2, w3, w0);
                GCV_SHA_NI_ROUNDS(w1, g + 1);
                GCV_SHA_NI_SCHEDULE(w2, w3, w0, w1);
                GCV_SHA_NI_ROUNDS(w2, g + 2);
                GCV_SHA_NI_SCHEDULE(w3, w0, w1, w2);
                GCV_SHA_NI_ROUNDS(w3, g + 3);
            }
#undef GCV_SHA_NI_SCHEDULE
#undef GCV_SHA_NI_ROUNDS
            abef = _mm_add_epi32(abef, abefSaved);
            cdgh = _mm_add_epi32(cdgh, cdghSaved);
        }
        const __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
        const __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
        dcba = _mm_blend_epi16(feba, dchg, 0xF0);
        hgfe = _mm_alignr_epi8(dchg, feba, 8);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(state), dcba);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(state + 4), hgfe);
    }
#endif

    void BlocksPortable(const uint8_t* p, size_t count) {
        const uint32_t* k = RoundConstants();
        uint32_t s0 = h_[0], s1 = h_[1], s2 = h_[2], s3 = h_[3], s4 = h_[4], s5 = h_[5], s6 = h_[6], s7 = h_[7];
        for (; count; --count, p += 64) {
            uint32_t w[16];
            for (int i = 0; i < 16; ++i) w[i] = LoadBE(p + 4 * i);
            uint32_t a = s0, b = s1, c = s2, d = s3, e = s4, f = s5, g = s6, h = s7;
// One round; the caller rotates the roles of a..h instead of moving the values.
#define GCV_SHA_ROUND(a, b, c, d, e, f, g, h, i, wi)                                       \
    do {                                                                                    \
        const uint32_t t1 = h + (Rotr(e, 6) ^ Rotr(e, 11) ^ Rotr(e, 25)) + (g ^ (e & (f ^ g))) + k[i] + (wi); \
        const uint32_t t2 = (Rotr(a, 2) ^ Rotr(a, 13) ^ Rotr(a, 22)) + ((a & b) | (c & (a | b)));            \
        d += t1;                                                                            \
        h = t1 + t2;                                                                        \
    } while (0)
// The schedule word for round j >= 16, written into the ring slot j & 15.
#define GCV_SHA_W(j)                                                                                   \
    (w[(j)&15] += (Rotr(w[((j) - 2) & 15], 17) ^ Rotr(w[((j) - 2) & 15], 19) ^ (w[((j) - 2) & 15] >> 10)) + \
                  w[((j) - 7) & 15] +                                                                  \
                  (Rotr(w[((j) - 15) & 15], 7) ^ Rotr(w[((j) - 15) & 15], 18) ^ (w[((j) - 15) & 15] >> 3)))
            for (int i = 0; i < 16; i += 8) {
                GCV_SHA_ROUND(a, b, c, d, e, f, g, h, i + 0, w[i + 0]);
                GCV_SHA_ROUND(h, a, b, c, d, e, f, g, i + 1, w[i + 1]);
                GCV_SHA_ROUND(g, h, a, b, c, d, e, f, i + 2, w[i + 2]);
                GCV_SHA_ROUND(f, g, h, a, b, c, d, e, i + 3, w[i + 3]);
                GCV_SHA_ROUND(e, f, g, h, a, b, c, d, i + 4, w[i + 4]);
                GCV_SHA_ROUND(d, e, f, g, h, a, b, c, i + 5, w[i + 5]);
                GCV_SHA_ROUND(c, d, e, f, g, h, a, b, i + 6, w[i + 6]);
                GCV_SHA_ROUND(b, c, d, e, f, g, h, a, i + 7, w[i + 7]);
            }
            for (int i = 16; i < 64; i += 8) {
                GCV_SHA_ROUND(a, b, c, d, e, f, g, h, i + 0, GCV_SHA_W(i + 0));
                GCV_SHA_ROUND(h, a, b, c, d, e, f, g, i + 1, GCV_SHA_W(i + 1));
                GCV_SHA_ROUND(g, h, a, b, c, d, e, f, i + 2, GCV_SHA_W(i + 2));
                GCV_SHA_ROUND(f, g, h, a, b, c, d, e, i + 3, GCV_SHA_W(i + 3));
                GCV_SHA_ROUND(e, f, g, h, a, b, c, d, i + 4, GCV_SHA_W(i + 4));
                GCV_SHA_ROUND(d, e, f, g, h, a, b, c, i + 5, GCV_SHA_W(i + 5));
                GCV_SHA_ROUND(c, d, e, f, g, h, a, b, i + 6, GCV_SHA_W(i + 6));
                GCV_SHA_ROUND(b, c, d, e, f, g, h, a, i + 7, GCV_SHA_W(i + 7));
            }
#undef GCV_SHA_W
#undef GCV_SHA_ROUND
            s0 += a;
            s1 += b;
            s2 += c;
            s3 += d;
            s4 += e;
            s5 += f;
            s6 += g;
            s7 += h;
        }
        h_[0] = s0;
        h_[1] = s1;
        h_[2] = s2;
        h_[3] = s3;
        h_[4] = s4;
        h_[5] = s5;
        h_[6] = s6;
        h_[7] = s7;
    }
};

}  // namespace gcv
