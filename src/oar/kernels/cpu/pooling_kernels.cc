// Kernels of the pooling ops (src/oar/ops/pooling.yaml): direct loops over the
// windows of each (n, c) plane, planes in parallel. The windows come from
// PoolWindow (infer_meta_conv.h), padded to three spatial dims like the conv
// geometry, so one loop nest serves 1-D, 2-D and 3-D pools.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "oar/core/parallel.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/funcs/max_pool_2x2.h"
#include "oar/kernels/funcs/max_pool_3x3.h"
#include "oar/kernels/infer_meta.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

// The windows of every output position, per spatial dim.
struct Windows {
  std::array<std::vector<Window>, 3> dim;
};
Windows AllWindows(const WindowGeometry& g, bool adaptive) {
  Windows w;
  for (int d = 0; d < 3; ++d) {
    // The padded leading dims of a 1-D/2-D pool have one window covering the one element.
    const bool real = d >= 3 - g.nd;
    for (int64_t o = 0; o < g.out[d]; ++o) {
      w.dim[d].push_back(real ? PoolWindow(g, d, o, adaptive) : Window{0, 1, 1});
    }
  }
  return w;
}

// Calls f(plane, out_index, window_d, window_h, window_w) for every output
// position of every plane, planes split over threads.
template <typename F>
void ForEachWindow(int64_t planes, const WindowGeometry& g, const Windows& w, F f) {
  ParallelFor(0, planes, g.plane_cost(), [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      int64_t o = 0;
      for (const Window& wd : w.dim[0]) {
        for (const Window& wh : w.dim[1]) {
          for (const Window& ww : w.dim[2]) f(p, o++, wd, wh, ww);
        }
      }
    }
  });
}

int64_t Planes(const DenseTensor& x) { return x.dims()[0] * x.dims()[1]; }

// The divisor of a window: divisor, the elements inside the input
// (exclusive, and always for adaptive windows) or the window clipped to the
// padded input.
inline int64_t Divisor(const Window& d, const Window& h, const Window& w, bool exclusive,
                       int64_t divisor, bool adaptive) {
  if (divisor > 0) return divisor;
  if (exclusive || adaptive) return (d.end - d.begin) * (h.end - h.begin) * (w.end - w.begin);
  return d.padded_count * h.padded_count * w.padded_count;
}

// The argmax rule of max pooling: v replaces the best so far when larger, or when
// it is a NaN (the max of a window with a NaN is NaN; a later NaN takes over, as in
// PyTorch's pooling kernels, so a window of several NaNs gives the last one's index,
// as cummax does). Written without short-circuits so it compiles to selects: on
// random data a branch here is mispredicted every other element.
template <typename C>
inline bool TakesOver(C v, C best) {
  return (v > best) | (v != v);
}

// The run [lo, hi) of output columns whose window is full (kernel-wide, not clipped by
// padding); empty when there is none.
inline std::pair<int64_t, int64_t> FullColumns(const std::vector<Window>& wcols, int64_t kw,
                                               int64_t sw, int64_t pw) {
  const int64_t OW = static_cast<int64_t>(wcols.size());
  auto full = [&](int64_t ow) {
    return wcols[ow].end - wcols[ow].begin == kw && wcols[ow].begin == ow * sw - pw;
  };
  int64_t lo = 0, hi = OW;
  while (lo < OW && !full(lo)) ++lo;
  while (hi > lo && !full(hi - 1)) --hi;
  return {lo, hi};
}

