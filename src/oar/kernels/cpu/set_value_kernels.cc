// set_value and set_value_with_tensor: assignment into a slice (x[...] = v),
// writing into a copy of x or, for the _ variants, into x itself.
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/funcs/slice.h"
#include "oar/kernels/funcs/strided_loop.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {
// out becomes a copy of x unless it already is x (the in-place variant).
void CopyUnlessSame(const DenseTensor& x, DenseTensor* out) {
  if (out == &x) return;
  out->AllocateFrom(x.place());
  funcs::CopyInto(x, out);
}
}  // namespace

template <typename T>
void SetValueKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>& axes,
                    const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                    const std::vector<int64_t>& strides, const Scalar& value, DenseTensor* out) {
  CopyUnlessSame(x, out);
  DenseTensor region = funcs::SliceView(*out, axes, starts, ends, strides);
  funcs::Fill(&region, value);
}

template <typename T>
void SetValueWithTensorKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& value,
                              const std::vector<int64_t>& axes, const std::vector<int64_t>& starts,
                              const std::vector<int64_t>& ends, const std::vector<int64_t>& strides,
                              DenseTensor* out) {
  // value may be a view of x (x[1:] = x[:-1]): read it before writing.
  const DenseTensor v = value.Holder() == x.Holder() ? funcs::Clone(value) : value;
  CopyUnlessSame(x, out);
  DenseTensor region = funcs::SliceView(*out, axes, starts, ends, strides);
  DenseTensorMeta m = v.meta();
  m.strides = funcs::BroadcastStrides(v, region.dims());
  m.dims = region.dims();
  funcs::CopyInto(DenseTensor(v.Holder(), m), &region);
}

OAR_REGISTER_KERNEL(set_value, CPU, Any, SetValueKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(set_value_with_tensor, CPU, Any, SetValueWithTensorKernel, OAR_ALL_TYPES);
// Complex elements: these kernels only move (or add) elements.
OAR_REGISTER_KERNEL(set_value, CPU, Any, SetValueKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(set_value_with_tensor, CPU, Any, SetValueWithTensorKernel, OAR_COMPLEX_TYPES);

}  // namespace oar
