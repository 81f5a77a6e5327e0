// Convolution as im2col + GEMM on the project's BLAS (conv_impl.h). Each
// sample's window columns are laid out as a [C_in/G * K, L] matrix (K kernel
// taps, L output positions) so one GEMM per (sample, group) does the work (in
// float32 the forward pass's GEMM runs in blocks of its inner dimension: Note [The
// forward convolution sums in blocks] in conv_impl.h).
// Samples run in parallel on oar's pool when there are at least as many as
// threads, each worker's BLAS calls on that worker alone; with fewer samples the
// loop is serial and BLAS threads.

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "oar/core/parallel.h"
#include "oar/core/wide_int.h"
#include "oar/kernels/cpu/conv_impl.h"
#include "oar/kernels/cpu/gemm.h"

namespace oar::conv_engine {
namespace {

using cpu::Gemm;

// The output positions o in [0, n) whose input position o * stride + off lies
// in [0, size): [lo, hi).
inline void ValidRange(int64_t n, int64_t stride, int64_t off, int64_t size, int64_t* lo,
                       int64_t* hi) {
  // In 128 bits: ConvGeometry allows pad_before + stride past int64 (-off + stride - 1
  // wrapped, lo went negative and the im2col fill ran off the buffer).
  const Int128 l = off >= 0 ? 0 : (-Int128(off) + stride - 1) / stride;
  const Int128 h =
      Int128(size) - 1 - off < 0 ? 0 : std::min<Int128>(n, (Int128(size) - 1 - off) / stride + 1);
  *lo = static_cast<int64_t>(std::min<Int128>(l, n));
  *hi = static_cast<int64_t>(std::max(h, Int128(*lo)));
}

// Calls f(col_row, src_offset_or_-1, lo, hi, wstride, woff) for each row
// segment of the column matrix of `channels` channels: the segment of OW
// outputs at (row, od, oh) reads input row src (offset of (c, id, ih)) at
// iw = ow * stride + woff for ow in [lo, hi), and is zero elsewhere.
template <typename F>
void ForEachSegment(const WindowGeometry& g, int64_t channels, F f) {
  const int64_t ID = g.in[0], IH = g.in[1], IW = g.in[2];
  const int64_t OD = g.out[0], OH = g.out[1], OW = g.out[2];
  const int64_t L = OD * OH * OW;
  int64_t row = 0;
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
      for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
        for (int64_t kw = 0; kw < g.kernel[2]; ++kw, ++row) {
          const int64_t woff = kw * g.dilation[2] - g.pad_before[2];
          int64_t lo, hi;
          ValidRange(OW, g.stride[2], woff, IW, &lo, &hi);
          for (int64_t od = 0; od < OD; ++od) {
            const int64_t id = od * g.stride[0] - g.pad_before[0] + kd * g.dilation[0];
            for (int64_t oh = 0; oh < OH; ++oh) {
              const int64_t ih = oh * g.stride[1] - g.pad_before[1] + kh * g.dilation[1];
              const bool inside = id >= 0 && id < ID && ih >= 0 && ih < IH;
              f(row * L + (od * OH + oh) * OW, inside ? ((c * ID + id) * IH + ih) * IW : -1,
                inside ? lo : 0, inside ? hi : 0, woff);
            }
          }
        }
      }
    }
  }
}

template <typename T>
void Im2Col(const T* x, const WindowGeometry& g, int64_t channels, T* cols) {
  const int64_t OW = g.out[2], sw = g.stride[2];
  ForEachSegment(g, channels, [&](int64_t dst, int64_t src, int64_t lo, int64_t hi, int64_t woff) {
    T* d = cols + dst;
    std::fill(d, d + lo, T(0));
    if (hi > lo) {
      const T* s = x + src + woff;
      if (sw == 1) {
        std::memcpy(d + lo, s + lo, (hi - lo) * sizeof(T));
      } else {
        for (int64_t ow = lo; ow < hi; ++ow) d[ow] = s[ow * sw];
      }
    }
    std::fill(d + std::max(lo, hi), d + OW, T(0));
  });
}

