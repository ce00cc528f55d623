// The engine-bridge file protocol gcv.run_protocol/1 (engine_runners/protocol.py), shared by
// the command-line harness and the Unity runtime / editor batch method:
//
//   request file -> handshake line -> validation -> simulation -> telemetry.json (written to
//   telemetry.json.tmp, then renamed) -> GCV-DONE line -> exit code.
//
// Exit codes: 0 OK, 1 internal error, 2 bad request (unreadable, not JSON, missing/invalid
// field; the field is named on stderr), 3 hash mismatch, 4 output dir missing/not writable.
// Every error exit after the handshake is preceded by one `GCV-ERROR {"exit_code":..,"kind":..,
// "message":..}` line on stdout (Fail), so a runner never infers the result from a raw exit
// code; while simulating, `GCV-HEARTBEAT {"tick":N}` at most about once a second (Heartbeat).
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Text;

namespace Gcv.Core
{
    public static class ExitCodes
    {
        public const int Ok = 0;
        public const int InternalError = 1;
        public const int BadRequest = 2;
        public const int HashMismatch = 3;
        public const int OutputError = 4;
    }

    public sealed class RunOptions
    {
        public EngineInfo Engine = new EngineInfo();
        /// <summary>Protocol and log lines (stdout for the harness; Debug.Log + Console in Unity).</summary>
        public Action<string> Out = delegate (string line) { Console.Out.WriteLine(line); Console.Out.Flush(); };
        /// <summary>Error lines (stderr).</summary>
        public Action<string> Err = delegate (string line) { Console.Error.WriteLine(line); Console.Error.Flush(); };
        /// <summary>True when the engine renders and saves the requested capture ticks.</summary>
        public bool Renders;
        /// <summary>-gcvBench n: after the run, run the same request n more times in-process and
        /// print each run's wall time (simulation + telemetry, no I/O, no process start).</summary>
        public int BenchRuns;
        /// <summary>-gcvStateAt t: print the full simulation state after tick t as one
        /// `GCV-STATE {json}` line (a parity debugging aid; -1 = off).</summary>
        public long StateAtTick = -1;
    }

    /// <summary>A validated request, ready to simulate (and, in an engine, to render).</summary>
    public sealed class RunSession
    {
        public RunRequest Request;
        public SimProgram Program;
        public Simulation Sim;
        public string ProgramHash;
        public string OutputDir;
        public RunOptions Options;
        /// <summary>Wall time of the simulation (ms), reported as wall_time_ms; -1 = not measured.</summary>
        public long WallTimeMs = -1;

        public string FramesDir { get { return Path.Combine(OutputDir, RunProtocol.FramesDir); } }
    }

    /// <summary>Prints GCV-HEARTBEAT {"tick":N} at most once per interval of wall time (a
    /// runner's liveness timer), never on the first call, so short runs print none.</summary>
    public sealed class Heartbeat
    {
        readonly RunOptions options;
        readonly long intervalMs;
        readonly Stopwatch watch = Stopwatch.StartNew();
        long nextMs;

        public Heartbeat(RunOptions options, long intervalMs)
        {
            this.options = options;
            this.intervalMs = intervalMs;
            nextMs = intervalMs;
        }

        /// <summary>Returns true when a line was printed.</summary>
        public bool Tick(long lastTick)
        {
            long now = watch.ElapsedMilliseconds;
            if (now < nextMs) return false;
            nextMs = now + intervalMs;
            options.Out(RunProtocol.HeartbeatLine(lastTick));
            return true;
        }
    }

    public static class RunProtocol
    {
        public const string ProtocolId = "gcv.run_protocol/1";
        public const string HandshakePrefix = "GCV-HANDSHAKE ";
        public const string DonePrefix = "GCV-DONE ";
        public const string BenchPrefix = "GCV-BENCH ";
        public const string HeartbeatPrefix = "GCV-HEARTBEAT ";
        public const string ErrorPrefix = "GCV-ERROR ";
        public const int MaxErrorMessage = 1000;
        /// <summary>Wall-clock milliseconds between two heartbeats.</summary>
        public const long HeartbeatMs = 1000;
        public const string StatePrefix = "GCV-STATE ";
        public const string TelemetryFile = "telemetry.json";
        public const string FramesDir = "frames";

