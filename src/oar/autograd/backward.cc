#include "oar/autograd/backward.h"

#include <algorithm>
#include <optional>
#include <string>

#include "oar/api/api.h"
#include "oar/api/nan_inf_check.h"
#include "oar/autograd/accumulate.h"
#include "oar/autograd/amp_mode.h"
#include "oar/autograd/autograd_meta.h"
#include "oar/autograd/eager_utils.h"
#include "oar/autograd/forward_stack.h"
#include "oar/autograd/grad_tensor_holder.h"
#include "oar/autograd/node_table.h"
#include "oar/core/flags.h"
#include "oar/core/grad_mode.h"
#include "oar/core/profiler/record_event.h"

namespace oar {
namespace {

thread_local std::vector<std::function<void()>> tls_final_hooks;
thread_local int tls_backward_depth = 0;
thread_local BackwardStats tls_last_stats;

// Where grad() captures the gradient of one input: the buffer slot of a node.
struct Target {
  size_t input_index;
  size_t slot, rank;
};

// An edge grad() must not follow (a no_grad_vars entry): into node at (slot, rank).
struct CutEdge {
  GradNodeBase* node;
  size_t slot, rank;
};

struct NodeState {
  int in_degree = 0;
  bool visited = false;
  bool needed = false;
  bool queued = false;  // a root already in the ready queue
  GradTensorHolder buffer;
  SmallVector<Target, 1> targets;  // grad() inputs captured at this node
};

// A node ready to run, with its state (found when it became ready, not again).
struct ReadyNode {
  GradNodeBase* node;
  NodeState* state;
};

// The nodes ready to run: first in, first out, but a leaf's accumulation node goes
// to the front (its gradient is final once it is ready). Popped entries stay in the
// vector, whose length is at most the number of nodes run.
class ReadyQueue {
 public:
  bool empty() const { return head_ == items_.size(); }
  ReadyNode Pop() { return items_[head_++]; }
  void PushBack(ReadyNode r) { items_.push_back(r); }
  void PushFront(ReadyNode r) {
    if (head_ > 0) {
      items_[--head_] = r;
    } else {
      items_.insert(items_.begin(), r);
    }
  }

 private:
  SmallVector<ReadyNode, 16> items_;
  size_t head_ = 0;
};

class GraphTask {
 public:
  GraphTask(bool general_grad, bool create_graph, bool retain_graph, bool accumulate_leaves)
      : general_grad_(general_grad),
        create_graph_(create_graph),
        retain_graph_(retain_graph),
        accumulate_leaves_(accumulate_leaves) {}

  NodeState& State(GradNodeBase* node) {
    auto [state, inserted] = nodes_.FindOrAdd(node);
    if (inserted) state->buffer.SizeFor(node->InputMeta());
    return *state;
  }

  NodeState* Find(GradNodeBase* node) { return nodes_.Find(node); }

  void AddRoot(GradNodeBase* node, std::pair<size_t, size_t> rank, const Tensor& seed) {
    State(node).buffer.add(rank.first, rank.second, seed, create_graph_);
    roots_.push_back(node);
  }
  void AddTarget(GradNodeBase* node, Target t) {
    if (captured_.size() <= t.input_index) captured_.resize(t.input_index + 1);
    State(node).targets.push_back(t);
    min_target_topo_ = std::min(min_target_topo_, node->topological_nr());
  }
  void AddCut(CutEdge cut) { cuts_.push_back(cut); }

  // Room for the states of the nodes the walk will likely reach: a root numbered n
  // reaches a path of n + 1 nodes at least, and under min_topo none (a small graph's
  // table stays small; a deep one is not rehashed step by step).
  void ReserveStates(uint64_t min_topo) {
    uint64_t n = nodes_.size();
    for (const GradNodeBase* r : roots_) {
      if (r->topological_nr() >= min_topo) n += r->topological_nr() - min_topo + 1;
    }
    nodes_.Reserve(static_cast<size_t>(std::min<uint64_t>(n, 4096)));
  }

