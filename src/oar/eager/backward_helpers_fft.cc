// Backward formulas of the FFT section (src/oar/ops/fft.yaml), composed of the FFT ops
// themselves and differentiable ops, so every order of gradient works. The adjoint of
// a transform is the transform the other way with the same scale (the normalization
// attribute names the scale, not a direction); these are PyTorch's formulas for its
// _fft_r2c and _fft_c2r.
#include "oar/core/errors.h"
#include "oar/eager/backward_helpers.h"
#include "oar/eager/creation.h"
#include "oar/eager/dygraph_functions.h"

namespace oar {
namespace {
size_t LastAxis(const std::vector<int64_t>& axes, size_t rank) {
  const int64_t a = axes.back();
  return static_cast<size_t>(a < 0 ? a + static_cast<int64_t>(rank) : a);
}
}  // namespace

Tensor fft_r2c_grad(const Tensor& x, const Tensor& g, const std::vector<int64_t>& axes,
                    int64_t normalization, bool forward, bool onesided) {
  Tensor full = g;
  const std::vector<int64_t> gs = g.shape();
  const size_t last = LastAxis(axes, gs.size());
  const int64_t n = x.shape()[last];
  if (onesided && n > gs[last]) {
    // The dropped frequencies did not reach the loss: their gradient is zero.
    std::vector<int64_t> zs = gs;
    zs[last] = n - gs[last];
    full = concat({g, zeros(zs, g.dtype())}, static_cast<int64_t>(last));
  }
  return real(fft_c2c(full, axes, normalization, !forward));
}

Tensor fft_c2r_grad(const Tensor& x, const Tensor& g, const std::vector<int64_t>& axes,
                    int64_t normalization, bool forward) {
  const Tensor gi = fft_r2c(g, axes, normalization, !forward, true);
  const std::vector<int64_t> gs = g.shape();
  const size_t last = LastAxis(axes, gs.size());
  const int64_t h = x.shape()[last];
  // Entries 1 .. n - h of the half spectrum also stand for their mirrors n - k.
  std::vector<double> w(static_cast<size_t>(h), 1.0);
  for (int64_t k = 1; k <= gs[last] - h; ++k) w[static_cast<size_t>(k)] = 2.0;
  std::vector<int64_t> ws(gs.size() - last, 1);
  ws[0] = h;
  const Tensor weight = cast(to_tensor<double>(w, ws), ToReal(gi.dtype()));
  return multiply(gi, weight);
}

}  // namespace oar
