// GcvBridge: the runtime glue that runs a gcv.run_protocol/1 request in game mode
// (-game -GcvRequest=<path>): fixed 60 Hz step, instanced bullets, frame captures,
// measured frame times, exit code. Also the manual play mode (-GcvPlay) that records a
// gcv.inputs/1 trace. The simulation itself lives in GcvSimCore (integer-only).
using UnrealBuildTool;

public class GcvBridge : ModuleRules
{
	public GcvBridge(ReadOnlyTargetRules Target) : base(Target)
	{
		// No fast-math for code that includes the core headers (see GcvSimCore.Build.cs).
		PCHUsage = PCHUsageMode.NoPCHs;
		FPSemantics = FPSemanticsMode.Precise;
		bEnableExceptions = false;

		PublicDependencyModuleNames.AddRange(new string[] { "Core", "CoreUObject", "Engine", "GcvSimCore" });
		PrivateDependencyModuleNames.AddRange(new string[] { "InputCore", "Slate", "SlateCore" });
	}
}
