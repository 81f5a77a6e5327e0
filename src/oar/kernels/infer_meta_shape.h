// InferMeta functions of the ops in src/oar/ops/shape.yaml (flip, roll, pad, triangles,
// diagonals, sliding windows). Same contract as infer_meta.h: metadata only, errors name
// the argument and the API layer prefixes the op.
#pragma once

#include <vector>

#include "oar/core/dense_tensor.h"
#include "oar/core/scalar.h"

namespace oar {

// The modes of pad, in the order of its `mode` attribute.
enum class PadMode : int64_t { kConstant = 0, kReflect = 1, kReplicate = 2, kCircular = 3 };

// Normalised, duplicate-free axes (an error names `arg_name` and the repeated axis).
std::vector<int64_t> NormalizeDistinctAxes(const std::vector<int64_t>& axis, int64_t rank,
                                           const char* arg_name);
// The diagonal's length and where it starts (in elements, relative to the plane's
// origin) for an n1 x n2 plane with strides s1, s2.
struct DiagonalSpan {
  int64_t length, start;
};
DiagonalSpan DiagonalOf(int64_t n1, int64_t n2, int64_t s1, int64_t s2, int64_t offset);

void FlipInferMeta(const DenseTensor& x, const std::vector<int64_t>& axis, DenseTensor* out);
void RollInferMeta(const DenseTensor& x, const std::vector<int64_t>& shifts,
                   const std::vector<int64_t>& axis, DenseTensor* out);
void TriangleInferMeta(const DenseTensor& x, int64_t diagonal, DenseTensor* out);
void DiagonalInferMeta(const DenseTensor& x, int64_t offset, int64_t axis1, int64_t axis2,
                       DenseTensor* out);
void DiagonalGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out, int64_t offset,
                           int64_t axis1, int64_t axis2, DenseTensor* x_grad);
void DiagEmbedInferMeta(const DenseTensor& input, int64_t offset, int64_t dim1, int64_t dim2,
                        DenseTensor* out);
void TensorUnfoldInferMeta(const DenseTensor& x, int64_t axis, int64_t size, int64_t step,
                           DenseTensor* out);
void TensorUnfoldGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out, int64_t axis,
                               int64_t size, int64_t step, DenseTensor* x_grad);
void PadInferMeta(const DenseTensor& x, const std::vector<int64_t>& paddings, int64_t mode,
                  const Scalar& value, DenseTensor* out);
void PadGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out,
                      const std::vector<int64_t>& paddings, int64_t mode, DenseTensor* x_grad);

}  // namespace oar