  // Finds the nodes to run and their in-degrees. For grad(), only nodes on a
  // path from an output to an input run, and nodes numbered below the lowest
  // input cannot reach one, so the walk never even visits them.
  void Prepare() {
    const bool prune = general_grad_ && !accumulate_leaves_;
    const uint64_t min_topo = prune ? min_target_topo_ : 0;
    ReserveStates(min_topo);
    SmallVector<GradNodeBase*, 16> stack(roots_.begin(), roots_.end());
    SmallVector<GradNodeBase*, 16> visited;
    while (!stack.empty()) {
      GradNodeBase* node = stack.back();
      stack.pop_back();
      NodeState& st = State(node);
      if (st.visited) continue;
      st.visited = true;
      ++stats_.nodes_visited;
      if (prune) {
        visited.push_back(node);
      } else {
        st.needed = true;  // backward() runs everything it reaches
      }
      ForEachEdge(node, [&](GradNodeBase* next, size_t, size_t) {
        if (next->topological_nr() < min_topo) return;
        if (!prune) ++State(next).in_degree;  // each node is expanded once: each edge counts once
        stack.push_back(next);
      });
    }
    if (!prune) return;
    // Needed: the targets and everything above them. A node reaching another has the
    // larger number, so in ascending order each node comes after every node it feeds.
    std::sort(visited.begin(), visited.end(), [](const GradNodeBase* a, const GradNodeBase* b) {
      return a->topological_nr() < b->topological_nr();
    });
    for (GradNodeBase* node : visited) {
      NodeState& st = State(node);
      st.needed = !st.targets.empty();
      if (st.needed) continue;
      ForEachEdge(node, [&](GradNodeBase* next, size_t, size_t) {
        const NodeState* ns = Find(next);
        if (ns && ns->needed) st.needed = true;
      });
    }
    for (GradNodeBase* node : visited) {
      if (!State(node).needed) continue;
      ForEachEdge(node, [&](GradNodeBase* next, size_t, size_t) {
        NodeState* ns = Find(next);
        if (ns && ns->needed) ++ns->in_degree;
      });
    }
  }

  void Execute() {
    ReadyQueue queue;
    for (GradNodeBase* r : roots_) {
      NodeState& st = State(r);
      if (st.needed && st.in_degree == 0 && !st.queued) {
        st.queued = true;
        queue.PushBack({r, &st});
      }
    }
    while (!queue.empty()) {
      // States never move while the pass runs (Note [The engine's node table]).
      const auto [node, state] = queue.Pop();
      NodeState& st = *state;
      // The node's gradients are used where they were summed and released once it has
      // run; its results are built in place, not assigned. (Moving a GradSlots moves
      // each tensor of its inline slots one by one.)
      GradSlots& grads = st.buffer.Buffers();
      GradSlots outs = HasAnyGrad(grads) ? RunNode(node, st, grads) : GradSlots();
      grads.clear();
      // Hand the results to the next nodes; an edge with no gradient still
      // counts, so its node becomes ready.
      const SlotMetas& metas = node->OutputMeta();
      for (size_t i = 0; i < metas.size(); ++i) {
        for (size_t j = 0; j < metas[i].size(); ++j) {
          const Edge& edge = metas[i][j].GetEdge();
          GradNodeBase* next = edge.GetGradNode();
          if (!next || IsCut(next, edge.GetEdgeRankInfo())) continue;
          NodeState* ns = Find(next);
          if (!ns || !ns->needed) continue;
          if (i < outs.size() && j < outs[i].size() && outs[i][j].defined()) {
            CheckGradShape(node, metas[i][j], outs[i][j], i);
            const auto [slot, rank] = edge.GetEdgeRankInfo();
            ns->buffer.add(slot, rank, std::move(outs[i][j]), create_graph_);
          }
          if (--ns->in_degree == 0) {
            if (next->IsAccumulationNode()) {
              queue.PushFront({next, ns});
            } else {
              queue.PushBack({next, ns});
            }
          }
        }
      }
    }
  }

