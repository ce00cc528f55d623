// GcvSimCore: the engine-independent C++17 port of the GCV simulator (header-only, under
// Public/Gcv). It has no Unreal headers and no engine dependency beyond this module shell,
// so the very same headers are compiled by g++ for the console harness
// (ue5_plugin/harness) that CI runs against the Python reference, with the flags Unreal
// uses here: no exceptions, no RTTI (the harness's build.sh passes -fno-exceptions
// -fno-rtti, so CI fails the day the core needs either).
//
// The headers are compiled where they are included (GcvBridge, GcvBridgeEditor), and those
// modules ask for precise floating-point semantics (which needs them to build without a
// shared PCH). This module compiles only its module shell, so it uses the default PCH.
// Determinism does not hang on any of that: the simulation is integer-only.
using UnrealBuildTool;

public class GcvSimCore : ModuleRules
{
	public GcvSimCore(ReadOnlyTargetRules Target) : base(Target)
	{
		PCHUsage = PCHUsageMode.UseExplicitOrSharedPCHs;
		bEnableExceptions = false; // the core reports errors by return value, never throws
		bUseRTTI = false;          // nor uses typeid / dynamic_cast

		PublicDependencyModuleNames.Add("Core");
		PublicDefinitions.Add("GCV_SIM_CORE_INTEGER_ONLY=1");
	}
}
