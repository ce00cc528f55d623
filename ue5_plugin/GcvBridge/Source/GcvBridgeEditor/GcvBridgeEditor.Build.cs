// GcvBridgeEditor: the headless commandlet (UnrealEditor-Cmd <Project>.uproject -run=GcvRun
// -GcvRequest=<path> ...) and the automation tests (golden vectors, protocol lines, capture
// pacing). UCommandlet lives in Engine, the automation framework in Core and IPluginManager
// in Projects: no UnrealEd dependency is needed.
using UnrealBuildTool;

public class GcvBridgeEditor : ModuleRules
{
	public GcvBridgeEditor(ReadOnlyTargetRules Target) : base(Target)
	{
		// The core headers are compiled here too (see GcvBridge.Build.cs).
		PCHUsage = PCHUsageMode.NoPCHs;
		FPSemantics = FPSemanticsMode.Precise;
		bEnableExceptions = false;
		bUseRTTI = false;

		PublicDependencyModuleNames.AddRange(new string[] { "Core", "CoreUObject", "Engine" });
		PrivateDependencyModuleNames.AddRange(new string[] { "GcvSimCore", "GcvBridge", "Projects" });
	}
}
