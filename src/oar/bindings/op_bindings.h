// The generated op functions (oar._C.<op>) and Tensor methods (x.<op>()).
#pragma once

#include "oar/bindings/py_utils.h"

namespace oar::py {

extern PyMethodDef g_op_functions[];
extern PyMethodDef g_op_methods[];

}  // namespace oar::py