template <typename T>
void Col2Im(const T* cols, const WindowGeometry& g, int64_t channels, T* x) {
  const int64_t sw = g.stride[2];
  ForEachSegment(g, channels, [&](int64_t src, int64_t dst, int64_t lo, int64_t hi, int64_t woff) {
    if (hi <= lo) return;
    const T* s = cols + src;
    T* d = x + dst + woff;
    for (int64_t ow = lo; ow < hi; ++ow) d[ow * sw] += s[ow];
  });
}

// A 1x1 kernel with unit stride and no padding reads the input as is.
bool IsPointwise(const WindowGeometry& g) {
  for (int d = 0; d < 3; ++d) {
    if (g.kernel[d] != 1 || g.stride[d] != 1 || g.pad_before[d] != 0 || g.pad_after[d] != 0)
      return false;
  }
  return true;
}

// Runs f(n_begin, n_end) over samples: in parallel when each thread gets one.
template <typename F>
void ForSamples(int64_t n, int64_t cost, F f) {
  if (n >= detail::IntraOpThreads()) {
    // Each sample's GEMM runs on its own thread: Note [Libraries inside a chunk run on
    // one thread] in core/thread_pool.cc.
    ParallelFor(0, n, cost, [&](int64_t b, int64_t e) { f(b, e); });
  } else {
    f(0, n);
  }
}

// Rows of the forward GEMM's inner dimension summed in one block (Note [The forward
// convolution sums in blocks] in conv_impl.h): float32 only.
constexpr int64_t kSumBlockRows = 144;

template <typename T>
void ForwardT(const DenseTensor& x, const DenseTensor& w, const WindowGeometry& g, int64_t groups,
              DenseTensor* y, Sum sum) {
  const int64_t N = x.dims()[0], C = x.dims()[1], CO = w.dims()[0];
  const int64_t Cg = C / groups, COg = CO / groups, K = g.kernel_size();
  const int64_t L = g.out_size(), S = g.in_size(), CK = Cg * K;
  const T* px = static_cast<const T*>(x.data());
  const T* pw = static_cast<const T*>(w.data());
  T* py = static_cast<T*>(y->data());
  const bool pointwise = IsPointwise(g);
  const int64_t rows =
      std::is_same_v<T, float> && sum == Sum::kBlocked ? std::min(CK, kSumBlockRows) : CK;
  ForSamples(N, CO * CK * L, [&](int64_t b, int64_t e) {
    std::vector<T> cols(pointwise ? 0 : CK * L);
    for (int64_t n = b; n < e; ++n) {
      for (int64_t gi = 0; gi < groups; ++gi) {
        const T* xg = px + (n * C + gi * Cg) * S;
        if (!pointwise) Im2Col(xg, g, Cg, cols.data());
        const T* col = pointwise ? xg : cols.data();
        // y_g [COg, L] = W_g [COg, CK] . cols [CK, L], a block of rows of CK at a time.
        for (int64_t k0 = 0; k0 < CK; k0 += rows) {
          Gemm<T>(false, false, COg, L, std::min(rows, CK - k0), pw + gi * COg * CK + k0, CK,
                  col + k0 * L, L, k0 == 0 ? T(0) : T(1), py + (n * CO + gi * COg) * L, L);
        }
      }
    }
  });
}

