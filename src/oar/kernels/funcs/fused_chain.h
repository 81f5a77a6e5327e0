// A chain of float32 elementwise steps run in one pass over the data: each
// block of elements goes through every step while it is in cache, instead of
// one pass over memory per op. A captured program's replay uses it for
// element-wise ops that feed only each other (src/oar/jit/fusion.h).
//
// Note [A fused chain computes what its ops compute]
// Each step is the expression of the op's own kernel (relu's a < 0 ? 0 : a,
// scale's s * a + b, ...) or the same vec::Apply call, and vec::Apply's result
// for an element depends neither on the span length nor on the position, so a
// fused chain gives the bits the ops give one after the other.
#pragma once

#include <cstdint>
#include <vector>

#include "oar/kernels/funcs/vec_math.h"

namespace oar::funcs {

struct ChainStep {
  enum class Kind : uint8_t { kVec, kRelu, kAdd, kSubtract, kMultiply, kDivide, kScale };
  Kind kind;
  vec::Fn fn = vec::Fn::kExp;  // kVec
  // Operands: inputs are 0..I-1, the result of step j is I + j.
  int a = 0, b = 0;
  float scale = 1, bias = 0;  // kScale: bias_after_scale ? s * a + b : s * (a + b)
  bool bias_after_scale = true;
  bool bias_zero = true;  // the op's double bias is 0 (then s * a, keeping -0.0)
};

// out[i] = the last step's value at i, for i < n; every input holds n floats.
void RunChain(const std::vector<const float*>& inputs, const std::vector<ChainStep>& steps,
              float* out, int64_t n);

}  // namespace oar::funcs
