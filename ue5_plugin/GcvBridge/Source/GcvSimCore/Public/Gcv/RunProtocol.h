// The engine-bridge file protocol gcv.run_protocol/1 (engine_runners/protocol.py), shared by
// the g++ harness, the UE5 commandlet and the UE5 game mode.
//
//   request file -> handshake line -> checks -> run -> telemetry.json (temp + rename)
//                -> GCV-DONE line -> exit code
//
// Exit codes: 0 ok, 1 internal error, 2 bad request (the field is named on stderr),
// 3 hash mismatch, 4 output directory missing or not writable. Every error exit after the
// handshake is preceded by `GCV-ERROR {"exit_code":..,"kind":..,"message":..}` on the out
// channel (FailLine), so the runner never infers a result from a raw exit code (on Windows
// an abort() exits 3 too, and UE's graceful exit drops the code). While simulating,
// `GCV-HEARTBEAT {"tick":N}` at most about once a second (HeartbeatClock). The checks run in this
// order: request fields and program.config_hash (2), program_hash and config_hash (3), output
// directory (4), the other program fields (2). (python-sim checks every program field with the
// request; a program.config_hash that is missing or not a hash is exit 2 in both.)
#pragma once

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "Gcv/Json.h"
#include "Gcv/Program.h"
#include "Gcv/Sha256.h"
#include "Gcv/Simulation.h"
#include "Gcv/Telemetry.h"

namespace gcv {

enum ExitCode : int {
    kExitOk = 0,
    kExitInternalError = 1,
    kExitBadRequest = 2,
    kExitHashMismatch = 3,
    kExitOutputError = 4,
};

constexpr const char* kProtocolId = "gcv.run_protocol/1";
constexpr const char* kTelemetryFile = "telemetry.json";
constexpr const char* kFramesDir = "frames";

// Where the protocol's lines go. The harness prints them (stdout / stderr, flushed); the
// commandlet routes them through UE_LOG (-stdout) and stderr.
struct RunIO {
    std::function<void(const std::string&)> out;
    std::function<void(const std::string&)> err;
};

// File access, replaceable so that Unreal can use its own file manager (wide paths).
struct FileOps {
    std::function<bool(const std::string& path, std::string& text, std::string& error)> read;
    std::function<bool(const std::string& path)> isDirectory;
    // Writes dir/name.tmp, then renames it over dir/name, so a reader never sees half a file.
    std::function<bool(const std::string& dir, const std::string& name, const std::string& content,
                       std::string& error)>
        writeAtomic;
};

inline FileOps StdFileOps() {
    FileOps ops;
    ops.read = [](const std::string& path, std::string& text, std::string& error) {
        std::ifstream in(std::filesystem::path(path), std::ios::binary);
        if (!in) {
            error = std::strerror(errno);
            return false;
        }
        std::ostringstream ss;
        ss << in.rdbuf();
        if (in.bad()) {
            error = "read error";
            return false;
        }
        text = ss.str();
        return true;
    };
    ops.isDirectory = [](const std::string& path) {
        std::error_code ec;
        return std::filesystem::is_directory(std::filesystem::path(path), ec);
    };
    ops.writeAtomic = [](const std::string& dir, const std::string& name, const std::string& content,
                         std::string& error) {
        const std::filesystem::path final = std::filesystem::path(dir) / name;
        const std::filesystem::path tmp = std::filesystem::path(dir) / (name + ".tmp");
        {
            std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
            if (!out) {
                error = std::strerror(errno);
                return false;
            }
            out.write(content.data(), static_cast<std::streamsize>(content.size()));
            out.flush();
            if (!out) {
                error = "write failed";
                std::error_code ec;
                std::filesystem::remove(tmp, ec);
                return false;
            }
        }
        std::error_code ec;
        std::filesystem::rename(tmp, final, ec);  // replaces an existing file (POSIX and MSVC)
        if (ec) {
            error = ec.message();
            std::filesystem::remove(tmp, ec);
            return false;
        }
        return true;
    };
    return ops;
}

inline std::string HandshakeLine(const std::string& engine, const std::string& runId, const std::string& version) {
    Json p = Json::MakeObject();
    p.Set("protocol", Json::MakeString(kProtocolId));
    p.Set("engine", Json::MakeString(engine));
    p.Set("version", Json::MakeString(version));
    p.Set("run_id", Json::MakeString(runId));
    return "GCV-HANDSHAKE " + ToCompactJson(p);
}

inline std::string DoneLine(const std::string& status) {
    Json p = Json::MakeObject();
    p.Set("status", Json::MakeString(status));
    p.Set("telemetry", Json::MakeString(kTelemetryFile));
    return "GCV-DONE " + ToCompactJson(p);
}

inline std::string HeartbeatLine(int64_t tick) {
    return "GCV-HEARTBEAT {\"tick\":" + std::to_string(tick) + "}";
}

inline const char* ErrorKind(int code) {
    switch (code) {
        case kExitBadRequest: return "bad_request";
        case kExitHashMismatch: return "hash_mismatch";
        case kExitOutputError: return "output_error";
        default: return "internal_error";
    }
}

constexpr size_t kMaxErrorMessage = 1000;

inline std::string ErrorLine(int code, const std::string& message) {
    Json p = Json::MakeObject();
    p.Set("exit_code", Json::MakeInt(code));
    p.Set("kind", Json::MakeString(ErrorKind(code)));
    std::string text = message.size() > kMaxErrorMessage ? message.substr(0, kMaxErrorMessage) + "..." : message;
    // keep the line valid UTF-8 even when the cut fell inside a multi-byte character
    while (!text.empty() && !ValidUtf8(text, nullptr)) text.pop_back();
    p.Set("message", Json::MakeString(text));
    return "GCV-ERROR " + ToCompactJson(p);
}

// The error on the err channel, GCV-ERROR on the out channel; returns the code.
inline int FailLine(const RunIO& io, int code, const std::string& message) {
    io.err("error: " + message);
    io.out(ErrorLine(code, message));
    return code;
}

// At most one heartbeat per interval of wall time; none during the first interval, so a
// short run prints none.
class HeartbeatClock {
public:
    explicit HeartbeatClock(int64_t intervalMs = 1000)
        : interval_(intervalMs), start_(std::chrono::steady_clock::now()), next_(intervalMs) {}

