// Kernels of the conv ops (src/oar/ops/conv.yaml): shape handling, dtype
// handling and the choice of engine (conv_impl.h) per pass and shape.
#include <omp.h>

#include "oar/core/wide_int.h"
#include "oar/kernels/cpu/conv_impl.h"
#include "oar/kernels/cpu/conv_no_grad.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/infer_meta.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace conv_engine {

namespace detail {
void GemmForward(const DenseTensor&, const DenseTensor&, const WindowGeometry&, int64_t,
                 DenseTensor*, Sum);
void GemmBackwardData(const DenseTensor&, const DenseTensor&, const WindowGeometry&, int64_t,
                      DenseTensor*);
void GemmBackwardWeights(const DenseTensor&, const DenseTensor&, const WindowGeometry&, int64_t,
                         DenseTensor*);
void OneDnnForward(const DenseTensor&, const DenseTensor&, const WindowGeometry&, int64_t,
                   DenseTensor*, Sum);
void OneDnnBackwardData(const DenseTensor&, const DenseTensor&, const WindowGeometry&, int64_t,
                        DenseTensor*);
void OneDnnBackwardWeights(const DenseTensor&, const DenseTensor&, const WindowGeometry&, int64_t,
                           DenseTensor*);
void WinogradForward(const DenseTensor&, const DenseTensor&, const WindowGeometry&, DenseTensor*);
void WinogradBackwardData(const DenseTensor&, const DenseTensor&, const WindowGeometry&,
                          DenseTensor*);
void WinogradBackwardWeights(const DenseTensor&, const DenseTensor&, const WindowGeometry&,
                             DenseTensor*);
}  // namespace detail

bool OneDnnSupports(DType dtype, const WindowGeometry& g) {
  if (!OneDnnFastDtype(dtype)) return false;
  for (int d = 0; d < 3; ++d) {
    // In 128 bits, as ConvGeometry. oneDNN refuses to build a primitive for strides or
    // paddings near 2^62 ("could not create a descriptor"): those go to the GEMM path.
    const Int128 span = static_cast<Int128>(g.dilation[d]) * (g.kernel[d] - 1) + 1;
    const Int128 padded = static_cast<Int128>(g.in[d]) + g.pad_before[d] + g.pad_after[d];
    if (padded > INT32_MAX || span > INT32_MAX || g.stride[d] > INT32_MAX) return false;
    if (g.in[d] < 1 || g.out[d] < 1 || padded < span) return false;
    if ((padded - span) / g.stride[d] + 1 != g.out[d]) return false;
  }
  return true;
}

// Measured with benchmarks/conv.cc (docs/benchmarks.md, "Convolution"). oneDNN
// wins every pass of 3x3 (and strided) convolutions with more channels, and the
// forward pass of a first layer with few input taps (C_in / groups * K < 32);
// GEMM wins that layer's data gradient (thin GEMMs, where oneDNN's reorders
// dominate). The weight gradient of such a layer and 1x1 convolutions (a plain
// GEMM without im2col) depend on the CPU: GEMM on AVX2 machines, oneDNN's
// AVX-512 kernels (2x and 1.5x faster) where it has them. float64 has no
// oneDNN path.
//
// Note [Depthwise convolutions' gradients on oneDNN]
// A 2-D depthwise convolution (one input and one output channel per group, as in
// MobileNetV2) has few taps too, but the GEMM path runs it as one tiny GEMM per
// sample and channel. oneDNN's depthwise kernels (jit_dw) run its data gradient for
// any kernel and its weight gradient for 3x3 kernels; for other kernels its weight
// gradient is its own im2col GEMM. On an AVX2 Zen 3 (two threads, `oar_bench_conv
// depthwise`) oneDNN took 0.09-0.63x the GEMM path's time on the data gradients of
// MobileNetV2's depthwise layers at batch 8, 0.05-0.63x on their weight gradients,
// and 0.25x on a 5x5 layer's data gradient but 2.4x on its weight gradient;
// MobileNetV2's training step went from 700-811 to 542-549 ms (benchmarks/models.py).
// Grouped layers with 2 or 3 channels per group stay with the first layer's rule
// (oneDNN took 1.7-2.6x GEMM's time on their gradients). So depthwise layers take
// oneDNN for their data gradient, and for their weight gradient when the kernel is
// 3x3 or oneDNN runs AVX-512 kernels (the rule for few taps there). On AVX-512 the
// data gradient moves to oneDNN too, unmeasured there: the GEMM path is the same
// per-channel loop, and oneDNN's depthwise kernels the same design, wider.
namespace {
bool Depthwise2d(const WindowGeometry& g, int64_t c_in, int64_t c_out, int64_t groups) {
  return g.nd == 2 && groups > 1 && c_in == groups && c_out == groups;
}
}  // namespace

