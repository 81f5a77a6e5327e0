// oar._C._dist_*: process groups, collectives and the DataParallel reducer
// (src/oar/distributed/) behind oar.distributed. Python holds groups, work
// handles and reducers through capsules; python/oar/distributed/ validates
// arguments with Paddle's names, so these functions are internal.
#include <memory>
#include <string>
#include <vector>

#include "oar/bindings/capsule.h"
#include "oar/bindings/py_utils.h"
#include "oar/bindings/tensor_object.h"
#include "oar/core/errors.h"
#include "oar/distributed/process_group.h"
#include "oar/distributed/reducer.h"

namespace oar::py {
namespace {

using distributed::ProcessGroup;
using distributed::ReduceOp;
using distributed::Reducer;
using distributed::Work;

constexpr const char* kGroup = "oar._C._ProcessGroup";
constexpr const char* kWork = "oar._C._Work";
constexpr const char* kReducer = "oar._C._Reducer";

ProcessGroup& Group(PyObject* o) { return *GetShared<ProcessGroup>(o, kGroup); }
std::shared_ptr<ProcessGroup> GroupPtr(PyObject* o) {
  return GetShared<ProcessGroup>(o, kGroup);
}

Tensor& TensorArg(PyObject* o, const char* api, const char* arg) {
  if (!IsTensor(o)) {
    throw errors::InvalidType(api, "(): ", arg, " must be a Tensor, got ", Py_TYPE(o)->tp_name);
  }
  return AsTensor(o);
}

std::vector<Tensor> TensorList(PyObject* o, const char* api, const char* arg) {
  if (!PyList_Check(o) && !PyTuple_Check(o)) {
    throw errors::InvalidType(api, "(): ", arg, " must be a list of Tensors");
  }
  std::vector<Tensor> out;
  const Py_ssize_t n = PySequence_Size(o);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = PySequence_Fast_GET_ITEM(o, i);
    out.push_back(TensorArg(item, api, arg));
  }
  return out;
}

ReduceOp Op(int op) {
  if (op < 0 || op > static_cast<int>(ReduceOp::kAvg)) {
    throw errors::InvalidArgument("all_reduce(): op must be a ReduceOp, got ", op);
  }
  return static_cast<ReduceOp>(op);
}

PyObject* Init(PyObject*, PyObject*) {
  OAR_PY_TRY
  auto options = distributed::Options::FromEnvironment();
  std::shared_ptr<ProcessGroup> g;
  {
    GilRelease nogil;  // waits for the other ranks
    g = ProcessGroup::Init(options);
  }
  return WrapShared(std::move(g), kGroup);
  OAR_PY_CATCH
}

PyObject* Info(PyObject*, PyObject* cap) {
  OAR_PY_TRY
  ProcessGroup& g = Group(cap);
  PyObject* ranks = PyList_New(0);
  if (!ranks) return nullptr;
  for (int r : g.ranks()) {
    PyObject* v = PyLong_FromLong(r);
    if (!v || PyList_Append(ranks, v) != 0) {
      Py_XDECREF(v);
      Py_DECREF(ranks);
      return nullptr;
    }
    Py_DECREF(v);
  }
  return Py_BuildValue("(iiiNid)", g.rank(), g.size(), g.global_rank(), ranks, g.id(),
                       g.timeout().count() / 1000.0);
  OAR_PY_CATCH
}

PyObject* AllReduce(PyObject*, PyObject* args) {
  OAR_PY_TRY
  PyObject *cap, *t;
  int op;
  if (!PyArg_ParseTuple(args, "OOi:_dist_all_reduce", &cap, &t, &op)) return nullptr;
  return WrapShared(Group(cap).AllReduce(TensorArg(t, "all_reduce", "tensor"), Op(op)), kWork);
  OAR_PY_CATCH
}

PyObject* Broadcast(PyObject*, PyObject* args) {
  OAR_PY_TRY
  PyObject *cap, *t;
  int src;
  if (!PyArg_ParseTuple(args, "OOi:_dist_broadcast", &cap, &t, &src)) return nullptr;
  return WrapShared(Group(cap).Broadcast(TensorArg(t, "broadcast", "tensor"), src), kWork);
  OAR_PY_CATCH
}

PyObject* AllGather(PyObject*, PyObject* args) {
  OAR_PY_TRY
  PyObject *cap, *list, *t;
  if (!PyArg_ParseTuple(args, "OOO:_dist_all_gather", &cap, &list, &t)) return nullptr;
  return WrapShared(Group(cap).AllGather(TensorList(list, "all_gather", "tensor_list"),
                                   TensorArg(t, "all_gather", "tensor")),
              kWork);
  OAR_PY_CATCH
}

PyObject* ReduceScatter(PyObject*, PyObject* args) {
  OAR_PY_TRY
  PyObject *cap, *t, *list;
  int op;
  if (!PyArg_ParseTuple(args, "OOOi:_dist_reduce_scatter", &cap, &t, &list, &op)) return nullptr;
  return WrapShared(Group(cap).ReduceScatter(TensorArg(t, "reduce_scatter", "tensor"),
                                       TensorList(list, "reduce_scatter", "tensor_list"), Op(op)),
              kWork);
  OAR_PY_CATCH
}

PyObject* Reduce(PyObject*, PyObject* args) {
  OAR_PY_TRY
  PyObject *cap, *t;
  int dst, op;
  if (!PyArg_ParseTuple(args, "OOii:_dist_reduce", &cap, &t, &dst, &op)) return nullptr;
  return WrapShared(Group(cap).Reduce(TensorArg(t, "reduce", "tensor"), dst, Op(op)), kWork);
  OAR_PY_CATCH
}

PyObject* Gather(PyObject*, PyObject* args) {
  OAR_PY_TRY
  PyObject *cap, *list, *t;
  int dst;
  if (!PyArg_ParseTuple(args, "OOOi:_dist_gather", &cap, &list, &t, &dst)) return nullptr;
  return WrapShared(Group(cap).Gather(TensorList(list, "gather", "gather_list"),
                                TensorArg(t, "gather", "tensor"), dst),
              kWork);
  OAR_PY_CATCH
}

PyObject* Scatter(PyObject*, PyObject* args) {
  OAR_PY_TRY
  PyObject *cap, *t, *list;
  int src;
  if (!PyArg_ParseTuple(args, "OOOi:_dist_scatter", &cap, &t, &list, &src)) return nullptr;
  return WrapShared(Group(cap).Scatter(TensorArg(t, "scatter", "tensor"),
                                 TensorList(list, "scatter", "tensor_list"), src),
              kWork);
  OAR_PY_CATCH
}

std::vector<int64_t> Counts(PyObject* o, const char* arg) {
  if (!PyList_Check(o) && !PyTuple_Check(o)) {
    throw errors::InvalidType("alltoall(): ", arg, " must be a list of ints");
  }
  std::vector<int64_t> out;
  for (Py_ssize_t i = 0; i < PySequence_Size(o); ++i) {
    PyObject* item = PySequence_Fast_GET_ITEM(o, i);
    if (!PyLong_Check(item) || PyBool_Check(item)) {
      throw errors::InvalidType("alltoall(): ", arg,
                                " must be a list of ints, got an item of type ",
                                Py_TYPE(item)->tp_name);
    }
    const long long v = PyLong_AsLongLong(item);
    if (v == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      throw errors::InvalidArgument("alltoall(): ", arg, " holds a size past int64");
    }
    out.push_back(v);
  }
  return out;
}

PyObject* AllToAll(PyObject*, PyObject* args) {
  OAR_PY_TRY
  PyObject *cap, *out, *out_counts, *in, *in_counts;
  if (!PyArg_ParseTuple(args, "OOOOO:_dist_alltoall", &cap, &out, &out_counts, &in, &in_counts)) {
    return nullptr;
  }
  return WrapShared(Group(cap).AllToAll(
                  TensorArg(out, "alltoall", "out_tensor"), Counts(out_counts, "out_split_sizes"),
                  TensorArg(in, "alltoall", "in_tensor"), Counts(in_counts, "in_split_sizes")),
              kWork);
  OAR_PY_CATCH
}

PyObject* Send(PyObject*, PyObject* args) {
  OAR_PY_TRY
  PyObject *cap, *t;
  int peer;
  if (!PyArg_ParseTuple(args, "OOi:_dist_send", &cap, &t, &peer)) return nullptr;
  return WrapShared(Group(cap).Send(TensorArg(t, "send", "tensor"), peer), kWork);
  OAR_PY_CATCH
}

PyObject* Recv(PyObject*, PyObject* args) {
  OAR_PY_TRY
  PyObject *cap, *t;
  int peer;
  if (!PyArg_ParseTuple(args, "OOi:_dist_recv", &cap, &t, &peer)) return nullptr;
  return WrapShared(Group(cap).Recv(TensorArg(t, "recv", "tensor"), peer), kWork);
  OAR_PY_CATCH
}

PyObject* Barrier(PyObject*, PyObject* cap) {
  OAR_PY_TRY
  return WrapShared(Group(cap).Barrier(), kWork);
  OAR_PY_CATCH
}

PyObject* Fence(PyObject*, PyObject* cap) {
  OAR_PY_TRY
  return WrapShared(Group(cap).Fence(), kWork);
  OAR_PY_CATCH
}

PyObject* NewGroup(PyObject*, PyObject* args) {
  OAR_PY_TRY
  PyObject *cap, *list;
  if (!PyArg_ParseTuple(args, "OO:_dist_new_group", &cap, &list)) return nullptr;
  std::vector<int> ranks;
  PyObject* seq = PySequence_Fast(list, "new_group(): ranks must be a list of ints");
  if (!seq) return nullptr;
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); ++i) {
    long r = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
    if (r == -1 && PyErr_Occurred()) {
      Py_DECREF(seq);
      return nullptr;
    }
    ranks.push_back(static_cast<int>(r));
  }
  Py_DECREF(seq);
  ProcessGroup& g = Group(cap);
  std::shared_ptr<ProcessGroup> sub;
  {
    GilRelease nogil;
    sub = g.NewGroup(std::move(ranks));
  }
  return WrapShared(std::move(sub), kGroup);
  OAR_PY_CATCH
}