// Max pooling of one output row (one oh of one plane) whose window rows are wh:
// each output's flat index into the plane (index != null: max_pool_index) or its
// value (values != null: max_pool), from the same windows visited in the same order
// with the same rule, so each value is the one the index points at. Output columns
// whose window is full (kernel-wide, not clipped by padding) are done a window
// offset at a time across the whole run of columns, a loop the compiler vectorises;
// the few clipped columns at the edges take the plain loop. Both visit a window's
// elements in row-major order, so ties keep the first.
// run3, when not null, does the run of full columns instead (funcs/max_pool_3x3.h:
// 3-wide windows at column stride 2).
template <typename T, bool kIndex>
void MaxPoolRow(const T* plane, int64_t IW, const Window& wh, const std::vector<Window>& wcols,
                int64_t kw, int64_t sw, int64_t pw, int64_t* index, T* values, compute_t<T>* best_v,
                funcs::MaxPool3x3RunFn run3 = nullptr) {
  using C = compute_t<T>;
  const int64_t OW = static_cast<int64_t>(wcols.size());
  const auto [lo, hi] = FullColumns(wcols, kw, sw, pw);
  for (int64_t ow = 0; ow < OW; ++ow) {
    if (ow == lo && lo < hi) ow = hi;
    if (ow >= OW) break;
    const Window& ww = wcols[ow];
    int64_t best = wh.begin * IW + ww.begin;
    C bv = C(plane[best]);
    for (int64_t ih = wh.begin; ih < wh.end; ++ih) {
      for (int64_t iw = ww.begin; iw < ww.end; ++iw) {
        const C v = C(plane[ih * IW + iw]);
        const bool take = TakesOver(v, bv);
        if constexpr (kIndex) best = take ? ih * IW + iw : best;
        bv = take ? v : bv;
      }
    }
    if constexpr (kIndex) {
      index[ow] = best;
    } else {
      values[ow] = static_cast<T>(bv);
    }
  }
  if (lo >= hi) return;
  if (run3 != nullptr) {
    run3(plane, IW, wh.begin, wh.end - wh.begin, lo * sw - pw, hi - lo,
         kIndex ? index + lo : nullptr, kIndex ? nullptr : values + lo);
    return;
  }
  const T* first = plane + wh.begin * IW - pw;
  for (int64_t ow = lo; ow < hi; ++ow) {
    best_v[ow] = C(first[ow * sw]);
    if constexpr (kIndex) index[ow] = wh.begin * IW + ow * sw - pw;
  }
  for (int64_t ih = wh.begin; ih < wh.end; ++ih) {
    for (int64_t j = 0; j < kw; ++j) {
      if (ih == wh.begin && j == 0) continue;
      const T* src = plane + ih * IW - pw + j;
      const int64_t at = ih * IW - pw + j;
      for (int64_t ow = lo; ow < hi; ++ow) {
        const C v = C(src[ow * sw]);
        const bool take = TakesOver(v, best_v[ow]);
        if constexpr (kIndex) index[ow] = take ? at + ow * sw : index[ow];
        best_v[ow] = take ? v : best_v[ow];
      }
    }
  }
  if constexpr (!kIndex) {
    for (int64_t ow = lo; ow < hi; ++ow) values[ow] = static_cast<T>(best_v[ow]);
  }
}

// The SIMD run of MaxPoolRow for g's rows, or null: 3-wide windows at column stride 2
// (ResNet's 3x3 stride-2 pool) in planes whose offsets fit 32 bits (funcs/max_pool_3x3.h).
template <typename T>
funcs::MaxPool3x3RunFn Run3x3For(const WindowGeometry& g) {
  const bool fits = g.in_size() < (int64_t{1} << 31);
  return g.kernel[2] == 3 && g.stride[2] == 2 && fits ? funcs::MaxPool3x3RunFor(dtype_of_v<T>)
                                                      : nullptr;
}

}  // namespace

// Note [Average pooling sums a block of planes side by side]
// A window's sum is a chain of dependent adds, one element at a time in row-major order:
// a global average over a small plane (ResNet's 512 x 7 x 7 head) waits on the add's
// latency for every element. Summing kAvgPlaneBlock planes' windows side by side keeps
// each plane's order (the same bits) and runs that many chains at once; an input whose
// channels are adjacent in memory (a folded convolution's channels-last output) is read
// where it is, a block's channels one vector, instead of being made contiguous first.
// The threads split the output rows of the blocks, so a few planes split too. ResNet-18's
// head (512 x 7 x 7 in the C++ runtime, two threads, Xeon with AVX-512) took 14-15 us
// this way against 44-45 a plane at a time (three alternating rounds); from Python, best
// of seven, against the kernel before: 2x2 windows over [8, 64, 112, 112] 1.65 ms
// against 4.96, 3x3 over [1, 3, 1024, 1024] 13.3 against 16.0, 3x3 stride 2 over a
// channels-last [8, 64, 56, 56] 0.45 against 2.03, a global average of
// [32, 2048, 7, 7] 0.72 against 0.78.
constexpr int64_t kAvgPlaneBlock = 16;

