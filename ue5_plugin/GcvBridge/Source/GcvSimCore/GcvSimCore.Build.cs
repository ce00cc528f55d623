// GcvSimCore: the engine-independent C++17 port of the GCV simulator (header-only, under
// Public/Gcv). It has no Unreal headers and no engine dependency beyond this module shell,
// so the very same headers are compiled by g++ for the console harness
// (ue5_plugin/harness) that CI runs against the Python reference.
//
// Determinism: the simulation is integer-only (Q16.16 fixed point, integer trig, SplitMix64),
// so the floating-point model cannot change a result. Still, no fast-math: Unreal compiles
// modules with /fp:fast (MSVC) unless a module asks for precise semantics, and a future
// float must not slip in under it. FPSemantics = Precise requires a private (or no) PCH.
// The g++ harness is built with -fno-fast-math -ffp-contract=off for the same reason.
// Unity builds (bUseUnity) make no difference to a header-only core.
using UnrealBuildTool;

public class GcvSimCore : ModuleRules
{
	public GcvSimCore(ReadOnlyTargetRules Target) : base(Target)
	{
		PCHUsage = PCHUsageMode.NoPCHs;
		FPSemantics = FPSemanticsMode.Precise;
		bEnableExceptions = false; // the core reports errors by return value, never throws
		bUseRTTI = false;

		PublicDependencyModuleNames.Add("Core");
		PublicDefinitions.Add("GCV_SIM_CORE_INTEGER_ONLY=1");
	}
}
