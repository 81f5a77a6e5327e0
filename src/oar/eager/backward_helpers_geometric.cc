// Backward formulas of the geometric section (src/oar/ops/geometric.yaml), composed of
// differentiable ops: index_select moves rows from destinations to edges, segment_pool
// and send_u_recv (sum) move them back, so the formulas differentiate again.
#include "oar/eager/backward_helpers.h"
#include "oar/eager/creation.h"
#include "oar/eager/dygraph_functions.h"

namespace oar {
namespace {

constexpr int64_t kSum = 0, kMean = 1, kAdd = 0;

int64_t Rows(const Tensor& t) { return t.shape()[0]; }

// The number of edges arriving at each of `rows` rows, at least 1, shaped [rows, 1, ...]
// to broadcast against a tensor of rank `rank`; a constant (no gradient).
Tensor InCount(const Tensor& dst_index, int64_t rows, int64_t rank, DType dtype) {
  std::vector<int64_t> shape(rank, 1);
  shape[0] = Rows(dst_index);
  const Tensor count = segment_pool(full(shape, 1, dtype), dst_index, rows, kSum);
  return maximum(count, full({}, 1, dtype));
}

// [rows, ...] -> [edges, ...]: each edge's row.
Tensor ToEdges(const Tensor& t, const Tensor& index) { return index_select(t, index, 0); }

// grad_out's row for each edge, as the reduction passes it on: scaled by 1/count for a
// mean, masked to the edges whose message equals the result for max/min.
Tensor EdgeGrad(const Tensor& message, const Tensor& dst_index, const Tensor& out, const Tensor& g,
                int64_t reduce) {
  if (reduce == kSum) return ToEdges(g, dst_index);
  if (reduce == kMean) {
    return ToEdges(divide(g, InCount(dst_index, Rows(out), g.shape().size(), g.dtype())),
                   dst_index);
  }
  const Tensor hit = cast(equal(message, ToEdges(out, dst_index)), g.dtype());
  return multiply(ToEdges(g, dst_index), hit);
}

// Per-edge gradients [edges, broadcast features] summed down to [edges, like's features].
Tensor SumToRows(const Tensor& ge, const Tensor& like) {
  std::vector<int64_t> shape = like.shape();
  shape[0] = Rows(ge);
  return ge.shape() == shape ? ge : sum_to(ge, shape);
}

Tensor Message(const Tensor& xe, const Tensor& ye, int64_t message_op) {
  return message_op == kAdd ? add(xe, ye) : multiply(xe, ye);
}

}  // namespace

Tensor segment_pool_grad(const Tensor& x, const Tensor& segment_ids, const Tensor& out,
                         const Tensor& g, int64_t reduce) {
  return EdgeGrad(x, segment_ids, out, g, reduce);
}

Tensor send_u_recv_grad(const Tensor& x, const Tensor& src_index, const Tensor& dst_index,
                        const Tensor& out, const Tensor& g, int64_t reduce) {
  if (reduce == kSum) return send_u_recv(g, dst_index, src_index, kSum, Rows(x));
  if (reduce == kMean) {
    const Tensor scaled = divide(g, InCount(dst_index, Rows(out), g.shape().size(), g.dtype()));
    return send_u_recv(scaled, dst_index, src_index, kSum, Rows(x));
  }
  const Tensor ge = EdgeGrad(ToEdges(x, src_index), dst_index, out, g, reduce);
  return segment_pool(ge, src_index, Rows(x), kSum);
}

Tensor send_ue_recv_grad_x(const Tensor& x, const Tensor& y, const Tensor& src_index,
                           const Tensor& dst_index, const Tensor& out, const Tensor& g,
                           int64_t message_op, int64_t reduce) {
  const Tensor xe = ToEdges(x, src_index);
  const Tensor ge = EdgeGrad(Message(xe, y, message_op), dst_index, out, g, reduce);
  const Tensor gx = message_op == kAdd ? ge : multiply(ge, y);
  return segment_pool(SumToRows(gx, x), src_index, Rows(x), kSum);
}

Tensor send_ue_recv_grad_y(const Tensor& x, const Tensor& y, const Tensor& src_index,
                           const Tensor& dst_index, const Tensor& out, const Tensor& g,
                           int64_t message_op, int64_t reduce) {
  const Tensor xe = ToEdges(x, src_index);
  const Tensor ge = EdgeGrad(Message(xe, y, message_op), dst_index, out, g, reduce);
  return SumToRows(message_op == kAdd ? ge : multiply(ge, xe), y);
}

Tensor send_uv_grad_x(const Tensor& x, const Tensor& y, const Tensor& src_index,
                      const Tensor& dst_index, const Tensor& g, int64_t message_op) {
  const Tensor gx = message_op == kAdd ? g : multiply(g, ToEdges(y, dst_index));
  return segment_pool(SumToRows(gx, x), src_index, Rows(x), kSum);
}

Tensor send_uv_grad_y(const Tensor& x, const Tensor& y, const Tensor& src_index,
                      const Tensor& dst_index, const Tensor& g, int64_t message_op) {
  const Tensor gy = message_op == kAdd ? g : multiply(g, ToEdges(x, src_index));
  return segment_pool(SumToRows(gy, y), dst_index, Rows(y), kSum);
}

}  // namespace oar
