// libgcv_native: the UE5 plugin's header-only simulation core behind a small C ABI, so that
// Python can run fights in process (engine_runners/native.py loads it with ctypes). Built
// from the very headers the harness and the plugin build, with the same determinism flags.
//
// The Python side parses nothing twice: a program is parsed (and its hash computed) once,
// then any number of runs read it. A run returns the telemetry document as the exact bytes
// python-sim's writer produces (json.dumps(indent=1, sort_keys=True) plus a newline), so the
// caller gets the same dict from json.loads and the same file if it writes one.
//
// Ownership: gcv_program_new returns a handle the caller frees with gcv_program_free; every
// char* the library hands out (telemetry, error messages) is freed with gcv_free. Handles
// may be used from several threads at once: runs share nothing but the parsed program.
// No exception crosses the ABI: internal failures become return code 1 with a message.
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "Gcv/Gcv.h"

#if defined(_WIN32)
#define GCV_API extern "C" __declspec(dllexport)
#else
#define GCV_API extern "C" __attribute__((visibility("default")))
#endif

namespace {

constexpr int kAbiVersion = 1;
constexpr int kOk = 0, kInternal = 1, kBadRequest = 2, kProgramRefused = 3;

char* CopyOut(const std::string& s, size_t* len = nullptr) {
    char* p = static_cast<char*>(std::malloc(s.size() + 1));
    if (!p) return nullptr;
    std::memcpy(p, s.data(), s.size());
    p[s.size()] = '\0';
    if (len) *len = s.size();
    return p;
}

void SetOut(char** out, size_t* len, const std::string& s) {
    if (out) *out = CopyOut(s, len);
}

}  // namespace

struct gcv_program {
    gcv::Json document;
    std::string hash;
    gcv::EngineIdentity engine;
    std::mutex mutex;  // guards `programs`
    // The program read for each kind of player (ReadProgram reads every section for every
    // player; the player adds only the check that a bot's skill is one the program carries).
    std::map<std::string, std::shared_ptr<const gcv::Program>> programs;

    // The program for this player, read on first use; nullptr and `error` if malformed.
    std::shared_ptr<const gcv::Program> For(const gcv::PlayerSpec& player, std::string& error) {
        const std::string key = player.kind == gcv::PlayerSpec::Kind::Bot      ? "bot:" + player.skill
                                : player.kind == gcv::PlayerSpec::Kind::Inputs ? "inputs"
                                                                               : "scripted";
        std::lock_guard<std::mutex> lock(mutex);
        auto found = programs.find(key);
        if (found != programs.end()) return found->second;
        auto program = std::make_shared<gcv::Program>();
        if (!gcv::ReadProgram(document, player, *program, error)) return nullptr;
        programs[key] = program;
        return program;
    }
};

GCV_API int gcv_native_abi_version(void) { return kAbiVersion; }

GCV_API const char* gcv_native_core_version(void) { return gcv::kCoreVersion; }

// 1 when SHA-256 runs on the CPU's SHA instructions in this process, 0 for the portable code.
GCV_API int gcv_native_sha_accelerated(void) { return gcv::Sha256::Accelerated() ? 1 : 0; }

