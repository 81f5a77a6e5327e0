// Summing gradients: the engine's buffers, leaf .grad and retained grads.
#pragma once

#include "oar/core/tensor.h"

namespace oar {

// existing + incoming. Without create_graph the result is a plain tensor that
// shares memory with nobody else; with create_graph the sum is recorded so it
// can be differentiated again.
Tensor AccumulateGrad(const Tensor& existing, const Tensor& incoming, bool create_graph);

// Whether nothing but this handle (and its copies' impl) can see t's memory.
bool IsSoleOwner(const Tensor& t);

// `t` without autograd metadata, copied unless nothing else can see its memory.
Tensor DetachedOwnedCopy(const Tensor& t);

}  // namespace oar
