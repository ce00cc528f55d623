#include "GcvRunSubsystem.h"

#include "Camera/CameraActor.h"
#include "Components/LightComponent.h"
#include "Engine/DirectionalLight.h"
#include "Engine/GameInstance.h"
#include "Engine/World.h"
#include "GameFramework/PlayerController.h"
#include "GcvBulletField.h"
#include "GcvUnreal.h"
#include "HAL/FileManager.h"
#include "HAL/PlatformMisc.h"
#include "HAL/PlatformTime.h"
#include "InputCoreTypes.h"
#include "Misc/App.h"
#include "Misc/CommandLine.h"
#include "Misc/EngineVersion.h"
#include "Misc/Parse.h"
#include "Stats/Stats.h"
#include "UnrealClient.h"

#include <algorithm>

namespace
{
constexpr double TickSeconds = 1.0 / 60.0;
// The fight is drawn 1 km above the map's origin, away from whatever the map contains.
const FVector FieldOrigin(0.0, 0.0, 100000.0);
constexpr int32 SettleFrames = 3;               // frames to let the last image writes start
constexpr int32 MaxScreenshotWaitFrames = 600;  // a capture not written after this many frames fails the run
constexpr int32 MaxStepsPerFrame = 4;           // manual play: catch up at most this much

FString RequestPathFromCommandLine()
{
	FString Path;
	FParse::Value(FCommandLine::Get(), TEXT("GcvRequest="), Path);
	return Path;
}

int64 Microseconds(double Seconds)
{
	return FMath::Max<int64>(1, static_cast<int64>(FMath::RoundToDouble(Seconds * 1.0e6)));
}

gcv::EngineIdentity Identity()
{
	gcv::EngineIdentity Engine;
	Engine.name = "ue5";
	Engine.implementation = "cpp";
	Engine.version = gcv::kCoreVersion;
	Engine.engineVersion = GcvUnreal::ToUtf8(FEngineVersion::Current().ToString());
	return Engine;
}

// gcv.inputs/1 from one (dx, dy, focus) per tick: run-length [[ticks, dx, dy, focus], ...].
gcv::Json InputsTrace(const std::vector<gcv::InputStep>& Steps)
{
	gcv::Json Runs = gcv::Json::MakeArray();
	size_t I = 0;
	while (I < Steps.size())
	{
		size_t J = I + 1;
		while (J < Steps.size() && Steps[J].dx == Steps[I].dx && Steps[J].dy == Steps[I].dy &&
		       Steps[J].focus == Steps[I].focus)
		{
			++J;
		}
		gcv::Json Run = gcv::Json::MakeArray();
		Run.Push(gcv::Json::MakeInt(static_cast<int64_t>(J - I)));
		Run.Push(gcv::Json::MakeInt(Steps[I].dx));
		Run.Push(gcv::Json::MakeInt(Steps[I].dy));
		Run.Push(gcv::Json::MakeInt(Steps[I].focus));
		Runs.Push(std::move(Run));
		I = J;
	}
	gcv::Json Trace = gcv::Json::MakeObject();
	Trace.Set("format", gcv::Json::MakeString("gcv.inputs/1"));
	Trace.Set("tick_hz", gcv::Json::MakeInt(60));
	Trace.Set("runs", std::move(Runs));
	Trace.Set("source", gcv::Json::MakeString("ue5 manual play (GcvBridge " + std::string(gcv::kCoreVersion) + ", UE " +
	                                          GcvUnreal::ToUtf8(FEngineVersion::Current().ToString()) + ")"));
	return Trace;
}
} // namespace

bool UGcvRunSubsystem::ShouldCreateSubsystem(UObject* Outer) const
{
	if (GIsEditor || IsRunningCommandlet())
	{
		return false;
	}
	return !RequestPathFromCommandLine().IsEmpty() && Super::ShouldCreateSubsystem(Outer);
}