        public static string HandshakeLine(string engine, string runId, string version)
        {
            var o = JsonValue.NewObject().Set("protocol", ProtocolId).Set("engine", engine).Set("version", version).Set("run_id", runId ?? "");
            return HandshakePrefix + Json.Write(o, true, -1);
        }

        public static string DoneLine(string status)
        {
            var o = JsonValue.NewObject().Set("status", status).Set("telemetry", TelemetryFile);
            return DonePrefix + Json.Write(o, true, -1);
        }

        public static string HeartbeatLine(long tick)
        {
            return HeartbeatPrefix + Json.Write(JsonValue.NewObject().Set("tick", tick), true, -1);
        }

        public static string ErrorKind(int code)
        {
            switch (code)
            {
                case ExitCodes.BadRequest: return "bad_request";
                case ExitCodes.HashMismatch: return "hash_mismatch";
                case ExitCodes.OutputError: return "output_error";
                default: return "internal_error";
            }
        }

        public static string ErrorLine(int code, string message)
        {
            string text = message ?? "";
            if (text.Length > MaxErrorMessage) text = text.Substring(0, MaxErrorMessage) + "...";
            var o = JsonValue.NewObject().Set("exit_code", (long)code).Set("kind", ErrorKind(code)).Set("message", text);
            return ErrorPrefix + Json.Write(o, true, -1);
        }

        /// <summary>Reports an error exit: the message on stderr, GCV-ERROR on stdout; returns code.</summary>
        public static int Fail(RunOptions options, int code, string message)
        {
            options.Err(message);
            options.Out(ErrorLine(code, message));
            return code;
        }

        public static string FrameName(long tick)
        {
            return "tick_" + tick.ToString("000000", CultureInfo.InvariantCulture) + ".png";
        }

        /// <summary>The value after `name` in a command line (e.g. -gcvRequest PATH), or null.</summary>
        public static string GetArg(string[] args, string name)
        {
            for (int i = 0; i + 1 < args.Length; i++)
                if (string.Equals(args[i], name, StringComparison.OrdinalIgnoreCase)) return args[i + 1];
            return null;
        }

        public static bool HasArg(string[] args, string name)
        {
            foreach (string a in args) if (string.Equals(a, name, StringComparison.OrdinalIgnoreCase)) return true;
            return false;
        }

        /// <summary>Whole protocol from a command line: -gcvRequest PATH [-gcvBench N].</summary>
        public static int RunFromArgs(string[] args, RunOptions options)
        {
            string bench = GetArg(args, "-gcvBench");
            if (bench != null)
            {
                int n;
                if (!int.TryParse(bench, NumberStyles.None, CultureInfo.InvariantCulture, out n) || n < 0 || n > 100000)
                {
                    options.Out(HandshakeLine(options.Engine.Name, "", options.Engine.Version));
                    return Fail(options, ExitCodes.BadRequest, "bad request: -gcvBench: expected a run count 0..100000, got \"" + bench + "\"");
                }
                options.BenchRuns = n;
            }
            string stateAt = GetArg(args, "-gcvStateAt");
            if (stateAt != null)
            {
                long t;
                if (!long.TryParse(stateAt, NumberStyles.None, CultureInfo.InvariantCulture, out t))
                {
                    options.Out(HandshakeLine(options.Engine.Name, "", options.Engine.Version));
                    return Fail(options, ExitCodes.BadRequest, "bad request: -gcvStateAt: expected a tick >= 0, got \"" + stateAt + "\"");
                }
                options.StateAtTick = t;
            }
            return Execute(GetArg(args, "-gcvRequest"), options);
        }

