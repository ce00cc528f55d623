#include "GcvRunCommandlet.h"

#include "GcvUnreal.h"
#include "Misc/EngineVersion.h"
#include "Misc/Parse.h"

UGcvRunCommandlet::UGcvRunCommandlet()
{
	IsClient = false;
	IsServer = false;
	IsEditor = true;
	LogToConsole = true;
	ShowErrorCount = true;
	// Main's return value is the process exit code (the protocol's 0..4), even though error
	// lines were logged; without this the engine turns any logged error into exit 1.
	UseCommandletResultAsExitCode = true;
	HelpDescription = TEXT("Run one GCV run request (gcv.run_protocol/1) headless and write telemetry.json.");
	HelpUsage = TEXT("UnrealEditor-Cmd <Project>.uproject -run=GcvRun -GcvRequest=<request.json> [-GcvBench=<runs>] "
	                 "-unattended -nullrhi -nosplash -stdout -FullStdOutLogOutput");
}

int32 UGcvRunCommandlet::Main(const FString& Params)
{
	FString RequestPath;
	if (!FParse::Value(*Params, TEXT("GcvRequest="), RequestPath) || RequestPath.IsEmpty())
	{
		GcvUnreal::Err("error: missing -GcvRequest=<request.json> (quote paths with spaces: -GcvRequest=\"C:/a b/r.json\")");
		return gcv::kExitBadRequest;
	}
	int32 BenchRuns = 0;
	FParse::Value(*Params, TEXT("GcvBench="), BenchRuns);
	if (BenchRuns < 0 || BenchRuns > 100000)
	{
		GcvUnreal::Err("error: -GcvBench wants a run count between 1 and 100000");
		return gcv::kExitBadRequest;
	}

	gcv::EngineIdentity Engine;
	Engine.name = "ue5-commandlet";
	Engine.implementation = "cpp";
	Engine.version = gcv::kCoreVersion;
	Engine.engineVersion = GcvUnreal::ToUtf8(FEngineVersion::Current().ToString());
	return gcv::RunRequestFile(GcvUnreal::ToUtf8(RequestPath), Engine, GcvUnreal::ProtocolIO(), GcvUnreal::FileOps(),
	                           BenchRuns);
}
