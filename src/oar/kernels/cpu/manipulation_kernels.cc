// Shape manipulation (the "shape manipulation" section of src/oar/ops/).
// reshape/squeeze/unsqueeze/transpose/expand/slice return views that share x's memory (and its
// inplace version counter) whenever the strides allow; otherwise they copy.
#include <optional>

#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/funcs/slice.h"
#include "oar/kernels/funcs/strided_loop.h"
#include "oar/kernels/infer_meta.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

// Strides that let a tensor with (dims, strides) be viewed with `new_dims`,
// if any (the algorithm of PyTorch's computeStride: split or merge runs of
// dimensions that are contiguous among themselves).
std::optional<DDim> ComputeViewStrides(const DDim& dims, const DDim& strides,
                                       const DDim& new_dims) {
  DDim out(new_dims.size());
  if (Product(dims) == 0) return ContiguousStrides(new_dims);
  if (dims.empty()) {
    for (auto& s : out) s = 1;
    return out;
  }
  int64_t view_d = static_cast<int64_t>(new_dims.size()) - 1;
  int64_t chunk_base_stride = strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    tensor_numel *= dims[d];
    if (d == 0 || (dims[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_dims[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_dims[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base_stride = strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

// Makes `out` (whose dims InferMeta set) a view of x, or a contiguous copy.
void ViewOrCopy(const DenseTensor& x, DenseTensor* out) {
  const DDim new_dims = out->dims();
  if (auto strides = ComputeViewStrides(x.dims(), x.strides(), new_dims)) {
    DenseTensorMeta m = x.meta();
    m.dims = new_dims;
    m.strides = *strides;
    *out = DenseTensor(x.Holder(), m);
    return;
  }
  const DenseTensor c = funcs::Contiguous(x);
  DenseTensorMeta m = c.meta();
  m.dims = new_dims;
  m.strides = ContiguousStrides(new_dims);
  *out = DenseTensor(c.Holder(), m);
}

}  // namespace

template <typename T>
void ReshapeKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>&,
                   DenseTensor* out) {
  ViewOrCopy(x, out);
}
template <typename T>
void SqueezeKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>&,
                   DenseTensor* out) {
  ViewOrCopy(x, out);
}
template <typename T>
void UnsqueezeKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>&,
                     DenseTensor* out) {
  ViewOrCopy(x, out);
}

template <typename T>
void TransposeKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>& perm,
                     DenseTensor* out) {
  DenseTensorMeta m = x.meta();
  const int64_t rank = x.ndim();
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t p = NormalizeAxis(perm[i], rank, "perm");
    m.dims[i] = x.dims()[p];
    m.strides[i] = x.strides()[p];
  }
  *out = DenseTensor(x.Holder(), m);
}

template <typename T>
void ExpandKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>&,
                  DenseTensor* out) {
  DenseTensorMeta m = x.meta();
  m.dims = out->dims();
  m.strides = funcs::BroadcastStrides(x, m.dims);
  *out = DenseTensor(x.Holder(), m);
}

template <typename T>
void StridedSliceKernel(const DeviceContext&, const DenseTensor& x,
                        const std::vector<int64_t>& axes, const std::vector<int64_t>& starts,
                        const std::vector<int64_t>& ends, const std::vector<int64_t>& strides,
                        DenseTensor* out) {
  *out = funcs::SliceView(x, axes, starts, ends, strides);
}

template <typename T>
void SliceKernel(const DeviceContext& ctx, const DenseTensor& x, const std::vector<int64_t>& axes,
                 const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                 DenseTensor* out) {
  StridedSliceKernel<T>(ctx, x, axes, starts, ends, {}, out);
}

// Scatters grad_out into the sliced region of zeros shaped like x.
template <typename T>
void StridedSliceGradKernel(const DeviceContext& ctx, const DenseTensor& x,
                            const DenseTensor& grad_out, const std::vector<int64_t>& axes,
                            const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                            const std::vector<int64_t>& strides, DenseTensor* x_grad) {
  x_grad->AllocateFrom(grad_out.place());
  funcs::Fill(x_grad, 0);
  DenseTensor region;
  region.set_meta(x_grad->dtype(), x_grad->dims());
  StridedSliceKernel<T>(ctx, *x_grad, axes, starts, ends, strides, &region);
  (void)x;
  funcs::CopyInto(grad_out, &region);
}

template <typename T>
void ConcatKernel(const DeviceContext&, const std::vector<const DenseTensor*>& x, int64_t axis,
                  DenseTensor* out) {
  out->AllocateFrom(x[0]->place());
  const int64_t a = NormalizeAxis(axis, out->ndim());
  int64_t offset = 0;
  for (const DenseTensor* t : x) {
    DenseTensorMeta m = out->meta();
    m.dims[a] = t->dims()[a];
    m.offset = offset * out->strides()[a];
    DenseTensor region(out->Holder(), m);
    funcs::CopyInto(*t, &region);
    offset += t->dims()[a];
  }
}

OAR_REGISTER_KERNEL(reshape, CPU, Any, ReshapeKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(squeeze, CPU, Any, SqueezeKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(unsqueeze, CPU, Any, UnsqueezeKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(transpose, CPU, Any, TransposeKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(expand, CPU, Any, ExpandKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(strided_slice, CPU, Any, StridedSliceKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(slice, CPU, Any, SliceKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(strided_slice_grad, CPU, Any, StridedSliceGradKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(concat, CPU, Any, ConcatKernel, OAR_ALL_TYPES);
// Complex elements: these kernels only move (or add) elements.
OAR_REGISTER_KERNEL(reshape, CPU, Any, ReshapeKernel, OAR_FLOAT8_TYPES);
OAR_REGISTER_KERNEL(squeeze, CPU, Any, SqueezeKernel, OAR_FLOAT8_TYPES);
OAR_REGISTER_KERNEL(unsqueeze, CPU, Any, UnsqueezeKernel, OAR_FLOAT8_TYPES);
OAR_REGISTER_KERNEL(transpose, CPU, Any, TransposeKernel, OAR_FLOAT8_TYPES);
OAR_REGISTER_KERNEL(expand, CPU, Any, ExpandKernel, OAR_FLOAT8_TYPES);
OAR_REGISTER_KERNEL(strided_slice, CPU, Any, StridedSliceKernel, OAR_FLOAT8_TYPES);
OAR_REGISTER_KERNEL(slice, CPU, Any, SliceKernel, OAR_FLOAT8_TYPES);
OAR_REGISTER_KERNEL(concat, CPU, Any, ConcatKernel, OAR_FLOAT8_TYPES);
OAR_REGISTER_KERNEL(reshape, CPU, Any, ReshapeKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(squeeze, CPU, Any, SqueezeKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(unsqueeze, CPU, Any, UnsqueezeKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(transpose, CPU, Any, TransposeKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(expand, CPU, Any, ExpandKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(strided_slice, CPU, Any, StridedSliceKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(slice, CPU, Any, SliceKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(strided_slice_grad, CPU, Any, StridedSliceGradKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(concat, CPU, Any, ConcatKernel, OAR_COMPLEX_TYPES);

}  // namespace oar
