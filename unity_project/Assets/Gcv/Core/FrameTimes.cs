// Which measured frame times count toward the frame figures of a rendering run (the Unity
// player with graphics). A capture frame does a GPU readback and a PNG encode and write,
// and the frame after it pays for the stall; neither is the fight's own cost, and the 1% low
// FPS is a pass/fail target, so both are left out. Engine-free (Gcv.Core), so the console
// harness self-test (CI) and the EditMode tests check the very same code.
using System.Collections.Generic;

namespace Gcv.Core
{
    public sealed class FrameTimeFilter
    {
        /// <summary>Frames after a capture frame that are also left out.</summary>
        public const int ExcludeAfterCapture = 1;

        public readonly List<double> Kept = new List<double>();
        public int Excluded;
        bool frameCaptured;
        int afterLeft;

        /// <summary>The current frame captured (call during the frame that saves the PNG).</summary>
        public void Captured()
        {
            frameCaptured = true;
        }

        /// <summary>Call at the start of frame N+1 with frame N's duration; returns whether it counts.</summary>
        public bool EndFrame(double ms)
        {
            bool excluded = frameCaptured || afterLeft > 0;
            if (frameCaptured) afterLeft = ExcludeAfterCapture;
            else if (afterLeft > 0) afterLeft--;
            frameCaptured = false;
            if (excluded)
            {
                Excluded++;
                return false;
            }
            Kept.Add(ms);
            return true;
        }
    }
}
