// Runs one gcv.run_protocol/1 request inside a rendering Unreal process:
//
//   <Project>.exe | UnrealEditor <Project>.uproject -game -GcvRequest=<request.json>
//       -windowed -ResX=1280 -ResY=720 -unattended -stdout -FullStdOutLogOutput
//
// Exists only when -GcvRequest= is on the command line (and not in the editor or a
// commandlet). It prints the handshake, validates the request (exit 2/3/4 as the harness),
// switches the engine to a fixed 60 Hz step (FApp::SetUseFixedTimeStep), simulates one
// tick per rendered frame, draws it with AGcvBulletField, captures the requested ticks to
// <output_dir>/frames/tick_NNNNNN.png, measures real frame times with FPlatformTime (the
// fixed step fakes engine time, so DeltaTime is useless for that), writes telemetry.json
// (fps_source "measured", GPU and CPU brand) and quits with the protocol's exit code.
//
// Manual play: add -GcvPlay. The request supplies the program (its player is ignored); a
// human plays with the arrow keys / WASD (Shift = focus, Escape = stop) in real time, and
// the run writes <output_dir>/inputs.json (gcv.inputs/1, run-length [[ticks, dx, dy,
// focus], ...], +y up) that replays bit-exactly in Python, C# and C++ as player
// {"kind": "inputs", "trace": ...}, plus its telemetry.
#pragma once

#include "CoreMinimal.h"
#include "Subsystems/GameInstanceSubsystem.h"
#include "Tickable.h"

#include <memory>
#include <string>
#include <vector>

THIRD_PARTY_INCLUDES_START
#include "Gcv/Gcv.h"
THIRD_PARTY_INCLUDES_END

#include "GcvRunSubsystem.generated.h"

class AGcvBulletField;

UCLASS()
class GCVBRIDGE_API UGcvRunSubsystem : public UGameInstanceSubsystem, public FTickableGameObject
{
	GENERATED_BODY()

public:
	// USubsystem
	virtual bool ShouldCreateSubsystem(UObject* Outer) const override;
	virtual void Initialize(FSubsystemCollectionBase& Collection) override;
	virtual void Deinitialize() override;

	// FTickableGameObject
	virtual void Tick(float DeltaTime) override;
	virtual TStatId GetStatId() const override;
	virtual bool IsTickable() const override;
	virtual bool IsTickableWhenPaused() const override { return true; }
	virtual ETickableTickType GetTickableTickType() const override;

private:
	enum class EState : uint8
	{
		Idle,
		Running,
		Finishing,
		Done
	};

	EState State = EState::Idle;
	bool bManualPlay = false;
	std::shared_ptr<gcv::LoadedRun> Run;
	std::shared_ptr<gcv::Simulation> Sim;
	gcv::CapturePacer Pacer;          // one capture pending at a time; capture frames not measured
	std::unique_ptr<gcv::HeartbeatClock> Heartbeat;
	std::vector<int64_t> FrameUs;     // manual play only (automated runs measure through Pacer)
	std::vector<int64_t> CaptureTicks; // sorted
	std::vector<gcv::InputStep> Recorded;
	TArray<FString> FramePaths;
	FString FramesDir;
	double LastFrameSeconds = 0.0;
	double StartSeconds = 0.0;
	double EndSeconds = 0.0;
	double Accumulator = 0.0;
	int32 FinishingFrames = 0;
	int32 WaitFrames = 0;
	FDelegateHandle ScreenshotHandle;

	UPROPERTY()
	TObjectPtr<AGcvBulletField> Field;

	bool EnsureField();
	void StepAutomated(double Now);
	void StepManual(double Now);
	bool CaptureIfRequested(int64 Tick);
	void Beat();
	void OnScreenshotProcessed();
	void Finish();
	void Fail(int32 ExitCode, const std::string& Message);
	void Quit(int32 ExitCode);
};
