// The InferMeta function of binomial (src/oar/ops/sampling.yaml). Like those of infer_meta.h
// it reads only metadata; the API layer prefixes its errors with the op name.
#pragma once

#include "oar/core/dense_tensor.h"

namespace oar {

// The broadcast shape of count and prob, int64; both floating.
void BinomialInferMeta(const DenseTensor& count, const DenseTensor& prob, DenseTensor* out);

}  // namespace oar
