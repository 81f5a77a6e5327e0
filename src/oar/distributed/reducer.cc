#include "oar/distributed/reducer.h"

#include <cstring>
#include <mutex>

#include "oar/autograd/accumulation_node.h"
#include "oar/autograd/autograd_meta.h"
#include "oar/autograd/backward.h"
#include "oar/core/errors.h"
#include "oar/core/profiler/recorder.h"
#include "oar/distributed/reduce_kernels.h"
#include "oar/eager/creation.h"

namespace oar::distributed {

// Note [Bucket launch order]
// Gloo matches collectives by the order each rank issues them, but a rank's
// buckets may complete in a different order than another's (the engine runs
// ready nodes in whatever order its graph gives). So bucket b is issued only
// once buckets 0..b-1 were: a complete bucket waits for its predecessors, and
// every rank issues the same sequence.

struct ReducerState {
  std::mutex mu;
  std::vector<Tensor> params;
  std::shared_ptr<ProcessGroup> group;
  ReducerOptions options;
  struct Bucket {
    std::vector<size_t> params;
    std::vector<size_t> offsets;  // in elements
    Tensor flat;
    size_t pending = 0;
    WorkPtr work;
  };
  std::vector<Bucket> buckets;
  std::vector<size_t> bucket_of, slot_of;
  std::vector<bool> ready;
  size_t next_launch = 0;
  bool in_pass = false;
  bool require_sync = true;
  ReducerTimes times;

  void StartPass() {
    in_pass = true;
    next_launch = 0;
    std::fill(ready.begin(), ready.end(), false);
    for (auto& b : buckets) {
      b.pending = b.params.size();
      b.work.reset();
    }
    times = ReducerTimes{};
    times.bucket_launch_ns.assign(buckets.size(), 0);
    times.bucket_start_ns.assign(buckets.size(), 0);
  }

  void CopyIn(size_t p) {
    Bucket& b = buckets[bucket_of[p]];
    const Tensor& param = params[p];
    char* dst =
        static_cast<char*>(b.flat.dense().data()) + b.offsets[slot_of[p]] * SizeOf(param.dtype());
    const size_t bytes = static_cast<size_t>(param.numel()) * SizeOf(param.dtype());
    Tensor g = param.grad();
    if (!g.defined() || !g.initialized()) {
      std::memset(dst, 0, bytes);  // an unused parameter contributes zeros
      return;
    }
    if (!g.is_contiguous() || g.dtype() != param.dtype() || g.numel() != param.numel()) {
      throw errors::PreconditionNotMet("DataParallel: the gradient of parameter ", p, " ('",
                                       param.name(), "') must be contiguous and match it");
    }
    std::memcpy(dst, g.dense().data(), bytes);
  }

  void MarkReady(size_t p) {
    if (ready[p]) return;  // one accumulation per pass; a second is a retain_graph rerun
    ready[p] = true;
    CopyIn(p);
    Bucket& b = buckets[bucket_of[p]];
    if (--b.pending == 0) LaunchReady();
  }

  void LaunchReady() {  // Note [Bucket launch order]
    while (next_launch < buckets.size() && buckets[next_launch].pending == 0) {
      times.bucket_launch_ns[next_launch] = profiler::NowNs();
      // The buckets come from one model on every rank (Note [Ranks agree before Gloo
      // runs a collective]).
      buckets[next_launch].work =
          group->AllReduce(buckets[next_launch].flat, ReduceOp::kSum, /*agree=*/false);
      ++next_launch;
    }
  }

  void Finish() {
    in_pass = false;
    times.final_ns = profiler::NowNs();
    if (next_launch < buckets.size()) {
      std::vector<size_t> missing;
      for (size_t p = 0; p < params.size(); ++p) {
        if (!ready[p]) missing.push_back(p);
      }
      if (!options.find_unused_parameters) {
        std::string names;
        for (size_t i = 0; i < missing.size() && i < 8; ++i) {
          names += StrCat(i ? ", " : "", missing[i], params[missing[i]].name().empty() ? "" : " '",
                          params[missing[i]].name(), params[missing[i]].name().empty() ? "" : "'");
        }
        // Issue nothing: the other ranks' all-reduces fail with this rank named
        // after the timeout rather than mixing partial buckets.
        throw errors::PreconditionNotMet(
            "DataParallel: backward produced no gradient for parameter(s) ", names,
            missing.size() > 8 ? ", ..." : "", " on rank ", group->global_rank(),
            "; pass find_unused_parameters=True if some parameters are unused in a step");
      }
      for (size_t p : missing) {
        ready[p] = true;
        CopyIn(p);
        --buckets[bucket_of[p]].pending;
      }
      LaunchReady();
    }
    const int n = group->size();
    for (size_t bi = 0; bi < buckets.size(); ++bi) {
      Bucket& b = buckets[bi];
      b.work->Wait();
      times.bucket_start_ns[bi] = b.work->start_ns();
      DivideInPlace(b.flat.dense().data(), static_cast<size_t>(b.flat.numel()), b.flat.dtype(), n);
      for (size_t s = 0; s < b.params.size(); ++s) {
        const Tensor& param = params[b.params[s]];
        auto* meta = static_cast<AutogradMeta*>(param.get_autograd_meta());
        Tensor* g = meta->MutableGrad();
        if (!g->defined() || !g->initialized()) *g = zeros(param.shape(), param.dtype());
        g->bump_inplace_version();
        std::memcpy(
            g->dense().data(),
            static_cast<const char*>(b.flat.dense().data()) + b.offsets[s] * SizeOf(param.dtype()),
            static_cast<size_t>(param.numel()) * SizeOf(param.dtype()));
      }
    }
  }

