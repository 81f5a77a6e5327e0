// Fusing element-wise chains of a captured program (docs/jit.md): consecutive
// float32 element-wise ops where each consumes the one before and nothing else
// reads the intermediate run as one pass over the data (funcs::RunChain,
// Note [A fused chain computes what its ops compute]) when the replay needs no
// gradient through them; otherwise the ops run one by one as always.
#pragma once

#include <cstdint>
#include <vector>

#include "oar/core/tensor.h"
#include "oar/kernels/funcs/fused_chain.h"

namespace oar::jit {

struct Program;

struct FusedChain {
  size_t first = 0, last = 0;   // the program's ops first..last (inclusive)
  std::vector<int64_t> inputs;  // the value ids the chain reads
  std::vector<funcs::ChainStep> steps;
  int64_t output = -1;  // the last op's output
};

// The chains of program (two or more ops each), in program order.
std::vector<FusedChain> PlanChains(const Program& program);

// Whether this replay may run ops fused (a chain here, a folded convolution in
// conv_folding.h): no auto-cast, no NaN/Inf check and no capture recording,
// each of which must see the ops themselves.
bool ReplayMayFuse();

// Runs chain on values (the replay's table) and stores its output there;
// false, touching nothing, when this call cannot take the fused path (a
// gradient to record, auto-cast, the NaN/Inf check, a capture recording, or
// operands that are not dense contiguous float32 tensors of one shape).
bool RunFused(const FusedChain& chain, std::vector<Tensor>& values);

}  // namespace oar::jit