// Known answers (FIPS 180-2, trigonometry and RNG anchors) and, where the CPU has them, the
// SHA instructions against the portable block function on every length from 0 to 300 bytes.
// 0 when all pass; otherwise 1 and *out names the first failure. *out is always set.
GCV_API int gcv_native_self_test(char** out) {
    try {
        std::string failure;
        auto expect = [&](const std::string& what, const std::string& got, const std::string& want) {
            if (failure.empty() && got != want) failure = what + ": got " + got + ", want " + want;
        };
        const bool allowed = gcv::Sha256::AccelerationAllowed();
        for (int pass = 0; pass < 2; ++pass) {
            gcv::Sha256::AccelerationAllowed() = pass == 0 && allowed;
            const std::string path = pass == 0 ? " (default)" : " (portable)";
            expect("sha256('')" + path, gcv::Sha256::Hex(""),
                   "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
            expect("sha256('abc')" + path, gcv::Sha256::Hex("abc"),
                   "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
            expect("sha256(448 bits)" + path,
                   gcv::Sha256::Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
                   "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
            gcv::Sha256 h;
            const std::string block(1000, 'a');
            for (int i = 0; i < 1000; ++i) h.Update(block);
            expect("sha256(10^6 x 'a')" + path, h.HexDigest(),
                   "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
        }
        std::string data;
        uint64_t x = 0x9E3779B97F4A7C15ull;
        for (size_t len = 0; len <= 300; ++len) {
            gcv::Sha256::AccelerationAllowed() = allowed;
            const std::string fast = gcv::Sha256::Hex(data);
            gcv::Sha256::AccelerationAllowed() = false;
            expect("sha256 of " + std::to_string(len) + " bytes, accelerated vs portable", fast,
                   gcv::Sha256::Hex(data));
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            data.push_back(static_cast<char>(x >> 56));
        }
        gcv::Sha256::AccelerationAllowed() = allowed;
        expect("isin(16384)", std::to_string(gcv::ISin(16384)), "65536");
        expect("iatan2(-1,-1)", std::to_string(gcv::IAtan2(-1, -1)), "40960");
        gcv::SplitMix64 r(0);
        expect("splitmix64(0)", std::to_string(r.NextU64()), "16294208416658607535");
        expect("milli 12000", gcv::MilliText(12000), "12.0");
        SetOut(out, nullptr, failure.empty() ? "self-test: all checks passed" : failure);
        return failure.empty() ? kOk : kInternal;
    } catch (const std::exception& exc) {
        SetOut(out, nullptr, std::string("internal: ") + exc.what());
        return kInternal;
    }
}

// Parses a program (the sim program as JSON text) and computes its hash. Returns nullptr
// on failure with *error set. The engine_* strings are the telemetry's "engine" object: the
// caller's (python-sim's, whose batch path this library is: its telemetry is python-sim's).
GCV_API gcv_program* gcv_program_new(const char* json, size_t len, const char* engine_name,
                                     const char* engine_implementation, const char* engine_version,
                                     char** error) {
    try {
        auto program = std::make_unique<gcv_program>();
        std::string err;
        if (!gcv::JsonParser::Parse(std::string(json, len), program->document, err)) {
            SetOut(error, nullptr, "program is not JSON: " + err);
            return nullptr;
        }
        if (!program->document.IsObject()) {
            SetOut(error, nullptr, "field program: Input should be an object");
            return nullptr;
        }
        if (!gcv::ProgramHash(program->document, program->hash, err)) {
            SetOut(error, nullptr, "cannot hash the program: " + err);
            return nullptr;
        }
        // The whole program, checked now: every section, whichever player will run it.
        gcv::PlayerSpec anyPlayer;
        anyPlayer.kind = gcv::PlayerSpec::Kind::Inputs;
        gcv::Program common;
        if (!gcv::ReadProgram(program->document, anyPlayer, common, err)) {
            SetOut(error, nullptr, "program is malformed: " + err);
            return nullptr;
        }
        program->engine.name = engine_name ? engine_name : "python-sim";
        program->engine.implementation = engine_implementation ? engine_implementation : "python";
        program->engine.version = engine_version ? engine_version : gcv::kCoreVersion;
        return program.release();
    } catch (const std::exception& exc) {
        SetOut(error, nullptr, std::string("internal: ") + exc.what());
        return nullptr;
    }
}

GCV_API void gcv_program_free(gcv_program* program) { delete program; }

// The program hash (64 lowercase hex digits and a NUL) into out[65].
GCV_API void gcv_program_hash(const gcv_program* program, char* out) {
    std::memcpy(out, program->hash.c_str(), 65);
}

// One fight: the player object (JSON text, as in a run request), its label, the run id and
// the seed. 0: *out is the telemetry (the Python writer's bytes); 2: the player or the seed
// is refused, 3: the program is, as this player reads it (*out names the field); 1: internal
// error (*out says what).
GCV_API int gcv_run(gcv_program* program, const char* player_json, size_t player_len, const char* label,
                    const char* run_id, int64_t seed, char** out, size_t* out_len) {
    try {
        if (seed < 0) {
            SetOut(out, out_len, "field seed: Input should be greater than or equal to 0");
            return kBadRequest;
        }
        gcv::Json playerDoc;
        std::string err;
        if (!gcv::JsonParser::Parse(std::string(player_json, player_len), playerDoc, err)) {
            SetOut(out, out_len, "player is not JSON: " + err);
            return kBadRequest;
        }
        gcv::RunRequest request;
        gcv::FieldReader reader;
        if (!playerDoc.IsObject()) {
            SetOut(out, out_len, "field player: Input should be an object");
            return kBadRequest;
        }
        if (!gcv::ReadPlayerSpec(playerDoc, request.player, reader)) {
            SetOut(out, out_len, reader.error);
            return kBadRequest;
        }
        std::shared_ptr<const gcv::Program> prog = program->For(request.player, err);
        if (!prog) {
            SetOut(out, out_len, "program is malformed: " + err);
            return kProgramRefused;
        }
        request.runId = run_id ? run_id : "";
        request.playerLabel = label ? label : "";
        request.seed = seed;
        gcv::Simulation sim(*prog, request.player);
        sim.Run(seed);
        gcv::Json telemetry;
        if (!gcv::BuildTelemetry(sim, request, program->hash, program->engine, gcv::FrameSource(), telemetry, err)) {
            SetOut(out, out_len, "internal: " + err);
            return kInternal;
        }
        SetOut(out, out_len, gcv::ToPrettyJson(telemetry, 1) + "\n");
        return kOk;
    } catch (const std::exception& exc) {
        SetOut(out, out_len, std::string("internal: ") + exc.what());
        return kInternal;
    }
}

GCV_API void gcv_free(char* p) { std::free(p); }
