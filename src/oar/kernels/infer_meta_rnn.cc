#include "oar/kernels/infer_meta_rnn.h"

#include "oar/core/errors.h"

namespace oar {
namespace {
const char* ModeName(int64_t mode) {
  switch (mode) {
    case 0:
      return "tanh RNN";
    case 1:
      return "relu RNN";
    case 2:
      return "LSTM";
    default:
      return "GRU";
  }
}

void ExpectShape(const DenseTensor& t, const char* name, const DDim& want, int64_t mode) {
  OAR_ENFORCE(t.dims() == want,
              errors::InvalidArgument("argument 'inputs': the ", ModeName(mode), "'s ", name,
                                      " must have shape ", DimsToString(want), ", got ",
                                      DimsToString(t.dims())));
}
}  // namespace

RnnShape CheckRnnInputs(const std::vector<const DenseTensor*>& inputs, int64_t mode, size_t extra) {
  OAR_ENFORCE(mode >= 0 && mode <= 3,
              errors::InvalidArgument("argument 'mode' must be 0 (tanh RNN), 1 (relu RNN), 2 "
                                      "(LSTM) or 3 (GRU), got ",
                                      mode));
  RnnShape s;
  const bool lstm = mode == 2;
  s.gates = lstm ? 4 : mode == 3 ? 3 : 1;
  s.states = lstm ? 2 : 1;
  s.saved_per_step = lstm ? 5 : mode == 3 ? 4 : 0;
  const size_t base = lstm ? 7 : 6;
  OAR_ENFORCE(inputs.size() == base + extra || inputs.size() == base + 1 + extra,
              errors::InvalidArgument(
                  "argument 'inputs' must hold x, h0, ", lstm ? "c0, " : "",
                  "weight_ih, weight_hh, bias_ih, bias_hh and optionally lengths (", base, " or ",
                  base + 1, " tensors) for the ", ModeName(mode), ", got ", inputs.size() - extra));
  s.has_lengths = inputs.size() == base + 1 + extra;
  const DenseTensor& x = *inputs[0];
  OAR_ENFORCE(x.ndim() == 3,
              errors::InvalidArgument("argument 'inputs': x must be [time_steps, batch, "
                                      "input_size], got shape ",
                                      DimsToString(x.dims())));
  s.steps = x.dims()[0];
  s.batch = x.dims()[1];
  s.input = x.dims()[2];
  OAR_ENFORCE(s.input > 0, errors::InvalidArgument("argument 'inputs': x's input_size (its "
                                                   "last dim) must be positive, got shape ",
                                                   DimsToString(x.dims())));
  const DenseTensor& w_hh = *inputs[lstm ? 4 : 3];
  OAR_ENFORCE(w_hh.ndim() == 2 && w_hh.dims()[1] > 0,
              errors::InvalidArgument("argument 'inputs': weight_hh must be [gates * hidden, "
                                      "hidden], got shape ",
                                      DimsToString(w_hh.dims())));
  s.hidden = w_hh.dims()[1];
  const int64_t gh = s.gates * s.hidden;
  for (size_t i = 0; i < base; ++i) {
    OAR_ENFORCE(inputs[i]->dtype() == x.dtype(),
                errors::InvalidArgument("argument 'inputs': every tensor must have x's dtype ",
                                        DTypeName(x.dtype()), ", got ",
                                        DTypeName(inputs[i]->dtype()), " at position ", i));
  }
  ExpectShape(*inputs[1], "h0", {s.batch, s.hidden}, mode);
  if (lstm) ExpectShape(*inputs[2], "c0", {s.batch, s.hidden}, mode);
  const size_t w = lstm ? 3 : 2;
  ExpectShape(*inputs[w], "weight_ih", {gh, s.input}, mode);
  ExpectShape(*inputs[w + 1], "weight_hh", {gh, s.hidden}, mode);
  ExpectShape(*inputs[w + 2], "bias_ih", {gh}, mode);
  ExpectShape(*inputs[w + 3], "bias_hh", {gh}, mode);
  if (s.has_lengths) {
    ExpectShape(*inputs[base], "lengths", {s.batch}, mode);
    const DType d = inputs[base]->dtype();
    OAR_ENFORCE(d == DType::kInt32 || d == DType::kInt64,
                errors::InvalidArgument("argument 'inputs': lengths must be int32 or int64, got ",
                                        DTypeName(d)));
  }
  for (size_t i = inputs.size() - extra; i < inputs.size(); ++i) {
    OAR_ENFORCE(
        inputs[i]->dtype() == x.dtype(),
        errors::InvalidArgument("argument 'inputs': out and grad_out must have x's dtype ",
                                DTypeName(x.dtype()), ", got ", DTypeName(inputs[i]->dtype())));
  }
  OAR_ENFORCE(x.dtype() == DType::kFloat32 || x.dtype() == DType::kFloat64,
              errors::InvalidArgument("argument 'inputs': the fused recurrent layer runs in "
                                      "float32 or float64, got ",
                                      DTypeName(x.dtype())));
  return s;
}

void RnnInferMeta(const std::vector<const DenseTensor*>& inputs, int64_t mode, bool, bool,
                  DenseTensor* out) {
  const RnnShape s = CheckRnnInputs(inputs, mode, 0);
  out->set_meta(inputs[0]->dtype(), {s.rows(), s.batch, s.hidden});
}

void RnnGradInferMeta(const std::vector<const DenseTensor*>& inputs, int64_t mode, bool, bool,
                      DenseTensor* out) {
  const RnnShape s = CheckRnnInputs(inputs, mode, 2);
  const DDim want{s.rows(), s.batch, s.hidden};
  const size_t n = inputs.size();
  ExpectShape(*inputs[n - 2], "out", want, mode);
  ExpectShape(*inputs[n - 1], "grad_out", want, mode);
  const size_t diff = mode == 2 ? 7 : 6;
  int64_t total = 0;
  for (size_t i = 0; i < diff; ++i) total += inputs[i]->numel();
  out->set_meta(inputs[0]->dtype(), {total});
}

}  // namespace oar
