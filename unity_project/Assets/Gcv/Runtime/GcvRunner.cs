// One protocol run inside the Unity player (gcv.run_protocol/1 via Gcv.Core.RunProtocol).
//
// Headless (-nographics, or -gcvFast): the whole fight runs in the first frame, as fast as it
// can; frame figures are the model's (fps_source "model"). With a graphics device: one
// simulation tick per rendered frame with Time.captureFramerate = 60, the requested capture
// ticks saved as <output_dir>/frames/tick_NNNNNN.png, and the real frame times measured
// (fps_source "measured", GPU/CPU names from SystemInfo); capture frames and the frame after
// each are left out of those figures (FrameTimeFilter). GCV-HEARTBEAT about once a second
// while rendering; every error exit is preceded by GCV-ERROR (RunProtocol.Fail). Quits with
// the protocol's exit code.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using Gcv.Core;
using UnityEngine;
using UnityEngine.Rendering;

namespace Gcv.Runtime
{
    public sealed class GcvRunner : MonoBehaviour
    {
        public string RequestPath;
        public bool ForceFast;

        RunSession session;
        RunOptions options;
        GcvView view;
        readonly HashSet<long> captureTicks = new HashSet<long>();
        readonly FrameTimeFilter frames = new FrameTimeFilter();
        Heartbeat heartbeat;
        readonly Stopwatch frameWatch = new Stopwatch();
        int framesSeen;
        bool done;

        static bool HasGraphics
        {
            get { return SystemInfo.graphicsDeviceType != GraphicsDeviceType.Null; }
        }

        void Start()
        {
            bool render = HasGraphics && !ForceFast;
            options = GcvLog.Options("unity", render);
            int code = RunProtocol.Begin(RequestPath, options, out session);
            if (code != ExitCodes.Ok)
            {
                Quit(code);
                return;
            }
            if (!render)
            {
                GcvLog.Out(HasGraphics ? "mode: fast (-gcvFast): no rendering, modeled frame times"
                                       : "mode: headless (no graphics device): no rendering, modeled frame times");
                int exit;
                try
                {
                    var watch = Stopwatch.StartNew();
                    // Heartbeats here too: a headless fight longer than the runner's liveness
                    // limit would otherwise be ended as hung (issue 28.5).
                    var beat = new Heartbeat(options, RunProtocol.HeartbeatMs);
                    while (session.Sim.Step()) beat.Tick(session.Sim.Tick - 1);
                    session.WallTimeMs = (long)watch.Elapsed.TotalMilliseconds;
                    exit = RunProtocol.Finish(session, null);
                }
                catch (Exception exc)
                {
                    exit = RunProtocol.Fail(options, ExitCodes.InternalError, "internal error: " + exc);
                }
                Quit(exit);
                return;
            }
            foreach (long t in session.Request.CaptureTicks) captureTicks.Add(t);
            try
            {
                Directory.CreateDirectory(session.FramesDir);
            }
            catch (Exception exc)
            {
                Quit(RunProtocol.Fail(options, ExitCodes.OutputError, "output error: cannot create " + session.FramesDir + ": " + exc.Message));
                return;
            }
            GcvLog.Out("mode: rendering one tick per frame at 60 Hz (" + SystemInfo.graphicsDeviceName + ", " +
                       SystemInfo.graphicsDeviceType + "); " + captureTicks.Count + " capture tick(s)");
            Time.captureFramerate = 60;
            QualitySettings.vSyncCount = 0;
            Application.targetFrameRate = -1;
            view = new GcvView(session.Program, 960, 1280);
            heartbeat = new Heartbeat(options, RunProtocol.HeartbeatMs);
            frameWatch.Start();
        }

        void Update()
        {
            if (done || session == null || view == null) return;
            // Real frame time of the previous frame (wall clock, not the capture clock).
            double ms = frameWatch.Elapsed.TotalMilliseconds;
            frameWatch.Reset();
            frameWatch.Start();
            if (framesSeen++ > 0) frames.EndFrame(ms); // the first Update follows start-up, not a frame
            try
            {
                var sim = session.Sim;
                bool more = sim.Step();
                view.Render(sim);
                long tick = sim.Tick - 1;
                if (captureTicks.Contains(tick))
                {
                    string path = Path.Combine(session.FramesDir, RunProtocol.FrameName(tick));
                    view.SavePng(path);
                    frames.Captured(); // readback + PNG: not the fight's frame cost
                    GcvLog.Out("captured " + path);
                }
                heartbeat.Tick(tick);
                if (!more) Complete();
            }
            catch (Exception exc)
            {
                done = true;
                Quit(RunProtocol.Fail(options, ExitCodes.InternalError, "internal error: " + exc));
            }
        }

        void OnGUI()
        {
            if (view != null && Event.current.type == EventType.Repaint) view.Blit();
        }

        void Complete()
        {
            done = true;
            foreach (long t in captureTicks)
                if (t >= session.Sim.Tick) GcvLog.Out("capture tick " + t + " skipped: the fight ended after " + session.Sim.Tick + " ticks");
            GcvLog.Out(frames.Excluded + " capture frame(s) and the frame after each left out of the measured frame times");
            var measured = MeasuredFrames.FromFrameTimesMs(frames.Kept);
            measured.GpuName = SystemInfo.graphicsDeviceName;
            measured.CpuName = SystemInfo.processorType;
            GcvLog.Out(string.Format(System.Globalization.CultureInfo.InvariantCulture,
                "measured {0} frames: average {1:0.0} fps, 1% low {2:0.0} fps, worst {3:0.00} ms",
                measured.FrameCount, measured.AverageFps, measured.LowFps, measured.WorstFrameMs));
            int code = RunProtocol.Finish(session, measured);
            Quit(code);
        }

        void OnDestroy()
        {
            if (view != null) view.Dispose();
        }

        static void Quit(int code)
        {
#if UNITY_EDITOR
            UnityEditor.EditorApplication.isPlaying = false;
#else
            Application.Quit(code);
#endif
        }
    }
}
