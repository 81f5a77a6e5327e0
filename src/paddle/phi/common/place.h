// Paddle's include path for paddle::Place, CPUPlace, GPUPlace and phi::AllocationType: oar's
// definition (src/oar/extension/place.h, docs/custom_ops.md).
#pragma once

#include "oar/extension/place.h"
