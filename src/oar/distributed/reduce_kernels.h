// The elementwise reductions Gloo calls while it all-reduces (its reduce
// function takes untyped buffers), one per dtype and op.
#pragma once

#include <cstddef>
#include <functional>

#include "oar/core/dtype.h"
#include "oar/distributed/process_group.h"

namespace oar::distributed {

using ReduceFn = std::function<void(void*, const void*, const void*, size_t)>;

// Throws InvalidType naming `api` for a dtype collectives do not carry.
void CheckCollectiveDType(DType dtype, const char* api);
// out[i] = op(a[i], b[i]); kAvg reduces as kSum (the division comes after).
ReduceFn MakeReduceFn(DType dtype, ReduceOp op);
// x[i] /= divisor, in the dtype (integers truncate toward zero).
void DivideInPlace(void* x, size_t n, DType dtype, int divisor);

}  // namespace oar::distributed
