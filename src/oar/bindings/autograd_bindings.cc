// Autograd from Python: backward/grad, grad mode, Python tensor hooks,
// PyLayer, saved-tensor hooks, jacobian/hessian, flags and memory stats.
// Every call from C++ into Python takes the GIL: see
// Note [The GIL and callbacks into Python] in py_utils.h.
#include <string>

#include "oar/autograd/accumulation_node.h"
#include "oar/autograd/autograd_meta.h"
#include "oar/autograd/backward.h"
#include "oar/autograd/custom_function.h"
#include "oar/autograd/eager_utils.h"
#include "oar/bindings/arg_parse.h"
#include "oar/bindings/jit_capture.h"
#include "oar/bindings/tensor_object.h"
#include "oar/core/allocator.h"
#include "oar/core/flags.h"
#include "oar/core/generator.h"
#include "oar/core/grad_mode.h"
#include "oar/eager/functional.h"

namespace oar::py {

Tensor* EagerGradHolder(Tensor& t) {
  AutogradMeta* meta = EagerUtils::autograd_meta(&t);
  meta->TakePendingZeros();
  return meta->MutableGrad();
}

Tensor GradForPython(const Tensor& t) {
  auto* meta = EagerUtils::nullable_autograd_meta(t);
  if (!meta) return Tensor();
  // Paddle's gradients require grad themselves (stop_gradient=False: ops on them are
  // recorded, in-place writes need no_grad()). The stored gradient gets that flag when
  // Python first sees it; a flag the user set since (a meta already there) stays.
  Tensor* g = meta->MutableGrad();
  if (g->defined() && g->get_autograd_meta() == nullptr) {
    EagerUtils::autograd_meta(g)->SetStopGradient(false);
  }
  return *g;
}
bool TensorPersistable(const Tensor& t) {
  const auto* m = EagerUtils::nullable_autograd_meta(t);
  return m && m->Persistable();
}
void SetTensorPersistable(Tensor& t, bool v) { EagerUtils::autograd_meta(&t)->SetPersistable(v); }
std::string GradFnName(const std::shared_ptr<GradNodeBase>& node) { return node->name(); }

namespace {

#define OAR_FN(name, fn, doc)                                             \
  {name, reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(fn)), \
   METH_FASTCALL | METH_KEYWORDS, doc}

// Tensor or list/tuple of Tensor -> vector.
std::vector<Tensor> TensorOrList(const char* op, const char* arg, PyObject* obj, int pos,
                                 bool allow_none) {
  if (!obj || obj == Py_None) {
    if (allow_none) return {};
    GetTensorFromArgs(op, arg, obj, pos);
  }
  if (IsTensor(obj)) return {AsTensor(obj)};
  if (PyList_Check(obj) || PyTuple_Check(obj)) {
    std::vector<Tensor> out;
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject* item = PySequence_Fast_GET_ITEM(obj, i);
      if (item == Py_None && allow_none) {
        out.emplace_back();
        continue;
      }
      if (!IsTensor(item)) {
        throw errors::InvalidType(op, "(): argument '", arg, "' (position ", pos,
                                  ") must be a Tensor or a list of Tensors, but item ", i, " is ",
                                  item == Py_None ? "None" : Py_TYPE(item)->tp_name);
      }
      out.push_back(AsTensor(item));
    }
    return out;
  }
  throw errors::InvalidType(op, "(): argument '", arg, "' (position ", pos,
                            ") must be a Tensor or a list of Tensors, but got ",
                            Py_TYPE(obj)->tp_name);
}

