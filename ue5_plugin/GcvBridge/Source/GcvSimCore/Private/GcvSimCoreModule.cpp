// Module shell of the header-only GCV simulation core. Including the core here makes
// UnrealBuildTool compile every core header once inside the engine's toolchain and
// warning settings, even if no other module of the project includes it.
#include "Modules/ModuleManager.h"

THIRD_PARTY_INCLUDES_START
#include "Gcv/Gcv.h"
THIRD_PARTY_INCLUDES_END

IMPLEMENT_MODULE(FDefaultModuleImpl, GcvSimCore)
