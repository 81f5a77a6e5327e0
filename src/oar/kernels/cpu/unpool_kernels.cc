// Kernels of the unpool section (src/oar/ops/unpool.yaml): max_unpool, the
// scatter of pooled values back to their positions. Planes in parallel; within a
// plane the values are written in order, so a position written twice keeps the later
// value (Paddle's and PyTorch's rule), whatever the thread count.
#include <algorithm>

#include "oar/core/parallel.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/infer_meta.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

template <typename T>
void MaxUnpoolKernel(const DeviceContext&, const DenseTensor& x_in, const DenseTensor& index_in,
                     const std::vector<int64_t>& /*output_size*/, DenseTensor* out) {
  const DenseTensor x = funcs::Contiguous(x_in);
  const DenseTensor index = funcs::Contiguous(index_in);
  const T* px = static_cast<const T*>(x.data());
  const int64_t* pi = static_cast<const int64_t*>(index.data());
  T* po = static_cast<T*>(out->AllocateFrom(x.place()));
  const int64_t planes = x.dims()[0] * x.dims()[1];
  if (out->numel() == 0) return;
  const int64_t S = out->numel() / planes, J = planes ? x.numel() / planes : 0;
  // checked before any thread writes, so a bad index leaves no half-written output
  for (int64_t k = 0; k < x.numel(); ++k) {
    OAR_ENFORCE(pi[k] >= 0 && pi[k] < S,
                errors::OutOfRange("argument 'index' holds ", pi[k],
                                   ", outside the output planes (", S, " elements each)"));
  }
  ParallelFor(0, planes, std::max<int64_t>(S, J), [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      T* plane = po + p * S;
      std::fill(plane, plane + S, T(0));
      for (int64_t j = 0; j < J; ++j) plane[pi[p * J + j]] = px[p * J + j];
    }
  });
}

}  // namespace

OAR_REGISTER_KERNEL(max_unpool, CPU, Any, MaxUnpoolKernel, OAR_FLOAT_TYPES);

}  // namespace oar
