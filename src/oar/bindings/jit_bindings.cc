// oar._C._jit_*: graph capture (src/oar/eager/trace.h), captured programs and
// saved models (src/oar/jit/) behind oar.jit. A Python StaticFunction owns its
// tracer and programs through capsules; the Python side validates arguments and
// names the public function in errors, so these functions are internal.
#include "oar/bindings/jit_capture.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "oar/bindings/capsule.h"
#include "oar/bindings/py_utils.h"
#include "oar/bindings/tensor_object.h"
#include "oar/core/dense_tensor.h"
#include "oar/core/errors.h"
#include "oar/eager/trace.h"
#include "oar/jit/module.h"
#include "oar/jit/program.h"
#include "oar/jit/replay.h"

namespace oar::py {

namespace {

using jit::Tracer;

constexpr const char* kTracer = "oar._C._JitTracer";
constexpr const char* kProgram = "oar._C._JitProgram";

// Source files under this directory are oar's own: a graph break names the
// first frame outside it (guarded by the GIL).
std::string& PackageDir() {
  static std::string dir;
  return dir;
}

std::vector<Tensor> TensorList(PyObject* seq, const char* what) {
  PyObject* fast = PySequence_Fast(seq, what);
  if (!fast) throw errors::InvalidType(what, " must be a list of Tensors");
  std::vector<Tensor> out;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* o = PySequence_Fast_GET_ITEM(fast, i);
    if (!IsTensor(o)) {
      Py_DECREF(fast);
      throw errors::InvalidType(what, "[", i, "] must be a Tensor");
    }
    out.push_back(AsTensor(o));
  }
  Py_DECREF(fast);
  return out;
}

PyObject* SetPackageDir(PyObject*, PyObject* arg) {
  OAR_PY_TRY
  if (!PyUnicode_Check(arg)) throw errors::InvalidType("_jit_set_package_dir(): expected a str");
  PackageDir() = PyUnicode_AsUTF8(arg);
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

PyObject* TracerNew(PyObject*, PyObject* arg) {
  OAR_PY_TRY
  return WrapShared(std::make_shared<Tracer>(PyObject_IsTrue(arg) == 1), kTracer);
  OAR_PY_CATCH
}

// _jit_tracer_swap(tracer or None) -> None: makes it current on this thread.
PyObject* TracerSwap(PyObject*, PyObject* arg) {
  OAR_PY_TRY
  Tracer::Exchange(arg == Py_None ? nullptr : GetShared<Tracer>(arg, kTracer).get());
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

PyObject* Tracing(PyObject*, PyObject*) { return PyBool_FromLong(Tracer::Current() != nullptr); }

PyObject* TracerAddInput(PyObject*, PyObject* args) {
  OAR_PY_TRY
  PyObject *cap, *t;
  if (!PyArg_ParseTuple(args, "OO!:_jit_tracer_add_input", &cap, g_tensor_type, &t)) return nullptr;
  return PyLong_FromLongLong(GetShared<Tracer>(cap, kTracer)->AddInput(AsTensor(t)));
  OAR_PY_CATCH
}

PyObject* TracerAddParam(PyObject*, PyObject* args) {
  OAR_PY_TRY
  PyObject *cap, *t;
  const char* name;
  if (!PyArg_ParseTuple(args, "OsO!:_jit_tracer_add_param", &cap, &name, g_tensor_type, &t)) {
    return nullptr;
  }
  return PyLong_FromLongLong(GetShared<Tracer>(cap, kTracer)->AddParam(name, AsTensor(t)));
  OAR_PY_CATCH
}

// _jit_tracer_break_reason(tracer) -> str or None
PyObject* TracerBreakReason(PyObject*, PyObject* cap) {
  OAR_PY_TRY
  const Tracer& t = *GetShared<Tracer>(cap, kTracer);
  if (!t.broken()) Py_RETURN_NONE;
  return PyUnicode_FromString(t.break_reason().c_str());
  OAR_PY_CATCH
}

// _jit_tracer_break(tracer, reason): a graph break found by Python.
PyObject* TracerBreak(PyObject*, PyObject* args) {
  OAR_PY_TRY
  PyObject* cap;
  const char* reason;
  if (!PyArg_ParseTuple(args, "Os:_jit_tracer_break", &cap, &reason)) return nullptr;
  GetShared<Tracer>(cap, kTracer)->Break(reason);
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

// _jit_tracer_finish(tracer, outputs) -> (program json, [constant tensors])
PyObject* TracerFinish(PyObject*, PyObject* args) {
  OAR_PY_TRY
  PyObject *cap, *outs;
  if (!PyArg_ParseTuple(args, "OO:_jit_tracer_finish", &cap, &outs)) return nullptr;
  Tracer& tracer = *GetShared<Tracer>(cap, kTracer);
  const std::vector<Tensor> outputs = TensorList(outs, "outputs");
  for (const Tensor& o : outputs) tracer.ValueOf(o);  // a tensor made outside ops: a constant
  jit::Captured c = jit::FromTracer(tracer, outputs);
  return Py_BuildValue("(NN)", PyUnicode_FromString(c.program.ToJson().c_str()),
                       ToPyObject(c.consts));
  OAR_PY_CATCH
}

// _jit_program(json, what) -> program handle (checked as a file would be)
PyObject* ProgramNew(PyObject*, PyObject* args) {
  OAR_PY_TRY
  const char *text, *what;
  if (!PyArg_ParseTuple(args, "ss:_jit_program", &text, &what)) return nullptr;
  auto p = std::make_shared<jit::Program>(jit::Program::FromJson(text, what));
  return WrapShared(std::move(p), kProgram);
  OAR_PY_CATCH
}

PyObject* ProgramJson(PyObject*, PyObject* cap) {
  OAR_PY_TRY
  return PyUnicode_FromString(GetShared<jit::Program>(cap, kProgram)->ToJson().c_str());
  OAR_PY_CATCH
}

// _jit_run(program, inputs, params, consts) -> [outputs]
PyObject* ProgramRun(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  OAR_PY_TRY
  if (nargs != 4) throw errors::InvalidArgument("_jit_run() takes 4 arguments");
  const jit::Program& p = *GetShared<jit::Program>(args[0], kProgram);
  const std::vector<Tensor> inputs = TensorList(args[1], "inputs");
  const std::vector<Tensor> params = TensorList(args[2], "params");
  const std::vector<Tensor> consts = TensorList(args[3], "consts");
  return ToPyObject(jit::Run(p, inputs, params, consts));
  OAR_PY_CATCH
}

// _jit_save(path, model_json, names, tensors)
PyObject* Save(PyObject*, PyObject* args) {
  OAR_PY_TRY
  const char *path, *model;
  PyObject *names, *tensors;
  if (!PyArg_ParseTuple(args, "ssOO:_jit_save", &path, &model, &names, &tensors)) return nullptr;
  const std::vector<Tensor> ts = TensorList(tensors, "tensors");
  PyObject* fast = PySequence_Fast(names, "names must be a list of str");
  if (!fast) return nullptr;
  if (PySequence_Fast_GET_SIZE(fast) != static_cast<Py_ssize_t>(ts.size())) {
    Py_DECREF(fast);
    throw errors::InvalidArgument("_jit_save(): ", ts.size(),
                                  " tensors but a different number of names");
  }
  std::vector<std::pair<std::string, Tensor>> named;
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); ++i) {
    PyObject* n = PySequence_Fast_GET_ITEM(fast, i);
    if (!PyUnicode_Check(n)) {
      Py_DECREF(fast);
      throw errors::InvalidType("_jit_save(): names must be str");
    }
    named.emplace_back(PyUnicode_AsUTF8(n), ts[static_cast<size_t>(i)]);
  }
  Py_DECREF(fast);
  jit::Save(path, model, named);
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

// _jit_load(path) -> (model_json, [(name, tensor)])
PyObject* Load(PyObject*, PyObject* arg) {
  OAR_PY_TRY
  if (!PyUnicode_Check(arg)) throw errors::InvalidType("_jit_load(): expected a str path");
  const std::string path = PyUnicode_AsUTF8(arg);
  jit::Module m = jit::Load(path);
  PyObject* list = PyList_New(0);
  for (const auto& [name, t] : m.tensors()) {
    PyObject* item = Py_BuildValue("(sN)", name.c_str(), ToPyObject(t));
    PyList_Append(list, item);
    Py_DECREF(item);
  }
  return Py_BuildValue("(sN)", m.model_json().c_str(), list);
  OAR_PY_CATCH
}

// Where Python is now, outside oar's own package: "file:line".
std::string UserLocation() {
  PyFrameObject* frame = PyEval_GetFrame();  // borrowed
  Py_XINCREF(frame);
  std::string where;
  while (frame) {
    PyCodeObject* code = PyFrame_GetCode(frame);
    const char* file = PyUnicode_AsUTF8(code->co_filename);
    const bool ours = file && !PackageDir().empty() && std::string(file).starts_with(PackageDir());
    if (file && !ours)
      where = std::string(file) + ":" + std::to_string(PyFrame_GetLineNumber(frame));
    Py_DECREF(code);
    if (!where.empty()) {
      Py_DECREF(frame);
      break;
    }
    PyFrameObject* back = PyFrame_GetBack(frame);
    Py_DECREF(frame);
    frame = back;
  }
  return where.empty() ? std::string("(unknown location)") : where;
}

}  // namespace

void CaptureBreakIfTraced(const Tensor& t, const char* what) {
  Tracer* tracer = Tracer::Current();
  if (!tracer || tracer->broken() || !tracer->IsDynamic(t)) return;
  std::string reason =
      StrCat(what, " needs the value of a tensor computed from the inputs, at ", UserLocation());
  tracer->Break(reason);
  if (tracer->full_graph()) {
    throw errors::PreconditionNotMet(
        "to_static(full_graph=True): ", reason,
        "; a captured program cannot depend on tensor values (compute with tensor ops, or "
        "use full_graph=False to run such a function eagerly)");
  }
}

Tensor CaptureDetach(const Tensor& x) {
  Tracer* tracer = Tracer::Current();
  if (!tracer || tracer->broken() || tracer->Find(x) < 0) return x.detach();
  if (!x.is_dense()) {
    CaptureBreakIfTraced(x, "detach() of a sparse tensor");
    return x.detach();
  }
  Tensor d(std::make_shared<DenseTensor>(x.dense()), x.name());
  tracer->RecordPseudoOp("detach", x, d);
  return d;
}

void CaptureBreakOnAny(const std::vector<Tensor>& ts, const char* what) {
  for (const Tensor& t : ts) CaptureBreakIfTraced(t, what);
}

PyMethodDef g_jit_functions[] = {
    {"_jit_set_package_dir", SetPackageDir, METH_O, "Where oar's own Python sources are."},
    {"_jit_tracer_new", TracerNew, METH_O, "_jit_tracer_new(full_graph) -> tracer"},
    {"_jit_tracer_swap", TracerSwap, METH_O, "Makes a tracer (or None) current on this thread."},
    {"_jit_tracing", Tracing, METH_NOARGS, "Whether a capture records this thread's ops now."},
    {"_jit_tracer_add_input", TracerAddInput, METH_VARARGS, "(tracer, tensor) -> value id"},
    {"_jit_tracer_add_param", TracerAddParam, METH_VARARGS, "(tracer, name, tensor) -> value id"},
    {"_jit_tracer_break_reason", TracerBreakReason, METH_O, "The first graph break, or None."},
    {"_jit_tracer_break", TracerBreak, METH_VARARGS, "(tracer, reason): a graph break."},
    {"_jit_tracer_finish", TracerFinish, METH_VARARGS, "(tracer, outputs) -> (json, consts)"},
    {"_jit_program", ProgramNew, METH_VARARGS, "(json, what) -> program"},
    {"_jit_program_json", ProgramJson, METH_O, "The program as JSON."},
    {"_jit_run", reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(ProgramRun)), METH_FASTCALL,
     "(program, inputs, params, consts) -> outputs"},
    {"_jit_save", Save, METH_VARARGS, "(path, model_json, names, tensors)"},
    {"_jit_load", Load, METH_O, "(path) -> (model_json, [(name, tensor)])"},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace oar::py