        /// <summary>request -> outputs -> exit code, for engines that do not render.</summary>
        public static int Execute(string requestPath, RunOptions options)
        {
            RunSession session;
            int code = Begin(requestPath, options, out session);
            if (code != ExitCodes.Ok) return code;
            try
            {
                var watch = Stopwatch.StartNew();
                var sim = session.Sim;
                sim.Reset(session.Request.Seed);
                var beat = new Heartbeat(options, HeartbeatMs);
                while (true)
                {
                    bool more = sim.Step();
                    if (sim.Tick - 1 == options.StateAtTick) options.Out(StatePrefix + Json.Write(sim.StateJson(), true, -1));
                    if (!more) break;
                    if ((sim.Tick & 63) == 0) beat.Tick(sim.Tick - 1);
                }
                session.WallTimeMs = (long)watch.Elapsed.TotalMilliseconds;
                if (options.BenchRuns > 0)
                {
                    code = Bench(session);
                    if (code != ExitCodes.Ok) return code;
                }
            }
            catch (Exception exc)
            {
                return Fail(options, ExitCodes.InternalError, "internal error: " + exc);
            }
            return Finish(session, null);
        }

        /// <summary>Reads and checks the request, prints the handshake, checks the output dir
        /// and creates the (reset) simulation. Returns 0 or the exit code to quit with.</summary>
        public static int Begin(string requestPath, RunOptions options, out RunSession session)
        {
            session = null;
            var eng = options.Engine;
            try
            {
                if (string.IsNullOrEmpty(requestPath))
                {
                    options.Out(HandshakeLine(eng.Name, "", eng.Version));
                    return Fail(options, ExitCodes.BadRequest, "bad request: -gcvRequest: argument required (the path of a gcv.run_request/1 JSON file)");
                }
                string text;
                try
                {
                    text = File.ReadAllText(requestPath, new UTF8Encoding(false, true));
                }
                catch (Exception exc)
                {
                    options.Out(HandshakeLine(eng.Name, "", eng.Version));
                    if (exc is DecoderFallbackException)
                        return Fail(options, ExitCodes.BadRequest, "bad request: request " + requestPath + " is not valid UTF-8: " + exc.Message);
                    return Fail(options, ExitCodes.BadRequest, "bad request: cannot read request " + requestPath + ": " + exc.Message);
                }
                JsonValue doc;
                try
                {
                    doc = Json.Parse(text);
                }
                catch (JsonParseException exc)
                {
                    options.Out(HandshakeLine(eng.Name, "", eng.Version));
                    return Fail(options, ExitCodes.BadRequest, "bad request: request " + requestPath + " is not valid JSON: " + exc.Message);
                }
                options.Out(HandshakeLine(eng.Name, RunRequest.PeekRunId(doc), eng.Version));

                RunRequest request;
                try
                {
                    request = RunRequest.FromJson(doc);
                }
                catch (BadRequestException exc)
                {
                    return Fail(options, ExitCodes.BadRequest, "bad request: field " + exc.Message);
                }

                try
                {
                    SimProgram.ConfigHashOf(request.ProgramJson);  // the hash check reads it: mistyped is a bad request
                }
                catch (BadRequestException exc)
                {
                    return Fail(options, ExitCodes.BadRequest, "bad request: field " + exc.Message);
                }
                string programHash = SimProgram.HashOf(request.ProgramJson);
                if (programHash != request.ProgramHash)
                {
                    return Fail(options, ExitCodes.HashMismatch, "hash mismatch: program_hash is " + request.ProgramHash + " but the program hashes to " + programHash);
                }
                string programConfigHash = request.ProgramJson.Get("config_hash").Text;  // checked above
                if (programConfigHash != request.ConfigHash)
                {
                    return Fail(options, ExitCodes.HashMismatch, "hash mismatch: config_hash is " + request.ConfigHash + " but program.config_hash is " +
                                programConfigHash);
                }

                SimProgram program;
                Simulation sim;
                try
                {
                    program = SimProgram.FromJson(request.ProgramJson);
                    sim = new Simulation(program, request.Player);
                }
                catch (BadRequestException exc)
                {
                    return Fail(options, ExitCodes.BadRequest, "bad request: field " + exc.Message);
                }

                string outDir;
                try
                {
                    outDir = Path.GetFullPath(request.OutputDir);
                }
                catch (Exception exc)
                {
                    return Fail(options, ExitCodes.OutputError, "output error: output_dir " + request.OutputDir + " is not a usable path: " + exc.Message);
                }
                if (!Directory.Exists(outDir))
                {
                    return Fail(options, ExitCodes.OutputError, "output error: output_dir " + outDir + " does not exist");
                }
                string probe = Path.Combine(outDir, ".gcv-write-probe-" + Guid.NewGuid().ToString("N"));
                try
                {
                    File.WriteAllText(probe, "");
                    File.Delete(probe);
                }
                catch (Exception exc)
                {
                    return Fail(options, ExitCodes.OutputError, "output error: output_dir " + outDir + " is not writable: " + exc.Message);
                }

                if (request.CaptureTicks.Count > 0 && !options.Renders)
                    options.Out("capture_ticks ignored: " + eng.Name + " does not render (" + request.CaptureTicks.Count + " requested, no frames written)");
                options.Out("run " + request.RunId + ": player " + request.PlayerLabel + ", seed " +
                            request.Seed.ToString(CultureInfo.InvariantCulture) + ", " + program.Phases.Length + " phases, " +
                            program.DurationTicks.ToString(CultureInfo.InvariantCulture) + " ticks max");
                sim.Reset(request.Seed);
                session = new RunSession
                {
                    Request = request, Program = program, Sim = sim, ProgramHash = programHash,
                    OutputDir = outDir, Options = options,
                };
                return ExitCodes.Ok;
            }
            catch (Exception exc)
            {
                return Fail(options, ExitCodes.InternalError, "internal error: " + exc);
            }
        }

