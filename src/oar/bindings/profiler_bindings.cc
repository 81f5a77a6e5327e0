// oar._C._profiler_*: the C++ profiler (src/oar/core/profiler/) behind
// oar.profiler. A Python Profiler owns its C++ Profiler through a capsule; the
// Python side validates arguments and names the public function in errors,
// so these functions are internal.
#include <memory>
#include <string>

#include "oar/bindings/py_utils.h"
#include "oar/bindings/tensor_object.h"
#include "oar/core/errors.h"
#include "oar/core/profiler/profiler.h"
#include "oar/core/profiler/record_event.h"

namespace oar::py {
namespace {

using profiler::Profiler;

constexpr const char* kCapsuleName = "oar._C._Profiler";

void DestroyCapsule(PyObject* capsule) {
  // Owned by the capsule since _profiler_new.
  std::unique_ptr<Profiler>(static_cast<Profiler*>(PyCapsule_GetPointer(capsule, kCapsuleName)));
}

Profiler& Get(PyObject* capsule) {
  void* p = PyCapsule_GetPointer(capsule, kCapsuleName);
  if (!p) {
    PyErr_Clear();
    throw errors::InvalidType("expected a profiler handle from _profiler_new()");
  }
  return *static_cast<Profiler*>(p);
}

PyObject* New(PyObject*, PyObject* args) {
  OAR_PY_TRY
  int shapes = 0, memory = 0, flops = 0, all_threads = 0;
  if (!PyArg_ParseTuple(args, "pppp:_profiler_new", &shapes, &memory, &flops, &all_threads)) {
    return nullptr;
  }
  profiler::ProfilerOptions o;
  o.record_shapes = shapes;
  o.profile_memory = memory;
  o.with_flops = flops;
  o.all_threads = all_threads;
  auto prof = std::make_unique<Profiler>(o);
  PyObject* capsule = PyCapsule_New(prof.get(), kCapsuleName, DestroyCapsule);
  if (capsule) prof.release();  // the capsule owns it now
  return capsule;
  OAR_PY_CATCH
}

PyObject* Start(PyObject*, PyObject* cap) {
  OAR_PY_TRY
  Get(cap).Start();
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

PyObject* Stop(PyObject*, PyObject* cap) {
  OAR_PY_TRY
  Profiler& p = Get(cap);
  {
    // Collecting may wait for a writer in another thread; RAII, so a throw
    // still takes the GIL back.
    GilRelease nogil;
    p.Stop();
  }
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

PyObject* Clear(PyObject*, PyObject* cap) {
  OAR_PY_TRY
  Get(cap).Clear();
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

PyObject* Trace(PyObject*, PyObject* cap) {
  OAR_PY_TRY
  const std::string s = Get(cap).ChromeTrace();
  return PyUnicode_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
  OAR_PY_CATCH
}

PyObject* Export(PyObject*, PyObject* args) {
  OAR_PY_TRY
  PyObject* cap = nullptr;
  const char* path = nullptr;
  if (!PyArg_ParseTuple(args, "Os:_profiler_export", &cap, &path)) return nullptr;
  Get(cap).Export(path);
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

PyObject* Summary(PyObject*, PyObject* args) {
  OAR_PY_TRY
  PyObject* cap = nullptr;
  int sort = 0, op_detail = 1, thread_sep = 0, unit = 1;
  if (!PyArg_ParseTuple(args, "Oippi:_profiler_summary", &cap, &sort, &op_detail, &thread_sep,
                        &unit)) {
    return nullptr;
  }
  if (sort < 0 || sort > 3 || unit < 0 || unit > 3) {
    throw errors::InvalidArgument("_profiler_summary(): sort key and time unit must be in [0, 3]");
  }
  profiler::SummaryOptions o;
  o.sorted_by = static_cast<profiler::SortKey>(sort);
  o.op_detail = op_detail;
  o.thread_sep = thread_sep;
  o.time_unit = static_cast<profiler::TimeUnit>(unit);
  const std::string s = Get(cap).Summary(o);
  return PyUnicode_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
  OAR_PY_CATCH
}

PyObject* Recording(PyObject*, PyObject*) { return PyBool_FromLong(profiler::IsRecording()); }

PyObject* Now(PyObject*, PyObject*) { return PyLong_FromLongLong(profiler::NowNs()); }

PyObject* RecordSpan(PyObject*, PyObject* args) {
  OAR_PY_TRY
  const char* name = nullptr;
  Py_ssize_t n = 0;
  int kind = 0;
  long long start = 0, end = 0;
  if (!PyArg_ParseTuple(args, "s#iLL:_profiler_record_span", &name, &n, &kind, &start, &end)) {
    return nullptr;
  }
  if (kind < 0 || kind > static_cast<int>(profiler::EventKind::kProfileStep)) {
    throw errors::InvalidArgument("_profiler_record_span(): unknown event kind ", kind);
  }
  profiler::RecordSpan(std::string_view(name, static_cast<size_t>(n)),
                       static_cast<profiler::EventKind>(kind), start, end);
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

}  // namespace

PyMethodDef g_profiler_functions[] = {
    {"_profiler_new", New, METH_VARARGS,
     "_profiler_new(record_shapes, profile_memory, with_flops, all_threads): a C++ Profiler."},
    {"_profiler_start", Start, METH_O, "Starts recording."},
    {"_profiler_stop", Stop, METH_O, "Stops recording and keeps the window's events."},
    {"_profiler_clear", Clear, METH_O, "Forgets the recorded events."},
    {"_profiler_trace", Trace, METH_O, "The Chrome trace JSON of the recorded events."},
    {"_profiler_export", Export, METH_VARARGS,
     "_profiler_export(handle, path): writes the Chrome trace."},
    {"_profiler_summary", Summary, METH_VARARGS,
     "_profiler_summary(handle, sort, op_detail, thread_sep, unit): the summary table."},
    {"_profiler_recording", Recording, METH_NOARGS, "Whether a profiler records this thread now."},
    {"_profiler_now", Now, METH_NOARGS, "The profiler clock in nanoseconds."},
    {"_profiler_record_span", RecordSpan, METH_VARARGS,
     "_profiler_record_span(name, kind, start_ns, end_ns): records a timed span on this thread."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace oar::py