PyObject* Backward(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  OAR_PY_TRY
  static const char* const kNames[] = {"tensors", "grad_tensors", "retain_graph"};
  PyObject* o[3];
  ParseArgs("backward", kNames, 3, args, nargs, kwnames, o);
  const auto tensors = TensorOrList("backward", "tensors", o[0], 0, false);
  const auto grads = TensorOrList("backward", "grad_tensors", o[1], 1, true);
  const bool retain = CastPyArg2Boolean(o[2], "backward", "retain_graph", 2, false);
  {
    GilRelease nogil;
    oar::Backward(tensors, grads, retain);
  }
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

PyObject* GradFn(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  OAR_PY_TRY
  static const char* const kNames[] = {"outputs",      "inputs",       "grad_outputs",
                                       "retain_graph", "create_graph", "only_inputs",
                                       "allow_unused", "no_grad_vars"};
  PyObject* o[8];
  ParseArgs("grad", kNames, 8, args, nargs, kwnames, o);
  const auto outputs = TensorOrList("grad", "outputs", o[0], 0, false);
  const auto inputs = TensorOrList("grad", "inputs", o[1], 1, false);
  const auto grad_outputs = TensorOrList("grad", "grad_outputs", o[2], 2, true);
  GradOptions opts;
  if (o[3] && o[3] != Py_None)
    opts.retain_graph = CastPyArg2Boolean(o[3], "grad", "retain_graph", 3, false);
  opts.create_graph = CastPyArg2Boolean(o[4], "grad", "create_graph", 4, false);
  opts.only_inputs = CastPyArg2Boolean(o[5], "grad", "only_inputs", 5, true);
  opts.allow_unused = CastPyArg2Boolean(o[6], "grad", "allow_unused", 6, false);
  opts.no_grad_vars = TensorOrList("grad", "no_grad_vars", o[7], 7, true);
  std::vector<Tensor> out;
  {
    GilRelease nogil;
    out = oar::Grad(outputs, inputs, grad_outputs, opts);
  }
  return ToPyObject(out);
  OAR_PY_CATCH
}

PyObject* IsGradEnabled(PyObject*, PyObject*) { return ToPyObject(HasGrad()); }
PyObject* SetGradEnabled(PyObject*, PyObject* arg) {
  OAR_PY_TRY
  SetHasGrad(CastPyArg2Boolean(arg, "set_grad_enabled", "mode", 0, true));
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

// ---- Python tensor hooks ------------------------------------------------------------

struct HookHandleObject {
  PyObject_HEAD HookHandle handle;
};
PyTypeObject* g_hook_handle_type = nullptr;

void HookHandleDealloc(PyObject* o) {
  PyTypeObject* type = Py_TYPE(o);
  reinterpret_cast<HookHandleObject*>(o)->handle.~HookHandle();
  type->tp_free(o);
  Py_DECREF(type);
}
PyObject* HookHandleRemove(PyObject* o, PyObject*) {
  return ToPyObject(reinterpret_cast<HookHandleObject*>(o)->handle.remove());
}

Tensor CallTensorHook(PyObject* hook, const Tensor& g) {
  GilAcquire gil;
  // A gradient in flight shows stop_gradient=False to the hook, as in Paddle (and as
  // .grad does); a plain gradient is shown through a handle with its own meta, so the
  // engine's tensor is untouched. Whether the hook's ops are recorded is grad mode's
  // business (on only under create_graph=True), not this flag's.
  Tensor shown = g;
  if (g.defined() && g.get_autograd_meta() == nullptr) {
    shown = Tensor(g.impl(), g.name());
    EagerUtils::autograd_meta(&shown)->SetStopGradient(false);
  }
  PyObject* arg = ToPyObject(shown);
  if (!arg) throw PythonError();
  PyObject* r = PyObject_CallOneArg(hook, arg);
  Py_DECREF(arg);
  if (!r) throw PythonError();
  Tensor out;
  if (r != Py_None) {
    if (!IsTensor(r)) {
      const std::string type = Py_TYPE(r)->tp_name;
      Py_DECREF(r);
      throw errors::InvalidType("a tensor hook must return a Tensor or None, but returned ", type);
    }
    out = AsTensor(r);
  }
  Py_DECREF(r);
  return out;
}

}  // namespace

PyObject* RegisterPythonTensorHook(const Tensor& t, PyObject* hook) {
  std::shared_ptr<PyObject> h = ShareRef(hook);
  return WrapHookHandle(
      t.register_hook([h](const Tensor& g) { return CallTensorHook(h.get(), g); }));
}

PyObject* RegisterPythonNodeHook(const std::shared_ptr<GradNodeBase>& node, size_t slot,
                                 size_t rank, PyObject* hook) {
  std::shared_ptr<PyObject> h = ShareRef(hook);
  const int64_t id = node->RegisterGradientHook(
      slot, rank,
      std::make_shared<TensorHook>([h](const Tensor& g) { return CallTensorHook(h.get(), g); }));
  return WrapHookHandle(HookHandle(node, id));
}

PyObject* WrapHookHandle(HookHandle handle) {
  auto* o =
      reinterpret_cast<HookHandleObject*>(g_hook_handle_type->tp_alloc(g_hook_handle_type, 0));
  if (!o) return nullptr;
  new (&o->handle) HookHandle(std::move(handle));
  return reinterpret_cast<PyObject*>(o);
}

namespace {

PyObject* RegisterGradAccumulatedHook(PyObject*, PyObject* const* args, Py_ssize_t nargs,
                                      PyObject* kwnames) {
  OAR_PY_TRY
  static const char* const kNames[] = {"tensor", "hook"};
  PyObject* o[2];
  ParseArgs("_register_grad_accumulated_hook", kNames, 2, args, nargs, kwnames, o);
  const Tensor& t = GetTensorFromArgs("_register_grad_accumulated_hook", "tensor", o[0], 0);
  std::shared_ptr<PyObject> h = ShareRef(o[1]);
  const int64_t id = RegisterLeafGradAccumulatedHook(t, [h] {
    GilAcquire gil;
    PyObject* r = PyObject_CallNoArgs(h.get());
    if (!r) throw PythonError();
    Py_DECREF(r);
  });
  return PyLong_FromLongLong(id);
  OAR_PY_CATCH
}

PyObject* RegisterFinalHook(PyObject*, PyObject* fn) {
  OAR_PY_TRY
  std::shared_ptr<PyObject> h = ShareRef(fn);
  RegisterBackwardFinalHook([h] {
    GilAcquire gil;
    PyObject* r = PyObject_CallNoArgs(h.get());
    if (!r) throw PythonError();
    Py_DECREF(r);
  });
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

// ---- PyLayer --------------------------------------------------------------------------

struct ContextObject {
  PyObject_HEAD std::shared_ptr<FunctionContext> ctx;
};
PyTypeObject* g_context_type = nullptr;

PyObject* ContextNew(PyTypeObject* type, PyObject*, PyObject*) {
  auto* self = reinterpret_cast<ContextObject*>(type->tp_alloc(type, 0));
  if (self) new (&self->ctx) std::shared_ptr<FunctionContext>(std::make_shared<FunctionContext>());
  return reinterpret_cast<PyObject*>(self);
}
void ContextDealloc(PyObject* o) {
  PyTypeObject* type = Py_TYPE(o);
  if (type->tp_flags & Py_TPFLAGS_HAVE_GC) PyObject_GC_UnTrack(o);
  reinterpret_cast<ContextObject*>(o)->ctx.~shared_ptr();
  type->tp_free(o);
  Py_DECREF(type);
}
FunctionContext& Ctx(PyObject* o) { return *reinterpret_cast<ContextObject*>(o)->ctx; }

PyObject* CtxSave(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  OAR_PY_TRY
  std::vector<Tensor> ts;
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    ts.push_back(GetTensorFromArgs("save_for_backward", "tensors", args[i], static_cast<int>(i)));
  }
  Ctx(self).save_for_backward(std::move(ts));
  Py_RETURN_NONE;
  OAR_PY_CATCH
}
PyObject* CtxSaved(PyObject* self, PyObject*) {
  OAR_PY_TRY
  return ToPyObject(Ctx(self).saved_tensors());
  OAR_PY_CATCH
}
PyObject* CtxMarkNonDiff(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  OAR_PY_TRY
  std::vector<Tensor> ts;
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    ts.push_back(
        GetTensorFromArgs("mark_non_differentiable", "tensors", args[i], static_cast<int>(i)));
  }
  Ctx(self).mark_non_differentiable(ts);
  Py_RETURN_NONE;
  OAR_PY_CATCH
}
// ctx.set_materialize_grads(bool) / ctx.set_grad_in_dtype_consistent(bool).
template <void (FunctionContext::*Set)(bool)>
PyObject* CtxSetBool(PyObject* self, PyObject* value) {
  OAR_PY_TRY
  if (!PyBool_Check(value)) {
    throw errors::InvalidType("PyLayerContext: the argument must be bool, but got ",
                              Py_TYPE(value)->tp_name);
  }
  (Ctx(self).*Set)(value == Py_True);
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

// Tensor, or tuple/list of Tensors (None allowed when `allow_none`) -> vector.
std::vector<Tensor> ResultTensors(PyObject* r, const std::string& where, bool allow_none,
                                  bool* single) {
  *single = IsTensor(r) || (allow_none && r == Py_None);
  if (*single) return {r == Py_None ? Tensor() : AsTensor(r)};
  if (!PyTuple_Check(r) && !PyList_Check(r)) {
    throw errors::InvalidType(where, " must return a Tensor or a tuple of Tensors",
                              allow_none ? " (or None)" : "", ", but returned ",
                              Py_TYPE(r)->tp_name);
  }
  std::vector<Tensor> out;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(r);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = PySequence_Fast_GET_ITEM(r, i);
    if (item == Py_None && allow_none) {
      out.emplace_back();
    } else if (IsTensor(item)) {
      out.push_back(AsTensor(item));
    } else {
      throw errors::InvalidType(where, " returned ", Py_TYPE(item)->tp_name, " at position ", i,
                                "; expected Tensor", allow_none ? " or None" : "");
    }
  }
  return out;
}

// _pylayer_apply(cls, ctx, args, kwargs)
PyObject* PyLayerApply(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  OAR_PY_TRY
  if (nargs != 4) throw errors::InvalidArgument("_pylayer_apply(cls, ctx, args, kwargs)");
  PyObject* cls = args[0];
  PyObject* ctx_obj = args[1];
  PyObject* fargs = args[2];
  PyObject* fkwargs = args[3];
  if (!PyObject_TypeCheck(ctx_obj, g_context_type)) {
    throw errors::InvalidType("PyLayer: ctx must be a PyLayerContext");
  }
  std::vector<Tensor> inputs;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(fargs); ++i) {
    PyObject* a = PyTuple_GET_ITEM(fargs, i);
    if (IsTensor(a)) inputs.push_back(AsTensor(a));
  }
  if (fkwargs != Py_None) {
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(fkwargs, &pos, &k, &v)) {
      if (IsTensor(v)) inputs.push_back(AsTensor(v));
    }
  }
  CaptureBreakOnAny(inputs, "a PyLayer (its backward is Python code)");
  PyObject* name_obj = PyObject_GetAttrString(cls, "__name__");
  std::string name = name_obj ? PyUnicode_AsUTF8(name_obj) : "PyLayer";
  Py_XDECREF(name_obj);
  PyErr_Clear();
  bool single = false;
  auto forward = [&](FunctionContext&, const std::vector<Tensor>&) {
    PyObject* fwd = PyObject_GetAttrString(cls, "forward");
    if (!fwd) throw PythonError();
    const Py_ssize_t n = PyTuple_GET_SIZE(fargs);
    PyObject* call_args = PyTuple_New(n + 1);
    Py_INCREF(ctx_obj);
    PyTuple_SET_ITEM(call_args, 0, ctx_obj);
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject* a = PyTuple_GET_ITEM(fargs, i);
      Py_INCREF(a);
      PyTuple_SET_ITEM(call_args, i + 1, a);
    }
    PyObject* r = PyObject_Call(fwd, call_args, fkwargs == Py_None ? nullptr : fkwargs);
    Py_DECREF(call_args);
    Py_DECREF(fwd);
    if (!r) throw PythonError();
    std::vector<Tensor> outs;
    try {
      outs = ResultTensors(r, name + ".forward()", false, &single);
    } catch (...) {
      Py_DECREF(r);
      throw;
    }
    Py_DECREF(r);
    return outs;
  };
  std::shared_ptr<PyObject> cls_ref = ShareRef(cls), ctx_ref = ShareRef(ctx_obj);
  auto backward = [cls_ref, ctx_ref, name](FunctionContext&, const std::vector<Tensor>& grads) {
    GilAcquire gil;
    PyObject* bwd = PyObject_GetAttrString(cls_ref.get(), "backward");
    if (!bwd) throw PythonError();
    PyObject* call_args = PyTuple_New(static_cast<Py_ssize_t>(grads.size()) + 1);
    Py_INCREF(ctx_ref.get());
    PyTuple_SET_ITEM(call_args, 0, ctx_ref.get());
    for (size_t i = 0; i < grads.size(); ++i) {
      PyTuple_SET_ITEM(call_args, static_cast<Py_ssize_t>(i) + 1, ToPyObject(grads[i]));
    }
    PyObject* r = PyObject_Call(bwd, call_args, nullptr);
    Py_DECREF(call_args);
    Py_DECREF(bwd);
    if (!r) throw PythonError();
    bool unused;
    std::vector<Tensor> out;
    try {
      out = ResultTensors(r, name + ".backward()", true, &unused);
    } catch (...) {
      Py_DECREF(r);
      throw;
    }
    Py_DECREF(r);
    return out;
  };
  std::vector<Tensor> outs = ApplyCustomFunction(name, inputs, forward, backward,
                                                 reinterpret_cast<ContextObject*>(ctx_obj)->ctx);
  if (single) return ToPyObject(outs[0]);
  PyObject* tuple = PyTuple_New(static_cast<Py_ssize_t>(outs.size()));
  for (size_t i = 0; i < outs.size(); ++i) {
    PyTuple_SET_ITEM(tuple, static_cast<Py_ssize_t>(i), ToPyObject(outs[i]));
  }
  return tuple;
  OAR_PY_CATCH
}

