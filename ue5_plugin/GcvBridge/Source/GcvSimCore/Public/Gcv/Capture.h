// Frame pacing for a rendering run (the UE5 game mode), engine-free so the g++ harness
// self-test (CI) and the UE automation tests check the very same code.
//
// Two problems it solves:
// * Unreal's FScreenshotRequest holds one request at a time: a second RequestScreenshot
//   before the first was written replaces it, and the lost capture is then waited for in
//   vain. So captures are queued: while one is pending, the simulation does not advance
//   (the frame is drawn again with the same state), and the next capture is requested only
//   after OnScreenshotRequestProcessed. No capture is lost and every capture shows exactly
//   the state after its tick.
// * Capture frames are slow (GPU readback, PNG encoding), and so is the frame after one.
//   They are left out of the measured frame times, as are frames spent waiting for a
//   capture, so captures never bias the 1% low FPS (a pass/fail target).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace gcv {

class CapturePacer {
public:
    // Frames after a capture frame that are also left out (the readback's aftermath).
    static constexpr int kExcludeAfterCapture = 1;

    explicit CapturePacer(std::vector<int64_t> captureTicks = {}) : ticks_(std::move(captureTicks)) {
        std::sort(ticks_.begin(), ticks_.end());
        ticks_.erase(std::unique(ticks_.begin(), ticks_.end()), ticks_.end());
    }

    // May the simulation advance this frame? No while a capture is pending.
    bool MayStep() const { return pending_ == 0; }

    // After a step that simulated `tick`: must the frame showing it be captured?
    bool WantsCapture(int64_t tick) const { return std::binary_search(ticks_.begin(), ticks_.end(), tick); }

    // The capture of this frame was requested (at most one is pending at a time).
    void Requested() {
        ++pending_;
        ++requested_;
        frameCaptured_ = true;
    }

    // The engine wrote (or gave up on) the pending capture.
    void Processed() {
        if (pending_ > 0) --pending_;
        ++processed_;
    }

    // This frame was spent waiting for a capture (nothing stepped): not a measured frame.
    void Waited() { frameWaited_ = true; }

    // Call at the start of frame N+1 with the duration of frame N (frames are measured one
    // Tick late); returns whether frame N counts toward the measured frame figures.
    bool EndFrame(int64_t frameUs) {
        const bool excluded = frameCaptured_ || frameWaited_ || afterLeft_ > 0;
        if (frameCaptured_) {
            afterLeft_ = kExcludeAfterCapture;
        } else if (!frameWaited_ && afterLeft_ > 0) {
            --afterLeft_;
        }
        frameCaptured_ = frameWaited_ = false;
        if (excluded) {
            ++excludedFrames_;
            return false;
        }
        kept_.push_back(frameUs);
        return true;
    }

    const std::vector<int64_t>& Kept() const { return kept_; }
    int Pending() const { return pending_; }
    int RequestedCount() const { return requested_; }
    int ProcessedCount() const { return processed_; }
    int ExcludedFrames() const { return excludedFrames_; }

private:
    std::vector<int64_t> ticks_;
    std::vector<int64_t> kept_;
    int pending_ = 0;
    int requested_ = 0;
    int processed_ = 0;
    int excludedFrames_ = 0;
    int afterLeft_ = 0;
    bool frameCaptured_ = false;
    bool frameWaited_ = false;
};

}  // namespace gcv
