// Manual play: a person plays the fight (program and seed from a run request) with the
// keyboard, and every tick's input is recorded into a gcv.inputs/1 trace, which replays the
// same fight bit for bit everywhere (python-sim, the harnesses, the engines: player
// "inputs:<file>").
//
// Keys (legacy UnityEngine.Input, no Input System package needed): WASD or arrows move
// (+y up), Shift = focus (slow), Esc ends the fight early. The simulation advances at a fixed
// 60 ticks per second of real time, whatever the frame rate; input is sampled each frame.
//
// Outputs (next to the request's output_dir unless -gcvTraceOut says otherwise):
//   inputs_trace.json          the recorded trace (gcv.inputs/1)
//   manual_telemetry.json      the telemetry of the played fight (player "inputs:<hash>")
using System;
using System.Diagnostics;
using System.IO;
using Gcv.Core;
using UnityEngine;

namespace Gcv.Runtime
{
    public sealed class GcvManualPlay : MonoBehaviour
    {
        [Tooltip("A gcv.run_request/1 file: its program and seed are played (its player is ignored).")]
        public string RequestPath;
        [Tooltip("Where to write the recorded trace; empty = <output_dir>/inputs_trace.json.")]
        public string TraceOutPath;
        public bool QuitWhenDone;

        const double TickSeconds = 1.0 / 60.0;

        RunSession session;
        Simulation sim;
        GcvView view;
        readonly InputsRecorder recorder = new InputsRecorder();
        readonly Stopwatch clock = new Stopwatch();
        double simulatedSeconds;
        bool finished;

        void Start()
        {
            string error;
            var options = GcvLog.Options("unity", true);
            session = RunProtocol.Load(RequestPath, options, out error);
            if (session == null)
            {
                GcvLog.Err("manual play: " + error);
                End(ExitCodes.BadRequest);
                return;
            }
            sim = new Simulation(session.Program, PlayerSpec.LiveInputs());
            sim.Reset(session.Request.Seed);
            Application.targetFrameRate = 120;
            QualitySettings.vSyncCount = 1;
            view = new GcvView(session.Program, 960, 1280);
            GcvLog.Out("manual play: " + session.Request.RunId + ", seed " + session.Request.Seed +
                       "; WASD/arrows move, Shift focus, Esc ends");
            clock.Start();
        }

        void Update()
        {
            if (finished || sim == null) return;
            int dx = 0, dy = 0;
            if (Input.GetKey(KeyCode.D) || Input.GetKey(KeyCode.RightArrow)) dx += 1;
            if (Input.GetKey(KeyCode.A) || Input.GetKey(KeyCode.LeftArrow)) dx -= 1;
            if (Input.GetKey(KeyCode.W) || Input.GetKey(KeyCode.UpArrow)) dy += 1;
            if (Input.GetKey(KeyCode.S) || Input.GetKey(KeyCode.DownArrow)) dy -= 1;
            bool focus = Input.GetKey(KeyCode.LeftShift) || Input.GetKey(KeyCode.RightShift);
            bool quit = Input.GetKeyDown(KeyCode.Escape);

            // Fixed 60 Hz ticks against real time; at most 8 catch-up ticks per frame.
            double now = clock.Elapsed.TotalSeconds;
            int steps = 0;
            while (!finished && simulatedSeconds + TickSeconds <= now && steps < 8)
            {
                sim.SetLiveInput(dx, dy, focus);
                recorder.Record(dx, dy, focus);
                simulatedSeconds += TickSeconds;
                steps++;
                if (!sim.Step()) finished = true;
            }
            if (steps == 8) simulatedSeconds = Math.Max(simulatedSeconds, now - TickSeconds);
            if (sim.Tick > 0) view.Render(sim);
            if (finished || quit) Save(finished ? null : "ended early with Esc");
        }

        void OnGUI()
        {
            if (view == null || Event.current.type != EventType.Repaint) return;
            view.Blit();
            if (sim != null)
                GUI.Label(new Rect(10, 10, 600, 22), string.Format("tick {0}  health {1}  boss {2}  hits {3}  grazes {4}",
                    sim.Tick, sim.Health, sim.BossHealth, sim.Hits, sim.Grazes));
        }

        void Save(string note)
        {
            finished = true;
            string dir = session.OutputDir;
            string tracePath = string.IsNullOrEmpty(TraceOutPath) ? Path.Combine(dir, "inputs_trace.json") : TraceOutPath;
            string source = "Unity " + Application.unityVersion + " manual play, " + DateTime.UtcNow.ToString("yyyy-MM-ddTHH:mm:ssZ") +
                            (note != null ? " (" + note + ")" : "");
            try
            {
                RunProtocol.WriteAtomic(tracePath, recorder.ToFileText(source));
                var trace = recorder.ToTrace(source);
                var player = PlayerSpec.FromTrace(trace);
                string label = player.Label();
                GcvLog.Out("manual play: recorded " + recorder.Ticks + " ticks to " + tracePath + " (player " + label + ")");
                if (sim.Finished)
                {
                    var telemetry = Telemetry.Build(sim, session.Request.RunId + "-manual", label, session.ProgramHash,
                                                    session.Options.Engine, null);
                    RunProtocol.WriteAtomic(Path.Combine(dir, "manual_telemetry.json"), Json.Write(telemetry, true, 1) + "\n");
                    GcvLog.Out("manual play: " + sim.Status + " (" + sim.EndReason + ") after " + sim.Tick + " ticks, state " +
                               telemetry.Get("state_hash").Text);
                }
                End(ExitCodes.Ok);
            }
            catch (Exception exc)
            {
                GcvLog.Err("manual play: cannot write " + tracePath + ": " + exc.Message);
                End(ExitCodes.OutputError);
            }
        }

        void End(int code)
        {
            if (!QuitWhenDone) return;
#if UNITY_EDITOR
            UnityEditor.EditorApplication.isPlaying = false;
#else
            Application.Quit(code);
#endif
        }

        void OnDestroy()
        {
            if (view != null) view.Dispose();
        }
    }
}
