// InferMeta functions of the activations (src/oar/ops/activation.yaml) that check
// their attributes or a second input; the others use UnchangedInferMeta. A forward
// op and its fused *_grad check the same attributes: an attribute that makes the
// formula meaningless (a NaN bound, threshold or slope; an infinite scale) is an
// error naming it, rather than a tensor of NaN.
#pragma once

#include "oar/core/dense_tensor.h"

namespace oar {

// alpha finite.
void EluInferMeta(const DenseTensor& x, double alpha, DenseTensor* out);
void EluGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out, double alpha,
                      DenseTensor* x_grad);
// Paddle's ranges: scale > 1, alpha >= 0; both finite, and so their product.
void SeluInferMeta(const DenseTensor& x, double scale, double alpha, DenseTensor* out);
void SeluGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out, double scale,
                       double alpha, DenseTensor* x_grad);
// celu divides by alpha: finite and not 0.
void CeluInferMeta(const DenseTensor& x, double alpha, DenseTensor* out);
void CeluGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out, double alpha,
                       DenseTensor* x_grad);
// softplus divides by beta: finite and not 0; threshold not NaN (inf: never linear).
void SoftplusInferMeta(const DenseTensor& x, double beta, double threshold, DenseTensor* out);
void SoftplusGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out, double beta,
                           double threshold, DenseTensor* x_grad);
// slope and offset finite.
void HardsigmoidInferMeta(const DenseTensor& x, double slope, double offset, DenseTensor* out);
void HardsigmoidGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out, double slope,
                              double offset, DenseTensor* x_grad);
// min and max not NaN (an infinite one leaves that side unclipped).
void HardtanhInferMeta(const DenseTensor& x, double min, double max, DenseTensor* out);
void HardtanhGradInferMeta(const DenseTensor& out, const DenseTensor& grad_out, double min,
                           double max, DenseTensor* x_grad);
// threshold >= 0 (a negative one would overlap the two linear pieces).
void SoftshrinkInferMeta(const DenseTensor& x, double threshold, DenseTensor* out);
void SoftshrinkGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out, double threshold,
                             DenseTensor* x_grad);
// threshold not NaN.
void HardshrinkInferMeta(const DenseTensor& x, double threshold, DenseTensor* out);
void HardshrinkGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out, double threshold,
                             DenseTensor* x_grad);
// threshold and value not NaN.
void ThresholdedReluInferMeta(const DenseTensor& x, double threshold, double value,
                              DenseTensor* out);
void ThresholdedReluGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out,
                                  double threshold, DenseTensor* x_grad);
// negative_slope not NaN.
void LeakyReluInferMeta(const DenseTensor& x, double negative_slope, DenseTensor* out);
void LeakyReluGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out,
                            double negative_slope, DenseTensor* x_grad);
// weight must broadcast to x's shape without growing it; the output is x's shape.
void PreluInferMeta(const DenseTensor& x, const DenseTensor& weight, DenseTensor* out);

}  // namespace oar
