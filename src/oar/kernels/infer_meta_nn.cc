#include "oar/kernels/infer_meta_nn.h"

#include "oar/core/errors.h"
#include "oar/kernels/infer_meta.h"

namespace oar {
namespace {

void RequireFloating(const DenseTensor& t, const char* name) {
  OAR_ENFORCE(
      IsFloating(t.dtype()),
      errors::InvalidType("argument '", name, "' must be a floating tensor, but got ", t.dtype()));
}

void RequireIntegral(const DenseTensor& t, const char* name) {
  OAR_ENFORCE(IsIntegral(t.dtype()), errors::InvalidType("argument '", name,
                                                         "' must be an int32 or int64 tensor, "
                                                         "but got ",
                                                         t.dtype()));
}

// The normalised part of x must hold exactly as many elements as the parameter.
void RequireNormParam(const DenseTensor& x, const DenseTensor& p, const char* name,
                      int64_t begin_norm_axis) {
  const NormRows r = SplitNormRows(x.dims(), begin_norm_axis);
  OAR_ENFORCE(
      p.numel() == r.cols,
      errors::InvalidArgument("argument '", name, "' has shape ", DimsToString(p.dims()),
                              " but the normalized shape of x ", DimsToString(x.dims()),
                              " from axis ", begin_norm_axis, " has ", r.cols, " elements"));
}

// logits' dims with dims[axis] = 1.
DDim LossDims(const DenseTensor& logits, int64_t axis) {
  OAR_ENFORCE(logits.ndim() >= 1,
              errors::InvalidArgument("argument 'logits' must have at least 1 dimension"));
  const int64_t a = NormalizeAxis(axis, logits.ndim());
  DDim d = logits.dims();
  d[a] = 1;
  return d;
}

}  // namespace

NormRows SplitNormRows(const DDim& dims, int64_t begin_norm_axis) {
  const auto rank = static_cast<int64_t>(dims.size());
  OAR_ENFORCE(begin_norm_axis >= 0 && begin_norm_axis < std::max<int64_t>(rank, 1) &&
                  (rank > 0 || begin_norm_axis == 0),
              errors::InvalidArgument("argument 'begin_norm_axis' (", begin_norm_axis,
                                      ") must be in [0, ", rank, ") for x of rank ", rank));
  NormRows r;
  for (int64_t d = 0; d < begin_norm_axis; ++d) r.rows *= dims[d];
  for (int64_t d = begin_norm_axis; d < rank; ++d) r.cols *= dims[d];
  return r;
}

namespace {

// The channel count of x for batch_norm; x needs a batch axis besides the channels.
int64_t BatchNormChannels(const DenseTensor& x, int64_t axis, double epsilon) {
  RequireFloating(x, "x");
  OAR_ENFORCE(x.ndim() >= 2, errors::InvalidArgument("argument 'x' must have at least 2 dims "
                                                     "(a batch and the channels), got shape ",
                                                     DimsToString(x.dims())));
  OAR_ENFORCE(epsilon >= 0,
              errors::InvalidArgument("argument 'epsilon' (", epsilon, ") must be >= 0"));
  return x.dims()[NormalizeAxis(axis, x.ndim())];
}

void RequireChannelParam(const DenseTensor& p, const char* name, int64_t channels) {
  RequireFloating(p, name);
  OAR_ENFORCE(p.ndim() == 1 && p.dims()[0] == channels,
              errors::InvalidArgument("argument '", name, "' has shape ", DimsToString(p.dims()),
                                      " but must be [", channels, "] (one value per channel)"));
}

DType StatsDType(const DenseTensor& x) {
  return x.dtype() == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32;
}

}  // namespace

void BatchNormInferMeta(const DenseTensor& x, const DenseTensor& weight, const DenseTensor& bias,
                        double epsilon, int64_t axis, DenseTensor* out) {
  const int64_t c = BatchNormChannels(x, axis, epsilon);
  RequireChannelParam(weight, "weight", c);
  RequireChannelParam(bias, "bias", c);
  out->set_meta(x.dtype(), x.dims());
}

void BatchNormGradInferMeta(const DenseTensor& x, const DenseTensor& weight,
                            const DenseTensor& grad_out, double epsilon, int64_t axis,
                            DenseTensor* x_grad) {
  RequireChannelParam(weight, "weight", BatchNormChannels(x, axis, epsilon));
  SameShapeGradInferMeta(x, grad_out, x_grad);
  x_grad->set_meta(x.dtype(), x.dims());
}

void BatchNormScaleGradInferMeta(const DenseTensor& x, const DenseTensor& g, double epsilon,
                                 int64_t axis, DenseTensor* out) {
  const int64_t c = BatchNormChannels(x, axis, epsilon);
  OAR_ENFORCE(g.dims() == x.dims(),
              errors::InvalidArgument("argument 'g' has shape ", DimsToString(g.dims()),
                                      " but must have the shape of x, ", DimsToString(x.dims())));
  out->set_meta(StatsDType(x), DDim{c});
}

void BatchNormStatsInferMeta(const DenseTensor& x, int64_t axis, DenseTensor* out) {
  const int64_t c = BatchNormChannels(x, axis, 0.0);
  OAR_ENFORCE(c == 0 || x.numel() > 0,
              errors::InvalidArgument("batch statistics need at least one value per channel, "
                                      "but x has shape ",
                                      DimsToString(x.dims())));
  out->set_meta(StatsDType(x), DDim{2, c});
}

void BatchNormInferInferMeta(const DenseTensor& x, const DenseTensor& mean,
                             const DenseTensor& variance, const DenseTensor& weight,
                             const DenseTensor& bias, double, int64_t axis, DenseTensor* out) {
  // Any epsilon: the statistics are given (a negative one works while variance + epsilon > 0).
  const int64_t c = BatchNormChannels(x, axis, 0.0);
  RequireChannelParam(mean, "mean", c);
  RequireChannelParam(variance, "variance", c);
  RequireChannelParam(weight, "weight", c);
  RequireChannelParam(bias, "bias", c);
  out->set_meta(x.dtype(), x.dims());
}

void LayerNormInferMeta(const DenseTensor& x, const DenseTensor& weight, const DenseTensor& bias,
                        double epsilon, int64_t begin_norm_axis, DenseTensor* out) {
  RequireFloating(x, "x");
  OAR_ENFORCE(epsilon >= 0,
              errors::InvalidArgument("argument 'epsilon' (", epsilon, ") must be >= 0"));
  RequireNormParam(x, weight, "weight", begin_norm_axis);
  RequireNormParam(x, bias, "bias", begin_norm_axis);
  out->set_meta(x.dtype(), x.dims());
}

void LayerNormGradInferMeta(const DenseTensor& x, const DenseTensor& weight,
                            const DenseTensor& grad_out, double epsilon, int64_t begin_norm_axis,
                            DenseTensor* x_grad) {
  RmsNormInferMeta(x, weight, epsilon, begin_norm_axis, x_grad);
  SameShapeGradInferMeta(x, grad_out, x_grad);
}

void NormScaleGradInferMeta(const DenseTensor& x, const DenseTensor& g, double epsilon,
                            int64_t begin_norm_axis, bool rms, DenseTensor* out) {
  RequireFloating(x, "x");
  OAR_ENFORCE(epsilon >= 0,
              errors::InvalidArgument("argument 'epsilon' (", epsilon, ") must be >= 0"));
  OAR_ENFORCE(g.dims() == x.dims(),
              errors::InvalidArgument("argument 'g' has shape ", DimsToString(g.dims()),
                                      " but must have the shape of x, ", DimsToString(x.dims())));
  SplitNormRows(x.dims(), begin_norm_axis);
  out->set_meta(x.dtype(), DDim(x.dims().begin() + begin_norm_axis, x.dims().end()));
}

void RmsNormInferMeta(const DenseTensor& x, const DenseTensor& weight, double epsilon,
                      int64_t begin_norm_axis, DenseTensor* out) {
  RequireFloating(x, "x");
  OAR_ENFORCE(epsilon >= 0,
              errors::InvalidArgument("argument 'epsilon' (", epsilon, ") must be >= 0"));
  RequireNormParam(x, weight, "weight", begin_norm_axis);
  out->set_meta(x.dtype(), x.dims());
}

void CrossEntropyHardInferMeta(const DenseTensor& logits, const DenseTensor& label,
                               int64_t /*ignore_index*/, int64_t axis, DenseTensor* out) {
  RequireIntegral(label, "label");
  const DDim d = LossDims(logits, axis);
  OAR_ENFORCE(label.dims() == d,
              errors::InvalidArgument("argument 'label' has shape ", DimsToString(label.dims()),
                                      " but must be ", DimsToString(d), " for logits of shape ",
                                      DimsToString(logits.dims()), " and axis ", axis));
  out->set_meta(logits.dtype(), d);
}

void CrossEntropyHardGradInferMeta(const DenseTensor& logits, const DenseTensor& label,
                                   const DenseTensor& grad_out, int64_t ignore_index, int64_t axis,
                                   DenseTensor* logits_grad) {
  DenseTensor loss;
  CrossEntropyHardInferMeta(logits, label, ignore_index, axis, &loss);
  OAR_ENFORCE(grad_out.dims() == loss.dims(),
              errors::InvalidArgument("'grad_out' has shape ", DimsToString(grad_out.dims()),
                                      " but the loss has shape ", DimsToString(loss.dims())));
  logits_grad->set_meta(grad_out.dtype(), logits.dims());
}

void CrossEntropySoftInferMeta(const DenseTensor& logits, const DenseTensor& label, int64_t axis,
                               DenseTensor* out) {
  RequireFloating(label, "label");
  OAR_ENFORCE(label.dims() == logits.dims(),
              errors::InvalidArgument("argument 'label' has shape ", DimsToString(label.dims()),
                                      " but a soft label must have the shape of logits ",
                                      DimsToString(logits.dims())));
  out->set_meta(logits.dtype(), LossDims(logits, axis));
}

void CrossEntropySoftGradInferMeta(const DenseTensor& logits, const DenseTensor& label,
                                   const DenseTensor& grad_out, int64_t axis,
                                   DenseTensor* logits_grad) {
  DenseTensor loss;
  CrossEntropySoftInferMeta(logits, label, axis, &loss);
  OAR_ENFORCE(grad_out.dims() == loss.dims(),
              errors::InvalidArgument("'grad_out' has shape ", DimsToString(grad_out.dims()),
                                      " but the loss has shape ", DimsToString(loss.dims())));
  logits_grad->set_meta(logits.dtype(), logits.dims());
}

void LinearInferMeta(const DenseTensor& x, const DenseTensor& weight, const DenseTensor& bias,
                     DenseTensor* out) {
  OAR_ENFORCE(x.ndim() >= 1,
              errors::InvalidArgument("argument 'x' must have at least 1 dimension"));
  OAR_ENFORCE(weight.ndim() == 2,
              errors::InvalidArgument("argument 'weight' must be 2-D [in_features, "
                                      "out_features], but has shape ",
                                      DimsToString(weight.dims())));
  const int64_t in = x.dims()[x.ndim() - 1];
  OAR_ENFORCE(weight.dims()[0] == in,
              errors::InvalidArgument("argument 'weight' has shape ", DimsToString(weight.dims()),
                                      " but x has ", in, " input features (last dim of ",
                                      DimsToString(x.dims()), ")"));
  const int64_t n = weight.dims()[1];
  OAR_ENFORCE(bias.ndim() == 1 && bias.dims()[0] == n,
              errors::InvalidArgument("argument 'bias' has shape ", DimsToString(bias.dims()),
                                      " but must be [", n, "]"));
  DDim d = x.dims();
  d[d.size() - 1] = n;
  out->set_meta(x.dtype(), d);
}

void EmbeddingInferMeta(const DenseTensor& x, const DenseTensor& weight, int64_t padding_idx,
                        DenseTensor* out) {
  RequireIntegral(x, "x");
  OAR_ENFORCE(weight.ndim() == 2,
              errors::InvalidArgument("argument 'weight' must be 2-D [num_embeddings, "
                                      "embedding_dim], but has shape ",
                                      DimsToString(weight.dims())));
  const int64_t rows = weight.dims()[0];
  OAR_ENFORCE(padding_idx >= -rows && padding_idx < rows,
              errors::InvalidArgument("argument 'padding_idx' (", padding_idx, ") must be in [",
                                      -rows, ", ", rows, ")"));
  DDim d = x.dims();
  d.push_back(weight.dims()[1]);
  out->set_meta(weight.dtype(), d);
}

void EmbeddingGradInferMeta(const DenseTensor& x, const DenseTensor& weight,
                            const DenseTensor& grad_out, int64_t padding_idx,
                            DenseTensor* weight_grad) {
  DenseTensor out;
  EmbeddingInferMeta(x, weight, padding_idx, &out);
  OAR_ENFORCE(
      grad_out.dims() == out.dims(),
      errors::InvalidArgument("'grad_out' has shape ", DimsToString(grad_out.dims()),
                              " but the embedding output has shape ", DimsToString(out.dims())));
  weight_grad->set_meta(grad_out.dtype(), weight.dims());
}

void OneHotInferMeta(const DenseTensor& x, int64_t num_classes, DenseTensor* out) {
  RequireIntegral(x, "x");
  OAR_ENFORCE(num_classes >= 1,
              errors::InvalidArgument("argument 'num_classes' (", num_classes, ") must be >= 1"));
  DDim d = x.dims();
  d.push_back(num_classes);
  out->set_meta(DType::kFloat32, d);
}

}  // namespace oar
