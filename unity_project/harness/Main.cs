// gcv-unity-harness: the Gcv.Core C# port as a console program speaking gcv.run_protocol/1,
// exactly like the Unity player does (same RunProtocol class), without an engine.
//
//   mono gcv-unity-harness.exe -gcvRequest <request.json> [-gcvBench <n>] [-gcvStateAt <tick>]
//
// -gcvBench n runs the request n more times in-process after the real run and prints one
// `GCV-BENCH {"ms":...,"run":i,"ticks":...}` line per run plus a summary line (median, min),
// so a benchmark can leave out mono's start-up and JIT time. Outputs are written once.
// -gcvStateAt t prints the whole simulation state after tick t as one `GCV-STATE {json}`
// line (header fields and bullet arrays by name), to name the field where a parity test
// first diverges.
//
//   mono gcv-unity-harness.exe -gcvSelfTest
//
// checks the engine-free parts the Unity glue relies on (the protocol's GCV-ERROR and
// GCV-HEARTBEAT lines, which frames FrameTimeFilter leaves out of measured frame times) and
// prints "self-test: all checks passed" (exit 0) or each failure (exit 1).
//
//   mono gcv-unity-harness.exe -gcvRecordDemo <request.json> <trace_out.json>
//
// plays the request's program and seed with a scripted "keyboard" through the same live-input
// path and InputsRecorder that Unity's manual play mode uses, writes the recorded gcv.inputs/1
// trace and prints `GCV-RECORDED {"label":...,"state_hash":...,"status":...,"ticks":...}`, so
// a test can replay the trace in Python and compare (no Unity needed for that path).
using System;
using System.Globalization;
using Gcv.Core;

namespace Gcv.Harness
{
    public static class Program
    {
        public static int Main(string[] args)
        {
            var options = new RunOptions();
            options.Engine.Name = "unity-harness";
            options.Engine.Implementation = "csharp";
            options.Engine.Version = "0.1.0";
            options.Renders = false;
            try
            {
                if (RunProtocol.HasArg(args, "-gcvSelfTest")) return SelfTest(options);
                int demo = Array.FindIndex(args, a => string.Equals(a, "-gcvRecordDemo", StringComparison.OrdinalIgnoreCase));
                if (demo >= 0)
                {
                    if (demo + 2 >= args.Length)
                    {
                        Console.Error.WriteLine("usage: -gcvRecordDemo <request.json> <trace_out.json>");
                        return ExitCodes.BadRequest;
                    }
                    return RecordDemo(args[demo + 1], args[demo + 2], options);
                }
                return RunProtocol.RunFromArgs(args, options);
            }
            catch (Exception exc)
            {
                return RunProtocol.Fail(options, ExitCodes.InternalError, "internal error: " + exc);
            }
        }

        static int SelfTest(RunOptions options)
        {
            int failures = 0;
            Action<string, string, string> expect = delegate (string what, string got, string want)
            {
                if (got == want) return;
                Console.Error.WriteLine("FAIL " + what + ": got " + got + ", want " + want);
                failures++;
            };
            expect("error line", RunProtocol.ErrorLine(ExitCodes.HashMismatch, "bad \"x\""),
                   "GCV-ERROR {\"exit_code\":3,\"kind\":\"hash_mismatch\",\"message\":\"bad \\\"x\\\"\"}");
            expect("error line cut", (RunProtocol.ErrorLine(1, new string('e', 5000)).Length < 1100).ToString(), "True");
            expect("heartbeat line", RunProtocol.HeartbeatLine(1234), "GCV-HEARTBEAT {\"tick\":1234}");
            var lines = new System.Collections.Generic.List<string>();
            var quiet = new RunOptions();
            quiet.Out = lines.Add;
            expect("no heartbeat in the first second", new Heartbeat(quiet, 1000).Tick(5).ToString(), "False");
            // A capture at frame 3: frames 3 and 4 are left out, the rest measured.
            var filter = new FrameTimeFilter();
            for (int frame = 0; frame < 8; frame++)
            {
                if (frame > 0) filter.EndFrame(10 + frame);
                if (frame == 3) filter.Captured();
            }
            expect("frames left out", filter.Excluded.ToString(CultureInfo.InvariantCulture), "2");
            expect("frames kept", string.Join(",", filter.Kept), "11,12,13,16,17");
            if (failures == 0) options.Out("self-test: all checks passed");
            return failures == 0 ? ExitCodes.Ok : ExitCodes.InternalError;
        }

        /// <summary>A deterministic stand-in for a person at the keyboard: it weaves, focuses in
        /// bursts and sometimes stands still, changing its mind every few ticks.</summary>
        static void Keys(long t, out int dx, out int dy, out bool focus)
        {
            long phase = t / 23;
            dx = (int)((phase * 7 + 3) % 3) - 1;
            dy = (int)((phase * 5 + (t / 61)) % 3) - 1;
            focus = (t / 97) % 3 == 1;
            if ((t / 151) % 5 == 4) { dx = 0; dy = 0; }
        }

        static int RecordDemo(string requestPath, string tracePath, RunOptions options)
        {
            string error;
            RunSession session = RunProtocol.Load(requestPath, options, out error);
            if (session == null)
            {
                Console.Error.WriteLine(error);
                return ExitCodes.BadRequest;
            }
            var sim = new Simulation(session.Program, PlayerSpec.LiveInputs());
            sim.Reset(session.Request.Seed);
            var recorder = new InputsRecorder();
            bool more = true;
            while (more)
            {
                int dx, dy;
                bool focus;
                Keys(sim.Tick, out dx, out dy, out focus);
                sim.SetLiveInput(dx, dy, focus);
                recorder.Record(dx, dy, focus);
                more = sim.Step();
            }
            const string source = "gcv-unity-harness -gcvRecordDemo (scripted keyboard)";
            RunProtocol.WriteAtomic(tracePath, recorder.ToFileText(source));
            var label = PlayerSpec.FromTrace(recorder.ToTrace(source)).Label();
            var o = JsonValue.NewObject().Set("label", label).Set("state_hash", sim.StateHash())
                .Set("status", sim.Status).Set("ticks", sim.Tick).Set("runs", (long)recorder.ToTrace(source).Runs.Count);
            Console.Out.WriteLine("GCV-RECORDED " + Json.Write(o, true, -1));
            return ExitCodes.Ok;
        }
    }
}