// Whether x (of rank 3 to 5) holds its channels adjacent, each sample's pixels C apart
// in row-major order: the layout AvgPoolKernel reads in place.
bool ChannelsAdjacent(const DenseTensor& x) {
  const DDim& d = x.dims();
  const DDim& st = x.strides();
  if (d.size() < 3 || st[1] != 1) return false;
  int64_t step = d[1];
  for (size_t i = d.size(); i-- > 2;) {
    if (d[i] != 1 && st[i] != step) return false;
    step *= d[i];
  }
  return d[0] == 1 || st[0] == step;
}

template <typename T>
void AvgPoolKernel(const DeviceContext&, const DenseTensor& x_in,
                   const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& strides,
                   const std::vector<int64_t>& paddings, bool ceil_mode, bool exclusive,
                   int64_t divisor, bool adaptive, DenseTensor* out) {
  using C = compute_t<T>;
  const WindowGeometry g =
      PoolGeometry(x_in.dims(), kernel_size, strides, paddings, ceil_mode, adaptive);
  const bool adjacent = ChannelsAdjacent(x_in);
  const DenseTensor x = adjacent ? x_in : funcs::Contiguous(x_in);
  const T* px = static_cast<const T*>(x.data());
  T* po = static_cast<T*>(out->AllocateFrom(x.place()));
  if (out->numel() == 0) return;
  const Windows w = AllWindows(g, adaptive);
  const int64_t S = g.in_size(), L = g.out_size(), IH = g.in[1], IW = g.in[2];
  const int64_t N = x.dims()[0], CH = x.dims()[1];
  const int64_t OD = g.out[0], OH = g.out[1], OW = g.out[2];
  // Plane (n, c) starts at n * CH * S + c * c_step; its pixel i is i * pixel elements on.
  const int64_t c_step = adjacent ? 1 : S, pixel = adjacent ? CH : 1;
  const int64_t blocks = (CH + kAvgPlaneBlock - 1) / kAvgPlaneBlock;
  // One work item is one output row of a block of planes: a few planes still split over
  // the threads by rows. The cost is saturated as plane_cost is.
  const int64_t per_row = std::max<int64_t>(g.plane_cost() / std::max<int64_t>(OD * OH, 1), 1);
  const int64_t cost = std::min<int64_t>(per_row, INT64_MAX / kAvgPlaneBlock) * kAvgPlaneBlock;
  ParallelFor(0, N * blocks * OD * OH, cost, [&](int64_t b, int64_t e) {
    for (int64_t item = b; item < e; ++item) {
      const int64_t row = item % (OD * OH), nb = item / (OD * OH);
      const int64_t n = nb / blocks, c0 = nb % blocks * kAvgPlaneBlock;
      const int64_t len = std::min(kAvgPlaneBlock, CH - c0);
      const Window& wd = w.dim[0][static_cast<size_t>(row / OH)];
      const Window& wh = w.dim[1][static_cast<size_t>(row % OH)];
      const T* first = px + n * CH * S + c0 * c_step;
      T* dst = po + (n * CH + c0) * L + row * OW;
      for (int64_t ow = 0; ow < OW; ++ow) {
        const Window& ww = w.dim[2][static_cast<size_t>(ow)];
        C sum[kAvgPlaneBlock] = {};
        for (int64_t id = wd.begin; id < wd.end; ++id) {
          for (int64_t ih = wh.begin; ih < wh.end; ++ih) {
            for (int64_t iw = ww.begin; iw < ww.end; ++iw) {
              const T* v = first + ((id * IH + ih) * IW + iw) * pixel;
              for (int64_t j = 0; j < len; ++j) sum[j] += C(v[j * c_step]);
            }
          }
        }
        const C div = C(Divisor(wd, wh, ww, exclusive, divisor, adaptive));
        for (int64_t j = 0; j < len; ++j) dst[j * L + ow] = static_cast<T>(sum[j] / div);
      }
    }
  });
}

