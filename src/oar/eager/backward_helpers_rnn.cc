// Backward formulas of the recurrent section (src/oar/ops/rnn.yaml). rnn_grad returns the
// gradients of all of rnn's inputs in one flat vector, because one walk back over the
// sequence yields them all; the pieces are views of it (slice, reshape), so what uses
// them stays differentiable up to rnn_grad itself, which is first-order only.
#include "oar/core/errors.h"
#include "oar/eager/backward_helpers.h"
#include "oar/eager/dygraph_functions.h"

namespace oar {
namespace {
// rnn's inputs before the optional lengths: x, h0, (c0,) the two weights, the two biases.
size_t DifferentiableCount(int64_t mode) { return mode == 2 ? 7 : 6; }
}  // namespace

std::vector<Tensor> rnn_input_grads(const std::vector<Tensor>& inputs, const Tensor& out,
                                    const Tensor& grad_out, int64_t mode, bool reverse,
                                    bool zero_padded) {
  std::vector<Tensor> list = inputs;
  list.push_back(out);
  list.push_back(grad_out);
  const Tensor flat = rnn_grad(list, mode, reverse, zero_padded);
  std::vector<Tensor> grads;
  grads.reserve(inputs.size());
  const size_t n = DifferentiableCount(mode);
  int64_t offset = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i >= n) {  // lengths
      grads.emplace_back();
      continue;
    }
    const int64_t numel = inputs[i].numel();
    grads.push_back(
        reshape_to(slice(flat, {0}, {offset}, {offset + numel}),
                   std::vector<int64_t>(inputs[i].dims().begin(), inputs[i].dims().end())));
    offset += numel;
  }
  return grads;
}

std::vector<Tensor> rnn_double_grad(const std::vector<Tensor>&, int64_t mode) {
  throw errors::Unimplemented(
      "rnn_grad: the fused ",
      mode == 2   ? "LSTM"
      : mode == 3 ? "GRU"
                  : "RNN",
      " kernel gives first-order gradients only; for higher orders run the layer op by "
      "op: oar.set_flags({'FLAGS_fused_rnn': False}) before its forward pass");
}

}  // namespace oar