    bool Due() {
        const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::steady_clock::now() - start_).count();
        if (now < next_) return false;
        next_ = now + interval_;
        return true;
    }

private:
    int64_t interval_;
    std::chrono::steady_clock::time_point start_;
    int64_t next_;
};

inline std::string FrameName(int64_t tick) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "tick_%06lld.png", static_cast<long long>(tick));
    return buf;
}

// sha256 of the canonical JSON of the program (gcv.sim.program.program_hash).
inline bool ProgramHash(const Json& program, std::string& hash, std::string& error) {
    std::string canonical;
    if (!CanonicalJson(program, canonical, error)) return false;
    hash = Sha256::Hex(canonical);
    return true;
}

// A request read, validated and hash-checked; ready to run. Not copyable: `request.program`
// points into `document`.
struct LoadedRun {
    LoadedRun() = default;
    LoadedRun(const LoadedRun&) = delete;
    LoadedRun& operator=(const LoadedRun&) = delete;

    std::string requestPath;
    std::string handshakeRunId = "unknown";
    Json document;
    RunRequest request;
    Program program;
    std::string programHash;
};

// Stage 1: read and parse the file. Always fills run.handshakeRunId (as python-sim: the
// request's run_id if it can be read, else "unknown"), so the caller can print the
// handshake before reporting any error. Returns an exit code; `message` for stderr.
inline int ReadRequestDocument(const std::string& path, const FileOps& files, LoadedRun& run, std::string& message) {
    run.requestPath = path;
    std::string text, err;
    if (!files.read(path, text, err)) {
        message = "cannot read request " + path + ": " + err;
        return kExitBadRequest;
    }
    size_t bad = 0;
    if (!ValidUtf8(text, &bad)) {
        message = "request " + path + " is not UTF-8 (byte " + std::to_string(bad) + ")";
        return kExitBadRequest;
    }
    if (!JsonParser::Parse(text, run.document, err)) {
        message = "request " + path + " is not JSON: " + err;
        return kExitBadRequest;
    }
    if (run.document.IsObject()) {
        const Json* id = run.document.Find("run_id");
        if (id && id->IsString()) run.handshakeRunId = id->text;
        else if (id && id->IsNumber()) run.handshakeRunId = id->text;
    }
    return kExitOk;
}

