// The InferMeta function of searchsorted (src/oar/ops/numeric.yaml). Like those of
// infer_meta.h it reads only metadata; the API layer prefixes its errors with the op name.
#pragma once

#include "oar/core/dense_tensor.h"

namespace oar {

// values' shape, int32 or int64; sorted_sequence 1-D, or with the leading dims of values.
void SearchsortedInferMeta(const DenseTensor& sorted_sequence, const DenseTensor& values,
                           bool out_int32, bool right, DenseTensor* out);

}  // namespace oar