void UGcvRunSubsystem::Initialize(FSubsystemCollectionBase& Collection)
{
	Super::Initialize(Collection);
	bManualPlay = FParse::Param(FCommandLine::Get(), TEXT("GcvPlay"));
	const gcv::FileOps Files = GcvUnreal::FileOps();
	Run = std::make_shared<gcv::LoadedRun>();
	std::string Message;
	int32 Code = gcv::ReadRequestDocument(GcvUnreal::ToUtf8(RequestPathFromCommandLine()), Files, *Run, Message);
	const gcv::EngineIdentity Engine = Identity();
	GcvUnreal::Out(gcv::HandshakeLine(Engine.name, Run->handshakeRunId, Engine.version));
	if (Code == gcv::kExitOk)
	{
		Code = gcv::ValidateRequest(*Run, Files, /*checkOutputDir*/ true, Message);
	}
	if (Code != gcv::kExitOk)
	{
		Fail(Code, "error: " + Message);
		return;
	}

	CaptureTicks = Run->request.captureTicks;
	std::sort(CaptureTicks.begin(), CaptureTicks.end());
	CaptureTicks.erase(std::unique(CaptureTicks.begin(), CaptureTicks.end()), CaptureTicks.end());
	if (!CaptureTicks.empty())
	{
		if (FApp::CanEverRender())
		{
			FramesDir = GcvUnreal::ResolvePath(Run->request.outputDir) / TEXT("frames");
			IFileManager::Get().MakeDirectory(*FramesDir, /*Tree*/ true);
		}
		else
		{
			GcvUnreal::Out("note: capture_ticks ignored: this process cannot render (-nullrhi?)");
			CaptureTicks.clear();
		}
	}

	Pacer = gcv::CapturePacer(CaptureTicks);
	Heartbeat = std::make_unique<gcv::HeartbeatClock>();

	gcv::PlayerSpec Player = Run->request.player;
	if (bManualPlay)
	{
		Player = gcv::PlayerSpec();
		Player.kind = gcv::PlayerSpec::Kind::Inputs; // fed live, one input per tick
		GcvUnreal::Out("note: manual play: arrows/WASD move, Shift focuses, Escape stops; recording gcv.inputs/1");
	}
	else
	{
		// One simulation tick per rendered frame, and engine time advancing by exactly 1/60 s.
		FApp::SetUseFixedTimeStep(true);
		FApp::SetFixedDeltaTime(TickSeconds);
		GcvUnreal::Out("note: fixed 60 Hz step, one simulation tick per rendered frame");
	}
	Sim = std::make_shared<gcv::Simulation>(Run->program, Player);
	Sim->Reset(Run->request.seed);
	ScreenshotHandle = FScreenshotRequest::OnScreenshotRequestProcessed().AddUObject(
		this, &UGcvRunSubsystem::OnScreenshotProcessed);
	State = EState::Running;
}

void UGcvRunSubsystem::Deinitialize()
{
	if (ScreenshotHandle.IsValid())
	{
		FScreenshotRequest::OnScreenshotRequestProcessed().Remove(ScreenshotHandle);
		ScreenshotHandle.Reset();
	}
	Field = nullptr;
	Sim.reset();
	Run.reset();
	Super::Deinitialize();
}

TStatId UGcvRunSubsystem::GetStatId() const
{
	RETURN_QUICK_DECLARE_CYCLE_STAT(UGcvRunSubsystem, STATGROUP_Tickables);
}

bool UGcvRunSubsystem::IsTickable() const
{
	return State == EState::Running || State == EState::Finishing;
}

ETickableTickType UGcvRunSubsystem::GetTickableTickType() const
{
	return HasAnyFlags(RF_ClassDefaultObject) ? ETickableTickType::Never : ETickableTickType::Conditional;
}

bool UGcvRunSubsystem::EnsureField()
{
	UGameInstance* GameInstance = GetGameInstance();
	UWorld* World = GameInstance ? GameInstance->GetWorld() : nullptr;
	if (!World || !World->HasBegunPlay())
	{
		return false;
	}
	if (!Field)
	{
		FActorSpawnParameters Params;
		Params.SpawnCollisionHandlingOverride = ESpawnActorCollisionHandlingMethod::AlwaysSpawn;
		Field = World->SpawnActor<AGcvBulletField>(FieldOrigin, FRotator::ZeroRotator, Params);
		if (!Field)
		{
			Fail(gcv::kExitInternalError, "error: internal: cannot spawn AGcvBulletField");
			return false;
		}
		Field->Setup(Run->program);
		// A light along the view direction, so the lit basic-shape material shows its colours.
		ADirectionalLight* Light = World->SpawnActor<ADirectionalLight>(
			FieldOrigin - FVector(5000.0, 0.0, 0.0), FRotator::ZeroRotator, Params);
		if (Light && Light->GetLightComponent())
		{
			Light->GetLightComponent()->SetMobility(EComponentMobility::Movable);
		}
	}
	APlayerController* Controller = World->GetFirstPlayerController();
	ACameraActor* Camera = Field->GetViewCamera();
	if (Controller && Camera && Controller->GetViewTarget() != Camera)
	{
		Controller->bAutoManageActiveCameraTarget = false;
		Controller->SetViewTarget(Camera);
		if (bManualPlay)
		{
			Controller->SetInputMode(FInputModeGameOnly());
		}
	}
	return true;
}