template <typename T>
void AvgPoolGradKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& grad_out_in,
                       const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& strides,
                       const std::vector<int64_t>& paddings, bool ceil_mode, bool exclusive,
                       int64_t divisor, bool adaptive, DenseTensor* x_grad) {
  using C = compute_t<T>;
  const WindowGeometry g =
      PoolGeometry(x.dims(), kernel_size, strides, paddings, ceil_mode, adaptive);
  const DenseTensor gout = funcs::Contiguous(grad_out_in);
  const T* pg = static_cast<const T*>(gout.data());
  T* pdx = static_cast<T*>(x_grad->AllocateFrom(x.place()));
  if (x_grad->numel() == 0) return;
  const int64_t S = g.in_size(), L = g.out_size(), IH = g.in[1], IW = g.in[2];
  // Accumulate in the compute type, one plane at a time, then round once.
  const Windows w = AllWindows(g, adaptive);
  std::vector<std::vector<C>> scratch(Planes(x));
  ForEachWindow(Planes(x), g, w,
                [&](int64_t p, int64_t o, const Window& wd, const Window& wh, const Window& ww) {
                  std::vector<C>& acc = scratch[p];
                  if (o == 0) acc.assign(S, C(0));
                  const C v =
                      C(pg[p * L + o]) / C(Divisor(wd, wh, ww, exclusive, divisor, adaptive));
                  for (int64_t id = wd.begin; id < wd.end; ++id) {
                    for (int64_t ih = wh.begin; ih < wh.end; ++ih) {
                      C* row = acc.data() + (id * IH + ih) * IW;
                      for (int64_t iw = ww.begin; iw < ww.end; ++iw) row[iw] += v;
                    }
                  }
                  if (o == L - 1) {
                    for (int64_t i = 0; i < S; ++i) pdx[p * S + i] = static_cast<T>(acc[i]);
                    std::vector<C>().swap(acc);
                  }
                });
}

template <typename T>
void MaxPoolIndexKernel(const DeviceContext&, const DenseTensor& x_in,
                        const std::vector<int64_t>& kernel_size,
                        const std::vector<int64_t>& strides, const std::vector<int64_t>& paddings,
                        bool ceil_mode, bool adaptive, DenseTensor* out) {
  using C = compute_t<T>;
  const WindowGeometry g =
      PoolGeometry(x_in.dims(), kernel_size, strides, paddings, ceil_mode, adaptive);
  const DenseTensor x = funcs::Contiguous(x_in);
  const T* px = static_cast<const T*>(x.data());
  int64_t* po = static_cast<int64_t*>(out->AllocateFrom(x.place()));
  if (out->numel() == 0) return;
  // An adaptive window over an empty input has no maximum (the loops below read the
  // plane's first element: a segfault found by the fuzzer); PyTorch refuses it too. (The
  // average of none is NaN, as PyTorch's.)
  OAR_ENFORCE(x.numel() > 0,
              errors::InvalidArgument("argument 'x' has shape ", DimsToString(x.dims()),
                                      ": a max pool needs a non-empty input for an output of ",
                                      DimsToString(out->dims())));
  const Windows w = AllWindows(g, adaptive);
  const int64_t S = g.in_size(), L = g.out_size(), IH = g.in[1], IW = g.in[2];
  if (g.in[0] == 1 && g.out[0] == 1 && !adaptive) {
    // 1-D and 2-D pools: a row of outputs at a time (MaxPoolRow).
    const int64_t OH = g.out[1], OW = g.out[2];
    // 2x2 windows at stride 2, none of them clipped (funcs/max_pool_2x2.h).
    const bool two_by_two = g.kernel[1] == 2 && g.kernel[2] == 2 && g.stride[1] == 2 &&
                            g.stride[2] == 2 && g.pad_before[1] == 0 && g.pad_before[2] == 0 &&
                            2 * OH <= IH && 2 * OW <= IW && S < (int64_t{1} << 31);
    if (const funcs::MaxPool2x2Fn simd = funcs::MaxPool2x2For(dtype_of_v<T>);
        two_by_two && simd != nullptr) {
      ParallelFor(0, Planes(x), L * 4, [&](int64_t b, int64_t e) {
        for (int64_t p = b; p < e; ++p) simd(px + p * S, IW, OH, OW, po + p * L);
      });
      return;
    }
    const funcs::MaxPool3x3RunFn run3 = Run3x3For<T>(g);
    ParallelFor(0, Planes(x), g.plane_cost(), [&](int64_t b, int64_t e) {
      std::vector<C> best_v(static_cast<size_t>(OW));
      for (int64_t p = b; p < e; ++p) {
        for (int64_t oh = 0; oh < OH; ++oh) {
          MaxPoolRow<T, true>(px + p * S, IW, w.dim[1][oh], w.dim[2], g.kernel[2], g.stride[2],
                              g.pad_before[2], po + p * L + oh * OW, nullptr, best_v.data(), run3);
        }
      }
    });
    return;
  }
  ForEachWindow(Planes(x), g, w,
                [&](int64_t p, int64_t o, const Window& wd, const Window& wh, const Window& ww) {
                  const T* plane = px + p * S;
                  int64_t best = (wd.begin * IH + wh.begin) * IW + ww.begin;
                  C best_v = C(plane[best]);
                  for (int64_t id = wd.begin; id < wd.end; ++id) {
                    for (int64_t ih = wh.begin; ih < wh.end; ++ih) {
                      const int64_t row = (id * IH + ih) * IW;
                      for (int64_t iw = ww.begin; iw < ww.end; ++iw) {
                        const C v = C(plane[row + iw]);
                        const bool take = TakesOver(v, best_v);
                        best = take ? row + iw : best;
                        best_v = take ? v : best_v;
                      }
                    }
                  }
                  po[p * L + o] = best;
                });
}