PyObject* WorkWait(PyObject*, PyObject* cap) {
  OAR_PY_TRY
  Work& w = *GetShared<Work>(cap, kWork);
  {
    GilRelease nogil;
    w.Wait();
  }
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

PyObject* WorkDone(PyObject*, PyObject* cap) {
  OAR_PY_TRY
  return PyBool_FromLong(GetShared<Work>(cap, kWork)->IsCompleted());
  OAR_PY_CATCH
}

PyObject* ReducerNew(PyObject*, PyObject* args) {
  OAR_PY_TRY
  PyObject *cap, *list;
  unsigned long long bucket = 0, first = 0;
  int find_unused = 0;
  if (!PyArg_ParseTuple(args, "OOKKp:_dist_reducer_new", &cap, &list, &bucket, &first,
                        &find_unused)) {
    return nullptr;
  }
  distributed::ReducerOptions o;
  o.bucket_bytes = bucket;
  o.first_bucket_bytes = first;
  o.find_unused_parameters = find_unused;
  auto r =
      std::make_shared<Reducer>(TensorList(list, "DataParallel", "parameters"), GroupPtr(cap), o);
  return WrapShared(std::move(r), kReducer);
  OAR_PY_CATCH
}

PyObject* ReducerSetSync(PyObject*, PyObject* args) {
  OAR_PY_TRY
  PyObject* cap;
  int on;
  if (!PyArg_ParseTuple(args, "Op:_dist_reducer_set_sync", &cap, &on)) return nullptr;
  Reducer& r = *GetShared<Reducer>(cap, kReducer);
  const bool prev = r.require_sync();
  r.set_require_sync(on);
  return PyBool_FromLong(prev);
  OAR_PY_CATCH
}

PyObject* ReducerBuckets(PyObject*, PyObject* cap) {
  OAR_PY_TRY
  PyObject* out = PyList_New(0);
  if (!out) return nullptr;
  for (const auto& b : GetShared<Reducer>(cap, kReducer)->buckets()) {
    PyObject* l = PyList_New(0);
    for (size_t p : b) {
      PyObject* v = PyLong_FromSize_t(p);
      PyList_Append(l, v);
      Py_DECREF(v);
    }
    PyList_Append(out, l);
    Py_DECREF(l);
  }
  return out;
  OAR_PY_CATCH
}

PyObject* ReducerTimes(PyObject*, PyObject* cap) {
  OAR_PY_TRY
  const auto t = GetShared<Reducer>(cap, kReducer)->times();
  auto list = [](const std::vector<int64_t>& v) {
    PyObject* l = PyList_New(0);
    for (int64_t x : v) {
      PyObject* o = PyLong_FromLongLong(x);
      PyList_Append(l, o);
      Py_DECREF(o);
    }
    return l;
  };
  return Py_BuildValue("{sNsNsLsL}", "bucket_launch_ns", list(t.bucket_launch_ns),
                       "bucket_start_ns", list(t.bucket_start_ns), "last_hook_ns",
                       static_cast<long long>(t.last_hook_ns), "final_ns",
                       static_cast<long long>(t.final_ns));
  OAR_PY_CATCH
}

}  // namespace

