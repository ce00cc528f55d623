// Editor batch mode: run a request without a player build.
//
//   <Unity> -batchmode -nographics -quit -projectPath <unity_project> \
//           -executeMethod Gcv.Editor.GcvBatch.Run -gcvRequest <request.json> -logFile <log>
//
// Same protocol, same Gcv.Core code as the player (RunProtocol): handshake, heartbeats,
// telemetry.json written atomically, GCV-DONE (or GCV-ERROR), and the protocol's exit code
// via EditorApplication.Exit. The engine is named "unity-editor": the editor never renders
// here, so the runner sends no capture ticks (frames come from the reference renderer,
// labelled as such) and the frame figures are the model's (fps_source "model"). Two editors
// cannot open one project: the runner serialises editor-mode runs per project.
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
            var options = GcvLog.Options("unity-editor", false);
            try
            {
                GcvLog.Out("mode: editor batch (-executeMethod Gcv.Editor.GcvBatch.Run)");
                code = RunProtocol.RunFromArgs(Environment.GetCommandLineArgs(), options);
            }
            catch (Exception exc)
            {
                code = RunProtocol.Fail(options, ExitCodes.InternalError, "internal error: " + exc);
            }
            EditorApplication.Exit(code);
        }
    }
}
