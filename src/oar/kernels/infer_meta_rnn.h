// InferMeta functions of the recurrent section (src/oar/ops/rnn.yaml). Same contract as
// infer_meta.h: metadata only, errors name the argument (the API adds the op).
#pragma once

#include <vector>

#include "oar/core/dense_tensor.h"

namespace oar {

// The sizes of one fused recurrent layer, read off (and checked against) its inputs.
struct RnnShape {
  int64_t gates = 1;           // G: 1 (tanh/relu RNN), 4 (LSTM), 3 (GRU)
  int64_t states = 1;          // S: final states packed after the outputs (2 for LSTM)
  int64_t saved_per_step = 0;  // rows of saved gate values per step (5 LSTM, 4 GRU, 0 RNN)
  int64_t steps = 0, batch = 0, input = 0, hidden = 0;
  bool has_lengths = false;
  // out's rows: steps outputs, states, steps * saved_per_step saved rows.
  int64_t rows() const { return steps + states + steps * saved_per_step; }
};
// inputs as rnn takes them (x, h0, [c0,] weight_ih, weight_hh, bias_ih, bias_hh,
// [lengths]); `extra` more tensors may follow (rnn_grad's out and grad_out).
RnnShape CheckRnnInputs(const std::vector<const DenseTensor*>& inputs, int64_t mode, size_t extra);

void RnnInferMeta(const std::vector<const DenseTensor*>& inputs, int64_t mode, bool reverse,
                  bool zero_padded, DenseTensor* out);
// [numel of every input but lengths, summed]: rnn's input gradients, flattened.
void RnnGradInferMeta(const std::vector<const DenseTensor*>& inputs, int64_t mode, bool reverse,
                      bool zero_padded, DenseTensor* out);

}  // namespace oar
