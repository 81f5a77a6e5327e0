// InferMeta functions of the quantization section (src/oar/ops/quant.yaml).
#pragma once

#include "oar/core/dense_tensor.h"

namespace oar {

// x's shape and dtype (a floating dtype); scale holds one element, or
// x.shape[quant_axis] (one per slice); 2 <= bit_length <= 16.
void FakeQuantizeDequantizeInferMeta(const DenseTensor& x, const DenseTensor& scale,
                                     int64_t bit_length, int64_t quant_axis, DenseTensor* out);

}  // namespace oar