        /// <summary>Reads a request file for tools that are not a protocol run (manual play,
        /// tests): no handshake, no output-dir check. Returns null and sets error on failure.</summary>
        public static RunSession Load(string requestPath, RunOptions options, out string error)
        {
            error = null;
            try
            {
                var doc = Json.Parse(File.ReadAllText(requestPath, new UTF8Encoding(false, true)));
                return LoadDocument(doc, options, out error);
            }
            catch (Exception exc)
            {
                error = "cannot load request " + requestPath + ": " + exc.Message;
                return null;
            }
        }

        /// <summary>As Load, from an already parsed request object (e.g. a golden vector's "request").</summary>
        public static RunSession LoadDocument(JsonValue doc, RunOptions options, out string error)
        {
            error = null;
            try
            {
                var request = RunRequest.FromJson(doc);
                string hash = SimProgram.HashOf(request.ProgramJson);
                if (hash != request.ProgramHash)
                {
                    error = "program_hash does not match the program (it hashes to " + hash + ")";
                    return null;
                }
                var program = SimProgram.FromJson(request.ProgramJson);
                var sim = new Simulation(program, request.Player);
                sim.Reset(request.Seed);
                string outDir = request.OutputDir;
                try { outDir = Path.GetFullPath(request.OutputDir); } catch (Exception) { }
                return new RunSession
                {
                    Request = request, Program = program, Sim = sim, ProgramHash = hash,
                    OutputDir = outDir, Options = options ?? new RunOptions(),
                };
            }
            catch (BadRequestException exc)
            {
                error = "bad request: field " + exc.Message;
                return null;
            }
        }

