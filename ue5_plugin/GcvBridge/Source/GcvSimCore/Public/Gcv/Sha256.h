// SHA-256 (FIPS 180-4), self-contained: the state hash and the program hash must not depend
// on OpenSSL or on an engine's hashing module. Checked against the FIPS test vectors in the
// harness self-test and against Python's hashlib through the golden vectors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

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
                Block(buffer_);
                bufferLen_ = 0;
            }
        }
        while (len >= 64) {
            Block(p);
            p += 64;
            len -= 64;
        }
        if (len) {
            std::memcpy(buffer_, p, len);
            bufferLen_ = len;
        }
    }

    void Update(const std::string& s) { Update(s.data(), s.size()); }

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
        uint64_t bits = totalLen_ * 8;
        uint8_t pad = 0x80;
        Update(&pad, 1);
        uint8_t zero = 0;
        while (bufferLen_ != 56) Update(&zero, 1);
        uint8_t lenBytes[8];
        for (int i = 0; i < 8; ++i) lenBytes[i] = static_cast<uint8_t>(bits >> (56 - 8 * i));
        Update(lenBytes, 8);
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

private:
    uint32_t h_[8];
    uint8_t buffer_[64];
    size_t bufferLen_;
    uint64_t totalLen_;

    static uint32_t Rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

    void Block(const uint8_t* p) {
        static const uint32_t k[64] = {
            0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
            0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
            0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
            0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
            0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
            0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
            0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
            0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u};
        uint32_t w[64];
        for (int i = 0; i < 16; ++i)
            w[i] = (uint32_t(p[4 * i]) << 24) | (uint32_t(p[4 * i + 1]) << 16) | (uint32_t(p[4 * i + 2]) << 8) |
                   uint32_t(p[4 * i + 3]);
        for (int i = 16; i < 64; ++i) {
            uint32_t s0 = Rotr(w[i - 15], 7) ^ Rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
            uint32_t s1 = Rotr(w[i - 2], 17) ^ Rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4], f = h_[5], g = h_[6], h = h_[7];
        for (int i = 0; i < 64; ++i) {
            uint32_t S1 = Rotr(e, 6) ^ Rotr(e, 11) ^ Rotr(e, 25);
            uint32_t ch = (e & f) ^ (~e & g);
            uint32_t t1 = h + S1 + ch + k[i] + w[i];
            uint32_t S0 = Rotr(a, 2) ^ Rotr(a, 13) ^ Rotr(a, 22);
            uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
            uint32_t t2 = S0 + maj;
            h = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + t2;
        }
        h_[0] += a;
        h_[1] += b;
        h_[2] += c;
        h_[3] += d;
        h_[4] += e;
        h_[5] += f;
        h_[6] += g;
        h_[7] += h;
    }
};

}  // namespace gcv
