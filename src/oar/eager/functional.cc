#include "oar/eager/functional.h"

#include "oar/autograd/backward.h"
#include "oar/eager/creation.h"
#include "oar/eager/dygraph_functions.h"

namespace oar {
namespace {

// Row i of the Jacobian: the gradient of y against a one-hot seed.
Tensor JacobianRow(const Tensor& y, const Tensor& x, int64_t i, int64_t batch, bool create_graph) {
  const int64_t m = y.numel() / batch;
  std::vector<double> seed(y.numel(), 0.0);
  for (int64_t b = 0; b < batch; ++b) seed[b * m + i] = 1.0;
  Tensor s = cast(to_tensor<double>(seed, y.shape()), y.dtype());
  GradOptions opts;
  opts.retain_graph = true;
  opts.create_graph = create_graph;
  opts.allow_unused = true;
  Tensor g = Grad({y}, {x}, {s}, opts)[0];
  if (!g.defined()) g = zeros_like(x);
  return reshape(g, {batch, 1, x.numel() / batch});
}

void CheckBatch(const Tensor& y, const Tensor& x, std::optional<int64_t> batch_axis,
                const char* api) {
  if (!batch_axis) return;
  OAR_ENFORCE(*batch_axis == 0,
              errors::InvalidArgument(api, "(): batch_axis must be None or 0, got ", *batch_axis));
  OAR_ENFORCE(y.ndim() >= 1 && x.ndim() >= 1 && y.dims()[0] == x.dims()[0],
              errors::InvalidArgument(api,
                                      "(): with batch_axis=0 ys and xs need the same leading "
                                      "(batch) dimension, got ys ",
                                      DimsToString(y.dims()), " and xs ", DimsToString(x.dims())));
}

}  // namespace

Tensor jacobian(const Tensor& y, const Tensor& x, std::optional<int64_t> batch_axis,
                bool create_graph) {
  CheckBatch(y, x, batch_axis, "jacobian");
  const int64_t batch = batch_axis ? y.dims()[0] : 1;
  const int64_t m = y.numel() / std::max<int64_t>(batch, 1);
  std::vector<Tensor> rows;
  rows.reserve(m);
  for (int64_t i = 0; i < m; ++i) rows.push_back(JacobianRow(y, x, i, batch, create_graph));
  Tensor j = rows.empty() ? zeros({batch, 0, x.numel() / std::max<int64_t>(batch, 1)}, x.dtype())
                          : concat(rows, 1);
  return batch_axis ? j : reshape(j, {m, x.numel()});
}

Tensor hessian(const Tensor& y, const Tensor& x, std::optional<int64_t> batch_axis,
               bool create_graph) {
  CheckBatch(y, x, batch_axis, "hessian");
  const int64_t batch = batch_axis ? y.dims()[0] : 1;
  OAR_ENFORCE(y.numel() == batch, errors::InvalidArgument("hessian(): ys must hold one scalar",
                                                          batch_axis ? " per sample" : "",
                                                          ", got shape ", DimsToString(y.dims())));
  GradOptions opts;
  opts.create_graph = true;
  opts.allow_unused = true;
  Tensor g = Grad({y}, {x}, {}, opts)[0];
  if (!g.defined()) {
    // Per sample: x's dims after the batch (x.numel() / batch divided by 0 for a batch of 0).
    int64_t n = 1;
    for (int64_t d = batch_axis ? 1 : 0; d < x.ndim(); ++d) n *= x.dims()[d];
    return batch_axis ? zeros({batch, n, n}, x.dtype()) : zeros({n, n}, x.dtype());
  }
  return jacobian(g, x, batch_axis, create_graph);
}

}  // namespace oar