  void OnGrad(const std::weak_ptr<ReducerState>& self, size_t p) {
    std::lock_guard<std::mutex> lock(mu);
    if (!require_sync) return;
    if (!in_pass) {
      StartPass();
      RegisterBackwardFinalHook([self] {
        if (auto s = self.lock()) {
          std::lock_guard<std::mutex> l(s->mu);
          if (s->in_pass) s->Finish();
        }
      });
    }
    times.last_hook_ns = profiler::NowNs();
    MarkReady(p);
  }
};

Reducer::Reducer(std::vector<Tensor> params, std::shared_ptr<ProcessGroup> group,
                 ReducerOptions options)
    : state_(std::make_shared<ReducerState>()) {
  if (!group) throw errors::InvalidArgument("DataParallel: group must not be null");
  auto& st = *state_;
  st.group = std::move(group);
  st.options = options;
  st.params = std::move(params);
  const size_t np = st.params.size();
  for (size_t p = 0; p < np; ++p) {
    const Tensor& t = st.params[p];
    if (!t.defined() || !t.is_cpu() || t.stop_gradient() || !t.is_leaf()) {
      throw errors::InvalidArgument("DataParallel: parameter ", p,
                                    " must be a CPU leaf tensor with stop_gradient=False");
    }
    CheckCollectiveDType(t.dtype(), "DataParallel");
  }
  st.bucket_of.assign(np, 0);
  st.slot_of.assign(np, 0);
  st.ready.assign(np, false);
  // Reverse registration order: the last layers' gradients are ready first.
  std::vector<ReducerState::Bucket> open;  // the bucket being filled, per dtype
  std::vector<DType> open_dtype;
  std::vector<size_t> open_bytes;
  auto close = [&](size_t i) {
    st.buckets.push_back(std::move(open[i]));
    open.erase(open.begin() + static_cast<long>(i));
    open_dtype.erase(open_dtype.begin() + static_cast<long>(i));
    open_bytes.erase(open_bytes.begin() + static_cast<long>(i));
  };
  for (size_t k = np; k-- > 0;) {
    const Tensor& t = st.params[k];
    size_t i = 0;
    while (i < open.size() && open_dtype[i] != t.dtype()) ++i;
    if (i == open.size()) {
      open.emplace_back();
      open_dtype.push_back(t.dtype());
      open_bytes.push_back(0);
    }
    auto& b = open[i];
    b.offsets.push_back(b.params.empty() ? 0
                                         : b.offsets.back() + st.params[b.params.back()].numel());
    b.params.push_back(k);
    open_bytes[i] += static_cast<size_t>(t.numel()) * SizeOf(t.dtype());
    const size_t cap = st.buckets.empty() ? options.first_bucket_bytes : options.bucket_bytes;
    if (open_bytes[i] >= cap) close(i);
  }
  while (!open.empty()) close(0);
  for (size_t bi = 0; bi < st.buckets.size(); ++bi) {
    auto& b = st.buckets[bi];
    int64_t numel = 0;
    for (size_t s = 0; s < b.params.size(); ++s) {
      st.bucket_of[b.params[s]] = bi;
      st.slot_of[b.params[s]] = s;
      numel += st.params[b.params[s]].numel();
    }
    b.flat = zeros({numel}, st.params[b.params[0]].dtype());
  }
  std::weak_ptr<ReducerState> weak = state_;
  for (size_t p = 0; p < np; ++p) {
    hook_ids_.push_back(RegisterLeafGradAccumulatedHook(st.params[p], [weak, p] {
      if (auto s = weak.lock()) s->OnGrad(weak, p);
    }));
  }
}

Reducer::~Reducer() {
  for (size_t p = 0; p < hook_ids_.size(); ++p) {
    RemoveLeafGradAccumulatedHook(state_->params[p], hook_ids_[p]);
  }
}

void Reducer::set_require_sync(bool on) {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->require_sync = on;
}

bool Reducer::require_sync() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->require_sync;
}

std::vector<std::vector<size_t>> Reducer::buckets() const {
  std::vector<std::vector<size_t>> out;
  for (const auto& b : state_->buckets) out.push_back(b.params);
  return out;
}

ReducerTimes Reducer::times() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->times;
}

void BroadcastTensors(const std::vector<Tensor>& tensors, ProcessGroup& group, int src) {
  std::vector<WorkPtr> works;
  for (const Tensor& t : tensors) works.push_back(group.Broadcast(t, src));
  for (auto& w : works) w->Wait();
}

}  // namespace oar::distributed
