// The C++ API of custom operators, Paddle's paddle/extension.h: include it (or
// paddle/extension.h) in an op's source and build it with
// oar.utils.cpp_extension.load (docs/custom_ops.md).
#pragma once

// Paddle's examples call std::iota, std::max, std::abs, std::memcpy and
// std::runtime_error having included only <iostream> and <vector>: Paddle's
// extension header brings these standard headers along, so this one does too.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <stdexcept>

#include "oar/extension/dispatch.h"
#include "oar/extension/op_meta_info.h"
#include "oar/extension/tensor.h"
