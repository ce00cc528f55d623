// gcv-ue5-harness: the UE5 plugin's simulation core behind the run protocol, as a plain
// console program. It speaks exactly what the UE5 commandlet speaks (same core, same
// protocol entry), so CI exercises the real runner code paths without an engine.
//
//   gcv-ue5-harness -GcvRequest=<request.json>            run one request (the protocol)
//   gcv-ue5-harness -GcvRequest=<request.json> -GcvBench=N run it, then N more times
//                                                          in-process, printing the time
//                                                          of each (GCV-BENCH lines)
//   gcv-ue5-harness -GcvRequest=<request.json> -GcvStateAt=T
//                                                          print the hashed state after
//                                                          tick T (GCV-STATE {json})
//   gcv-ue5-harness -GcvSelfTest                           check SHA-256 and the number
//                                                          helpers against known answers
//
// Exit codes: 0 ok, 1 internal error, 2 bad request, 3 hash mismatch, 4 output error.
// Built like Unreal builds the core: no exceptions, no RTTI (-fno-exceptions -fno-rtti in
// build.sh), so nothing here may throw or catch; an allocation failure aborts, as in UE.
// The harness does not render: capture ticks are ignored (it says so on stdout), and the
// frame figures come from the program's frame model (fps_source "model").
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "Gcv/Gcv.h"

