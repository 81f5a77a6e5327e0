// The C++ API of custom operators, Paddle's paddle/extension.h: include it (or
// paddle/extension.h) in an op's source and build it with
// oar.utils.cpp_extension.load (docs/custom_ops.md).
#pragma once

#include "oar/extension/dispatch.h"
#include "oar/extension/op_meta_info.h"
#include "oar/extension/tensor.h"