  // grad() results, one per input.
  std::vector<Tensor> Results(const std::vector<Tensor>& inputs, bool allow_unused) {
    std::vector<Tensor> results(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (i >= captured_.size() || !captured_[i].defined()) {
        if (!allow_unused) {
          throw errors::InvalidArgument(
              "grad(): the ", i, "-th input does not appear in the backward graph",
              UnusedReason(inputs[i]),
              ". Please check the input tensor or set allow_unused=True to get None result");
        }
        continue;
      }
      Tensor r = captured_[i];
      if (!create_graph_) {
        results[i] = Tensor(r.impl());
      } else {
        auto* meta = EagerUtils::nullable_autograd_meta(r);
        if (!meta || !meta->GradNode()) {
          r = Tensor(r.impl());
          EagerUtils::autograd_meta(&r)->SetStopGradient(false);
        }
        results[i] = r;
      }
    }
    return results;
  }

  const BackwardStats& stats() const { return stats_; }

 private:
  template <typename F>
  void ForEachEdge(GradNodeBase* node, F f) {
    for (const auto& slot : node->OutputMeta()) {
      for (const auto& meta : slot) {
        const Edge& e = meta.GetEdge();
        GradNodeBase* next = e.GetGradNode();
        if (!next) continue;
        const auto [s, r] = e.GetEdgeRankInfo();
        if (IsCut(next, {s, r})) continue;
        f(next, s, r);
      }
    }
  }

  bool IsCut(GradNodeBase* node, std::pair<size_t, size_t> rank) const {
    for (const auto& c : cuts_) {
      if (c.node == node && c.slot == rank.first && c.rank == rank.second) return true;
    }
    return false;
  }

  static bool HasAnyGrad(const GradSlots& grads) {
    for (const auto& slot : grads) {
      for (const auto& g : slot) {
        if (g.defined()) return true;
      }
    }
    return false;
  }

  static std::string UnusedReason(const Tensor& t) {
    const auto* meta = EagerUtils::nullable_autograd_meta(t);
    if (!meta || meta->StopGradient()) return " (it has stop_gradient=True)";
    return "";
  }

  // Runs one node: retained grads, hooks, captures for grad(), then its backward
  // (Note [Hook order]), with grad mode = create_graph (Note [Gradients of any order]).
  GradSlots RunNode(GradNodeBase* node, NodeState& st, GradSlots& grads) {
    try {
      return RunNodeUnnamed(node, st, grads);
    } catch (Error& e) {
      e.Append(DescribeForwardSite(*node));  // Note [Forward stacks]
      throw;
    }
  }

  // The node's backward, its errors prefixed with the node's name.
  GradSlots CallNode(GradNodeBase* node, GradSlots& grads) {
    try {
      return (*node)(grads, create_graph_, general_grad_);
    } catch (Error& e) {
      e.Prepend(StrCat("in ", node->name(), " (the backward of ", node->forward_op(), "): "));
      throw;
    }
  }

  GradSlots RunNodeUnnamed(GradNodeBase* node, NodeState& st, GradSlots& grads) {
    std::lock_guard<std::mutex> node_lock(node->mutex());  // Note [Thread safety of grad nodes]
    // The node's span: hooks and the node itself, after the lock was taken.
    profiler::RecordEvent node_event(profiler::StaticName("GradNode"),
                                     profiler::EventKind::kBackward);
    if (profiler::Event* e = node_event.event()) [[unlikely]] {
      e->name = nullptr;
      e->dynamic_name = node->name();
      // Note [Forward-backward flows]; accumulation nodes have no forward op.
      if (!node->IsAccumulationNode()) e->sequence_nr = static_cast<int64_t>(node->sequence_nr());
      e->layer_path = node->layer_path();
    }
    SetGradModeGuard grad_mode(create_graph_);
    // Note [Auto-cast happens in the forward pass] (src/oar/eager/amp.h).
    std::optional<amp::AutoCastGuard> amp_off;
    if (amp::CurrentLevel() != amp::Level::kO0) [[unlikely]]
      amp_off.emplace(amp::Level::kO0);
    if (!general_grad_ && node->HasRetainGrads()) node->ApplyRetainGrads(grads, create_graph_);
    if (node->GradientHooksRegistered()) grads = node->ApplyGradientHooks(grads);
    for (const Target& t : st.targets) {
      if (t.slot < grads.size() && t.rank < grads[t.slot].size()) {
        captured_[t.input_index] = grads[t.slot][t.rank];
      }
    }
    if (!ShouldRun(node, st)) return {};
    if (node->IsTensorWrappersCleared()) {
      throw errors::PreconditionNotMet(
          "trying to backward through the graph a second time: the tensors ", node->name(),
          " (the backward of ", node->forward_op(),
          ") saved have been freed by an earlier backward. Specify retain_graph=True when "
          "calling backward() or grad() the first time");
    }
    GradSlots outs = CallNode(node, grads);
    ++stats_.nodes_executed;
    if (FLAGS_check_nan_inf()) [[unlikely]] {
      for (const auto& slot : outs) {
        for (const auto& t : slot) {
          if (t.defined()) {
            CheckTensorHasNanOrInf(
                StrCat(node->name(), " (the backward of ", node->forward_op(), ")"), t);
          }
        }
      }
    }
    if (!retain_graph_) node->ClearTensorWrappers();
    return outs;
  }

