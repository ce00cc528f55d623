// GCV simulation core: the single include for users of the core (harness, UE modules, tests).
// Pure C++17, header-only, no Unreal headers, no exceptions, no RTTI requirements.
#pragma once

#include "Gcv/Capture.h"
#include "Gcv/Fixed.h"
#include "Gcv/Json.h"
#include "Gcv/Program.h"
#include "Gcv/RunProtocol.h"
#include "Gcv/Sha256.h"
#include "Gcv/Simulation.h"
#include "Gcv/Telemetry.h"