void UGcvRunSubsystem::Tick(float /*DeltaTime: fixed-step mode fakes it; wall time is measured instead*/)
{
	const double Now = FPlatformTime::Seconds();
	if (State == EState::Running)
	{
		if (!EnsureField())
		{
			return; // the world is not playing yet
		}
		if (bManualPlay)
		{
			StepManual(Now);
		}
		else
		{
			StepAutomated(Now);
		}
	}
	else if (State == EState::Finishing)
	{
		if (FinishingFrames == 0 && !bManualPlay)
		{
			// The frame that showed the last tick has now been presented: its time counts
			// (unless it captured).
			Pacer.EndFrame(Microseconds(Now - LastFrameSeconds));
			EndSeconds = Now;
		}
		++FinishingFrames;
		const bool bWaitingForCaptures = Pacer.Pending() > 0 && FinishingFrames < MaxScreenshotWaitFrames;
		if (bWaitingForCaptures || FinishingFrames < SettleFrames)
		{
			return;
		}
		Finish();
	}
}

void UGcvRunSubsystem::StepAutomated(double Now)
{
	if (LastFrameSeconds > 0.0)
	{
		Pacer.EndFrame(Microseconds(Now - LastFrameSeconds)); // the previous frame; capture frames are left out
	}
	else
	{
		StartSeconds = Now;
	}
	LastFrameSeconds = Now;
	if (!Pacer.MayStep())
	{
		// FScreenshotRequest holds one request at a time: wait (same state on screen) until
		// the pending capture is written, so the next one is neither lost nor taken late.
		Pacer.Waited();
		if (++WaitFrames >= MaxScreenshotWaitFrames)
		{
			Fail(gcv::kExitInternalError, "internal: a frame capture was not written within " +
			                                  std::to_string(MaxScreenshotWaitFrames) + " frames");
		}
		return;
	}
	WaitFrames = 0;
	const bool bMore = Sim->Step();
	Field->Draw(*Sim);
	CaptureIfRequested(Sim->tick() - 1);
	Beat();
	if (!bMore)
	{
		State = EState::Finishing;
	}
}

void UGcvRunSubsystem::Beat()
{
	if (Heartbeat && Heartbeat->Due())
	{
		GcvUnreal::Out(gcv::HeartbeatLine(Sim->tick() - 1));
	}
}

void UGcvRunSubsystem::StepManual(double Now)
{
	if (LastFrameSeconds <= 0.0)
	{
		LastFrameSeconds = Now;
		StartSeconds = Now;
		return;
	}
	FrameUs.push_back(Microseconds(Now - LastFrameSeconds));
	Accumulator += Now - LastFrameSeconds;
	LastFrameSeconds = Now;
	APlayerController* Controller = GetGameInstance()->GetWorld()->GetFirstPlayerController();
	auto Down = [Controller](const FKey& Key) { return Controller && Controller->IsInputKeyDown(Key); };
	bool bStop = Down(EKeys::Escape);
	int32 Steps = 0;
	while (!bStop && Accumulator >= TickSeconds && Steps < MaxStepsPerFrame)
	{
		Accumulator -= TickSeconds;
		++Steps;
		const int Dx = (Down(EKeys::Right) || Down(EKeys::D) ? 1 : 0) - (Down(EKeys::Left) || Down(EKeys::A) ? 1 : 0);
		const int Dy = (Down(EKeys::Up) || Down(EKeys::W) ? 1 : 0) - (Down(EKeys::Down) || Down(EKeys::S) ? 1 : 0);
		const int Focus = Down(EKeys::LeftShift) || Down(EKeys::RightShift) ? 1 : 0;
		Sim->PushLiveInput(Dx, Dy, Focus);
		gcv::InputStep Step;
		Step.dx = static_cast<int8_t>(Dx);
		Step.dy = static_cast<int8_t>(Dy);
		Step.focus = static_cast<int8_t>(Focus);
		Recorded.push_back(Step);
		const bool bMore = Sim->Step();
		const bool bCaptured = CaptureIfRequested(Sim->tick() - 1);
		if (!bMore || static_cast<int64_t>(Recorded.size()) >= gcv::kMaxTraceTicks)
		{
			bStop = true;
		}
		if (bCaptured)
		{
			break; // this frame must show the captured tick; the rest of the catch-up waits
		}
	}
	Accumulator = FMath::Min(Accumulator, TickSeconds * MaxStepsPerFrame); // do not spiral after a hitch
	if (Steps > 0)
	{
		Field->Draw(*Sim);
	}
	if (bStop)
	{
		EndSeconds = Now;
		FinishingFrames = 1; // the frame time list is already complete in manual play
		State = EState::Finishing;
	}
}

