// Editor batch mode: run a request without a player build.
//
//   <Unity> -batchmode -nographics -quit -projectPath <unity_project> \
//           -executeMethod Gcv.Editor.GcvBatch.Run -gcvRequest <request.json> -logFile <log>
//
// Same protocol, same Gcv.Core code as the player (RunProtocol): handshake, telemetry.json
// written atomically, GCV-DONE, and the protocol's exit code via EditorApplication.Exit.
// The editor does not render here: capture ticks are ignored (said so in the log) and the
// frame figures are the model's (fps_source "model").
using System;
using Gcv.Core;
using Gcv.Runtime;
using UnityEditor;

namespace Gcv.Editor
{
    public static class GcvBatch
    {
        public static void Run()
        {
            int code;
            try
            {
                var options = GcvLog.Options("unity", false);
                GcvLog.Out("mode: editor batch (-executeMethod Gcv.Editor.GcvBatch.Run)");
                code = RunProtocol.RunFromArgs(Environment.GetCommandLineArgs(), options);
            }
            catch (Exception exc)
            {
                GcvLog.Err("internal error: " + exc);
                code = ExitCodes.InternalError;
            }
            EditorApplication.Exit(code);
        }
    }
}
