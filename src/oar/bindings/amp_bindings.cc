// oar._C._amp_enter / _amp_exit / _amp_state: the auto-cast state of this
// thread (src/oar/autograd/amp_mode.h), pushed and popped by
// oar.amp.auto_cast (python/oar/amp/auto_cast.py), which validates arguments.
#include <string>
#include <vector>

#include "oar/autograd/amp_mode.h"
#include "oar/bindings/arg_parse.h"
#include "oar/bindings/py_utils.h"

namespace oar::py {

namespace {

// The states to restore, per thread: auto_cast's __exit__ pops what __enter__ pushed.
thread_local std::vector<amp::State> tls_saved;

void AddNames(PyObject* seq, std::unordered_set<std::string>& out, const char* arg) {
  if (seq == Py_None) return;
  PyObject* it = PyObject_GetIter(seq);
  if (!it) throw PythonError();
  while (PyObject* item = PyIter_Next(it)) {
    const char* s = PyUnicode_Check(item) ? PyUnicode_AsUTF8(item) : nullptr;
    if (!s) {
      Py_DECREF(item);
      Py_DECREF(it);
      throw errors::InvalidType("auto_cast(): argument '", arg, "' must hold op names (str)");
    }
    out.emplace(s);
    Py_DECREF(item);
  }
  Py_DECREF(it);
  if (PyErr_Occurred()) throw PythonError();
}

PyObject* AmpEnter(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  OAR_PY_TRY
  static const char* const kNames[] = {"level", "dtype", "custom_white_list", "custom_black_list",
                                       "use_promote"};
  PyObject* a[5];
  ParseArgs("_amp_enter", kNames, 5, args, nargs, kwnames, a);
  const int64_t level = CastPyArg2Long(a[0], "_amp_enter", "level", 0, std::nullopt);
  if (level < 0 || level > 2) {
    throw errors::InvalidArgument("_amp_enter(): argument 'level' must be 0, 1 or 2, got ", level);
  }
  amp::State s;
  s.level = static_cast<amp::Level>(level);
  s.dtype = CastPyArg2DType(a[1], "_amp_enter", "dtype", 1, DType::kBFloat16);
  s.use_promote = CastPyArg2Boolean(a[4], "_amp_enter", "use_promote", 4, true);
  if ((a[2] && a[2] != Py_None) || (a[3] && a[3] != Py_None)) {
    auto lists = std::make_shared<amp::CustomLists>();
    if (a[2]) AddNames(a[2], lists->white, "custom_white_list");
    if (a[3]) AddNames(a[3], lists->black, "custom_black_list");
    s.lists = std::move(lists);
  }
  tls_saved.push_back(amp::CurrentState());
  amp::SetState(std::move(s));
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

PyObject* AmpExit(PyObject*, PyObject*) {
  if (!tls_saved.empty()) {
    amp::SetState(std::move(tls_saved.back()));
    tls_saved.pop_back();
  }
  Py_RETURN_NONE;
}

PyObject* AmpState(PyObject*, PyObject*) {
  const amp::State& s = amp::CurrentState();
  return Py_BuildValue("(iNO)", static_cast<int>(s.level), ToPyObject(s.dtype),
                       s.use_promote ? Py_True : Py_False);
}

}  // namespace

PyMethodDef g_amp_functions[] = {
    {"_amp_enter", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(AmpEnter)),
     METH_FASTCALL | METH_KEYWORDS,
     "_amp_enter(level, dtype, custom_white_list, custom_black_list, use_promote): auto_cast "
     "starts on this thread."},
    {"_amp_exit", AmpExit, METH_NOARGS, "The auto_cast block entered last on this thread ends."},
    {"_amp_state", AmpState, METH_NOARGS, "(level, dtype, use_promote) on this thread."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace oar::py