namespace {

bool ArgValue(const std::string& arg, const char* name, std::string& value) {
    const std::string prefix = std::string(name) + "=";
    if (arg.size() < prefix.size()) return false;
    for (size_t i = 0; i < prefix.size(); ++i) {
        char a = arg[i], b = prefix[i];
        if (a >= 'A' && a <= 'Z') a = static_cast<char>(a - 'A' + 'a');
        if (b >= 'A' && b <= 'Z') b = static_cast<char>(b - 'A' + 'a');
        if (a != b) return false;
    }
    value = arg.substr(prefix.size());
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    return true;
}

bool SameFlag(const std::string& arg, const char* name) {
    std::string a = arg, b = name;
    for (auto& c : a) c = static_cast<char>((c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c);
    for (auto& c : b) c = static_cast<char>((c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c);
    return a == b;
}

gcv::RunIO ConsoleIO() {
    gcv::RunIO io;
    io.out = [](const std::string& line) {
        std::fputs(line.c_str(), stdout);
        std::fputc('\n', stdout);
        std::fflush(stdout);
    };
    io.err = [](const std::string& line) {
        std::fputs(line.c_str(), stderr);
        std::fputc('\n', stderr);
        std::fflush(stderr);
    };
    return io;
}

int SelfTest(const gcv::RunIO& io) {
    int failures = 0;
    auto expect = [&](const std::string& what, const std::string& got, const std::string& want) {
        if (got != want) {
            io.err("FAIL " + what + ": got " + got + ", want " + want);
            ++failures;
        }
    };
    // FIPS 180-2 examples.
    expect("sha256('')", gcv::Sha256::Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect("sha256('abc')", gcv::Sha256::Hex("abc"),
           "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect("sha256(448 bits)", gcv::Sha256::Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
           "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    {
        gcv::Sha256 h;
        std::string block(1000, 'a');
        for (int i = 0; i < 1000; ++i) h.Update(block);
        expect("sha256(10^6 x 'a')", h.HexDigest(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    }
    // Trigonometry and RNG anchors (values from gcv/sim/fixed.py).
    expect("isin(0)", std::to_string(gcv::ISin(0)), "0");
    expect("isin(16384)", std::to_string(gcv::ISin(16384)), "65536");
    expect("icos(32768)", std::to_string(gcv::ICos(32768)), "-65536");
    expect("iatan2(0,0)", std::to_string(gcv::IAtan2(0, 0)), "49152");
    expect("iatan2(1,1)", std::to_string(gcv::IAtan2(1, 1)), "8192");
    expect("iatan2(-1,-1)", std::to_string(gcv::IAtan2(-1, -1)), "40960");
    expect("isqrt(26843545600)", std::to_string(gcv::ISqrt(26843545600LL)), "163840");
    {
        gcv::SplitMix64 r(0);
        expect("splitmix64(0)", std::to_string(r.NextU64()), "16294208416658607535");
    }
    // Number text helpers.
    expect("milli 41432", gcv::MilliText(41432), "41.432");
    expect("milli 500", gcv::MilliText(500), "0.5");
    expect("milli 12000", gcv::MilliText(12000), "12.0");
    std::string t;
    gcv::CanonicalFloatText("3.0", t);
    expect("canonical 3.0", t, "3");
    gcv::CanonicalFloatText("1e-06", t);
    expect("canonical 1e-06", t, "0.000001");
    gcv::CanonicalFloatText("1e-07", t);
    expect("canonical 1e-07", t, "1e-7");
    gcv::CanonicalFloatText("1.5e300", t);
    expect("canonical 1.5e300", t, "1.5e+300");
    gcv::CanonicalFloatText("123.456", t);
    expect("canonical 123.456", t, "123.456");
    // The protocol's error line: valid, bounded, and what the Python parser expects.
    expect("error line", gcv::ErrorLine(gcv::kExitHashMismatch, "bad \"x\""),
           "GCV-ERROR {\"exit_code\":3,\"kind\":\"hash_mismatch\",\"message\":\"bad \\\"x\\\"\"}");
    expect("error line cut", std::to_string(gcv::ErrorLine(1, std::string(5000, 'e')).size() < 1100), "1");
    expect("heartbeat line", gcv::HeartbeatLine(1234), "GCV-HEARTBEAT {\"tick\":1234}");
    {
        gcv::HeartbeatClock beat(1000);
        expect("no heartbeat in the first second", std::to_string(beat.Due()), "0");
    }
    // Capture pacing (the UE game mode): two capture ticks in a row are both taken, the
    // simulation waits while one is pending, and capture / waiting / after-capture frames
    // are left out of the measured frame times.
    {
        gcv::CapturePacer pacer({5, 4, 5});
        int64_t tick = 0, captured = 0, ended = 0;
        std::vector<int64_t> shown;
        bool havePrevious = false;
        for (int frame = 0; frame < 20 && tick < 10; ++frame) {
            if (havePrevious) {
                pacer.EndFrame(1000 + frame);
                ++ended;
            }
            havePrevious = true;
            if (frame % 3 == 2 && pacer.Pending() > 0) pacer.Processed();  // the engine writes it later
            if (!pacer.MayStep()) {
                pacer.Waited();
                continue;
            }
            const int64_t simulated = tick++;
            if (pacer.WantsCapture(simulated)) {
                pacer.Requested();
                shown.push_back(simulated);
                ++captured;
            }
        }
        expect("both adjacent captures requested", std::to_string(captured), "2");
        expect("captures show their own tick", std::to_string(shown.size() == 2 && shown[0] == 4 && shown[1] == 5), "1");
        expect("never two pending", std::to_string(pacer.Pending() <= 1), "1");
        expect("capture frames left out", std::to_string(pacer.ExcludedFrames() >= 4), "1");
        expect("every frame accounted",
               std::to_string(pacer.ExcludedFrames() + static_cast<int64_t>(pacer.Kept().size()) == ended), "1");
        expect("normal frames kept", std::to_string(pacer.Kept().size() >= 5), "1");
    }
    if (failures == 0) io.out("self-test: all checks passed");
    return failures == 0 ? gcv::kExitOk : gcv::kExitInternalError;
}

}  // namespace

int main(int argc, char** argv) {
    const gcv::RunIO io = ConsoleIO();
    std::string request, bench, stateAt;
    bool haveRequest = false, haveBench = false, haveStateAt = false, selfTest = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        std::string value;
        if (ArgValue(arg, "-GcvRequest", value)) {
            request = value;
            haveRequest = true;
        } else if (ArgValue(arg, "-GcvBench", value)) {
            bench = value;
            haveBench = true;
        } else if (ArgValue(arg, "-GcvStateAt", value)) {
            stateAt = value;
            haveStateAt = true;
        } else if (SameFlag(arg, "-GcvSelfTest")) {
            selfTest = true;
        } else {
            io.err("error: unknown argument " + arg +
                   " (usage: gcv-ue5-harness -GcvRequest=<request.json> [-GcvBench=<runs> | -GcvStateAt=<tick>] | -GcvSelfTest)");
            return gcv::kExitBadRequest;
        }
    }
    if (selfTest) return SelfTest(io);
    if (!haveRequest || request.empty()) {
        io.err("error: missing -GcvRequest=<request.json> (usage: gcv-ue5-harness -GcvRequest=<request.json> "
               "[-GcvBench=<runs>] | -GcvSelfTest)");
        return gcv::kExitBadRequest;
    }
    if (haveStateAt) {
        char* end = nullptr;
        long long tick = std::strtoll(stateAt.c_str(), &end, 10);
        if (stateAt.empty() || *end != '\0' || tick < 0) {
            io.err("error: -GcvStateAt wants a tick >= 0, got '" + stateAt + "'");
            return gcv::kExitBadRequest;
        }
        return gcv::StateAtRequestFile(request, tick, io);
    }
    gcv::EngineIdentity engine;
    engine.name = "ue5-harness";
    engine.implementation = "cpp";
    engine.version = gcv::kCoreVersion;
    if (haveBench) {
        char* end = nullptr;
        long runs = std::strtol(bench.c_str(), &end, 10);
        if (bench.empty() || *end != '\0' || runs < 1 || runs > 100000) {
            io.err("error: -GcvBench wants a run count between 1 and 100000, got '" + bench + "'");
            return gcv::kExitBadRequest;
        }
        return gcv::RunRequestFile(request, engine, io, gcv::StdFileOps(), static_cast<int>(runs));
    }
    return gcv::RunRequestFile(request, engine, io);
}
