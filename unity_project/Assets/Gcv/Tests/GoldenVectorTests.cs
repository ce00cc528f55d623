// EditMode tests: every golden vector (artifacts/vectors, shared with the Python and C++
// implementations) must be reproduced exactly by Gcv.Core inside the Unity editor.
//
//   <Unity> -batchmode -nographics -projectPath <unity_project> -runTests -testPlatform EditMode \
//           -testResults <results.xml> -logFile <log>
using System.Collections.Generic;
using System.IO;
using Gcv.Core;
using NUnit.Framework;
using UnityEngine;

namespace Gcv.Tests
{
    public sealed class GoldenVectorTests
    {
        static string VectorsDir
        {
            get { return Path.GetFullPath(Path.Combine(Application.dataPath, "../../artifacts/vectors")); }
        }

        public static IEnumerable<TestCaseData> Vectors()
        {
            string dir = Path.GetFullPath(Path.Combine(Application.dataPath, "../../artifacts/vectors"));
            if (!Directory.Exists(dir)) yield break;
            var files = new List<string>(Directory.GetFiles(dir, "*.json"));
            files.Sort(System.StringComparer.Ordinal);
            foreach (string file in files)
                yield return new TestCaseData(file).SetName(Path.GetFileNameWithoutExtension(file));
        }

        [Test]
        public void VectorsArePresent()
        {
            Assert.That(Directory.Exists(VectorsDir), "golden vectors not found at " + VectorsDir);
            Assert.That(Directory.GetFiles(VectorsDir, "*.json").Length, Is.EqualTo(20));
        }

        [TestCaseSource("Vectors")]
        public void GoldenVectorMatchesExactly(string path)
        {
            JsonValue vector = Json.Parse(File.ReadAllText(path));
            JsonValue expected = vector.Get("expected");
            Assert.That(expected, Is.Not.Null, "vector has no \"expected\"");

            string error;
            RunSession session = RunProtocol.LoadDocument(vector.Get("request"), new RunOptions(), out error);
            Assert.That(session, Is.Not.Null, error);
            Assert.That(session.Program.ConfigHash, Is.EqualTo(session.Request.ConfigHash), "config_hash");

            Simulation sim = session.Sim;
            sim.Run(session.Request.Seed);
            JsonValue telemetry = RunProtocol.BuildTelemetry(session, null);
            JsonValue gameplay = Telemetry.GameplayView(telemetry);

            string difference = JsonCompare.FirstDifference(expected, gameplay, "");
            Assert.That(difference, Is.Null, Path.GetFileName(path) + ": " + difference);
        }

        [Test]
        public void RecordedTraceReplaysTheLiveRun()
        {
            // A live (keyboard) run and the replay of its recorded trace are the same fight.
            string first = Path.Combine(VectorsDir, "01_baseline_scripted.json");
            JsonValue request = Json.Parse(File.ReadAllText(first)).Get("request");
            string error;
            RunSession session = RunProtocol.LoadDocument(request, new RunOptions(), out error);
            Assert.That(session, Is.Not.Null, error);

            var live = new Simulation(session.Program, PlayerSpec.LiveInputs());
            live.Reset(7);
            var recorder = new InputsRecorder();
            long t = 0;
            bool more = true;
            while (more)
            {
                int dx = (int)((t / 45) % 3) - 1, dy = (int)((t / 70) % 3) - 1;
                bool focus = (t / 110) % 2 == 1;
                live.SetLiveInput(dx, dy, focus);
                recorder.Record(dx, dy, focus);
                more = live.Step();
                t++;
            }
            var replay = new Simulation(session.Program, PlayerSpec.FromTrace(recorder.ToTrace("test")));
            replay.Run(7);
            Assert.That(replay.Tick, Is.EqualTo(live.Tick));
            Assert.That(replay.StateHash(), Is.EqualTo(live.StateHash()));
            CollectionAssert.AreEqual(live.StateHashes, replay.StateHashes);
        }
    }
}
