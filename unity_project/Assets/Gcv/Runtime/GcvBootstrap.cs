// Entry point of the player: reads the command line after the first scene loads.
//
//   <Player> -batchmode -nographics -gcvRequest <request.json> -logFile <log>   (headless, as fast as it can)
//   <Player> -batchmode -gcvRequest <request.json> -logFile <log>               (capture run: renders,
//                                         one tick per frame, frames/tick_NNNNNN.png, measured FPS)
//   <Player> -gcvPlay <request.json> [-gcvTraceOut <trace.json>]               (manual play, records inputs)
//
// Without these arguments it does nothing (a designer's own scene keeps working).
using System;
using Gcv.Core;
using UnityEngine;

namespace Gcv.Runtime
{
    public static class GcvBootstrap
    {
        [RuntimeInitializeOnLoadMethod(RuntimeInitializeLoadType.AfterSceneLoad)]
        static void OnFirstSceneLoaded()
        {
            string[] args = Environment.GetCommandLineArgs();
            if (RunProtocol.GetArg(args, "-gcvRequest") != null || RunProtocol.HasArg(args, "-gcvRequest"))
            {
                var go = new GameObject("GcvRunner");
                UnityEngine.Object.DontDestroyOnLoad(go);
                var runner = go.AddComponent<GcvRunner>();
                runner.RequestPath = RunProtocol.GetArg(args, "-gcvRequest");
                runner.ForceFast = RunProtocol.HasArg(args, "-gcvFast");
                return;
            }
            string play = RunProtocol.GetArg(args, "-gcvPlay");
            if (play != null)
            {
                var go = new GameObject("GcvManualPlay");
                UnityEngine.Object.DontDestroyOnLoad(go);
                var manual = go.AddComponent<GcvManualPlay>();
                manual.RequestPath = play;
                manual.TraceOutPath = RunProtocol.GetArg(args, "-gcvTraceOut");
                manual.QuitWhenDone = true;
            }
        }
    }
}
