// oar._C.GradNode: a grad node seen from Python (Tensor.grad_fn), for
// debugging and the graph tools in oar.viz. The object owns a reference to
// the C++ node, so a node held in Python stays alive (and its next nodes with
// it) after its outputs are gone; after a backward that released the graph,
// the node still answers, with its saved tensors marked released. Two
// objects for one C++ node compare equal and hash alike, so traversals can
// de-duplicate nodes.
//
// Also here: the Python recorder of forward stacks (Note [Forward stacks] in
// autograd/forward_stack.h) and the layer scope entered by oar.nn.Layer.
#include "oar/bindings/grad_node_object.h"

#include "oar/bindings/arg_parse.h"
#include "oar/bindings/tensor_object.h"

#include <frameobject.h>

#include <algorithm>
#include <string>
#include <vector>

#include "oar/autograd/accumulation_node.h"
#include "oar/autograd/autograd_meta.h"
#include "oar/autograd/eager_utils.h"
#include "oar/autograd/forward_stack.h"
#include "oar/core/layer_scope.h"

namespace oar::py {

namespace {

struct GradNodeObject {
  PyObject_HEAD std::shared_ptr<GradNodeBase> node;
};
PyTypeObject* g_grad_node_type = nullptr;

GradNodeBase& Node(PyObject* o) { return *reinterpret_cast<GradNodeObject*>(o)->node; }

void Dealloc(PyObject* o) {
  PyTypeObject* type = Py_TYPE(o);
  reinterpret_cast<GradNodeObject*>(o)->node.~shared_ptr();  // may free a whole graph
  type->tp_free(o);
  Py_DECREF(type);
}

PyObject* Repr(PyObject* o) {
  const GradNodeBase& n = Node(o);
  return PyUnicode_FromFormat("<%s sequence_nr=%llu>", n.name().c_str(),
                              static_cast<unsigned long long>(n.sequence_nr()));
}

Py_hash_t Hash(PyObject* o) {
  // Like object.__hash__ of the C++ node: its address, the alignment bits dropped.
  const auto h = static_cast<Py_hash_t>(reinterpret_cast<uintptr_t>(&Node(o)) >> 4);
  return h == -1 ? -2 : h;
}

PyObject* RichCompare(PyObject* a, PyObject* b, int op) {
  if ((op != Py_EQ && op != Py_NE) || !PyObject_TypeCheck(b, g_grad_node_type)) {
    Py_RETURN_NOTIMPLEMENTED;
  }
  const bool same = &Node(a) == &Node(b);
  return ToPyObject(op == Py_EQ ? same : !same);
}

// A dict(key=value, ...) built from alternating C strings and new references;
// returns null (with the error set) if a value is null.
PyObject* MakeDict(std::initializer_list<std::pair<const char*, PyObject*>> items) {
  PyObject* d = PyDict_New();
  bool ok = d != nullptr;
  for (const auto& [k, v] : items) {
    ok = ok && v != nullptr && PyDict_SetItemString(d, k, v) == 0;
    Py_XDECREF(v);
  }
  if (!ok) {
    Py_XDECREF(d);
    return nullptr;
  }
  return d;
}

PyObject* ShapeOf(const DDim& dims) {
  PyObject* l = PyList_New(static_cast<Py_ssize_t>(dims.size()));
  if (!l) return nullptr;
  for (size_t i = 0; i < dims.size(); ++i) {
    PyList_SET_ITEM(l, static_cast<Py_ssize_t>(i), PyLong_FromLongLong(dims[i]));
  }
  return l;
}

PyObject* Str(const std::string& s) { return PyUnicode_FromStringAndSize(s.data(), s.size()); }

// Appends a new reference to `list`, taking it over; false (error set) if the
// item is null or the append failed.
bool AppendStolen(PyObject* list, PyObject* item) {
  const bool ok = item && PyList_Append(list, item) == 0;
  Py_XDECREF(item);
  return ok;
}

PyObject* MetaList(const SlotMetas& metas) {
  PyObject* out = PyList_New(0);
  if (!out) return nullptr;
  for (size_t slot = 0; slot < metas.size(); ++slot) {
    for (size_t rank = 0; rank < metas[slot].size(); ++rank) {
      const GradSlotMeta& m = metas[slot][rank];
      PyObject* d = MakeDict(
          {{"slot", PyLong_FromSize_t(slot)},
           {"rank", PyLong_FromSize_t(rank)},
           {"shape", m.HasTensorMeta() ? ShapeOf(m.dims()) : Py_NewRef(Py_None)},
           {"dtype", m.HasTensorMeta() ? ToPyObject(m.dtype()) : Py_NewRef(Py_None)},
           {"place", PyUnicode_FromString(m.GetPlace().is_gpu() ? "Place(gpu:0)" : "Place(cpu)")},
           {"stop_gradient", ToPyObject(m.IsStopGradient())}});
      if (!AppendStolen(out, d)) {
        Py_DECREF(out);
        return nullptr;
      }
    }
  }
  return out;
}

PyObject* Name(PyObject* o, PyObject*) { return Str(Node(o).name()); }
PyObject* InputMeta(PyObject* o, PyObject*) {
  std::lock_guard<std::mutex> lock(Node(o).mutex());
  return MetaList(Node(o).InputMeta());
}
PyObject* OutputMeta(PyObject* o, PyObject*) {
  std::lock_guard<std::mutex> lock(Node(o).mutex());
  return MetaList(Node(o).OutputMeta());
}

PyObject* NextFunctions(PyObject* o, void*) {
  // A leaf's node sends nothing on (its one output slot is a placeholder).
  if (Node(o).IsAccumulationNode()) return PyTuple_New(0);
  const SlotMetas& metas = Node(o).OutputMeta();
  PyObject* out = PyList_New(0);
  if (!out) return nullptr;
  for (const auto& slot : metas) {
    for (const GradSlotMeta& m : slot) {
      const Edge& e = m.GetEdge();
      PyObject* item = nullptr;
      if (m.IsStopGradient() || !e.IsInitialized()) {
        item = Py_NewRef(Py_None);
      } else {
        PyObject* n = GradNodeToPy(e.GetMutableGradNode());
        item = n ? Py_BuildValue("(Nn)", n, static_cast<Py_ssize_t>(e.GetEdgeRankInfo().first))
                 : nullptr;
      }
      if (!AppendStolen(out, item)) {
        Py_DECREF(out);
        return nullptr;
      }
    }
  }
  PyObject* t = PyList_AsTuple(out);
  Py_DECREF(out);
  return t;
}

PyObject* Attributes(PyObject* o, PyObject*) {
  PyObject* d = PyDict_New();
  if (!d) return nullptr;
  for (const SavedValueInfo& v : Node(o).SavedValues()) {
    if (v.is_tensor) continue;
    PyObject* s = Str(v.value);
    if (!s || PyDict_SetItemString(d, v.name.c_str(), s) != 0) {
      Py_XDECREF(s);
      Py_DECREF(d);
      return nullptr;
    }
    Py_DECREF(s);
  }
  return d;
}

PyObject* SavedTensors(PyObject* o, PyObject*) {
  std::vector<SavedValueInfo> values;
  {
    std::lock_guard<std::mutex> lock(Node(o).mutex());  // a backward may be releasing them
    values = Node(o).SavedValues();
  }
  PyObject* out = PyList_New(0);
  if (!out) return nullptr;
  for (const SavedValueInfo& v : values) {
    if (!v.is_tensor) continue;
    const bool has_meta = v.dtype != DType::kUndefined;
    PyObject* d = MakeDict({{"name", Str(v.name)},
                            {"shape", has_meta ? ShapeOf(v.dims) : Py_NewRef(Py_None)},
                            {"dtype", has_meta ? ToPyObject(v.dtype) : Py_NewRef(Py_None)},
                            {"bytes", PyLong_FromLongLong(v.bytes)},
                            {"released", ToPyObject(v.released)},
                            {"meta_only", ToPyObject(v.meta_only)},
                            {"storage", PyLong_FromVoidPtr(const_cast<void*>(v.storage))}});
    if (!AppendStolen(out, d)) {
      Py_DECREF(out);
      return nullptr;
    }
  }
  return out;
}

PyObject* Hooks(PyObject* o, PyObject*) {
  GradNodeBase& n = Node(o);
  PyObject* out = PyList_New(0);
  if (!out) return nullptr;
  auto add = [&](PyObject* d) { return AppendStolen(out, d); };
  for (const auto& [id, entry] : n.GetGradientHookFuntions()) {
    if (!add(MakeDict({{"kind", PyUnicode_FromString("tensor")},
                       {"id", PyLong_FromLongLong(id)},
                       {"slot", PyLong_FromSize_t(std::get<0>(entry))},
                       {"rank", PyLong_FromSize_t(std::get<1>(entry))}}))) {
      Py_DECREF(out);
      return nullptr;
    }
  }
  for (const auto& [slot, rank] : n.RetainGradSlots()) {
    if (!add(MakeDict({{"kind", PyUnicode_FromString("retain_grad")},
                       {"slot", PyLong_FromSize_t(slot)},
                       {"rank", PyLong_FromSize_t(rank)}}))) {
      Py_DECREF(out);
      return nullptr;
    }
  }
  if (n.IsAccumulationNode()) {
    const size_t count = static_cast<const GradNodeAccumulation&>(n).ReduceHookCount();
    for (size_t i = 0; i < count; ++i) {
      if (!add(MakeDict({{"kind", PyUnicode_FromString("grad_accumulated")}}))) {
        Py_DECREF(out);
        return nullptr;
      }
    }
  }
  return out;
}

PyObject* GetSequenceNr(PyObject* o, void*) {
  return PyLong_FromUnsignedLongLong(Node(o).sequence_nr());
}
PyObject* GetForwardOp(PyObject* o, void*) { return PyUnicode_FromString(Node(o).forward_op()); }
PyObject* GetReleased(PyObject* o, void*) { return ToPyObject(Node(o).IsTensorWrappersCleared()); }
PyObject* GetLayerPath(PyObject* o, void*) {
  const std::string* p = Node(o).layer_path();
  if (!p) Py_RETURN_NONE;
  return Str(*p);
}
PyObject* GetForwardStack(PyObject* o, void*) {
  const ForwardStack* s = Node(o).forward_stack();
  if (!s) Py_RETURN_NONE;
  PyObject* out = PyList_New(static_cast<Py_ssize_t>(s->frames.size()));
  if (!out) return nullptr;
  for (size_t i = 0; i < s->frames.size(); ++i) {
    const ForwardFrame& f = s->frames[i];
    PyObject* t =
        Py_BuildValue("(NLN)", Str(f.file), static_cast<long long>(f.line), Str(f.function));
    if (!t) {
      Py_DECREF(out);
      return nullptr;
    }
    PyList_SET_ITEM(out, static_cast<Py_ssize_t>(i), t);
  }
  return out;
}
PyObject* GetVariable(PyObject* o, void*) {
  const GradNodeBase& n = Node(o);
  if (!n.IsAccumulationNode()) {
    PyErr_Format(PyExc_AttributeError,
                 "'%s' has no attribute 'variable': only a GradNodeAccumulation (the grad node "
                 "of a leaf) has one",
                 n.name().c_str());
    return nullptr;
  }
  Tensor leaf = static_cast<const GradNodeAccumulation&>(n).Variable();
  if (!leaf.defined()) Py_RETURN_NONE;
  return ToPyObject(std::move(leaf));
}

PyObject* RegisterHook(PyObject* o, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  OAR_PY_TRY
  static const char* const kNames[] = {"hook", "slot", "rank"};
  PyObject* a[3];
  ParseArgs("GradNode.register_hook", kNames, 3, args, nargs, kwnames, a);
  if (!PyCallable_Check(a[0])) {
    throw errors::InvalidType("GradNode.register_hook(): argument 'hook' must be callable, got ",
                              Py_TYPE(a[0])->tp_name);
  }
  const int64_t slot = CastPyArg2Long(a[1], "GradNode.register_hook", "slot", 1, 0);
  const int64_t rank = CastPyArg2Long(a[2], "GradNode.register_hook", "rank", 2, 0);
  GradNodeBase& n = Node(o);
  const auto& metas = n.InputMeta();
  if (slot < 0 || static_cast<size_t>(slot) >= metas.size() || rank < 0 ||
      static_cast<size_t>(rank) >= std::max<size_t>(metas[slot].size(), 1)) {
    throw errors::OutOfRange("GradNode.register_hook(): (slot, rank) = (", slot, ", ", rank,
                             ") is not a gradient input of ", n.name(), ", which has ",
                             metas.size(), " slot(s)");
  }
  return RegisterPythonNodeHook(reinterpret_cast<GradNodeObject*>(o)->node,
                                static_cast<size_t>(slot), static_cast<size_t>(rank), a[0]);
  OAR_PY_CATCH
}

PyMethodDef g_methods[] = {
    {"register_hook", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(RegisterHook)),
     METH_FASTCALL | METH_KEYWORDS,
     "register_hook(hook, slot=0, rank=0): hook(grad) -> Tensor or None runs on the gradient "
     "arriving at input (slot, rank) before the node computes; returns a handle with remove()."},
    {"name", Name, METH_NOARGS, "The node's class name, e.g. 'MatmulGradNode'."},
    {"input_meta", InputMeta, METH_NOARGS,
     "Per gradient input (one per forward output): dicts of slot, rank, shape, dtype, place and "
     "stop_gradient."},
    {"output_meta", OutputMeta, METH_NOARGS,
     "Per gradient output (one per forward input): dicts of slot, rank, shape, dtype, place and "
     "stop_gradient."},
    {"attributes", Attributes, METH_NOARGS,
     "The forward op's attributes the backward keeps, name -> value as text."},
    {"saved_tensors", SavedTensors, METH_NOARGS,
     "The tensors saved for the backward: dicts of name, shape, dtype, bytes, released, "
     "meta_only and storage (an id of the memory held, shared between views)."},
    {"hooks", Hooks, METH_NOARGS,
     "The hooks registered on this node: dicts with kind ('tensor', 'retain_grad', "
     "'grad_accumulated') and where they apply."},
    {nullptr, nullptr, 0, nullptr}};

PyGetSetDef g_getset[] = {
    {"next_functions", NextFunctions, nullptr,
     "(node, input_slot) per gradient this node sends on, None where the edge is cut "
     "(stop_gradient).",
     nullptr},
    {"sequence_nr", GetSequenceNr, nullptr,
     "Creation order of grad nodes on the forward op's thread.", nullptr},
    {"forward_op", GetForwardOp, nullptr, "The forward op this node differentiates.", nullptr},
    {"released", GetReleased, nullptr,
     "A backward without retain_graph has freed the saved tensors.", nullptr},
    {"layer_path", GetLayerPath, nullptr,
     "The oar.nn.Layer path that ran the forward op ('Net.fc1'), or None.", nullptr},
    {"forward_stack", GetForwardStack, nullptr,
     "[(file, line, function), ...] of the forward op's call, innermost first, when "
     "FLAGS_record_forward_stack was on; else None.",
     nullptr},
    {"variable", GetVariable, nullptr, "The leaf tensor of a GradNodeAccumulation.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

// ---- forward stacks ----------------------------------------------------------------------

// The oar package directory with a trailing '/', read once under the GIL.
const std::string& PackageDir() {
  static std::string dir;  // guarded by the GIL
  static bool done = false;
  if (!done) {
    done = true;
    if (PyObject* m = PyImport_ImportModule("oar")) {
      if (PyObject* f = PyObject_GetAttrString(m, "__file__")) {
        if (const char* s = PyUnicode_AsUTF8(f)) {
          dir = s;
          dir.erase(dir.rfind('/') + 1);
        }
        Py_DECREF(f);
      }
      Py_DECREF(m);
    }
    PyErr_Clear();
  }
  return dir;
}

constexpr size_t kMaxFrames = 16;

// Note [Forward stacks]: the frames outside oar, innermost first. Ops may run
// with the GIL released (large tensors), so it is taken back here.
std::shared_ptr<const ForwardStack> RecordPythonStack() {
  if (!Py_IsInitialized()) return nullptr;
  PyGILState_STATE gil = PyGILState_Ensure();
  auto stack = std::make_shared<ForwardStack>();
  const std::string& pkg = PackageDir();
  PyFrameObject* f = PyEval_GetFrame();
  Py_XINCREF(f);
  while (f && stack->frames.size() < kMaxFrames) {
    PyCodeObject* code = PyFrame_GetCode(f);
    const char* file = PyUnicode_AsUTF8(code->co_filename);
    if (file && (pkg.empty() || std::string_view(file).substr(0, pkg.size()) != pkg)) {
      const char* fn = PyUnicode_AsUTF8(code->co_name);
      stack->frames.push_back({file, PyFrame_GetLineNumber(f), fn ? fn : "?"});
    }
    Py_DECREF(code);
    PyFrameObject* back = PyFrame_GetBack(f);
    Py_DECREF(f);
    f = back;
  }
  Py_XDECREF(f);
  PyErr_Clear();
  PyGILState_Release(gil);
  if (stack->frames.empty()) return nullptr;
  return stack;
}

// ---- layer scopes ------------------------------------------------------------------------

// The paths to restore on exit, per thread: Python's try/finally keeps them balanced.
thread_local std::vector<const std::string*> tls_layer_stack;

PyObject* EnterLayer(PyObject*, PyObject* path) {
  Py_ssize_t n = 0;
  const char* s = PyUnicode_Check(path) ? PyUnicode_AsUTF8AndSize(path, &n) : nullptr;
  if (!s) {
    PyErr_SetString(PyExc_TypeError, "_enter_layer(): argument 'path' must be a str");
    return nullptr;
  }
  tls_layer_stack.push_back(EnterLayerScope(std::string_view(s, static_cast<size_t>(n))));
  Py_RETURN_NONE;
}

PyObject* ExitLayer(PyObject*, PyObject*) {
  if (!tls_layer_stack.empty()) {
    ExitLayerScope(tls_layer_stack.back());
    tls_layer_stack.pop_back();
  }
  Py_RETURN_NONE;
}

PyObject* CurrentLayer(PyObject*, PyObject*) {
  const std::string* p = CurrentLayerPath();
  if (!p) Py_RETURN_NONE;
  return Str(*p);
}

}  // namespace

PyObject* GradNodeToPy(std::shared_ptr<GradNodeBase> node) {
  if (!node) Py_RETURN_NONE;
  auto* o = reinterpret_cast<GradNodeObject*>(g_grad_node_type->tp_alloc(g_grad_node_type, 0));
  if (!o) return nullptr;
  new (&o->node) std::shared_ptr<GradNodeBase>(std::move(node));
  return reinterpret_cast<PyObject*>(o);
}

PyObject* TensorGradFn(const Tensor& t) {
  auto* meta = EagerUtils::nullable_autograd_meta(t);
  if (!meta || meta->StopGradient()) Py_RETURN_NONE;
  if (EagerUtils::IsLeafTensor(t)) return GradNodeToPy(EagerUtils::GetGradAccumulationNode(t));
  return GradNodeToPy(meta->GetMutableGradNode());
}

bool CreateGradNodeType(PyObject* module) {
  static PyType_Slot slots[] = {
      {Py_tp_dealloc, reinterpret_cast<void*>(Dealloc)},
      {Py_tp_repr, reinterpret_cast<void*>(Repr)},
      {Py_tp_hash, reinterpret_cast<void*>(Hash)},
      {Py_tp_richcompare, reinterpret_cast<void*>(RichCompare)},
      {Py_tp_methods, g_methods},
      {Py_tp_getset, g_getset},
      {Py_tp_doc, const_cast<char*>("A node of the backward graph (Tensor.grad_fn).")},
      {0, nullptr}};
  static PyType_Spec spec = {"oar._C.GradNode", sizeof(GradNodeObject), 0, Py_TPFLAGS_DEFAULT,
                             slots};
  PyObject* t = PyType_FromSpec(&spec);
  if (!t) return false;
  g_grad_node_type = reinterpret_cast<PyTypeObject*>(t);
  if (PyModule_AddObjectRef(module, "GradNode", t) < 0) return false;
  SetForwardStackRecorder(&RecordPythonStack);
  return true;
}

PyMethodDef g_graph_functions[] = {
    {"_enter_layer", EnterLayer, METH_O, "oar.nn.Layer.__call__: a layer path starts running."},
    {"_exit_layer", ExitLayer, METH_NOARGS, "oar.nn.Layer.__call__: the layer returned."},
    {"_current_layer", CurrentLayer, METH_NOARGS, "The layer path running on this thread."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace oar::py