// Stage 2: validate the request, check the hashes and the output directory, read the
// program. `checkOutputDir` is false for in-process benchmarks.
inline int ValidateRequest(LoadedRun& run, const FileOps& files, bool checkOutputDir, std::string& message) {
    std::string err;
    if (!ReadRunRequest(run.document, run.request, err)) {
        message = "request " + run.requestPath + ": " + err;
        return kExitBadRequest;
    }
    {  // the hash check below reads program.config_hash: a mistyped one is a bad request, as in python-sim
        FieldReader r;
        ReadConfigHash(*run.request.program, r);
        if (!r.Ok()) {
            message = "request " + run.requestPath + ": " + r.error;
            return kExitBadRequest;
        }
    }
    if (!ProgramHash(*run.request.program, run.programHash, err)) {
        message = "request " + run.requestPath + ": field program: " + err;
        return kExitBadRequest;
    }
    if (run.programHash != run.request.programHash) {
        message = "program_hash does not match the program (sha256 of its canonical JSON): computed " +
                  run.programHash + ", request says " + run.request.programHash;
        return kExitHashMismatch;
    }
    const Json* ch = run.request.program->Find("config_hash");
    if (!ch || !ch->IsString() || ch->text != run.request.configHash) {
        message = "config_hash does not match program.config_hash";
        return kExitHashMismatch;
    }
    if (checkOutputDir && !files.isDirectory(run.request.outputDir)) {
        message = "output directory " + run.request.outputDir + " does not exist";
        return kExitOutputError;
    }
    if (!ReadProgram(*run.request.program, run.request.player, run.program, err)) {
        message = "program is malformed: " + err;
        return kExitBadRequest;
    }
    return kExitOk;
}

inline const char* StatusName(RunStatus s) { return s == RunStatus::Died ? "died" : "completed"; }

// Writes <output_dir>/telemetry.json atomically (pretty, sorted keys, like the Python runners).
inline int WriteTelemetry(const FileOps& files, const std::string& outputDir, const Json& telemetry,
                          std::string& message) {
    std::string err;
    if (!files.writeAtomic(outputDir, kTelemetryFile, ToPrettyJson(telemetry, 1) + "\n", err)) {
        message = "cannot write outputs to " + outputDir + ": " + err;
        return kExitOutputError;
    }
    return kExitOk;
}

