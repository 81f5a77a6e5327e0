// Summing gradients: the engine's buffers, leaf .grad and retained grads.
#pragma once

#include "oar/core/tensor.h"

namespace oar {

// existing + incoming. Without create_graph the result is a plain tensor that
// shares memory with nobody else; with create_graph the sum is recorded so it
// can be differentiated again.
Tensor AccumulateGrad(const Tensor& existing, const Tensor& incoming, bool create_graph);

// a + b for gradients of any kinds (dense, sparse COO, sparse CSR).
Tensor SumGrads(const Tensor& a, const Tensor& b);

// Ones with t's shape and dtype; for a sparse t, at t's positions (the seed of
// backward from a sparse tensor).
Tensor OnesLike(const Tensor& t);

// Whether nothing but this handle (and its copies' impl) can see t's memory.
bool IsSoleOwner(const Tensor& t);

// `t` without autograd metadata, copied unless nothing else can see its memory.
Tensor DetachedOwnedCopy(const Tensor& t);

}  // namespace oar
