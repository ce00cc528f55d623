// GcvBridgeEditor: the headless commandlet (UnrealEditor-Cmd <Project>.uproject -run=GcvRun
// -GcvRequest=<path> ...) and the golden-vector automation tests.
using UnrealBuildTool;

public class GcvBridgeEditor : ModuleRules
{
	public GcvBridgeEditor(ReadOnlyTargetRules Target) : base(Target)
	{
		// No fast-math for code that includes the core headers (see GcvSimCore.Build.cs).
		PCHUsage = PCHUsageMode.NoPCHs;
		FPSemantics = FPSemanticsMode.Precise;
		bEnableExceptions = false;

		PublicDependencyModuleNames.AddRange(new string[] { "Core", "CoreUObject", "Engine" });
		PrivateDependencyModuleNames.AddRange(new string[] { "GcvSimCore", "GcvBridge", "Projects", "UnrealEd" });
	}
}