// ---- saved-tensor hooks -----------------------------------------------------------------

PyObject* PushSavedHooks(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  OAR_PY_TRY
  if (nargs != 2 || !PyCallable_Check(args[0]) || !PyCallable_Check(args[1])) {
    throw errors::InvalidType("saved_tensors_hooks(pack_hook, unpack_hook): both must be callable");
  }
  std::shared_ptr<PyObject> pack = ShareRef(args[0]), unpack = ShareRef(args[1]);
  PushSavedTensorsHooks(
      [pack](const Tensor& t) -> std::shared_ptr<void> {
        GilAcquire gil;
        PyObject* arg = ToPyObject(t);
        PyObject* r = PyObject_CallOneArg(pack.get(), arg);
        Py_XDECREF(arg);
        if (!r) throw PythonError();
        std::shared_ptr<PyObject> packed = ShareRef(r);
        Py_DECREF(r);
        return packed;
      },
      [unpack](const std::shared_ptr<void>& p) -> Tensor {
        GilAcquire gil;
        PyObject* r = PyObject_CallOneArg(unpack.get(), static_cast<PyObject*>(p.get()));
        if (!r) throw PythonError();
        if (!IsTensor(r)) {
          const std::string type = Py_TYPE(r)->tp_name;
          Py_DECREF(r);
          throw errors::InvalidType(
              "the unpack_hook of saved_tensors_hooks must return a Tensor, "
              "but returned ",
              type);
        }
        Tensor t = AsTensor(r);
        Py_DECREF(r);
        return t;
      });
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

PyObject* PopSavedHooks(PyObject*, PyObject*) {
  OAR_PY_TRY
  PopSavedTensorsHooks();
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

// ---- functional -------------------------------------------------------------------------

std::optional<int64_t> BatchAxis(PyObject* o, const char* op) {
  if (!o || o == Py_None) return std::nullopt;
  return CastPyArg2Long(o, op, "batch_axis", 2, std::nullopt);
}

// jacobian(ys, xs, batch_axis=None, create_graph=False) and hessian(...) alike.
template <bool kHessian>
PyObject* Derivative(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  OAR_PY_TRY
  const char* op = kHessian ? "hessian" : "jacobian";
  static const char* const kNames[] = {"ys", "xs", "batch_axis", "create_graph"};
  PyObject* o[4];
  ParseArgs(op, kNames, 4, args, nargs, kwnames, o);
  const Tensor& y = GetTensorFromArgs(op, "ys", o[0], 0);
  const Tensor& x = GetTensorFromArgs(op, "xs", o[1], 1);
  const auto axis = BatchAxis(o[2], op);
  const bool cg = CastPyArg2Boolean(o[3], op, "create_graph", 3, false);
  return ToPyObject(kHessian ? oar::hessian(y, x, axis, cg) : oar::jacobian(y, x, axis, cg));
  OAR_PY_CATCH
}

// ---- flags, seed, memory, misc --------------------------------------------------------------

PyObject* SetFlags(PyObject*, PyObject* flags) {
  OAR_PY_TRY
  if (!PyDict_Check(flags)) throw errors::InvalidType("set_flags(): expects a dict {name: value}");
  PyObject *k, *v;
  Py_ssize_t pos = 0;
  while (PyDict_Next(flags, &pos, &k, &v)) {
    if (!PyUnicode_Check(k)) throw errors::InvalidType("set_flags(): flag names must be str");
    SetFlag(PyUnicode_AsUTF8(k),
            CastPyArg2Double(v, "set_flags", PyUnicode_AsUTF8(k), 0, std::nullopt));
  }
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

PyObject* GetFlags(PyObject*, PyObject* names) {
  OAR_PY_TRY
  std::vector<std::string> list;
  if (PyUnicode_Check(names)) {
    list.push_back(PyUnicode_AsUTF8(names));
  } else if (PyList_Check(names) || PyTuple_Check(names)) {
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(names); ++i) {
      PyObject* n = PySequence_Fast_GET_ITEM(names, i);
      if (!PyUnicode_Check(n)) throw errors::InvalidType("get_flags(): flag names must be str");
      list.push_back(PyUnicode_AsUTF8(n));
    }
  } else {
    throw errors::InvalidType("get_flags(): expects a flag name or a list of names");
  }
  PyObject* d = PyDict_New();
  for (const auto& n : list) {
    const double v = GetFlag(n);
    const std::string key = n.starts_with("FLAGS_") ? n : "FLAGS_" + n;
    PyObject* val = key == "FLAGS_check_nan_inf" || key == "FLAGS_record_forward_stack" ||
                            key == "FLAGS_jit_fuse_elementwise" || key == "FLAGS_fused_rnn" ||
                            key == "FLAGS_jit_fold_conv" || key == "FLAGS_conv_winograd"
                        ? PyBool_FromLong(v != 0)
                        : PyLong_FromLongLong(static_cast<long long>(v));
    PyDict_SetItemString(d, key.c_str(), val);
    Py_DECREF(val);
  }
  return d;
  OAR_PY_CATCH
}

PyObject* Seed(PyObject*, PyObject* n) {
  OAR_PY_TRY
  oar::seed(static_cast<uint64_t>(CastPyArg2Long(n, "seed", "seed", 0, std::nullopt)));
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

PyObject* MemoryStats(PyObject*, PyObject*) {
  const AllocatorStats s = GetAllocatorStats(CPUPlace());
  return Py_BuildValue("{s:L,s:L,s:L,s:L}", "bytes_in_use", s.bytes_in_use, "peak_bytes",
                       s.peak_bytes, "live_blocks", s.live_blocks, "total_allocs", s.total_allocs);
}

PyObject* ResetPeak(PyObject*, PyObject*) {
  ResetPeakBytes(CPUPlace());
  Py_RETURN_NONE;
}

PyObject* LastStats(PyObject*, PyObject*) {
  const BackwardStats s = LastBackwardStats();
  return Py_BuildValue("{s:L,s:L}", "nodes_visited", s.nodes_visited, "nodes_executed",
                       s.nodes_executed);
}

PyObject* SetDTypes(PyObject*, PyObject* tuple) {
  OAR_PY_TRY
  SetDTypeObjects(tuple);
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

PyObject* SetFactory(PyObject*, PyObject* fn) {
  SetTensorFactory(fn);
  Py_RETURN_NONE;
}

PyObject* SetShapeTypeFn(PyObject*, PyObject* type) {
  OAR_PY_TRY
  SetShapeType(type);
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

// An instance of a Python subclass of Tensor (oar's Parameter) that shares the
// given tensor's data and autograd state, so a freshly initialised tensor becomes
// a parameter without a copy.
PyObject* MakeSubclass(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  OAR_PY_TRY
  if (nargs != 2 || !PyType_Check(args[0]) ||
      !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(args[0]), g_tensor_type) ||
      !IsTensor(args[1])) {
    throw errors::InvalidType("_make_subclass(cls, tensor): cls must be a subclass of Tensor");
  }
  auto* type = reinterpret_cast<PyTypeObject*>(args[0]);
  PyObject* self = type->tp_alloc(type, 0);
  if (!self) return nullptr;
  new (&AsTensor(self)) Tensor(AsTensor(args[1]));
  return self;
  OAR_PY_CATCH
}

// Paddle's out=/output= arguments: dst holds src's data from now on (its shape, dtype and
// memory, shared with src), keeping its own Python identity and autograd state. The
// Python caller decides when that is allowed (python/oar/_out.py).
PyObject* ReplaceData(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  OAR_PY_TRY
  if (nargs != 2 || !IsTensor(args[0]) || !IsTensor(args[1])) {
    throw errors::InvalidType("_replace_data(dst, src): both arguments must be Tensors");
  }
  const Tensor& src = AsTensor(args[1]);
  if (!src.defined()) throw errors::PreconditionNotMet("_replace_data: src is not initialised");
  CaptureBreakIfTraced(AsTensor(args[0]), "out= (replacing a tensor's data)");
  CaptureBreakIfTraced(src, "out= (replacing a tensor's data)");
  AsTensor(args[0]).set_impl(src.impl());
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

}  // namespace

PyMethodDef g_autograd_functions[] = {
    OAR_FN("backward", Backward, "backward(tensors, grad_tensors=None, retain_graph=False)"),
    // oar.grad itself (python/oar/autograd/__init__.py): the signature line makes
    // inspect.signature and help() read its arguments.
    OAR_FN("grad", GradFn,
           "grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, "
           "only_inputs=True, allow_unused=False, no_grad_vars=None)\n--\n\n"
           "d(outputs)/d(inputs), computed on the part of the graph between them only.\n\n"
           "Returns a list with one Tensor per input (None for an unused input when\n"
           "allow_unused=True). No tensor's .grad changes (unless only_inputs=False)."),
    OAR_FN("jacobian", Derivative<false>, "jacobian(ys, xs, batch_axis=None, create_graph=False)"),
    OAR_FN("hessian", Derivative<true>, "hessian(ys, xs, batch_axis=None, create_graph=False)"),
    OAR_FN("_register_grad_accumulated_hook", RegisterGradAccumulatedHook,
           "Run hook() after a leaf's .grad is updated by backward."),
    {"is_grad_enabled", IsGradEnabled, METH_NOARGS, "Whether ops record gradients (this thread)."},
    {"_set_grad_enabled", SetGradEnabled, METH_O, "Turn gradient recording on/off (this thread)."},
    {"_register_backward_final_hook", RegisterFinalHook, METH_O,
     "Run fn() once at the end of the current/next backward on this thread."},
    {"_pylayer_apply", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(PyLayerApply)),
     METH_FASTCALL, "PyLayer.apply's engine."},
    {"_push_saved_tensors_hooks",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(PushSavedHooks)), METH_FASTCALL,
     ""},
    {"_pop_saved_tensors_hooks", PopSavedHooks, METH_NOARGS, ""},
    {"set_flags", SetFlags, METH_O, "set_flags({'FLAGS_check_nan_inf': True})"},
    {"get_flags", GetFlags, METH_O, "get_flags('FLAGS_check_nan_inf') -> dict"},
    {"seed", Seed, METH_O, "Seed the default random generator."},
    {"memory_stats", MemoryStats, METH_NOARGS, "The CPU allocator's statistics."},
    {"reset_peak_memory", ResetPeak, METH_NOARGS, "Reset the peak to the bytes in use."},
    {"_last_backward_stats", LastStats, METH_NOARGS, "Nodes visited/executed by the last pass."},
    {"_set_dtype_objects", SetDTypes, METH_O, ""},
    {"_set_tensor_factory", SetFactory, METH_O, ""},
    {"_set_shape_type", SetShapeTypeFn, METH_O, "Tensor.shape returns this list subclass."},
    {"_replace_data", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(ReplaceData)),
     METH_FASTCALL, "_replace_data(dst, src): dst holds src's data (out= arguments)"},
    {"_make_subclass", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(MakeSubclass)),
     METH_FASTCALL, "_make_subclass(cls, tensor): a cls instance sharing tensor"},
    {nullptr, nullptr, 0, nullptr}};

