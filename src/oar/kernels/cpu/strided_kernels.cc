// Kernels of src/oar/ops/strided.yaml: as_strided, a view with explicit geometry over a
// tensor's elements in row-major order, and its backward.
#include <vector>

#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

// The view over t's elements; t contiguous, so element k sits at t.offset() + k.
DenseTensor StridedView(const DenseTensor& t, const std::vector<int64_t>& shape,
                        const std::vector<int64_t>& stride, int64_t offset) {
  DenseTensorMeta m = t.meta();
  m.dims = DDim(shape.begin(), shape.end());
  m.strides = DDim(stride.begin(), stride.end());
  m.offset = t.offset() + offset;
  return DenseTensor(t.Holder(), m);
}

}  // namespace

// InferMeta has checked that every viewed element lies among x's; a non-contiguous x is
// viewed through a contiguous copy, so positions always count x's elements row-major.
template <typename T>
void AsStridedKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>& shape,
                     const std::vector<int64_t>& stride, int64_t offset, DenseTensor* out) {
  *out = StridedView(x.is_contiguous() ? x : funcs::Contiguous(x), shape, stride, offset);
}

// Views may overlap, so each viewed element's gradient is added in turn.
template <typename T>
void AsStridedGradKernel(const DeviceContext&, const DenseTensor&, const DenseTensor& grad_out,
                         const std::vector<int64_t>& shape, const std::vector<int64_t>& stride,
                         int64_t offset, DenseTensor* x_grad) {
  T* xg = static_cast<T*>(x_grad->AllocateFrom(grad_out.place()));
  funcs::Fill(x_grad, 0);
  if (grad_out.numel() == 0) return;
  const DenseTensor g = funcs::Contiguous(grad_out);
  const T* gp = static_cast<const T*>(g.data());
  const int64_t nd = static_cast<int64_t>(shape.size()), n = g.numel();
  std::vector<int64_t> idx(nd, 0);
  int64_t pos = offset;
  for (int64_t k = 0; k < n; ++k) {
    T& acc = xg[pos];
    acc = static_cast<T>(static_cast<compute_t<T>>(acc) + static_cast<compute_t<T>>(gp[k]));
    for (int64_t d = nd - 1; d >= 0; --d) {
      pos += stride[d];
      if (++idx[d] < shape[d]) break;
      pos -= stride[d] * shape[d];
      idx[d] = 0;
    }
  }
}

OAR_REGISTER_KERNEL(as_strided, CPU, Any, AsStridedKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(as_strided, CPU, Any, AsStridedKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(as_strided, CPU, Any, AsStridedKernel, OAR_FLOAT8_TYPES);
OAR_REGISTER_KERNEL(as_strided_grad, CPU, Any, AsStridedGradKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(as_strided_grad, CPU, Any, AsStridedGradKernel, OAR_COMPLEX_TYPES);

}  // namespace oar