// The values of max pooling without an index tensor (max_pool: inference). 1-D and 2-D
// pools take MaxPoolRow (values only) a row at a time; other pools gather max_pool_index's result.
template <typename T>
void PoolGatherKernel(const DeviceContext&, const DenseTensor& x_in, const DenseTensor& index,
                      DenseTensor* out);

template <typename T>
void MaxPoolKernel(const DeviceContext& ctx, const DenseTensor& x_in,
                   const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& strides,
                   const std::vector<int64_t>& paddings, bool ceil_mode, bool adaptive,
                   DenseTensor* out) {
  using C = compute_t<T>;
  const WindowGeometry g =
      PoolGeometry(x_in.dims(), kernel_size, strides, paddings, ceil_mode, adaptive);
  if (adaptive || g.in[0] != 1 || g.out[0] != 1 || out->numel() == 0 || x_in.numel() == 0) {
    DenseTensor index(DType::kInt64, out->dims());
    MaxPoolIndexKernel<T>(ctx, x_in, kernel_size, strides, paddings, ceil_mode, adaptive, &index);
    PoolGatherKernel<T>(ctx, x_in, index, out);
    return;
  }
  const DenseTensor x = funcs::Contiguous(x_in);
  const T* px = static_cast<const T*>(x.data());
  T* po = static_cast<T*>(out->AllocateFrom(x.place()));
  const Windows w = AllWindows(g, false);
  const int64_t S = g.in_size(), L = g.out_size(), IW = g.in[2];
  const int64_t OH = g.out[1], OW = g.out[2];
  const funcs::MaxPool3x3RunFn run3 = Run3x3For<T>(g);
  ParallelFor(0, Planes(x), g.plane_cost(), [&](int64_t b, int64_t e) {
    std::vector<C> best_v(static_cast<size_t>(OW));
    for (int64_t p = b; p < e; ++p) {
      for (int64_t oh = 0; oh < OH; ++oh) {
        MaxPoolRow<T, false>(px + p * S, IW, w.dim[1][oh], w.dim[2], g.kernel[2], g.stride[2],
                             g.pad_before[2], nullptr, po + p * L + oh * OW, best_v.data(), run3);
      }
    }
  });
}

