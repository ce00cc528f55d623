// Automation tests for what the runner relies on from a build machine (issue "engine bridges
// on real build machines"): the request path survives Unreal's own command-line parsing,
// the protocol's error and heartbeat lines are what the runner parses, and frame captures
// are queued and left out of the measured frame times. The same checks of the engine-free
// parts run on CI through `gcv-ue5-harness -GcvSelfTest`; these run them inside Unreal.
//
// Run: UnrealEditor-Cmd <Project>.uproject -ExecCmds="Automation RunTests GCV.BuildMachine; Quit"
//      -unattended -nullrhi -nosplash -stdout

#include "CoreMinimal.h"
#include "GcvUnreal.h"
#include "Misc/AutomationTest.h"
#include "Misc/Parse.h"

#include <string>
#include <vector>

#if WITH_DEV_AUTOMATION_TESTS

IMPLEMENT_SIMPLE_AUTOMATION_TEST(FGcvRequestArgumentTest, "GCV.BuildMachine.RequestArgument",
                                 EAutomationTestFlags::EditorContext | EAutomationTestFlags::EngineFilter)

bool FGcvRequestArgumentTest::RunTest(const FString& Parameters)
{
	// What engine_runners/engine_args.py writes: quoted values (Windows always; Linux/macOS
	// when the path has no space, because the engine adds the quotes to one that has).
	const TCHAR* Paths[] = {TEXT("C:/CI Builds/a b/request.json"), TEXT("C:/CI/a,b/request.json"),
	                        TEXT("C:/CI/run (2)/request.json"), TEXT("/srv/ci/\u00dcn\u00efc\u00f6d\u00e9/request.json")};
	for (const TCHAR* Path : Paths)
	{
		const FString Line = FString::Printf(TEXT("Game.uproject -run=GcvRun -GcvRequest=\"%s\" -unattended -nullrhi"), Path);
		FString Parsed;
		TestTrue(TEXT("FParse::Value finds -GcvRequest="), FParse::Value(*Line, TEXT("GcvRequest="), Parsed));
		TestEqual(TEXT("the quoted request path arrives intact"), Parsed, FString(Path));
	}
	// The old unquoted form is cut at ',' and ')': why the runner quotes.
	FString Cut;
	FParse::Value(TEXT("-GcvRequest=C:/CI/a,b/request.json"), TEXT("GcvRequest="), Cut);
	TestEqual(TEXT("an unquoted path is cut at the comma"), Cut, FString(TEXT("C:/CI/a")));
	return true;
}

IMPLEMENT_SIMPLE_AUTOMATION_TEST(FGcvProtocolLinesTest, "GCV.BuildMachine.ProtocolLines",
                                 EAutomationTestFlags::EditorContext | EAutomationTestFlags::EngineFilter)

bool FGcvProtocolLinesTest::RunTest(const FString& Parameters)
{
	TestEqual(TEXT("error line"), GcvUnreal::ToFString(gcv::ErrorLine(gcv::kExitOutputError, "cannot write")),
	          FString(TEXT("GCV-ERROR {\"exit_code\":4,\"kind\":\"output_error\",\"message\":\"cannot write\"}")));
	TestEqual(TEXT("heartbeat line"), GcvUnreal::ToFString(gcv::HeartbeatLine(600)),
	          FString(TEXT("GCV-HEARTBEAT {\"tick\":600}")));
	TestTrue(TEXT("a long message is cut"), gcv::ErrorLine(1, std::string(5000, 'x')).size() < 1100);
	return true;
}

IMPLEMENT_SIMPLE_AUTOMATION_TEST(FGcvCapturePacingTest, "GCV.BuildMachine.CapturePacing",
                                 EAutomationTestFlags::EditorContext | EAutomationTestFlags::EngineFilter)

bool FGcvCapturePacingTest::RunTest(const FString& Parameters)
{
	// Capture ticks 4 and 5 fall in consecutive frames; the engine writes a capture two
	// frames after it was requested. Both must be taken, each showing its own tick.
	gcv::CapturePacer Pacer({4, 5});
	int64 Tick = 0;
	int32 Ended = 0;
	TArray<int64> Shown;
	int32 Age = -1;
	for (int32 Frame = 0; Frame < 30 && Tick < 10; ++Frame)
	{
		if (Frame > 0)
		{
			Pacer.EndFrame(16000);
			++Ended;
		}
		if (Age >= 0 && ++Age == 2)
		{
			Pacer.Processed();
			Age = -1;
		}
		if (!Pacer.MayStep())
		{
			Pacer.Waited();
			continue;
		}
		const int64 Simulated = Tick++;
		if (Pacer.WantsCapture(Simulated))
		{
			TestEqual(TEXT("never two captures pending"), Pacer.Pending(), 0);
			Pacer.Requested();
			Shown.Add(Simulated);
			Age = 0;
		}
	}
	TestEqual(TEXT("both captures taken"), Shown.Num(), 2);
	TestTrue(TEXT("each capture shows its own tick"), Shown.Num() == 2 && Shown[0] == 4 && Shown[1] == 5);
	TestEqual(TEXT("every frame is either measured or left out"),
	          Pacer.ExcludedFrames() + static_cast<int32>(Pacer.Kept().size()), Ended);
	TestEqual(TEXT("capture, wait and after-capture frames are left out"), Pacer.ExcludedFrames(), 5);
	return true;
}

#endif // WITH_DEV_AUTOMATION_TESTS
