// InferMeta functions of the activations (src/oar/ops/activation.yaml) that check
// their attributes or a second input; the others use UnchangedInferMeta.
#pragma once

#include "oar/core/dense_tensor.h"

namespace oar {

// celu divides by alpha.
void CeluInferMeta(const DenseTensor& x, double alpha, DenseTensor* out);
// Paddle's ranges: scale > 1, alpha >= 0.
void SeluInferMeta(const DenseTensor& x, double scale, double alpha, DenseTensor* out);
// threshold >= 0 (a negative one would overlap the two linear pieces).
void SoftshrinkInferMeta(const DenseTensor& x, double threshold, DenseTensor* out);
// weight must broadcast to x's shape without growing it; the output is x's shape.
void PreluInferMeta(const DenseTensor& x, const DenseTensor& weight, DenseTensor* out);

}  // namespace oar
