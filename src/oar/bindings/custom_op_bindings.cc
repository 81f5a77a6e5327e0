// oar._C._custom_op_load and _custom_op_run: loading a library of C++ custom
// operators and calling one (src/oar/extension/, docs/custom_ops.md), behind
// oar.utils.cpp_extension.
#include <string>
#include <vector>

#include "oar/bindings/arg_parse.h"
#include "oar/bindings/tensor_object.h"
#include "oar/extension/run_op.h"

namespace oar::py {
namespace {

using extension::AttrType;
using extension::CustomOp;

// A new reference to a str.
PyObject* Str(const std::string& s) {
  return PyUnicode_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
}

// Steals `value`.
bool SetItem(PyObject* dict, const char* key, PyObject* value) {
  if (!value) return false;
  const int rc = PyDict_SetItemString(dict, key, value);
  Py_DECREF(value);
  return rc == 0;
}

// [(name, is_list, is_optional), ...]
PyObject* ArgList(const std::vector<extension::ArgSpec>& args) {
  PyObject* list = PyList_New(0);
  for (const auto& a : args) {
    PyObject* item = Py_BuildValue("(NOO)", Str(a.key), a.is_list ? Py_True : Py_False,
                                   a.is_optional ? Py_True : Py_False);
    if (!item || PyList_Append(list, item) != 0) throw PythonError();
    Py_DECREF(item);
  }
  return list;
}

// The meta info of an op's forward level, as a dict for the Python loader.
PyObject* OpInfo(const CustomOp& op) {
  const extension::CustomOpLevel& l = op.levels[0];
  PyObject* d = PyDict_New();
  PyObject* attrs = PyList_New(0);
  for (const auto& a : l.attrs) {
    PyObject* item = Py_BuildValue("(NN)", Str(a.name), Str(a.type_name));
    if (!item || PyList_Append(attrs, item) != 0) throw PythonError();
    Py_DECREF(item);
  }
  PyObject* inplace = PyDict_New();
  for (const auto& [in, out] : l.info->inplace_map) {
    PyObject* k = Str(extension::ParseArg(in).key);
    PyDict_SetItem(inplace, k, Str(extension::ParseArg(out).key));
    Py_DECREF(k);
  }
  if (!SetItem(d, "name", Str(op.name)) || !SetItem(d, "inputs", ArgList(l.inputs)) ||
      !SetItem(d, "outputs", ArgList(l.outputs)) || !SetItem(d, "attrs", attrs) ||
      !SetItem(d, "inplace", inplace) ||
      !SetItem(d, "grad_levels", PyLong_FromSize_t(op.levels.size() - 1))) {
    Py_DECREF(d);
    throw PythonError();
  }
  return d;
}

// _custom_op_load(path) -> [dict per op the library registered]
PyObject* Load(PyObject*, PyObject* path) {
  OAR_PY_TRY
  if (!PyUnicode_Check(path)) throw errors::InvalidType("_custom_op_load(): path must be a str");
  const auto ops = extension::CustomOpRegistry::Instance().LoadLibrary(PyUnicode_AsUTF8(path));
  PyObject* list = PyList_New(0);
  for (const auto& op : ops) {
    PyObject* d = OpInfo(*op);
    PyList_Append(list, d);
    Py_DECREF(d);
  }
  return list;
  OAR_PY_CATCH
}

[[noreturn]] void ThrowAttr(const std::string& op, const extension::AttrSpec& a, PyObject* v) {
  throw errors::InvalidType(op, "(): attribute '", a.name, "' must be ", a.type_name, ", but got ",
                            Py_TYPE(v)->tp_name);
}

int64_t Int(const std::string& op, const extension::AttrSpec& a, PyObject* v, bool narrow) {
  if (!PyLong_Check(v) || PyBool_Check(v)) ThrowAttr(op, a, v);
  const long long x = PyLong_AsLongLong(v);
  if ((x == -1 && PyErr_Occurred()) || (narrow && (x < INT32_MIN || x > INT32_MAX))) {
    PyErr_Clear();
    throw errors::OutOfRange(op, "(): attribute '", a.name, "' is out of the range of ",
                             narrow ? "int" : "int64_t");
  }
  return x;
}
double Float(const std::string& op, const extension::AttrSpec& a, PyObject* v) {
  if (PyBool_Check(v) || !(PyFloat_Check(v) || PyLong_Check(v))) ThrowAttr(op, a, v);
  return PyFloat_AsDouble(v);
}
std::string String(const std::string& op, const extension::AttrSpec& a, PyObject* v) {
  if (!PyUnicode_Check(v)) ThrowAttr(op, a, v);
  return PyUnicode_AsUTF8(v);
}
bool Bool(const std::string& op, const extension::AttrSpec& a, PyObject* v) {
  if (!PyBool_Check(v)) ThrowAttr(op, a, v);
  return v == Py_True;
}

template <typename T, typename Read>
std::vector<T> List(const std::string& op, const extension::AttrSpec& a, PyObject* v, Read read) {
  if (!PyList_Check(v) && !PyTuple_Check(v)) ThrowAttr(op, a, v);
  std::vector<T> out;
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(v); ++i) {
    out.push_back(static_cast<T>(read(PySequence_Fast_GET_ITEM(v, i))));
  }
  return out;
}

paddle::AttrValue ToAttr(const std::string& op, const extension::AttrSpec& a, PyObject* v) {
  const auto i32 = [&](PyObject* o) { return Int(op, a, o, true); };
  const auto i64 = [&](PyObject* o) { return Int(op, a, o, false); };
  const auto f = [&](PyObject* o) { return Float(op, a, o); };
  const auto s = [&](PyObject* o) { return String(op, a, o); };
  const auto b = [&](PyObject* o) { return Bool(op, a, o); };
  switch (a.type) {
    case AttrType::kBool:
      return b(v);
    case AttrType::kInt:
      return static_cast<int>(i32(v));
    case AttrType::kFloat:
      return static_cast<float>(f(v));
    case AttrType::kDouble:
      return f(v);
    case AttrType::kInt64:
      return i64(v);
    case AttrType::kString:
      return s(v);
    case AttrType::kBoolList:
      return List<bool>(op, a, v, b);
    case AttrType::kIntList:
      return List<int>(op, a, v, i32);
    case AttrType::kFloatList:
      return List<float>(op, a, v, f);
    case AttrType::kDoubleList:
      return List<double>(op, a, v, f);
    case AttrType::kInt64List:
      return List<int64_t>(op, a, v, i64);
    case AttrType::kStringList:
      return List<std::string>(op, a, v, s);
  }
  throw errors::Fatal("unknown attribute type");
}

// _custom_op_run(name, inputs, attrs): one item of `inputs` per declared input
// (a Tensor, a list of them, or None) and of `attrs` per attribute. Returns the
// one output, or a list of outputs (a list output as a list).
PyObject* Run(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  OAR_PY_TRY
  if (nargs != 3 || !PyUnicode_Check(args[0]) || !PyTuple_Check(args[1]) ||
      !PyTuple_Check(args[2])) {
    throw errors::InvalidType("_custom_op_run(name, inputs: tuple, attrs: tuple)");
  }
  const auto op = extension::CustomOpRegistry::Instance().Find(PyUnicode_AsUTF8(args[0]));
  const extension::CustomOpLevel& l = op->levels[0];
  const char* name = op->name.c_str();
  if (PyTuple_GET_SIZE(args[1]) != static_cast<Py_ssize_t>(l.inputs.size())) {
    throw errors::InvalidArgument(name, "(): takes ", l.inputs.size(), " inputs but received ",
                                  PyTuple_GET_SIZE(args[1]));
  }
  if (PyTuple_GET_SIZE(args[2]) != static_cast<Py_ssize_t>(l.attrs.size())) {
    throw errors::InvalidArgument(name, "(): takes ", l.attrs.size(), " attributes but received ",
                                  PyTuple_GET_SIZE(args[2]));
  }
  std::vector<paddle::CallInput> inputs(l.inputs.size());
  for (size_t i = 0; i < l.inputs.size(); ++i) {
    PyObject* v = PyTuple_GET_ITEM(args[1], i);
    const std::string& arg = l.inputs[i].key;
    if (v == Py_None) {
      inputs[i].present = false;  // RunCustomOp refuses it unless optional
    } else if (l.inputs[i].is_list) {
      for (const Tensor& t : GetTensorListFromArgs(name, arg.c_str(), v, static_cast<int>(i))) {
        inputs[i].tensors.emplace_back(t);
      }
    } else {
      inputs[i].tensors.emplace_back(GetTensorFromArgs(name, arg.c_str(), v, static_cast<int>(i)));
    }
  }
  std::vector<paddle::AttrValue> attrs;
  for (size_t i = 0; i < l.attrs.size(); ++i) {
    attrs.push_back(ToAttr(op->name, l.attrs[i], PyTuple_GET_ITEM(args[2], i)));
  }
  const std::vector<std::vector<Tensor>> outs =
      extension::RunCustomOp(op, 0, std::move(inputs), std::move(attrs));

  // An in-place output is the input object itself (each of a list's), now carrying
  // the op's history.
  std::vector<PyObject*> results;
  for (size_t j = 0; j < outs.size(); ++j) {
    PyObject* source = nullptr;
    for (const auto& [in, out] : l.info->inplace_map) {
      for (size_t i = 0; out == l.outputs[j].name && i < l.inputs.size(); ++i) {
        if (l.inputs[i].name == in) source = PyTuple_GET_ITEM(args[1], i);
      }
    }
    // An optional output left empty (its in-place input was omitted) is None.
    PyObject* r = l.outputs[j].is_list ? ToPyObject(outs[j])
                  : outs[j].empty()    ? Py_NewRef(Py_None)
                                       : ToPyObject(outs[j][0]);
    if (source && r) {
      const bool list = l.outputs[j].is_list;
      PyObject* seq = list ? PySequence_Fast(source, "in-place list input") : nullptr;
      for (size_t k = 0; k < outs[j].size(); ++k) {
        const bool in_seq = seq && static_cast<Py_ssize_t>(k) < PySequence_Fast_GET_SIZE(seq);
        PyObject* obj = list ? (in_seq ? PySequence_Fast_GET_ITEM(seq, k) : nullptr) : source;
        if (!obj || !IsTensor(obj)) continue;
        if (outs[j][k].get_autograd_meta()) {
          AsTensor(obj).set_autograd_meta(outs[j][k].mutable_autograd_meta());
        }
        Py_INCREF(obj);
        if (list) {
          PyList_SetItem(r, static_cast<Py_ssize_t>(k), obj);  // steals obj
        } else {
          Py_DECREF(r);
          r = obj;
        }
      }
      Py_XDECREF(seq);
    }
    if (!r) {
      for (PyObject* o : results) Py_DECREF(o);
      throw PythonError();
    }
    results.push_back(r);
  }
  if (results.size() == 1) return results[0];
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(results.size()));
  for (size_t j = 0; j < results.size(); ++j) PyList_SET_ITEM(list, j, results[j]);
  return list;
  OAR_PY_CATCH
}

}  // namespace

PyMethodDef g_custom_op_functions[] = {
    {"_custom_op_load", Load, METH_O,
     "_custom_op_load(path) -> [op info]: loads a library of custom operators (dlopen) and "
     "returns the meta info of the ops it registered"},
    {"_custom_op_run", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(Run)),
     METH_FASTCALL,
     "_custom_op_run(name, inputs, attrs) -> Tensor or list: runs a loaded custom operator"},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace oar::py
