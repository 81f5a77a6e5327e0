// Paddle's include path for custom operators: oar's extension API (docs/custom_ops.md).
#pragma once

#include "oar/extension.h"
