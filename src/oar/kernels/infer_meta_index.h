// InferMeta functions of the gathering and scattering ops (gather.yaml, scatter.yaml).
#pragma once

#include "oar/core/dense_tensor.h"

namespace oar {

// index: 0-d (the axis is dropped), 1-D or [N, 1].
void GatherInferMeta(const DenseTensor& x, const DenseTensor& index, int64_t axis,
                     DenseTensor* out);
// index [..., k] with k <= x.ndim: out is index.shape[:-1] + x.shape[k:].
void GatherNdInferMeta(const DenseTensor& x, const DenseTensor& index, DenseTensor* out);
// indices of arr's rank; broadcast: the other dims broadcast together, else they
// must not exceed arr's.
void TakeAlongAxisInferMeta(const DenseTensor& arr, const DenseTensor& indices, int64_t axis,
                            bool broadcast, DenseTensor* out);
void PutAlongAxisInferMeta(const DenseTensor& arr, const DenseTensor& indices,
                           const DenseTensor& values, int64_t axis, int64_t reduce,
                           bool include_self, bool broadcast, DenseTensor* out);
void ScatterInferMeta(const DenseTensor& x, const DenseTensor& index, const DenseTensor& updates,
                      bool overwrite, DenseTensor* out);
void ScatterNdAddInferMeta(const DenseTensor& x, const DenseTensor& index,
                           const DenseTensor& updates, DenseTensor* out);
void ScatterNdInferMeta(const DenseTensor& index, const DenseTensor& updates,
                        const std::vector<int64_t>& shape, DenseTensor* out);
void IndexAddInferMeta(const DenseTensor& x, const DenseTensor& index, int64_t axis,
                       const DenseTensor& value, double alpha, DenseTensor* out);
void IndexPutNdInferMeta(const DenseTensor& x, const DenseTensor& index, const DenseTensor& value,
                         bool accumulate, DenseTensor* out);

// The domain put_along_axis iterates over: indices' shape, broadcast to arr's
// except along axis when `broadcast`.
DDim PutAlongAxisDomain(const DDim& arr, const DDim& indices, int64_t axis, bool broadcast);

}  // namespace oar
