// InferMeta functions of the nn.functional ops (src/oar/ops/{norm,loss,nn}.yaml):
// normalisations, losses, linear, embedding, one_hot. Same contract as
// infer_meta.h: metadata only, errors name the argument (the API adds the op).
#pragma once

#include "oar/core/dense_tensor.h"

namespace oar {

// x split at begin_norm_axis into rows [0, axis) and the normalised [axis, rank).
struct NormRows {
  int64_t rows = 1, cols = 1;
};
NormRows SplitNormRows(const DDim& dims, int64_t begin_norm_axis);

// batch_norm reduces every axis of x but `axis` (the channels); weight and bias
// hold one value per channel and may be a wider float type than x.
void BatchNormInferMeta(const DenseTensor& x, const DenseTensor& weight, const DenseTensor& bias,
                        double epsilon, int64_t axis, DenseTensor* out);
void BatchNormGradInferMeta(const DenseTensor& x, const DenseTensor& weight,
                            const DenseTensor& grad_out, double epsilon, int64_t axis,
                            DenseTensor* x_grad);
// [channels] in the compute type (float32, float64 for double).
void BatchNormScaleGradInferMeta(const DenseTensor& x, const DenseTensor& g, double epsilon,
                                 int64_t axis, DenseTensor* out);
// [2, channels] in the compute type: the batch mean and biased variance.
void BatchNormStatsInferMeta(const DenseTensor& x, int64_t axis, DenseTensor* out);
// batch_norm_infer: x with given per-channel statistics, weight and bias (each [channels]).
void BatchNormInferInferMeta(const DenseTensor& x, const DenseTensor& mean,
                             const DenseTensor& variance, const DenseTensor& weight,
                             const DenseTensor& bias, double epsilon, int64_t axis,
                             DenseTensor* out);

void LayerNormInferMeta(const DenseTensor& x, const DenseTensor& weight, const DenseTensor& bias,
                        double epsilon, int64_t begin_norm_axis, DenseTensor* out);
void LayerNormGradInferMeta(const DenseTensor& x, const DenseTensor& weight,
                            const DenseTensor& grad_out, double epsilon, int64_t begin_norm_axis,
                            DenseTensor* x_grad);
void NormScaleGradInferMeta(const DenseTensor& x, const DenseTensor& g, double epsilon,
                            int64_t begin_norm_axis, bool rms, DenseTensor* out);
void RmsNormInferMeta(const DenseTensor& x, const DenseTensor& weight, double epsilon,
                      int64_t begin_norm_axis, DenseTensor* out);

// Per-sample losses along `axis` (kept as a size-1 dim, as Paddle does).
void CrossEntropyHardInferMeta(const DenseTensor& logits, const DenseTensor& label,
                               int64_t ignore_index, int64_t axis, DenseTensor* out);
void CrossEntropyHardGradInferMeta(const DenseTensor& logits, const DenseTensor& label,
                                   const DenseTensor& grad_out, int64_t ignore_index, int64_t axis,
                                   DenseTensor* logits_grad);
void CrossEntropySoftInferMeta(const DenseTensor& logits, const DenseTensor& label, int64_t axis,
                               DenseTensor* out);
void CrossEntropySoftGradInferMeta(const DenseTensor& logits, const DenseTensor& label,
                                   const DenseTensor& grad_out, int64_t axis,
                                   DenseTensor* logits_grad);

void LinearInferMeta(const DenseTensor& x, const DenseTensor& weight, const DenseTensor& bias,
                     DenseTensor* out);
void EmbeddingInferMeta(const DenseTensor& x, const DenseTensor& weight, int64_t padding_idx,
                        DenseTensor* out);
void EmbeddingGradInferMeta(const DenseTensor& x, const DenseTensor& weight,
                            const DenseTensor& grad_out, int64_t padding_idx,
                            DenseTensor* weight_grad);
void OneHotInferMeta(const DenseTensor& x, int64_t num_classes, DenseTensor* out);

}  // namespace oar
