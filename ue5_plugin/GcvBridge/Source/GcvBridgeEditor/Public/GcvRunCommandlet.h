// Headless runner for one gcv.run_protocol/1 request, no rendering:
//
//   UnrealEditor-Cmd <Project>.uproject -run=GcvRun -GcvRequest=<request.json>
//       -unattended -nullrhi -nosplash -stdout -FullStdOutLogOutput
//
// Same core and same protocol entry (gcv::RunRequestFile) as the g++ harness: handshake,
// checks, telemetry.json (temp + rename), GCV-DONE, and Main's return value is the exit
// code (0 ok, 1 internal, 2 bad request, 3 hash mismatch, 4 output error). Protocol lines
// go through UE_LOG (mirrored to stdout by -stdout, so they carry a "LogGcv: Display:"
// prefix, which the runner's handshake parser allows); errors are also written to stderr.
// Capture ticks are ignored (no renderer) and said so; frame figures are the program's
// frame model (fps_source "model"). Optional -GcvBench=<n>: n timed in-process re-runs.
#pragma once

#include "Commandlets/Commandlet.h"
#include "CoreMinimal.h"

#include "GcvRunCommandlet.generated.h"

UCLASS()
class GCVBRIDGEEDITOR_API UGcvRunCommandlet : public UCommandlet
{
	GENERATED_BODY()

public:
	UGcvRunCommandlet();

	virtual int32 Main(const FString& Params) override;
};
