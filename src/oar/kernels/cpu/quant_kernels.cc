// Simulated quantization (src/oar/ops/quant.yaml): x snapped to the symmetric integer
// grid of a scale, returned in x's dtype.
//
// out = round(clip(x, -s, s) * q / s) * s / q with q = 2^(bit_length-1) - 1 and s the
// scale of x's slice (one per tensor, or one per index along quant_axis). Halves round
// away from zero, as Paddle's fake_quantize ops do (round_type 1). A scale <= 0 (an
// all-zero tensor observed) quantizes everything to 0 rather than dividing by it.
#include <cmath>
#include <vector>

#include "oar/core/parallel.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/infer_meta.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {

template <typename T>
void FakeQuantizeDequantizeKernel(const DeviceContext& ctx, const DenseTensor& x,
                                  const DenseTensor& scale, int64_t bit_length, int64_t quant_axis,
                                  DenseTensor* out) {
  using C = compute_t<T>;
  const DenseTensor xc = funcs::Contiguous(x);
  // The scale may have any floating dtype (skip_transform): read it as float64 and
  // compute in x's compute type, so a bfloat16 x keeps a float32 scale's precision
  // until the last multiply.
  const DenseTensor sc = funcs::CastTo(funcs::Contiguous(scale), DType::kFloat64);
  const double* s = static_cast<const double*>(sc.data());
  const T* in = static_cast<const T*>(xc.data());
  T* o = static_cast<T*>(out->AllocateFrom(ctx.GetPlace()));
  const int64_t n = xc.numel();
  if (n == 0) return;
  // Per-slice scales: element i belongs to slice (i / inner) % channels.
  int64_t channels = 1, inner = n;
  if (sc.numel() != 1) {
    const auto& d = xc.dims();
    const int64_t rank = static_cast<int64_t>(d.size());
    const int64_t axis = quant_axis < 0 ? quant_axis + rank : quant_axis;
    channels = d[axis];
    inner = 1;
    for (int64_t k = axis + 1; k < rank; ++k) inner *= d[k];
  }
  const C levels = static_cast<C>((int64_t{1} << (bit_length - 1)) - 1);
  ParallelFor(0, n, 8, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const C si = static_cast<C>(s[channels == 1 ? 0 : (i / inner) % channels]);
      if (!(si > C(0))) {
        o[i] = static_cast<T>(C(0));
        continue;
      }
      const C v = std::min(std::max(static_cast<C>(in[i]), -si), si);
      o[i] = static_cast<T>(std::round(v * levels / si) * si / levels);
    }
  });
}

OAR_REGISTER_KERNEL(fake_quantize_dequantize, CPU, Any, FakeQuantizeDequantizeKernel,
                    OAR_FLOAT_TYPES);

}  // namespace oar
