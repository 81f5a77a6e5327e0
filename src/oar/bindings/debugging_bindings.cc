// oar._C._nan_inf_*: the reporting settings of FLAGS_check_nan_inf and the numeric
// statistics of a tensor, behind oar.amp.debugging (src/oar/api/nan_inf_check.h);
// oar._C._kernel_dtypes, what the kernel registry holds for an op, which the op
// test driver reads to run each op in every dtype its kernel takes; and
// oar._C._cpu_isa, the ISA levels of kernel dispatch (core/cpu_isa.h).
#include <string>
#include <vector>

#include "oar/api/nan_inf_check.h"
#include "oar/bindings/arg_parse.h"
#include "oar/bindings/tensor_object.h"
#include "oar/core/cpu_isa.h"
#include "oar/kernels/kernel_registry.h"

namespace oar::py {
namespace {

std::string Str(PyObject* o, const char* fn, const char* arg) {
  if (!o || !PyUnicode_Check(o)) {
    throw errors::InvalidType(fn, "(): argument '", arg, "' must be a str");
  }
  return PyUnicode_AsUTF8(o);
}

std::vector<std::string> StrList(PyObject* o, const char* fn, const char* arg) {
  std::vector<std::string> v;
  if (!o || !PyList_Check(o))
    throw errors::InvalidType(fn, "(): argument '", arg, "' must be a list of str");
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(o); ++i) {
    v.push_back(Str(PyList_GET_ITEM(o, i), fn, arg));
  }
  return v;
}

PyObject* SetDebugPath(PyObject*, PyObject* path) {
  OAR_PY_TRY
  SetNanInfDebugPath(Str(path, "_nan_inf_set_path", "path"));
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

PyObject* SetOpLists(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  OAR_PY_TRY
  if (nargs != 2)
    throw errors::InvalidArgument("_nan_inf_set_op_lists(checked, skipped): 2 arguments");
  SetNanInfOpLists(StrList(args[0], "_nan_inf_set_op_lists", "checked"),
                   StrList(args[1], "_nan_inf_set_op_lists", "skipped"));
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

// (numel, num_nan, num_inf, num_zero, max, min, mean)
PyObject* Stats(PyObject*, PyObject* t) {
  OAR_PY_TRY
  const NumericStats s = ComputeNumericStats(GetTensorFromArgs("_nan_inf_stats", "x", t, 0));
  return Py_BuildValue("(LLLLddd)", static_cast<long long>(s.numel),
                       static_cast<long long>(s.num_nan), static_cast<long long>(s.num_inf),
                       static_cast<long long>(s.num_zero), s.max, s.min, s.mean);
  OAR_PY_CATCH
}

// The report line of a tensor: (op, tensor name, x, error flag).
PyObject* Format(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  OAR_PY_TRY
  if (nargs != 4) throw errors::InvalidArgument("_nan_inf_format(op, name, x, error): 4 arguments");
  const Tensor& x = GetTensorFromArgs("_nan_inf_format", "x", args[2], 2);
  const std::string line = FormatNumericStats(
      Str(args[0], "_nan_inf_format", "op"), Str(args[1], "_nan_inf_format", "name"), x.dtype(),
      ComputeNumericStats(x), CastPyArg2Boolean(args[3], "_nan_inf_format", "error", 3, false));
  return PyUnicode_FromStringAndSize(line.data(), static_cast<Py_ssize_t>(line.size()));
  OAR_PY_CATCH
}

// The dtypes with a CPU kernel named `name`, as "float32, int8, ..." (None when no
// kernel has that name: a composite op).
PyObject* KernelDTypes(PyObject*, PyObject* name) {
  OAR_PY_TRY
  const std::string n = Str(name, "_kernel_dtypes", "name");
  if (!KernelFactory::Instance().HasKernel(n)) Py_RETURN_NONE;
  const std::string s = KernelFactory::Instance().Table(n).RegisteredDTypes();
  return PyUnicode_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
  OAR_PY_CATCH
}

// (detected, dispatched): what the CPU has and what dispatch uses under
// OAR_MAX_CPU_ISA, by name ("avx2", ...). A bad OAR_MAX_CPU_ISA raises here.
PyObject* CpuIsaLevels(PyObject*, PyObject*) {
  OAR_PY_TRY
  const std::string_view max = CpuIsaName(MaxCpuIsa());
  const std::string_view detected = CpuIsaName(DetectedCpuIsa());
  return Py_BuildValue("(s#s#)", detected.data(), static_cast<Py_ssize_t>(detected.size()),
                       max.data(), static_cast<Py_ssize_t>(max.size()));
  OAR_PY_CATCH
}

}  // namespace

PyMethodDef g_debugging_functions[] = {
    {"_nan_inf_set_path", SetDebugPath, METH_O,
     "_nan_inf_set_path(dir): where FLAGS_check_nan_inf reports go ('' for stderr)"},
    {"_nan_inf_set_op_lists",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(SetOpLists)), METH_FASTCALL,
     "_nan_inf_set_op_lists(checked, skipped): the ops the check looks at"},
    {"_nan_inf_stats", Stats, METH_O,
     "_nan_inf_stats(x) -> (numel, num_nan, num_inf, num_zero, max, min, mean)"},
    {"_nan_inf_format", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(Format)),
     METH_FASTCALL, "_nan_inf_format(op, name, x, error) -> the report line of x"},
    {"_kernel_dtypes", KernelDTypes, METH_O,
     "_kernel_dtypes(name) -> 'float32, int8, ...': the dtypes of op `name`'s CPU kernels "
     "(None without a kernel of that name)"},
    {"_cpu_isa", CpuIsaLevels, METH_NOARGS,
     "_cpu_isa() -> (detected, dispatched): the CPU's ISA level and the one kernel dispatch "
     "uses (OAR_MAX_CPU_ISA caps it), e.g. ('avx512_bf16', 'avx2')"},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace oar::py
