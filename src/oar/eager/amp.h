// The auto-cast branch at the top of each generated eager function (Paddle's
// AMP branch: GetAmpDestDtype, EagerAmpAutoCast, then the function again under
// an O0 guard; docs/amp.md).
//
// Note [Auto-cast happens in the forward pass]
// An op under auto_cast casts its floating inputs (float32, bfloat16, float16;
// never float64 or integers) to the dtype its list asks for, with the
// differentiable `cast`, then runs itself again with auto-cast off. The casts
// are part of the graph, so each gradient comes back in its input's own dtype,
// and the backward needs no auto-cast of its own: the engine runs grad nodes
// with the level set to O0 (GraphTask::RunNode), so a backward() called inside
// an auto_cast block computes what the forward's dtypes decided, as Paddle's
// grad nodes and PyTorch's autograd do. Lists (an op declaration's `amp:`
// field, overridable per block by custom lists of op names):
//   white: the low dtype at O1 and O2 (matmul, linear, conv, ...);
//   black: float32 at O1 and O2 (exp, log, softmax, losses, norms, sum, ...);
//   the rest: at O1 they follow their inputs (mixed inputs promote to the
//   widest, as without auto-cast); at O2 they run in the low dtype, unless
//   use_promote is on and an input is float32, which promotes to float32.
#pragma once

#include <span>
#include <vector>

#include "oar/autograd/amp_mode.h"
#include "oar/core/tensor.h"

namespace oar::amp {

enum class OpList : unsigned char { kGray, kWhite, kBlack };

// The dtype `op`'s castable inputs (given by their dtypes) must be cast to, or
// kUndefined when none needs a cast.
DType DestDType(const char* op, OpList list, std::span<const DType> input_dtypes);

// t, or t cast (differentiably) to dtype when it is a castable floating tensor.
Tensor AutoCast(const Tensor& t, DType dtype);
std::vector<Tensor> AutoCast(const std::vector<Tensor>& ts, DType dtype);

}  // namespace oar::amp