        /// <summary>Writes telemetry.json (atomically) for a finished simulation and prints GCV-DONE.
        /// measured == null: modeled frame figures (fps_source "model").</summary>
        public static int Finish(RunSession session, MeasuredFrames measured)
        {
            var options = session.Options;
            JsonValue telemetry;
            try
            {
                telemetry = BuildTelemetry(session, measured);
            }
            catch (Exception exc)
            {
                return Fail(options, ExitCodes.InternalError, "internal error: " + exc);
            }
            try
            {
                WriteAtomic(Path.Combine(session.OutputDir, TelemetryFile), Json.Write(telemetry, true, 1) + "\n");
            }
            catch (Exception exc)
            {
                return Fail(options, ExitCodes.OutputError, "output error: cannot write " + TelemetryFile + " in " + session.OutputDir + ": " + exc.Message);
            }
            var sim = session.Sim;
            options.Out(string.Format(CultureInfo.InvariantCulture,
                "finished: {0} ({1}) after {2} ticks; hits {3}, grazes {4}, peak {5} bullets, state {6}",
                sim.Status, sim.EndReason, sim.Tick, sim.Hits, sim.Grazes, sim.Peak, telemetry.Get("state_hash").Text));
            options.Out(DoneLine(sim.Status));
            return ExitCodes.Ok;
        }

        public static JsonValue BuildTelemetry(RunSession session, MeasuredFrames measured)
        {
            var r = session.Request;
            return Telemetry.Build(session.Sim, r.RunId, r.PlayerLabel, session.ProgramHash, session.Options.Engine, measured, session.WallTimeMs);
        }

        static int Bench(RunSession session)
        {
            var options = session.Options;
            string reference = session.Sim.StateHash();
            var sim = new Simulation(session.Program, session.Request.Player);
            var ms = new List<double>();
            for (int i = 0; i < options.BenchRuns; i++)
            {
                var watch = Stopwatch.StartNew();
                sim.Run(session.Request.Seed);
                var t = Telemetry.Build(sim, session.Request.RunId, session.Request.PlayerLabel, session.ProgramHash, options.Engine, null);
                watch.Stop();
                string hash = t.Get("state_hash").Text;
                if (hash != reference)
                {
                    return Fail(options, ExitCodes.InternalError, "internal error: bench run " + (i + 1) + " ended in state " + hash + ", the first run in " + reference);
                }
                double runMs = watch.Elapsed.TotalMilliseconds;
                ms.Add(runMs);
                var o = JsonValue.NewObject().Set("run", (long)(i + 1)).Set("ticks", sim.Tick)
                    .Set("ms", JsonValue.RawNumber(runMs.ToString("0.000", CultureInfo.InvariantCulture)));
                options.Out(BenchPrefix + Json.Write(o, true, -1));
            }
            ms.Sort();
            if (ms.Count > 0)
            {
                double median = ms.Count % 2 == 1 ? ms[ms.Count / 2] : (ms[ms.Count / 2 - 1] + ms[ms.Count / 2]) / 2;
                var o = JsonValue.NewObject().Set("runs", (long)ms.Count)
                    .Set("median_ms", JsonValue.RawNumber(median.ToString("0.000", CultureInfo.InvariantCulture)))
                    .Set("min_ms", JsonValue.RawNumber(ms[0].ToString("0.000", CultureInfo.InvariantCulture)));
                options.Out(BenchPrefix + Json.Write(o, true, -1));
            }
            return ExitCodes.Ok;
        }

        /// <summary>Writes path.tmp, then renames it over path (a reader never sees half a file).</summary>
        public static void WriteAtomic(string path, string text)
        {
            string tmp = path + ".tmp";
            File.WriteAllText(tmp, text, new UTF8Encoding(false));
            if (!File.Exists(path))
            {
                File.Move(tmp, path);
                return;
            }
            try
            {
                File.Replace(tmp, path, null); // a rename over the old file
            }
            catch (PlatformNotSupportedException)
            {
                File.Delete(path);
                File.Move(tmp, path);
            }
        }
    }
}
