// Player builds for GCV runs.
//
// Headless runs (-batchmode -nographics) want the Dedicated Server subtarget
// (StandaloneBuildSubtarget.Server: a console application without rendering; needs the
// "Linux/Windows Dedicated Server Build Support" editor module). Capture runs render, so they
// need the normal player subtarget. From the command line:
//
//   <Unity> -batchmode -nographics -quit -projectPath <unity_project> \
//           -executeMethod Gcv.Editor.GcvBuild.BuildFromCommandLine \
//           -gcvBuildTarget linux|windows -gcvBuildSubtarget server|player -gcvBuildOut <path> -logFile <log>
//
// or one of BuildLinuxServer / BuildLinuxPlayer / BuildWindowsServer / BuildWindowsPlayer
// (output under unity_project/Builds/, which should stay out of version control).
using System;
using System.IO;
using Gcv.Core;
using UnityEditor;
using UnityEditor.Build.Reporting;
using UnityEditor.SceneManagement;
using UnityEngine;

namespace Gcv.Editor
{
    public static class GcvBuild
    {
        public const string ScenePath = "Assets/Gcv/Scenes/GcvMain.unity";

        [MenuItem("GCV/Build/Linux Dedicated Server (headless runs)")]
        public static void BuildLinuxServer()
        {
            Build(BuildTarget.StandaloneLinux64, StandaloneBuildSubtarget.Server, "Builds/LinuxServer/GcvPlayer.x86_64");
        }

        [MenuItem("GCV/Build/Linux Player (capture runs)")]
        public static void BuildLinuxPlayer()
        {
            Build(BuildTarget.StandaloneLinux64, StandaloneBuildSubtarget.Player, "Builds/LinuxPlayer/GcvPlayer.x86_64");
        }

        [MenuItem("GCV/Build/Windows Dedicated Server (headless runs)")]
        public static void BuildWindowsServer()
        {
            Build(BuildTarget.StandaloneWindows64, StandaloneBuildSubtarget.Server, "Builds/WindowsServer/GcvPlayer.exe");
        }

        [MenuItem("GCV/Build/Windows Player (capture runs)")]
        public static void BuildWindowsPlayer()
        {
            Build(BuildTarget.StandaloneWindows64, StandaloneBuildSubtarget.Player, "Builds/WindowsPlayer/GcvPlayer.exe");
        }

        /// <summary>-gcvBuildTarget linux|windows, -gcvBuildSubtarget server|player, -gcvBuildOut path.</summary>
        public static void BuildFromCommandLine()
        {
            string[] args = Environment.GetCommandLineArgs();
            string target = (RunProtocol.GetArg(args, "-gcvBuildTarget") ?? "linux").ToLowerInvariant();
            string sub = (RunProtocol.GetArg(args, "-gcvBuildSubtarget") ?? "server").ToLowerInvariant();
            string output = RunProtocol.GetArg(args, "-gcvBuildOut");
            BuildTarget buildTarget;
            if (target == "linux") buildTarget = BuildTarget.StandaloneLinux64;
            else if (target == "windows") buildTarget = BuildTarget.StandaloneWindows64;
            else { Fail("-gcvBuildTarget must be linux or windows, got " + target); return; }
            StandaloneBuildSubtarget subtarget;
            if (sub == "server") subtarget = StandaloneBuildSubtarget.Server;
            else if (sub == "player") subtarget = StandaloneBuildSubtarget.Player;
            else { Fail("-gcvBuildSubtarget must be server or player, got " + sub); return; }
            if (string.IsNullOrEmpty(output))
                output = "Builds/" + (target == "linux" ? "Linux" : "Windows") + (sub == "server" ? "Server" : "Player") +
                         "/GcvPlayer" + (target == "linux" ? ".x86_64" : ".exe");
            Build(buildTarget, subtarget, output);
        }

        static void Build(BuildTarget target, StandaloneBuildSubtarget subtarget, string location)
        {
            EnsureScene();
            var options = new BuildPlayerOptions();
            options.scenes = new[] { ScenePath };
            options.locationPathName = location;
            options.target = target;
            options.targetGroup = BuildTargetGroup.Standalone;
            options.subtarget = (int)subtarget; // the subtarget expects an integer
            options.options = BuildOptions.None;
            Debug.Log("GCV build: " + target + " / " + subtarget + " -> " + location);
            BuildReport report = BuildPipeline.BuildPlayer(options);
            BuildSummary summary = report.summary;
            if (summary.result == BuildResult.Succeeded)
            {
                Debug.Log("GCV build succeeded: " + summary.outputPath + " (" + summary.totalSize + " bytes)");
                if (Application.isBatchMode) EditorApplication.Exit(0);
                return;
            }
            Fail("build " + summary.result + " with " + summary.totalErrors + " error(s)");
        }

        /// <summary>The player needs one scene; GcvBootstrap does the rest at run time.</summary>
        static void EnsureScene()
        {
            if (File.Exists(ScenePath)) return;
            Directory.CreateDirectory(Path.GetDirectoryName(ScenePath));
            var scene = EditorSceneManager.NewScene(NewSceneSetup.EmptyScene, NewSceneMode.Single);
            EditorSceneManager.SaveScene(scene, ScenePath);
            AssetDatabase.Refresh();
        }

        static void Fail(string message)
        {
            Debug.LogError("GCV build failed: " + message);
            if (Application.isBatchMode) EditorApplication.Exit(1);
        }
    }
}
