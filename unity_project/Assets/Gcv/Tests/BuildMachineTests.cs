// EditMode tests for what a build machine relies on (issue "engine bridges on real build
// machines"): the instancing variant survives player builds, capture frames are left out of
// the measured frame times, and the protocol's error and heartbeat lines are what the
// runner parses. The engine-free checks also run on CI (`gcv-unity-harness.exe -gcvSelfTest`);
// the material check needs the editor's asset database, so it runs only here.
//
//   <Unity> -batchmode -nographics -projectPath <unity_project> -runTests -testPlatform EditMode \
//           -testResults <results.xml> -logFile <log>
using Gcv.Core;
using NUnit.Framework;
using UnityEditor;
using UnityEngine;

namespace Gcv.Tests
{
    public sealed class BuildMachineTests
    {
        const string MaterialPath = "Assets/Gcv/Runtime/Resources/GcvInstancedUnlitMaterial.mat";

        [Test]
        public void InstancingVariantIsKeptInPlayerBuilds()
        {
            // Unity strips shader variants that no material in the build uses; the view's
            // materials are made at run time, so this committed material (in Resources/, hence
            // in every build) is what keeps the instancing variant the bullets are drawn with.
            var material = AssetDatabase.LoadAssetAtPath<Material>(MaterialPath);
            Assert.IsNotNull(material, MaterialPath + " is missing");
            Assert.IsTrue(material.enableInstancing, "GPU instancing must be enabled on " + MaterialPath);
            Assert.AreEqual("Gcv/InstancedUnlit", material.shader.name, "the material must use the GCV shader");
        }

        [Test]
        public void GraphicsSettingsKeepAllInstancingVariants()
        {
            // Unity manual, Graphics settings > Shader stripping > "Instancing Variants": with the
            // default "Strip Unused" a player build drops the instancing variants no material in
            // the build uses; the view's bullets are drawn instanced with materials made at run
            // time, so the project commits "Keep All" (m_InstancingStripping: 2 in
            // ProjectSettings/GraphicsSettings.asset; 0 = Strip Unused, 1 = Strip All).
            var settings = new SerializedObject(UnityEngine.Rendering.GraphicsSettings.GetGraphicsSettings());
            var stripping = settings.FindProperty("m_InstancingStripping");
            Assert.IsNotNull(stripping, "GraphicsSettings has no m_InstancingStripping");
            Assert.AreEqual(2, stripping.intValue, "Instancing Variants must be Keep All");
        }

        [Test]
        public void CaptureFramesAreLeftOutOfMeasuredFrameTimes()
        {
            var filter = new FrameTimeFilter();
            for (int frame = 0; frame < 8; frame++)
            {
                if (frame > 0) filter.EndFrame(10 + frame);
                if (frame == 3) filter.Captured();
            }
            Assert.AreEqual(2, filter.Excluded, "the capture frame and the one after it");
            CollectionAssert.AreEqual(new double[] { 11, 12, 13, 16, 17 }, filter.Kept);
        }

        [Test]
        public void ProtocolLinesMatchWhatTheRunnerParses()
        {
            Assert.AreEqual("GCV-ERROR {\"exit_code\":4,\"kind\":\"output_error\",\"message\":\"cannot write\"}",
                            RunProtocol.ErrorLine(ExitCodes.OutputError, "cannot write"), "error line");
            Assert.AreEqual("GCV-HEARTBEAT {\"tick\":600}", RunProtocol.HeartbeatLine(600), "heartbeat line");
            Assert.IsTrue(RunProtocol.ErrorLine(1, new string('x', 5000)).Length < 1100, "a long message is cut");
        }
    }
}