namespace {
// Calls body(p, index row, j0, j1) for every plane p with its J indices, after checking
// they lie in the plane's S elements. The loops of pool_gather and pool_scatter are
// written over plain pointers in the body: through a per-element callback holding
// references, GCC reloaded every pointer for each element (bfloat16's 16-bit stores
// may alias them), and max pooling's gather and scatter took half the backward pass
// of the demo CNN's pooling layers.
template <typename F>
void ForEachIndexedPlane(const DDim& x_dims, const DenseTensor& index_in, F body) {
  const DenseTensor index = funcs::Contiguous(index_in);
  const int64_t* pi = static_cast<const int64_t*>(index.data());
  const int64_t planes = x_dims[0] * x_dims[1];
  if (planes == 0) return;
  const int64_t S = Product(x_dims) / planes, J = index.numel() / planes;
  ParallelFor(0, planes, J, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const int64_t* ip = pi + p * J;
      // The largest index as unsigned (a negative one is huge): one vectorised pass.
      uint64_t top = 0;
      for (int64_t j = 0; j < J; ++j) top = std::max(top, static_cast<uint64_t>(ip[j]));
      if (J > 0 && top >= static_cast<uint64_t>(S)) {
        for (int64_t j = 0; j < J; ++j) {
          OAR_ENFORCE(ip[j] >= 0 && ip[j] < S,
                      errors::OutOfRange("argument 'index' holds ", ip[j],
                                         ", outside the planes of x (", S, " elements)"));
        }
      }
      body(p, ip, S, J);
    }
  });
}
}  // namespace

template <typename T>
void PoolGatherKernel(const DeviceContext&, const DenseTensor& x_in, const DenseTensor& index,
                      DenseTensor* out) {
  const DenseTensor x = funcs::Contiguous(x_in);
  const T* px = static_cast<const T*>(x.data());
  T* po = static_cast<T*>(out->AllocateFrom(x.place()));
  if (out->numel() == 0) return;
  ForEachIndexedPlane(x.dims(), index,
                      [px, po](int64_t p, const int64_t* ip, int64_t S, int64_t J) {
                        const T* xs = px + p * S;
                        T* os = po + p * J;
                        for (int64_t j = 0; j < J; ++j) os[j] = xs[ip[j]];
                      });
}

template <typename T>
void PoolScatterKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& index,
                       const DenseTensor& grad_out_in, DenseTensor* x_grad) {
  using C = compute_t<T>;
  const DenseTensor gout = funcs::Contiguous(grad_out_in);
  const T* pg = static_cast<const T*>(gout.data());
  T* pdx = static_cast<T*>(x_grad->AllocateFrom(x.place()));
  if (x_grad->numel() == 0) return;
  // Each plane (every one, also with no window) is zeroed and then written by one thread;
  // overlapping windows add up. (All-zero bits are +0 in every float type.)
  ForEachIndexedPlane(
      x.dims(), index, [pg, pdx](int64_t p, const int64_t* ip, int64_t S, int64_t J) {
        T* ds = pdx + p * S;
        const T* gs = pg + p * J;
        if constexpr (std::is_same_v<T, C>) {
          std::memset(static_cast<void*>(ds), 0, static_cast<size_t>(S) * sizeof(T));
          for (int64_t j = 0; j < J; ++j) ds[ip[j]] += gs[j];
        } else {
          // A low-precision plane is summed in C and rounded once, in a vectorised pass
          // (rounding at each add was a scalar convert-add-round per index: 2x float32's time).
          thread_local std::vector<C> acc;
          acc.assign(static_cast<size_t>(S), C(0));
          for (int64_t j = 0; j < J; ++j) acc[ip[j]] += C(gs[j]);
          for (int64_t i = 0; i < S; ++i) ds[i] = static_cast<T>(acc[i]);
        }
      });
}

OAR_REGISTER_KERNEL(avg_pool, CPU, Any, AvgPoolKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(avg_pool_grad, CPU, Any, AvgPoolGradKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(max_pool_index, CPU, Any, MaxPoolIndexKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(max_pool, CPU, Any, MaxPoolKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(pool_gather, CPU, Any, PoolGatherKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(pool_scatter, CPU, Any, PoolScatterKernel, OAR_FLOAT_TYPES);

}  // namespace oar