bool UGcvRunSubsystem::CaptureIfRequested(int64 Tick)
{
	if (!Pacer.WantsCapture(static_cast<int64_t>(Tick)))
	{
		return false;
	}
	if (Pacer.Pending() > 0)
	{
		// Only manual play can get here (automated runs wait in StepAutomated).
		GcvUnreal::Out("note: capture of tick " + std::to_string(Tick) + " skipped: the previous capture is still pending");
		return false;
	}
	// Taken when this frame's viewport is drawn, i.e. showing the state after `Tick`.
	const FString Path = FramesDir / GcvUnreal::ToFString(gcv::FrameName(Tick));
	FScreenshotRequest::RequestScreenshot(Path, /*bInShowUI*/ false, /*bAddFilenameSuffix*/ false);
	Pacer.Requested();
	FramePaths.Add(Path);
	return true;
}

void UGcvRunSubsystem::OnScreenshotProcessed()
{
	Pacer.Processed();
}

void UGcvRunSubsystem::Finish()
{
	const gcv::FileOps Files = GcvUnreal::FileOps();
	gcv::RunRequest Request = Run->request;
	std::string Message;
	if (bManualPlay)
	{
		const gcv::Json Trace = InputsTrace(Recorded);
		if (!Files.writeAtomic(Request.outputDir, "inputs.json", gcv::ToPrettyJson(Trace, 1) + "\n", Message))
		{
			Fail(gcv::kExitOutputError, "error: cannot write inputs.json: " + Message);
			return;
		}
		GcvUnreal::Out("wrote inputs.json (" + std::to_string(Recorded.size()) + " ticks); replay it with player "
		               "{\"kind\": \"inputs\", \"trace\": <inputs.json>}");
		if (Sim->status() == gcv::RunStatus::Running)
		{
			GcvUnreal::Out("note: stopped before the fight ended; no telemetry (it is defined for finished runs)");
			Quit(gcv::kExitOk);
			return;
		}
		std::string Canonical, Hash;
		gcv::CanonicalJson(Trace, Canonical, Message);
		Request.player.kind = gcv::PlayerSpec::Kind::Inputs;
		Request.player.traceJson = Trace;
		Request.playerLabel = "inputs:" + gcv::Sha256::Hex(Canonical).substr(0, 12);
	}

	gcv::FrameSource Frames;
	Frames.fpsSource = "measured";
	Frames.useModel = false;
	Frames.measuredFrameUs = bManualPlay ? FrameUs : Pacer.Kept();
	if (!bManualPlay)
	{
		GcvUnreal::Out("note: " + std::to_string(Pacer.ExcludedFrames()) + " capture or capture-wait frame(s) left out of "
		               "the measured frame times (" + std::to_string(Pacer.Kept().size()) + " measured)");
	}
	Frames.hasHardware = true;
	Frames.gpu = GcvUnreal::ToUtf8(FPlatformMisc::GetPrimaryGPUBrand().TrimStartAndEnd());
	Frames.cpu = GcvUnreal::ToUtf8(FPlatformMisc::GetCPUBrand().TrimStartAndEnd());
	Frames.wallTimeMs = static_cast<int64_t>(FMath::RoundToDouble((EndSeconds - StartSeconds) * 1000.0));
	gcv::Json Telemetry;
	if (!gcv::BuildTelemetry(*Sim, Request, Run->programHash, Identity(), Frames, Telemetry, Message))
	{
		Fail(gcv::kExitInternalError, "error: internal: " + Message);
		return;
	}
	const int32 Code = gcv::WriteTelemetry(Files, Request.outputDir, Telemetry, Message);
	if (Code != gcv::kExitOk)
	{
		Fail(Code, "error: " + Message);
		return;
	}
	int32 Written = 0;
	for (const FString& Path : FramePaths)
	{
		if (IFileManager::Get().FileExists(*Path))
		{
			++Written;
		}
		else
		{
			GcvUnreal::Out("warning: capture " + GcvUnreal::ToUtf8(Path) + " was not written");
		}
	}
	GcvUnreal::Out("wrote telemetry.json and " + std::to_string(Written) + " frame(s)");
	GcvUnreal::Out(gcv::DoneLine(gcv::StatusName(Sim->status())));
	Quit(gcv::kExitOk);
}

void UGcvRunSubsystem::Fail(int32 ExitCode, const std::string& Message)
{
	// The message on stderr, GCV-ERROR on the protocol channel: on Windows the graceful
	// exit may drop ExitCode, so the runner reads the result from this line.
	GcvUnreal::Err(Message.rfind("error: ", 0) == 0 ? Message : "error: " + Message);
	GcvUnreal::Out(gcv::ErrorLine(ExitCode, Message.rfind("error: ", 0) == 0 ? Message.substr(7) : Message));
	Quit(ExitCode);
}

void UGcvRunSubsystem::Quit(int32 ExitCode)
{
	State = EState::Done;
	FPlatformMisc::RequestExitWithStatus(/*Force*/ false, static_cast<uint8>(ExitCode));
}
