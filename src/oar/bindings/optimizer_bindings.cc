// oar._C._optimizer_step and the gradient-clipping helpers: the fused updates
// (Note [Fused optimizer updates]) behind oar.optimizer, one call per step.
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "oar/bindings/arg_parse.h"
#include "oar/bindings/tensor_object.h"
#include "oar/eager/fused_optimizer.h"

namespace oar::py {
namespace {

std::vector<double> DoubleList(PyObject* o, const char* arg, size_t n) {
  std::vector<double> v;
  if (!o || o == Py_None) return v;
  PyObject* seq = PySequence_Fast(o, "not a sequence");
  if (!seq || static_cast<size_t>(PySequence_Fast_GET_SIZE(seq)) != n) {
    Py_XDECREF(seq);
    PyErr_Clear();
    throw errors::InvalidArgument("_optimizer_step(): argument '", arg, "' must be a list of ", n,
                                  " floats");
  }
  v.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    v.push_back(CastPyArg2Double(PySequence_Fast_GET_ITEM(seq, static_cast<Py_ssize_t>(i)),
                                 "_optimizer_step", arg, 0, std::nullopt));
  }
  Py_DECREF(seq);
  return v;
}

// (a, b) from a 2-sequence of numbers; nullopt when the argument is absent.
std::optional<std::pair<double, double>> DoublePair(PyObject* o, const char* arg) {
  if (!o || o == Py_None) return std::nullopt;
  const auto v = DoubleList(o, arg, 2);
  return std::pair{v[0], v[1]};
}

PyObject* OptimizerStep(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  OAR_PY_TRY
  static const char* const kNames[] = {"rule",     "params",
                                       "states",   "lr",
                                       "steps",    "lr_factors",
                                       "l2",       "l1",
                                       "decay",    "beta1",
                                       "beta2",    "epsilon",
                                       "momentum", "rho",
                                       "nesterov", "amsgrad",
                                       "centered", "momentum_decay",
                                       "etas",     "step_size_range",
                                       "batch_num"};
  constexpr Py_ssize_t kN = sizeof(kNames) / sizeof(kNames[0]);
  PyObject* a[kN];
  ParseArgs("_optimizer_step", kNames, kN, args, nargs, kwnames, a);
  if (!a[0] || !PyUnicode_Check(a[0])) {
    throw errors::InvalidType("_optimizer_step(): argument 'rule' must be a str");
  }
  const optim::Rule rule = optim::ParseRule(PyUnicode_AsUTF8(a[0]));
  std::vector<Tensor> params = GetTensorListFromArgs("_optimizer_step", "params", a[1], 1);
  const size_t n = params.size();
  std::vector<std::vector<Tensor>> states;
  if (!a[2] || !PyList_Check(a[2]) || static_cast<size_t>(PyList_GET_SIZE(a[2])) != n) {
    throw errors::InvalidArgument("_optimizer_step(): argument 'states' must be a list of ", n,
                                  " lists of tensors");
  }
  states.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    states.push_back(GetTensorListFromArgs("_optimizer_step", "states",
                                           PyList_GET_ITEM(a[2], static_cast<Py_ssize_t>(i)), 2));
  }
  const double lr = CastPyArg2Double(a[3], "_optimizer_step", "lr", 3, std::nullopt);
  const Tensor& steps = GetTensorFromArgs("_optimizer_step", "steps", a[4], 4);
  const auto factors = DoubleList(a[5], "lr_factors", n);
  const auto l2 = DoubleList(a[6], "l2", n);
  const auto l1 = DoubleList(a[7], "l1", n);
  const auto decay = DoubleList(a[8], "decay", n);
  std::vector<optim::ParamOptions> options;
  if (!factors.empty() || !l2.empty() || !l1.empty() || !decay.empty()) {
    options.resize(n);
    for (size_t i = 0; i < n; ++i) {
      if (!factors.empty()) options[i].lr_factor = factors[i];
      if (!l2.empty()) options[i].l2 = l2[i];
      if (!l1.empty()) options[i].l1 = l1[i];
      if (!decay.empty()) options[i].decoupled = decay[i];
    }
  }
  optim::Hyper h;
  h.beta1 = CastPyArg2Double(a[9], "_optimizer_step", "beta1", 9, 0.9);
  h.beta2 = CastPyArg2Double(a[10], "_optimizer_step", "beta2", 10, 0.999);
  h.epsilon = CastPyArg2Double(a[11], "_optimizer_step", "epsilon", 11, 1e-8);
  h.momentum = CastPyArg2Double(a[12], "_optimizer_step", "momentum", 12, 0.9);
  h.rho = CastPyArg2Double(a[13], "_optimizer_step", "rho", 13, 0.95);
  h.nesterov = CastPyArg2Boolean(a[14], "_optimizer_step", "nesterov", 14, false);
  h.amsgrad = CastPyArg2Boolean(a[15], "_optimizer_step", "amsgrad", 15, false);
  h.centered = CastPyArg2Boolean(a[16], "_optimizer_step", "centered", 16, false);
  h.momentum_decay = CastPyArg2Double(a[17], "_optimizer_step", "momentum_decay", 17, 0.004);
  if (const auto etas = DoublePair(a[18], "etas")) std::tie(h.eta_minus, h.eta_plus) = *etas;
  if (const auto range = DoublePair(a[19], "step_size_range")) {
    std::tie(h.step_min, h.step_max) = *range;
  }
  h.batch_num = CastPyArg2Long(a[20], "_optimizer_step", "batch_num", 20, 1);
  int64_t updated;
  {
    PyThreadState* save = PyEval_SaveThread();  // the update may be long: let Python run
    try {
      updated = optim::Step(rule, h, lr, params, states, steps, options);
    } catch (...) {
      PyEval_RestoreThread(save);
      throw;
    }
    PyEval_RestoreThread(save);
  }
  return PyLong_FromLongLong(updated);
  OAR_PY_CATCH
}

PyObject* GradGlobalNorm(PyObject*, PyObject* params) {
  OAR_PY_TRY
  return PyFloat_FromDouble(
      optim::GradGlobalNorm(GetTensorListFromArgs("_grad_global_norm", "params", params, 0)));
  OAR_PY_CATCH
}

PyObject* ScaleGrads(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  OAR_PY_TRY
  if (nargs != 2) throw errors::InvalidArgument("_scale_grads(params, factor): 2 arguments");
  return ToPyObject(
      optim::ScaleGrads(GetTensorListFromArgs("_scale_grads", "params", args[0], 0),
                        CastPyArg2Double(args[1], "_scale_grads", "factor", 1, std::nullopt)));
  OAR_PY_CATCH
}

}  // namespace

PyMethodDef g_optimizer_functions[] = {
    {"_optimizer_step", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(OptimizerStep)),
     METH_FASTCALL | METH_KEYWORDS,
     "_optimizer_step(rule, params, states, lr, steps, ...) -> parameters updated"},
    {"_grad_global_norm", GradGlobalNorm, METH_O,
     "_grad_global_norm(params) -> the L2 norm of all their gradients"},
    {"_scale_grads", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(ScaleGrads)),
     METH_FASTCALL, "_scale_grads(params, factor): every gradient *= factor, in place"},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace oar::py