  bool ShouldRun(GradNodeBase* node, const NodeState& st) {
    if (!general_grad_) return true;
    if (node->IsAccumulationNode()) return accumulate_leaves_ && st.targets.empty();
    if (st.targets.empty()) return true;
    // A captured input's node runs only to reach other inputs further down.
    bool feeds_needed = false;
    ForEachEdge(node, [&](GradNodeBase* next, size_t, size_t) {
      const NodeState* ns = Find(next);
      if (ns && ns->needed) feeds_needed = true;
    });
    return feeds_needed;
  }

  static void CheckGradShape(GradNodeBase* node, const GradSlotMeta& meta, const Tensor& g,
                             size_t slot) {
    if (meta.HasTensorMeta() && meta.dims() != g.dims()) {
      throw errors::Fatal(node->name(), " (the backward of ", node->forward_op(),
                          ") produced a gradient of shape ", DimsToString(g.dims()),
                          " for input slot ", slot, " whose shape is ", DimsToString(meta.dims()));
    }
  }

  bool general_grad_, create_graph_, retain_graph_, accumulate_leaves_;
  NodeTable<NodeState> nodes_;  // Note [The engine's node table]
  SmallVector<GradNodeBase*, 2> roots_;
  std::vector<CutEdge> cuts_;
  uint64_t min_target_topo_ = UINT64_MAX;
  SmallVector<Tensor, 2> captured_;  // by grad() input index
  BackwardStats stats_;
};

// Runs the thread's final-backward hooks when the outermost backward ends.
class BackwardScope {
 public:
  BackwardScope() { ++tls_backward_depth; }
  ~BackwardScope() {
    if (--tls_backward_depth == 0) tls_final_hooks.clear();
  }
  void Finish() {
    if (tls_backward_depth != 1) return;
    auto hooks = std::move(tls_final_hooks);
    tls_final_hooks.clear();
    for (auto& h : hooks) h();
  }
};

void CheckSeed(const char* api, const char* arg, size_t i, const Tensor& seed, const Tensor& t) {
  if (seed.dims() != t.dims()) {
    throw errors::InvalidArgument(api, "(): ", arg, "[", i, "] has shape ",
                                  DimsToString(seed.dims()), " but the tensor it seeds has shape ",
                                  DimsToString(t.dims()));
  }
  if (seed.dtype() != t.dtype()) {
    throw errors::InvalidType(api, "(): ", arg, "[", i, "] has dtype ", seed.dtype(),
                              " but the tensor it seeds has dtype ", t.dtype());
  }
}

// Seeds the task with each root tensor's gradient.
void AddRoots(GraphTask& task, const char* api, const char* roots_name, const char* seeds_name,
              const std::vector<Tensor>& tensors, const std::vector<Tensor>& seeds) {
  if (!seeds.empty() && seeds.size() != tensors.size()) {
    throw errors::InvalidArgument(api, "(): ", seeds_name, " has ", seeds.size(), " tensors but ",
                                  roots_name, " has ", tensors.size());
  }
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    OAR_ENFORCE(t.defined(), errors::InvalidArgument(api, "(): ", roots_name, "[", i,
                                                     "] is an undefined tensor"));
    auto* meta = EagerUtils::nullable_autograd_meta(t);
    if (!meta || meta->StopGradient()) {
      throw errors::PreconditionNotMet(
          api, "(): ", roots_name, "[", i,
          "] has stop_gradient=True and no grad node, so nothing can be differentiated; "
          "set stop_gradient=False on the inputs that need gradients");
    }
    std::shared_ptr<GradNodeBase> node = meta->GetMutableGradNode();
    if (!node) node = EagerUtils::GetGradAccumulationNode(t);
    Tensor seed;
    if (!seeds.empty() && seeds[i].defined()) {
      CheckSeed(api, seeds_name, i, seeds[i], t);
      seed = seeds[i];
    } else {
      seed = OnesLike(t);
    }
    task.AddRoot(node.get(), meta->OutRankInfo(), seed);
  }
}

void CheckDuplicates(const char* api, const char* name, const std::vector<Tensor>& ts) {
  for (size_t i = 0; i < ts.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      const bool same = ts[i].get_autograd_meta()
                            ? ts[i].get_autograd_meta() == ts[j].get_autograd_meta()
                            : (ts[i].impl() && ts[i].impl() == ts[j].impl());
      if (same) {
        throw errors::InvalidArgument(api, "(): ", name, "[", i, "] is the same tensor as ", name,
                                      "[", j, "]; each tensor may appear only once in ", name);
      }
    }
  }
}

}  // namespace

