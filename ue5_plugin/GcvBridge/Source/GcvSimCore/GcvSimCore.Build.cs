// GcvSimCore: the engine-independent C++17 port of the GCV simulator (header-only, under
// Public/Gcv). It has no Unreal headers and no engine dependency beyond this module shell,
// so the very same headers are compiled by g++ for the console harness
// (ue5_plugin/harness) that CI runs against the Python reference, with the flags Unreal
// uses here: no exceptions, no RTTI (the harness's build.sh passes -fno-exceptions
// -fno-rtti, so CI fails the day the core needs either).
//
// The headers are compiled wherever they are included: here (the module shell includes them
// once so UBT checks them with the engine's warnings), in GcvBridge and in GcvBridgeEditor.
// Each of those modules asks for precise floating-point semantics (Unreal builds MSVC
// modules with /fp:fast otherwise), which needs a module without a shared PCH, so NoPCHs
// is set there and nowhere else (tests/engine_runners/test_build_machine.py checks the rule).
// Determinism does not hang on it: the simulation is integer-only.
using UnrealBuildTool;

public class GcvSimCore : ModuleRules
{
	public GcvSimCore(ReadOnlyTargetRules Target) : base(Target)
	{
		PCHUsage = PCHUsageMode.NoPCHs;
		FPSemantics = FPSemanticsMode.Precise;
		bEnableExceptions = false; // the core reports errors by return value, never throws
		bUseRTTI = false;          // nor uses typeid / dynamic_cast

		PublicDependencyModuleNames.Add("Core");
		PublicDefinitions.Add("GCV_SIM_CORE_INTEGER_ONLY=1");
	}
}
