// GcvBridge: the runtime glue that runs a gcv.run_protocol/1 request in game mode
// (-game -GcvRequest=<path>): fixed 60 Hz step, instanced bullets, queued frame captures,
// measured frame times (capture frames left out), heartbeats, exit code. Also the manual
// play mode (-GcvPlay) that records a gcv.inputs/1 trace. The simulation itself lives in
// GcvSimCore (integer-only), whose headers are compiled here.
using UnrealBuildTool;

public class GcvBridge : ModuleRules
{
	public GcvBridge(ReadOnlyTargetRules Target) : base(Target)
	{
		// The core headers are compiled in this module: no fast-math for them (Unreal builds
		// MSVC modules with /fp:fast otherwise), which needs a module without a shared PCH.
		PCHUsage = PCHUsageMode.NoPCHs;
		FPSemantics = FPSemanticsMode.Precise;
		bEnableExceptions = false;
		bUseRTTI = false;

		PublicDependencyModuleNames.AddRange(new string[] { "Core", "CoreUObject", "Engine", "GcvSimCore" });
		PrivateDependencyModuleNames.AddRange(new string[] { "InputCore", "Slate", "SlateCore" });
	}
}