Algo Choose(Pass pass, DType dtype, const WindowGeometry& g, int64_t n, int64_t c_in, int64_t c_out,
            int64_t groups) {
  if (n == 0 || c_in == 0 || c_out == 0 || !OneDnnSupports(dtype, g)) return Algo::kGemm;
  const bool few_taps = c_in / groups * g.kernel_size() < 32;
  // bfloat16 (benchmarks/amp.py, docs/amp_kernels.md): oneDNN in bfloat16
  // beats float32 around two casts, except for a few-taps layer, whose
  // bfloat16 kernels took 1.5-4x float32's time: kGemm here makes RunPass
  // compute it in float32, on float32's choice of engine.
  if (dtype == DType::kBFloat16) return few_taps ? Algo::kGemm : Algo::kOneDnn;
  bool pointwise = true;
  for (int d = 0; d < 3; ++d) {
    pointwise = pointwise && g.kernel[d] == 1 && g.stride[d] == 1 && g.pad_before[d] == 0 &&
                g.pad_after[d] == 0;
  }
  if (pointwise) return OneDnnAvx512() ? Algo::kOneDnn : Algo::kGemm;
  if (few_taps && Depthwise2d(g, c_in, c_out, groups)) {
    const bool three_by_three = g.kernel[1] == 3 && g.kernel[2] == 3;
    if (pass == Pass::kBackwardWeights && !three_by_three && !OneDnnAvx512()) return Algo::kGemm;
    return Algo::kOneDnn;
  }
  if (!OneDnnAvx512() && WinogradShape(dtype, g, n, c_in, c_out, groups)) {
    return Algo::kWinograd;
  }
  if (few_taps && pass == Pass::kBackwardData) return Algo::kGemm;
  if (few_taps && pass == Pass::kBackwardWeights) {
    return OneDnnAvx512() ? Algo::kOneDnn : Algo::kGemm;
  }
  return Algo::kOneDnn;
}

void Forward(Algo algo, const DenseTensor& x, const DenseTensor& w, const WindowGeometry& g,
             int64_t groups, DenseTensor* y, Sum sum) {
  if (algo == Algo::kOneDnn) return detail::OneDnnForward(x, w, g, groups, y, sum);
  if (algo == Algo::kWinograd) return detail::WinogradForward(x, w, g, y);
  detail::GemmForward(x, w, g, groups, y, sum);
}
void BackwardData(Algo algo, const DenseTensor& dy, const DenseTensor& w, const WindowGeometry& g,
                  int64_t groups, DenseTensor* dx) {
  if (algo == Algo::kOneDnn) return detail::OneDnnBackwardData(dy, w, g, groups, dx);
  if (algo == Algo::kWinograd) return detail::WinogradBackwardData(dy, w, g, dx);
  detail::GemmBackwardData(dy, w, g, groups, dx);
}
void BackwardWeights(Algo algo, const DenseTensor& x, const DenseTensor& dy,
                     const WindowGeometry& g, int64_t groups, DenseTensor* dw) {
  if (algo == Algo::kOneDnn) return detail::OneDnnBackwardWeights(x, dy, g, groups, dw);
  if (algo == Algo::kWinograd) return detail::WinogradBackwardWeights(x, dy, g, dw);
  detail::GemmBackwardWeights(x, dy, g, groups, dw);
}

}  // namespace conv_engine

