// Log lines go to both Unity's log (Debug.Log, i.e. the -logFile) and the process's stdout
// (Console), so a runner finds the GCV-HANDSHAKE / GCV-DONE lines in either.
using System;
using UnityEngine;

namespace Gcv.Runtime
{
    public static class GcvLog
    {
        public static void Out(string line)
        {
            Debug.LogFormat(LogType.Log, LogOption.NoStacktrace, null, "{0}", line);
            try
            {
                Console.Out.WriteLine(line);
                Console.Out.Flush();
            }
            catch (Exception)
            {
                // no console attached (e.g. a windowed player): the Unity log has the line
            }
        }

        public static void Err(string line)
        {
            Debug.LogFormat(LogType.Error, LogOption.NoStacktrace, null, "{0}", line);
            try
            {
                Console.Error.WriteLine(line);
                Console.Error.Flush();
            }
            catch (Exception)
            {
            }
        }

        public static Gcv.Core.RunOptions Options(string engineName, bool renders)
        {
            var options = new Gcv.Core.RunOptions();
            options.Engine.Name = engineName;
            options.Engine.Implementation = "csharp";
            options.Engine.Version = "0.1.0";
            options.Engine.EngineVersion = "Unity " + Application.unityVersion;
            options.Out = Out;
            options.Err = Err;
            options.Renders = renders;
            return options;
        }
    }
}
