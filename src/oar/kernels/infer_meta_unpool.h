// InferMeta functions of the unpool section (src/oar/ops/unpool.yaml). Same
// contract as infer_meta.h: metadata only, errors name the argument (the API adds the
// op).
#pragma once

#include <vector>

#include "oar/core/dense_tensor.h"

namespace oar {

// x and index [N, C, *in] (index int64), out [N, C, *output_size].
void MaxUnpoolInferMeta(const DenseTensor& x, const DenseTensor& index,
                        const std::vector<int64_t>& output_size, DenseTensor* out);

}  // namespace oar