void Backward(const std::vector<Tensor>& tensors, const std::vector<Tensor>& grad_tensors,
              bool retain_graph) {
  BackwardScope scope;
  GraphTask task(/*general_grad=*/false, /*create_graph=*/false, retain_graph, true);
  AddRoots(task, "backward", "tensors", "grad_tensors", tensors, grad_tensors);
  task.Prepare();
  task.Execute();
  tls_last_stats = task.stats();
  scope.Finish();
}

std::vector<Tensor> Grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs, const GradOptions& options) {
  OAR_ENFORCE(!inputs.empty(), errors::InvalidArgument("grad(): 'inputs' must not be empty"));
  OAR_ENFORCE(!outputs.empty(), errors::InvalidArgument("grad(): 'outputs' must not be empty"));
  CheckDuplicates("grad", "inputs", inputs);
  CheckDuplicates("grad", "outputs", outputs);
  const bool create_graph = options.create_graph;
  const bool retain_graph = options.retain_graph.value_or(create_graph);
  BackwardScope scope;
  GraphTask task(/*general_grad=*/true, create_graph, retain_graph, !options.only_inputs);
  AddRoots(task, "grad", "outputs", "grad_outputs", outputs, grad_outputs);
  for (size_t i = 0; i < inputs.size(); ++i) {
    OAR_ENFORCE(inputs[i].defined(),
                errors::InvalidArgument("grad(): inputs[", i, "] is an undefined tensor"));
    auto* meta = EagerUtils::nullable_autograd_meta(inputs[i]);
    if (!meta || meta->StopGradient()) continue;  // unused
    std::shared_ptr<GradNodeBase> node = meta->GetMutableGradNode();
    if (!node) node = EagerUtils::GetGradAccumulationNode(inputs[i]);
    const auto [slot, rank] = meta->OutRankInfo();
    task.AddTarget(node.get(), Target{i, slot, rank});
  }
  for (const Tensor& v : options.no_grad_vars) {
    auto* meta = EagerUtils::nullable_autograd_meta(v);
    if (!meta || !meta->GradNode()) continue;
    const auto [slot, rank] = meta->OutRankInfo();
    task.AddCut(CutEdge{meta->GradNode(), slot, rank});
  }
  task.Prepare();
  task.Execute();
  tls_last_stats = task.stats();
  std::vector<Tensor> results = task.Results(inputs, options.allow_unused);
  scope.Finish();
  return results;
}

void RegisterBackwardFinalHook(std::function<void()> hook) {
  tls_final_hooks.push_back(std::move(hook));
}

BackwardStats LastBackwardStats() { return tls_last_stats; }

}  // namespace oar
