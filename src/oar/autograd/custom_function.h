// Custom autograd functions: a user-written forward/backward pair recorded as
// one node of the backward graph (the C++ base of Python's PyLayer, and of
// PyTorch's torch::autograd::Function).
//
//   struct Cube : oar::Function<Cube> {
//     static std::vector<Tensor> forward(FunctionContext& ctx, const std::vector<Tensor>& in) {
//       ctx.save_for_backward({in[0]});
//       return {oar::pow(in[0], 3.0)};
//     }
//     static std::vector<Tensor> backward(FunctionContext& ctx, const std::vector<Tensor>& g) {
//       Tensor x = ctx.saved_tensors()[0];
//       return {oar::multiply(g[0], oar::scale(oar::pow(x, 2.0), 3.0))};
//     }
//   };
//   Tensor y = Cube::apply({x})[0];
//
// forward runs without recording; backward runs with grad mode = create_graph,
// so a backward written in differentiable ops gives gradients of any order
// (Note [Gradients of any order] in grad_node.h).
#pragma once

#include <any>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "oar/autograd/tensor_wrapper.h"
#include "oar/core/tensor.h"

namespace oar {

class FunctionContext;
using CustomForward =
    std::function<std::vector<Tensor>(FunctionContext&, const std::vector<Tensor>&)>;
using CustomBackward =
    std::function<std::vector<Tensor>(FunctionContext&, const std::vector<Tensor>&)>;

// Runs forward and, when some input needs a gradient, records a node whose
// backward is `backward`. `name` names the node in errors and graphs. A
// caller-owned ctx may be passed (Python's PyLayer keeps one per call).
std::vector<Tensor> ApplyCustomFunction(const std::string& name, const std::vector<Tensor>& inputs,
                                        const CustomForward& forward, CustomBackward backward,
                                        std::shared_ptr<FunctionContext> ctx = nullptr);

class FunctionContext {
 public:
  // Tensors backward needs; outputs may be saved too (no reference cycle:
  // Note [TensorWrapper lifetimes]).
  void save_for_backward(std::vector<Tensor> tensors);
  // The saved tensors; an error if one was modified in place since.
  std::vector<Tensor> saved_tensors() const;
  // Outputs that have no gradient (indices, counts, masks...).
  void mark_non_differentiable(const std::vector<Tensor>& outputs);
  // Whether input i needs a gradient (valid inside backward).
  bool needs_input_grad(size_t i) const;
  // false: an output that received no gradient reaches backward as an undefined
  // tensor (None in Python) instead of zeros.
  void set_materialize_grads(bool value) { materialize_grads_ = value; }
  // true (the default, as in Paddle): each incoming gradient is cast to its forward
  // output's dtype before backward sees it; false passes it on in its own dtype.
  void set_grad_in_dtype_consistent(bool value) { grad_in_dtype_consistent_ = value; }
  // Anything else backward needs.
  std::map<std::string, std::any> saved_data;

 private:
  friend class CustomGradNode;
  friend std::vector<Tensor> ApplyCustomFunction(const std::string&, const std::vector<Tensor>&,
                                                 const CustomForward&, CustomBackward,
                                                 std::shared_ptr<FunctionContext>);
  std::vector<Tensor> to_save_;
  std::vector<TensorWrapper> saved_;
  std::vector<const DenseTensor*> non_differentiable_;
  std::vector<bool> needs_input_grad_;
  bool create_graph_ = false;
  bool released_ = false;
  bool materialize_grads_ = true;
  bool grad_in_dtype_consistent_ = true;
};

template <typename Derived>
struct Function {
  static std::vector<Tensor> apply(const std::vector<Tensor>& inputs) {
    return ApplyCustomFunction(Derived::name(), inputs, &Derived::forward, &Derived::backward);
  }
  static std::string name() { return "CustomFunction"; }
};

}  // namespace oar
