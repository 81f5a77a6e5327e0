// Graph breaks found in the python-c layer: a capture (src/oar/eager/trace.h)
// records declared ops, so the hand-written bindings that give Python a
// tensor's value (item(), bool(), numpy(), DLPack) or make tensors outside the
// declared ops check here whether the tensor is one the capture computed.
#pragma once

#include <Python.h>

#include <vector>

#include "oar/core/tensor.h"

namespace oar::py {

// A graph break when t's value comes from the captured inputs or parameters:
// with full_graph a PreconditionNotMet naming what and the user's file:line,
// else the capture stops recording and the call runs eagerly.
void CaptureBreakIfTraced(const Tensor& t, const char* what);
void CaptureBreakOnAny(const std::vector<Tensor>& ts, const char* what);
// x.detach() while capturing: a tensor of its own (sharing x's memory) that
// the capture records as the "detach" of x.
Tensor CaptureDetach(const Tensor& x);

extern PyMethodDef g_jit_functions[];

}  // namespace oar::py
