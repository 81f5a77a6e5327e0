// InferMeta functions of the extra math, sampling and strided sections
// (src/oar/ops/{extra_math,sampling,strided}.yaml). Like those of infer_meta.h they read
// only metadata; the API layer prefixes their errors with the op name.
#pragma once

#include <vector>

#include "oar/core/dense_tensor.h"

namespace oar {

// values' shape, int32 or int64; sorted_sequence 1-D, or with the leading dims of values.
void SearchsortedInferMeta(const DenseTensor& sorted_sequence, const DenseTensor& values,
                           bool out_int32, bool right, DenseTensor* out);
// The broadcast shape of count and prob, int64; both floating.
void BinomialInferMeta(const DenseTensor& count, const DenseTensor& prob, DenseTensor* out);
// shape and stride of equal length, strides >= 0, offset >= 0, and every viewed element
// inside x's numel elements.
void AsStridedInferMeta(const DenseTensor& x, const std::vector<int64_t>& shape,
                        const std::vector<int64_t>& stride, int64_t offset, DenseTensor* out);
void AsStridedGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out,
                            const std::vector<int64_t>& shape, const std::vector<int64_t>& stride,
                            int64_t offset, DenseTensor* x_grad);

}  // namespace oar
