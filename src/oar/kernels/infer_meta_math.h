// InferMeta functions of the math and logic sections (src/oar/ops/math.yaml,
// src/oar/ops/logic.yaml). Like those of infer_meta.h they read only metadata;
// the API layer prefixes their errors with the op name.
#pragma once

#include <vector>

#include "oar/core/dense_tensor.h"

namespace oar {

// x's shape, bool dtype (isnan, logical_not, ...).
void UnaryBoolInferMeta(const DenseTensor& x, DenseTensor* out);
// A reduction (as ReduceInferMeta) with a bool result (all, any).
void ReduceBoolInferMeta(const DenseTensor& x, const std::vector<int64_t>& axis, bool keepdim,
                         DenseTensor* out);
void IscloseInferMeta(const DenseTensor& x, const DenseTensor& y, double rtol, double atol,
                      bool equal_nan, DenseTensor* out);
// A 0-d bool result.
void AllcloseInferMeta(const DenseTensor& x, const DenseTensor& y, double rtol, double atol,
                       bool equal_nan, DenseTensor* out);
void EqualAllInferMeta(const DenseTensor& x, const DenseTensor& y, DenseTensor* out);
// The broadcast shape of x, y and weight, x's dtype.
void LerpInferMeta(const DenseTensor& x, const DenseTensor& y, const DenseTensor& weight,
                   DenseTensor* out);
// mask bool, value one element of x's dtype; the broadcast shape of x and mask.
void MaskedFillInferMeta(const DenseTensor& x, const DenseTensor& mask, const DenseTensor& value,
                         DenseTensor* out);
// mask bool and broadcasting with x; the number of elements depends on the data:
// the kernel sets the (1-D) dims.
void MaskedSelectInferMeta(const DenseTensor& x, const DenseTensor& mask, DenseTensor* out);
void MaskedSelectGradInferMeta(const DenseTensor& x, const DenseTensor& mask,
                               const DenseTensor& grad_out, DenseTensor* x_grad);

}  // namespace oar