PyObject* CreateAutogradTypes(PyObject* module) {
  static PyMethodDef handle_methods[] = {
      {"remove", HookHandleRemove, METH_NOARGS, "Unregister the hook; False if already removed."},
      {nullptr, nullptr, 0, nullptr}};
  static PyType_Slot handle_slots[] = {{Py_tp_dealloc, reinterpret_cast<void*>(HookHandleDealloc)},
                                       {Py_tp_methods, handle_methods},
                                       {0, nullptr}};
  static PyType_Spec handle_spec = {"oar._C.HookHandle", sizeof(HookHandleObject), 0,
                                    Py_TPFLAGS_DEFAULT, handle_slots};
  PyObject* h = PyType_FromSpec(&handle_spec);
  if (!h) return nullptr;
  g_hook_handle_type = reinterpret_cast<PyTypeObject*>(h);
  if (PyModule_AddObjectRef(module, "HookHandle", h) < 0) return nullptr;

  static PyMethodDef ctx_methods[] = {
      {"save_for_backward", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(CtxSave)),
       METH_FASTCALL, "Keep tensors for backward (read them back with saved_tensor())."},
      {"saved_tensor", CtxSaved, METH_NOARGS, "The tensors saved by save_for_backward."},
      {"mark_non_differentiable",
       reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(CtxMarkNonDiff)), METH_FASTCALL,
       "Outputs that carry no gradient."},
      {"set_materialize_grads", CtxSetBool<&FunctionContext::set_materialize_grads>, METH_O,
       "False: outputs without a gradient reach backward as None instead of zeros."},
      {"set_grad_in_dtype_consistent", CtxSetBool<&FunctionContext::set_grad_in_dtype_consistent>,
       METH_O,
       "False: backward receives each gradient in its own dtype, not cast to its output's."},
      {nullptr, nullptr, 0, nullptr}};
  static PyType_Slot ctx_slots[] = {{Py_tp_new, reinterpret_cast<void*>(ContextNew)},
                                    {Py_tp_dealloc, reinterpret_cast<void*>(ContextDealloc)},
                                    {Py_tp_methods, ctx_methods},
                                    {0, nullptr}};
  static PyType_Spec ctx_spec = {"oar._C._FunctionContext", sizeof(ContextObject), 0,
                                 Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, ctx_slots};
  PyObject* c = PyType_FromSpec(&ctx_spec);
  if (!c) return nullptr;
  g_context_type = reinterpret_cast<PyTypeObject*>(c);
  if (PyModule_AddObjectRef(module, "_FunctionContext", c) < 0) return nullptr;
  return c;
}

}  // namespace oar::py
