// The InferMeta functions of the strided views (src/oar/ops/strided.yaml: as_strided and its
// gradient). Like those of infer_meta.h they read only metadata; the API layer prefixes
// their errors with the op name.
#pragma once

#include <vector>

#include "oar/core/dense_tensor.h"

namespace oar {

// shape and stride of equal length, strides >= 0, offset >= 0, and every viewed element
// inside x's numel elements.
void AsStridedInferMeta(const DenseTensor& x, const std::vector<int64_t>& shape,
                        const std::vector<int64_t>& stride, int64_t offset, DenseTensor* out);
void AsStridedGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out,
                            const std::vector<int64_t>& shape, const std::vector<int64_t>& stride,
                            int64_t offset, DenseTensor* x_grad);

}  // namespace oar
