// GcvBridge runtime module: shared log category.
#pragma once

#include "CoreMinimal.h"
#include "Logging/LogMacros.h"

GCVBRIDGE_API DECLARE_LOG_CATEGORY_EXTERN(LogGcv, Log, All);
