// oar._C.GradNode (Tensor.grad_fn) and the layer-scope functions.
#pragma once

#include <memory>

#include "oar/autograd/grad_node.h"
#include "oar/bindings/py_utils.h"

namespace oar::py {

// A new GradNode object owning `node`, or None for null.
PyObject* GradNodeToPy(std::shared_ptr<GradNodeBase> node);
// Tensor.grad_fn: the producing node, the accumulation node of a leaf that
// needs a gradient, or None.
PyObject* TensorGradFn(const Tensor& t);
bool CreateGradNodeType(PyObject* module);
extern PyMethodDef g_graph_functions[];

}  // namespace oar::py