PyMethodDef g_distributed_functions[] = {
    {"_dist_init", Init, METH_NOARGS, "The world process group, from the environment."},
    {"_dist_group_info", Info, METH_O, "(rank, size, global_rank, ranks, id, timeout_s)."},
    {"_dist_all_reduce", AllReduce, METH_VARARGS, "_dist_all_reduce(group, tensor, op): work."},
    {"_dist_broadcast", Broadcast, METH_VARARGS, "_dist_broadcast(group, tensor, src): work."},
    {"_dist_all_gather", AllGather, METH_VARARGS, "_dist_all_gather(group, list, tensor): work."},
    {"_dist_reduce_scatter", ReduceScatter, METH_VARARGS,
     "_dist_reduce_scatter(group, tensor, list, op): work."},
    {"_dist_reduce", Reduce, METH_VARARGS, "_dist_reduce(group, tensor, dst, op): work."},
    {"_dist_gather", Gather, METH_VARARGS, "_dist_gather(group, list, tensor, dst): work."},
    {"_dist_scatter", Scatter, METH_VARARGS, "_dist_scatter(group, tensor, list, src): work."},
    {"_dist_alltoall", AllToAll, METH_VARARGS,
     "_dist_alltoall(group, out, out_counts, in, in_counts): work."},
    {"_dist_send", Send, METH_VARARGS, "_dist_send(group, tensor, dst): work."},
    {"_dist_recv", Recv, METH_VARARGS, "_dist_recv(group, tensor, src): work."},
    {"_dist_barrier", Barrier, METH_O, "_dist_barrier(group): work."},
    {"_dist_fence", Fence, METH_O, "_dist_fence(group): work done after the earlier ones."},
    {"_dist_new_group", NewGroup, METH_VARARGS, "_dist_new_group(group, ranks): group or None."},
    {"_dist_work_wait", WorkWait, METH_O, "Waits for a work handle; raises its error."},
    {"_dist_work_done", WorkDone, METH_O, "Whether a work handle completed."},
    {"_dist_reducer_new", ReducerNew, METH_VARARGS,
     "_dist_reducer_new(group, params, bucket_bytes, first_bucket_bytes, find_unused)."},
    {"_dist_reducer_set_sync", ReducerSetSync, METH_VARARGS,
     "_dist_reducer_set_sync(reducer, on): the previous setting."},
    {"_dist_reducer_buckets", ReducerBuckets, METH_O, "Parameter indices per bucket."},
    {"_dist_reducer_times", ReducerTimes, METH_O, "Timestamps of the last synced backward."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace oar::py
