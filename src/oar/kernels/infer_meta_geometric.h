// InferMeta functions of the geometric section (src/oar/ops/geometric.yaml): message
// passing on graphs. Index tensors are 1-D int32/int64; x's first dim is its nodes (or
// segment members), the rest are features. The API layer prefixes errors with the op
// name.
#pragma once

#include "oar/core/dense_tensor.h"

namespace oar {

// x [n, ...], segment_ids [n] -> [num_segments, ...].
void SegmentPoolInferMeta(const DenseTensor& x, const DenseTensor& segment_ids,
                          int64_t num_segments, int64_t reduce, DenseTensor* out);
// x [n, ...], src_index and dst_index [e] -> [out_size, ...].
void SendURecvInferMeta(const DenseTensor& x, const DenseTensor& src_index,
                        const DenseTensor& dst_index, int64_t reduce, int64_t out_size,
                        DenseTensor* out);
// x [n, f...], y [e, g...] of the same rank -> [out_size, broadcast(f, g)...].
void SendUERecvInferMeta(const DenseTensor& x, const DenseTensor& y, const DenseTensor& src_index,
                         const DenseTensor& dst_index, int64_t message_op, int64_t reduce,
                         int64_t out_size, DenseTensor* out);
// x [n, f...], y [m, g...] of the same rank -> [e, broadcast(f, g)...].
void SendUVInferMeta(const DenseTensor& x, const DenseTensor& y, const DenseTensor& src_index,
                     const DenseTensor& dst_index, int64_t message_op, DenseTensor* out);

// The broadcast feature dims of x [n, f...] and y [m, g...] (both at least 1-D, same rank).
DDim MessageFeatureDims(const DDim& x, const DDim& y);

}  // namespace oar
