// The generated op functions (oar._C.<op>) and Tensor methods (x.<op>()).
#pragma once

#include "oar/bindings/py_utils.h"

namespace oar::py {

extern PyMethodDef g_op_functions[];
extern PyMethodDef g_op_methods[];
// Names of the ops exported as oar.<op> (the `python:` field of src/oar/ops/), null-terminated.
extern const char* const g_public_ops[];

}  // namespace oar::py
