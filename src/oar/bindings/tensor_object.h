// Pieces of the Tensor type defined next to the code they belong with.
#pragma once

#include <memory>
#include <string>

#include "oar/bindings/py_utils.h"

namespace oar::py {

PyObject* CreateTensorType(PyObject* module);
// Tensor(data, ...) calls this (the package's to_tensor).
void SetTensorFactory(PyObject* fn);
// Tensor.shape returns an instance of this list subclass (the package's Size).
void SetShapeType(PyObject* type);

// autograd_bindings.cc
// Where Tensor.grad = g stores g: zeros pending from clear_grad are dropped, not made
// (Note [A cleared gradient is zeroed when read]).
Tensor* EagerGradHolder(Tensor& t);
// t.grad as Tensor.grad hands it out: marked stop_gradient=False (Paddle's).
Tensor GradForPython(const Tensor& t);
bool TensorPersistable(const Tensor& t);
void SetTensorPersistable(Tensor& t, bool v);
std::string GradFnName(const std::shared_ptr<GradNodeBase>& node);
PyObject* RegisterPythonTensorHook(const Tensor& t, PyObject* hook);
// hook(grad) on the gradient arriving at input (slot, rank) of `node`.
PyObject* RegisterPythonNodeHook(const std::shared_ptr<GradNodeBase>& node, size_t slot,
                                 size_t rank, PyObject* hook);
PyObject* WrapHookHandle(HookHandle handle);
PyObject* CreateAutogradTypes(PyObject* module);
extern PyMethodDef g_autograd_functions[];

// buffer.cc: a buffer-protocol view of a tensor's memory (keeps it alive);
// read-only when asked, or when the tensor requires grad.
PyObject* MakeBufferOwner(const Tensor& t, bool readonly);
PyObject* CreateBufferType(PyObject* module);
extern PyMethodDef g_buffer_functions[];
// oar._C._tensor_meta, _strided_view, _view_dtype, _set_tensor_impl and the random
// generator's state (storage_bindings.cc).
extern PyMethodDef g_storage_functions[];
// oar._C._to_dlpack / _from_dlpack (dlpack_bindings.cc).
extern PyMethodDef g_dlpack_functions[];
// oar._C._amp_enter/_amp_exit/_amp_state (amp_bindings.cc).
extern PyMethodDef g_amp_functions[];
// oar._C._optimizer_step and the gradient-clipping helpers (optimizer_bindings.cc).
extern PyMethodDef g_optimizer_functions[];
// oar._C._profiler_*: profiler_bindings.cc.
extern PyMethodDef g_profiler_functions[];
// oar._C._nan_inf_*: the settings and statistics of the NaN/Inf check (debugging_bindings.cc).
extern PyMethodDef g_debugging_functions[];
// oar._C._custom_op_load/_custom_op_run: C++ custom operators (custom_op_bindings.cc).
extern PyMethodDef g_custom_op_functions[];
#ifdef OAR_WITH_DISTRIBUTED
extern PyMethodDef g_distributed_functions[];  // distributed_bindings.cc
#endif

}  // namespace oar::py
