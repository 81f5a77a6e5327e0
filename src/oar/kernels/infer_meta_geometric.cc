#include "oar/kernels/infer_meta_geometric.h"

#include "oar/core/errors.h"
#include "oar/kernels/infer_meta.h"

namespace oar {
namespace {

void CheckIndex(const DenseTensor& index, const char* arg) {
  OAR_ENFORCE(index.dtype() == DType::kInt32 || index.dtype() == DType::kInt64,
              errors::InvalidType("argument '", arg, "' must be an int32 or int64 tensor, got ",
                                  DTypeName(index.dtype())));
  OAR_ENFORCE(index.ndim() == 1,
              errors::InvalidArgument("argument '", arg, "' must be 1-D, but has shape ",
                                      DimsToString(index.dims())));
}

void CheckNodes(const DenseTensor& x, const char* arg) {
  OAR_ENFORCE(x.ndim() >= 1, errors::InvalidArgument("argument '", arg,
                                                     "' must have at least 1 dim (its rows), "
                                                     "but is 0-D"));
}

void CheckEdges(const DenseTensor& src, const DenseTensor& dst) {
  CheckIndex(src, "src_index");
  CheckIndex(dst, "dst_index");
  OAR_ENFORCE(src.dims() == dst.dims(),
              errors::InvalidArgument("arguments 'src_index' ", DimsToString(src.dims()),
                                      " and 'dst_index' ", DimsToString(dst.dims()),
                                      " must have the same length"));
}

void CheckReduce(int64_t reduce) {
  OAR_ENFORCE(reduce >= 0 && reduce <= 3,
              errors::InvalidArgument("argument 'reduce' must be 0 (sum), 1 (mean), 2 (max) or "
                                      "3 (min), got ",
                                      reduce));
}

void CheckMessage(int64_t message_op) {
  OAR_ENFORCE(message_op == 0 || message_op == 1,
              errors::InvalidArgument("argument 'message_op' must be 0 (add) or 1 (mul), got ",
                                      message_op));
}

void CheckRows(int64_t rows, const char* arg) {
  OAR_ENFORCE(rows >= 0, errors::InvalidArgument("argument '", arg, "' must be >= 0, got ", rows));
}

DDim WithRows(int64_t rows, const DDim& features) {
  DDim d{rows};
  d.append(features.begin(), features.end());
  return d;
}

DDim Features(const DDim& d) { return DDim(d.begin() + 1, d.end()); }

}  // namespace

DDim MessageFeatureDims(const DDim& x, const DDim& y) {
  OAR_ENFORCE(
      x.size() == y.size(),
      errors::InvalidArgument("arguments 'x' ", DimsToString(x), " and 'y' ", DimsToString(y),
                              " must have the same rank (python/oar/geometric pads "
                              "the smaller one)"));
  return BroadcastShape(Features(x), Features(y), "x's features", "y's features");
}

void SegmentPoolInferMeta(const DenseTensor& x, const DenseTensor& segment_ids,
                          int64_t num_segments, int64_t reduce, DenseTensor* out) {
  CheckNodes(x, "x");
  CheckIndex(segment_ids, "segment_ids");
  CheckReduce(reduce);
  CheckRows(num_segments, "num_segments");
  OAR_ENFORCE(segment_ids.dims()[0] == x.dims()[0],
              errors::InvalidArgument("argument 'segment_ids' has ", segment_ids.dims()[0],
                                      " entries, but 'x' has ", x.dims()[0], " rows"));
  out->set_meta(x.dtype(), WithRows(num_segments, Features(x.dims())));
}

void SendURecvInferMeta(const DenseTensor& x, const DenseTensor& src_index,
                        const DenseTensor& dst_index, int64_t reduce, int64_t out_size,
                        DenseTensor* out) {
  CheckNodes(x, "x");
  CheckEdges(src_index, dst_index);
  CheckReduce(reduce);
  CheckRows(out_size, "out_size");
  out->set_meta(x.dtype(), WithRows(out_size, Features(x.dims())));
}

void SendUERecvInferMeta(const DenseTensor& x, const DenseTensor& y, const DenseTensor& src_index,
                         const DenseTensor& dst_index, int64_t message_op, int64_t reduce,
                         int64_t out_size, DenseTensor* out) {
  CheckNodes(x, "x");
  CheckNodes(y, "y");
  CheckEdges(src_index, dst_index);
  CheckMessage(message_op);
  CheckReduce(reduce);
  CheckRows(out_size, "out_size");
  OAR_ENFORCE(y.dims()[0] == src_index.dims()[0],
              errors::InvalidArgument("argument 'y' has ", y.dims()[0], " rows, but there are ",
                                      src_index.dims()[0], " edges (one row of y per edge)"));
  out->set_meta(x.dtype(), WithRows(out_size, MessageFeatureDims(x.dims(), y.dims())));
}

void SendUVInferMeta(const DenseTensor& x, const DenseTensor& y, const DenseTensor& src_index,
                     const DenseTensor& dst_index, int64_t message_op, DenseTensor* out) {
  CheckNodes(x, "x");
  CheckNodes(y, "y");
  CheckEdges(src_index, dst_index);
  CheckMessage(message_op);
  out->set_meta(x.dtype(), WithRows(src_index.dims()[0], MessageFeatureDims(x.dims(), y.dims())));
}

}  // namespace oar