// Times `runs` extra in-process runs of an already validated request and prints one
// `GCV-BENCH {"ms":..,"run":i,"ticks":..}` line per run, then a summary line
// `GCV-BENCH {"median_ms":..,"min_ms":..,"runs":n,"state_hash":..,"ticks":..}`. Excludes
// process start-up, request parsing and file output. Every run must end in `expectedHash`
// (a determinism check): returns false (after printing the error) if one does not.
inline bool BenchRuns(const LoadedRun& run, int runs, const std::string& expectedHash, const RunIO& io) {
    std::vector<double> ms;
    int64_t ticks = 0;
    for (int i = 0; i < runs; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        Simulation sim(run.program, run.request.player);
        sim.Run(run.request.seed);
        const std::string hash = sim.StateHash();
        const double elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        ms.push_back(elapsed);
        ticks = sim.tick();
        char line[160];
        std::snprintf(line, sizeof line, "GCV-BENCH {\"ms\":%.3f,\"run\":%d,\"ticks\":%lld}", elapsed, i + 1,
                      static_cast<long long>(ticks));
        io.out(line);
        if (hash != expectedHash) {
            io.err("error: internal: bench run " + std::to_string(i + 1) + " ended in state " + hash +
                   ", the protocol run in " + expectedHash + " (non-deterministic build?)");
            return false;
        }
    }
    std::vector<double> sorted(ms);
    std::sort(sorted.begin(), sorted.end());
    const size_t n = sorted.size();
    const double median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    char line[300];
    std::snprintf(line, sizeof line,
                  "GCV-BENCH {\"median_ms\":%.3f,\"min_ms\":%.3f,\"runs\":%zu,\"state_hash\":\"%s\",\"ticks\":%lld}",
                  median, sorted[0], n, expectedHash.c_str(), static_cast<long long>(ticks));
    io.out(line);
    return true;
}

// The whole protocol for an engine that does not render (harness, commandlet). With
// benchRuns > 0 the request is then run that many more times in-process and timed
// (BenchRuns) before the GCV-DONE line.
inline int RunRequestFile(const std::string& path, const EngineIdentity& engine, const RunIO& io,
                          const FileOps& files = StdFileOps(), int benchRuns = 0) {
    LoadedRun run;
    std::string message;
    int code = ReadRequestDocument(path, files, run, message);
    io.out(HandshakeLine(engine.name, run.handshakeRunId, engine.version));
    if (code == kExitOk) code = ValidateRequest(run, files, true, message);
    if (code != kExitOk) return FailLine(io, code, message);
    if (!run.request.captureTicks.empty())
        io.out("note: capture_ticks ignored (" + std::to_string(run.request.captureTicks.size()) +
               " requested): " + engine.name + " does not render frames");
    const auto started = std::chrono::steady_clock::now();
    Simulation sim(run.program, run.request.player);
    sim.Reset(run.request.seed);  // == sim.Run(seed), with a heartbeat between ticks
    HeartbeatClock beat;
    while (sim.Step()) {
        if ((sim.tick() & 63) == 0 && beat.Due()) io.out(HeartbeatLine(sim.tick() - 1));
    }
    FrameSource frames;
    frames.wallTimeMs = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started)
                            .count();
    Json telemetry;
    if (!BuildTelemetry(sim, run.request, run.programHash, engine, frames, telemetry, message))
        return FailLine(io, kExitInternalError, "internal: " + message);
    code = WriteTelemetry(files, run.request.outputDir, telemetry, message);
    if (code != kExitOk) return FailLine(io, code, message);
    io.out(std::string("wrote ") + kTelemetryFile + " and 0 frame(s)");
    if (benchRuns > 0 && !BenchRuns(run, benchRuns, sim.StateHash(), io))
        return FailLine(io, kExitInternalError, "internal: a bench re-run ended in another state");
    io.out(DoneLine(StatusName(sim.status())));
    return kExitOk;
}

// Diagnostic: run until tick `tick` has been simulated (or the fight ends) and print the
// state the hash covers as "GCV-STATE {json}". Used to name the first diverging field.
inline int StateAtRequestFile(const std::string& path, int64_t tick, const RunIO& io,
                              const FileOps& files = StdFileOps()) {
    LoadedRun run;
    std::string message;
    int code = ReadRequestDocument(path, files, run, message);
    if (code == kExitOk) code = ValidateRequest(run, files, false, message);
    if (code != kExitOk) {
        io.err("error: " + message);
        return code;
    }
    Simulation sim(run.program, run.request.player);
    sim.Reset(run.request.seed);
    while (true) {
        const bool more = sim.Step();
        if (sim.tick() - 1 >= tick || !more) break;
    }
    io.out("GCV-STATE " + ToCompactJson(sim.StateDump()));
    return kExitOk;
}

}  // namespace gcv