namespace {

// Runs `pass` on contiguous copies of a and b in the compute dtype and writes
// *out. bfloat16 computes in its own dtype where oneDNN runs the pass (float32
// accumulation inside); otherwise float16 and bfloat16 compute in float32 and
// round once.
template <typename T>
void RunPass(conv_engine::Pass pass, const DenseTensor& a_in, const DenseTensor& b_in,
             const WindowGeometry& g, int64_t groups, int64_t n, int64_t c_in, int64_t c_out,
             DenseTensor* out) {
  out->AllocateFrom(a_in.place());
  if (out->numel() == 0) return;
  const bool native = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                      (a_in.numel() > 0 && b_in.numel() > 0 &&
                       conv_engine::Choose(pass, dtype_of_v<T>, g, n, c_in, c_out, groups) ==
                           conv_engine::Algo::kOneDnn);
  const DType compute = native ? dtype_of_v<T> : DType::kFloat32;
  const DenseTensor a = funcs::Contiguous(funcs::CastTo(a_in, compute));
  const DenseTensor b = funcs::Contiguous(funcs::CastTo(b_in, compute));
  DenseTensor result = *out;
  if (!native) {
    result = DenseTensor(compute, out->dims());
    result.AllocateFrom(a_in.place());
  }
  if (a.numel() == 0 || b.numel() == 0) {
    funcs::Fill(&result, 0);  // nothing to sum over
  } else {
    const conv_engine::Algo algo = conv_engine::Choose(pass, compute, g, n, c_in, c_out, groups);
    switch (pass) {
      case conv_engine::Pass::kForward:
        conv_engine::Forward(algo, a, b, g, groups, &result);
        break;
      case conv_engine::Pass::kBackwardData:
        conv_engine::BackwardData(algo, a, b, g, groups, &result);
        break;
      case conv_engine::Pass::kBackwardWeights:
        conv_engine::BackwardWeights(algo, a, b, g, groups, &result);
        break;
    }
  }
  if (!native) funcs::CopyInto(result, out);
}

}  // namespace

template <typename T>
void ConvKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& weight,
                const std::vector<int64_t>& strides, const std::vector<int64_t>& paddings,
                const std::vector<int64_t>& dilations, int64_t groups, DenseTensor* out) {
  const WindowGeometry g =
      ConvGeometry(x.dims(), weight.dims(), strides, paddings, dilations, groups);
  // Note [A convolution without a graph runs folded]
  if (std::is_same_v<T, float> &&
      conv_engine::NoGradForward(x, weight, strides, paddings, dilations, groups, out)) {
    return;
  }
  RunPass<T>(conv_engine::Pass::kForward, x, weight, g, groups, x.dims()[0], x.dims()[1],
             weight.dims()[0], out);
}

// conv_transpose(x, w) is the data gradient of the convolution whose output
// has x's shape and whose input has out's shape.
template <typename T>
void ConvTransposeKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& weight,
                         const std::vector<int64_t>& strides, const std::vector<int64_t>& paddings,
                         const std::vector<int64_t>&, const std::vector<int64_t>& dilations,
                         int64_t groups, DenseTensor* out) {
  WindowGeometry g;
  g.nd = x.ndim() - 2;
  const auto s = PerDimOr(strides, g.nd, 1), p = PerDimOr(paddings, 2 * g.nd, 0);
  const auto dl = PerDimOr(dilations, g.nd, 1);
  for (int d = 0; d < g.nd; ++d) {
    const int i = 3 - g.nd + d;
    g.in[i] = out->dims()[2 + d];
    g.out[i] = x.dims()[2 + d];
    g.kernel[i] = weight.dims()[2 + d];
    g.stride[i] = s[d];
    g.dilation[i] = dl[d];
    g.pad_before[i] = p[2 * d];
    g.pad_after[i] = p[2 * d + 1];
  }
  RunPass<T>(conv_engine::Pass::kBackwardData, x, weight, g, groups, x.dims()[0], out->dims()[1],
             x.dims()[1], out);
}

template <typename T>
void ConvFilterGradKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& grad_out,
                          const std::vector<int64_t>& filter_shape,
                          const std::vector<int64_t>& strides, const std::vector<int64_t>& paddings,
                          const std::vector<int64_t>& dilations, int64_t groups,
                          DenseTensor* weight_grad) {
  const DDim w(filter_shape.begin(), filter_shape.end());
  const WindowGeometry g = ConvGeometry(x.dims(), w, strides, paddings, dilations, groups);
  RunPass<T>(conv_engine::Pass::kBackwardWeights, x, grad_out, g, groups, x.dims()[0], x.dims()[1],
             w[0], weight_grad);
}

OAR_REGISTER_KERNEL(conv, CPU, Any, ConvKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(conv_transpose, CPU, Any, ConvTransposeKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(conv_filter_grad, CPU, Any, ConvFilterGradKernel, OAR_FLOAT_TYPES);

}  // namespace oar
