// The backward engine: Backward() for loss.backward() and Grad() for
// Python's oar.grad(), both running one GraphTask (Paddle's RunBackward and GeneralGrad,
// docs/design.md §4; the contract: docs/autograd.md).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "oar/core/tensor.h"

namespace oar {

// Accumulates d(tensors)/d(leaf) into every reachable leaf's .grad.
// grad_tensors[i] (undefined = ones) seeds tensors[i]. Without retain_graph,
// each node frees its saved tensors after it ran.
void Backward(const std::vector<Tensor>& tensors, const std::vector<Tensor>& grad_tensors = {},
              bool retain_graph = false);

struct GradOptions {
  std::optional<bool> retain_graph;  // default: create_graph
  bool create_graph = false;
  bool only_inputs = true;  // false: also accumulate into the .grad of other reached leaves
  bool allow_unused = false;
  std::vector<Tensor> no_grad_vars;
};

// d(outputs)/d(inputs), running only the part of the graph between them. One
// result per input; an undefined tensor for an unused input when allow_unused.
std::vector<Tensor> Grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs = {},
                         const GradOptions& options = {});

// Called once at the end of the current (or next) backward()/grad() on this
// thread (Note [Hook order] in grad_node.h).
void RegisterBackwardFinalHook(std::function<void()> hook);

// What the last backward()/grad() on this thread did (for tests and tools).
struct BackwardStats {
  int64_t nodes_visited = 0;   // nodes the graph walk looked at
  int64_t nodes_executed = 0;  // grad nodes whose backward ran
};
BackwardStats LastBackwardStats();

}  // namespace oar
