#include "GcvBridge.h"

#include "Modules/ModuleManager.h"

DEFINE_LOG_CATEGORY(LogGcv);

IMPLEMENT_MODULE(FDefaultModuleImpl, GcvBridge)