template <typename T>
void BackwardDataT(const DenseTensor& dy, const DenseTensor& w, const WindowGeometry& g,
                   int64_t groups, DenseTensor* dx) {
  const int64_t N = dx->dims()[0], C = dx->dims()[1], CO = w.dims()[0];
  const int64_t Cg = C / groups, COg = CO / groups, K = g.kernel_size();
  const int64_t L = g.out_size(), S = g.in_size(), CK = Cg * K;
  const T* pdy = static_cast<const T*>(dy.data());
  const T* pw = static_cast<const T*>(w.data());
  T* pdx = static_cast<T*>(dx->data());
  const bool pointwise = IsPointwise(g);
  ForSamples(N, CO * CK * L, [&](int64_t b, int64_t e) {
    std::vector<T> cols(pointwise ? 0 : CK * L);
    for (int64_t n = b; n < e; ++n) {
      for (int64_t gi = 0; gi < groups; ++gi) {
        T* dxg = pdx + (n * C + gi * Cg) * S;
        // cols [CK, L] = W_g^T [CK, COg] . dy_g [COg, L]
        Gemm<T>(true, false, CK, L, COg, pw + gi * COg * CK, CK, pdy + (n * CO + gi * COg) * L, L,
                T(0), pointwise ? dxg : cols.data(), L);
        if (!pointwise) {
          std::fill(dxg, dxg + Cg * S, T(0));
          Col2Im(cols.data(), g, Cg, dxg);
        }
      }
    }
  });
}

template <typename T>
void BackwardWeightsT(const DenseTensor& x, const DenseTensor& dy, const WindowGeometry& g,
                      int64_t groups, DenseTensor* dw) {
  const int64_t N = x.dims()[0], C = x.dims()[1], CO = dy.dims()[1];
  const int64_t Cg = C / groups, COg = CO / groups, K = g.kernel_size();
  const int64_t L = g.out_size(), S = g.in_size(), CK = Cg * K;
  const T* px = static_cast<const T*>(x.data());
  const T* pdy = static_cast<const T*>(dy.data());
  T* pdw = static_cast<T*>(dw->data());
  const int64_t wsize = CO * CK;
  std::fill(pdw, pdw + wsize, T(0));
  if (N == 0) return;
  const bool pointwise = IsPointwise(g);
  // One partial sum per chunk of samples, keyed by the chunk's first sample and
  // added in that order: the same result on every run with the same threads.
  std::vector<std::vector<T>> partial(N);
  ForSamples(N, CO * CK * L, [&](int64_t b, int64_t e) {
    std::vector<T> cols(pointwise ? 0 : CK * L);
    std::vector<T>& acc = partial[b];
    acc.assign(wsize, T(0));
    for (int64_t n = b; n < e; ++n) {
      for (int64_t gi = 0; gi < groups; ++gi) {
        const T* xg = px + (n * C + gi * Cg) * S;
        if (!pointwise) Im2Col(xg, g, Cg, cols.data());
        // dW_g [COg, CK] += dy_g [COg, L] . cols^T [L, CK]
        Gemm<T>(false, true, COg, CK, L, pdy + (n * CO + gi * COg) * L, L,
                pointwise ? xg : cols.data(), L, T(1), acc.data() + gi * COg * CK, CK);
      }
    }
  });
  for (const auto& acc : partial) {
    if (acc.empty()) continue;
    for (int64_t i = 0; i < wsize; ++i) pdw[i] += acc[i];
  }
}

}  // namespace

namespace detail {
void GemmForward(const DenseTensor& x, const DenseTensor& w, const WindowGeometry& g,
                 int64_t groups, DenseTensor* y, Sum sum) {
  if (x.dtype() == DType::kFloat32) return ForwardT<float>(x, w, g, groups, y, sum);
  ForwardT<double>(x, w, g, groups, y, sum);
}
void GemmBackwardData(const DenseTensor& dy, const DenseTensor& w, const WindowGeometry& g,
                      int64_t groups, DenseTensor* dx) {
  if (dy.dtype() == DType::kFloat32) return BackwardDataT<float>(dy, w, g, groups, dx);
  BackwardDataT<double>(dy, w, g, groups, dx);
}
void GemmBackwardWeights(const DenseTensor& x, const DenseTensor& dy, const WindowGeometry& g,
                         int64_t groups, DenseTensor* dw) {
  if (x.dtype() == DType::kFloat32) return BackwardWeightsT<float>(x, dy, g, groups, dw);
  BackwardWeightsT<double>(x, dy, g, groups, dw);
}
}  // namespace detail

}  // namespace oar::conv_engine
