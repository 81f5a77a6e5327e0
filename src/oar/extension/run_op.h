// Running a custom operator eagerly (docs/custom_ops.md).
//
// Note [A custom op's grad node runs its grad op]
// A call runs the kernel through ApplyCustomFunction (the base of PyLayer,
// src/oar/autograd/custom_function.h), so when an input needs a gradient it
// records one node, named after the op, whose backward runs the declared grad
// op through this same function: the grad op's inputs are matched by name to
// the forward's inputs and outputs (saved for backward) and to the gradients
// of its outputs ("Out@GRAD"); its outputs ("X@GRAD") become the gradients of
// the forward's inputs. Because backward runs with grad mode = create_graph,
// the grad op's call records a node of its own running the double-grad op, so
// second-order gradients need nothing else. Where no further grad op is
// declared, the node raises a typed error if a gradient reaches it.
#pragma once

#include <vector>

#include "oar/extension/registry.h"

namespace oar::extension {

// Runs level `level` of `op` (0: the op itself) with one CallInput per declared
// input and one value per declared attribute (in the declared types). Returns
// the tensors of each declared output. An in-place output is its input's
// tensor, written and given the op's history.
std::vector<std::vector<Tensor>> RunCustomOp(const std::shared_ptr<const CustomOp>& op,
                                             size_t level, std::vector<paddle::CallInput> inputs,
                                             std::vector<paddle::AttrValue> attrs);

}  // namespace oar::extension
