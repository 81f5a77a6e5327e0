// The "shape" section of src/oar/ops/: flip, roll and pad gather every output element from
// one source element per axis (an index map per axis), so they share one strided gather and
// its adjoint (a scatter-add, pad's gradient). diagonal and tensor_unfold are views; their
// gradients write (or add) into the same view of a zero tensor.
#include <limits>
#include <numeric>
#include <vector>

#include "oar/core/float16.h"
#include "oar/core/parallel.h"
#include "oar/kernels/funcs/axis_rows.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/infer_meta.h"
#include "oar/kernels/infer_meta_shape.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

// maps[d][i] is the index along axis d of x that output index i reads, or -1 for "the fill
// value" (pad's constant mode). One map per axis of x; out has one dim per map.
using AxisMaps = std::vector<std::vector<int64_t>>;
// The element offset that stands for "the fill value": offsets into x may be negative
// (negative strides), so -1 cannot mark it.
constexpr int64_t kFill = std::numeric_limits<int64_t>::min();

AxisMaps IdentityMaps(const DDim& dims) {
  AxisMaps maps(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    maps[d].resize(dims[d]);
    for (int64_t i = 0; i < dims[d]; ++i) maps[d][i] = i;
  }
  return maps;
}

// Calls row(out_row_start, src) for every row (all but the last axis) of the output, in
// parallel when `parallel`: src is the element offset in x of the row's source, or kFill
// when the whole row is fill. The caller handles the last axis through LastAxisOffsets.
template <typename Row>
void ForEachRow(const DenseTensor& x, const AxisMaps& maps, bool parallel, Row&& row) {
  const int64_t nd = static_cast<int64_t>(maps.size());
  DDim out_dims(nd);
  for (int64_t d = 0; d < nd; ++d) out_dims[d] = static_cast<int64_t>(maps[d].size());
  const int64_t inner = nd == 0 ? 1 : out_dims[nd - 1];
  int64_t rows = 1;
  for (int64_t d = 0; d + 1 < nd; ++d) rows *= out_dims[d];
  if (rows == 0 || inner == 0) return;
  auto body = [&](int64_t r0, int64_t r1) {
    DDim idx(nd > 1 ? nd - 1 : 1, 0);
    int64_t rem = r0;
    for (int64_t d = nd - 1; d-- > 0;) {
      idx[d] = rem % out_dims[d];
      rem /= out_dims[d];
    }
    for (int64_t r = r0; r < r1; ++r) {
      int64_t src = 0;
      bool fill = false;
      for (int64_t d = 0; d + 1 < nd; ++d) {
        const int64_t s = maps[d][idx[d]];
        if (s < 0) {
          fill = true;
          break;
        }
        src += s * x.strides()[d];
      }
      row(r * inner, fill ? kFill : src);
      for (int64_t d = nd - 1; d-- > 0;) {
        if (++idx[d] < out_dims[d]) break;
        idx[d] = 0;
      }
    }
  };
  if (parallel) {
    ParallelFor(0, rows, inner, body);
  } else {
    body(0, rows);
  }
}

std::vector<int64_t> LastAxisOffsets(const DenseTensor& x, const AxisMaps& maps) {
  if (maps.empty()) return {0};
  const int64_t stride = x.strides().back();
  std::vector<int64_t> off(maps.back().size());
  for (size_t i = 0; i < off.size(); ++i) {
    off[i] = maps.back()[i] < 0 ? kFill : maps.back()[i] * stride;
  }
  return off;
}

// Allocates out; true when it is empty, so the kernel is done. Checked before any index map
// is built: an empty tensor may have a huge dim, and its map must not be allocated.
bool AllocatedEmpty(const DenseTensor& x, DenseTensor* out) {  // x: for its place
  out->AllocateFrom(x.place());
  return out->numel() == 0;
}

// The last axis as runs of outputs whose sources advance by a constant step (a fill run has
// src kFill): pad's middle, a roll's two halves and an unflipped axis are one or two runs
// copied with a tight loop instead of one offset lookup per element.
struct Run {
  int64_t out, len, src, step;
};
std::vector<Run> Runs(const std::vector<int64_t>& off) {
  std::vector<Run> runs;
  for (int64_t i = 0; i < static_cast<int64_t>(off.size()); ++i) {
    if (!runs.empty()) {
      Run& r = runs.back();
      const bool fill = off[i] == kFill, run_fill = r.src == kFill;
      if (fill && run_fill) {
        ++r.len;
        continue;
      }
      if (!fill && !run_fill) {
        const int64_t step = off[i] - off[i - 1];
        if (r.len == 1) r.step = step;
        if (step == r.step) {
          ++r.len;
          continue;
        }
      }
    }
    runs.push_back({i, 1, off[i], 0});
  }
  return runs;
}

// out (contiguous, allocated here unless it is already) = x gathered through maps, `fill`
// where a map says -1.
template <typename T>
void GatherByMaps(const DenseTensor& x, const AxisMaps& maps, T fill, DenseTensor* out) {
  T* o = static_cast<T*>(out->AllocateFrom(x.place()));
  const T* in = static_cast<const T*>(x.data());
  const std::vector<int64_t> last = LastAxisOffsets(x, maps);
  const std::vector<Run> runs = Runs(last);
  const int64_t inner = static_cast<int64_t>(last.size());
  ForEachRow(x, maps, true, [&](int64_t o0, int64_t src) {
    T* dst = o + o0;
    if (src == kFill) {
      std::fill(dst, dst + inner, fill);
      return;
    }
    for (const Run& r : runs) {
      T* d = dst + r.out;
      if (r.src == kFill) {
        std::fill(d, d + r.len, fill);
      } else if (r.step == 1) {
        std::copy(in + src + r.src, in + src + r.src + r.len, d);
      } else {
        const T* s = in + src + r.src;
        for (int64_t i = 0; i < r.len; ++i) d[i] = s[i * r.step];
      }
    }
  });
}

// The adjoint of GatherByMaps: every element of g added into x_grad (contiguous, x's dims)
// at the source it was gathered from (fill positions drop out).
// Sequential: several outputs may read the same source.
// x_grad must be allocated and zero, and g non-empty.
template <typename T>
void ScatterAddByMaps(const DenseTensor& g_in, const AxisMaps& maps, DenseTensor* x_grad) {
  T* xg = static_cast<T*>(x_grad->data());
  const DenseTensor g = funcs::Contiguous(g_in);
  const T* gp = static_cast<const T*>(g.data());
  const std::vector<int64_t> last = LastAxisOffsets(*x_grad, maps);
  const int64_t inner = static_cast<int64_t>(last.size());
  ForEachRow(*x_grad, maps, false, [&](int64_t o0, int64_t src) {
    if (src == kFill) return;
    for (int64_t i = 0; i < inner; ++i) {
      if (last[i] == kFill) continue;
      T& acc = xg[src + last[i]];
      acc = static_cast<T>(static_cast<compute_t<T>>(acc) + static_cast<compute_t<T>>(gp[o0 + i]));
    }
  });
}

// The maps of pad: per axis, `before` fill/reflected/... indices, the axis itself, `after`.
AxisMaps PadMaps(const DDim& dims, const std::vector<int64_t>& paddings, PadMode mode) {
  AxisMaps maps(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    const int64_t n = dims[d], before = paddings[2 * d], after = paddings[2 * d + 1];
    auto& m = maps[d];
    m.resize(n + before + after);
    for (int64_t o = 0; o < static_cast<int64_t>(m.size()); ++o) {
      int64_t i = o - before;
      if (i < 0 || i >= n) {
        switch (mode) {
          case PadMode::kConstant:
            i = -1;
            break;
          case PadMode::kReflect:  // mirrored about the edge element (InferMeta: pad < n)
            i = i < 0 ? -i : 2 * (n - 1) - i;
            break;
          case PadMode::kReplicate:
            i = i < 0 ? 0 : n - 1;
            break;
          case PadMode::kCircular:
            i = ((i % n) + n) % n;
            break;
        }
      }
      m[o] = i;
    }
  }
  return maps;
}

// x's meta seen as 1-D (x contiguous), for the rolls over the flattened tensor.
DenseTensor Flat(const DenseTensor& x) {
  DenseTensorMeta m = x.meta();
  m.dims = DDim{x.numel()};
  m.strides = DDim{1};
  return DenseTensor(x.Holder(), m);
}

// The view of `t` that diagonal returns (t has axes a1 != a2).
DenseTensor DiagonalView(const DenseTensor& t, int64_t offset, int64_t axis1, int64_t axis2) {
  const int64_t a1 = NormalizeAxis(axis1, t.ndim(), "axis1");
  const int64_t a2 = NormalizeAxis(axis2, t.ndim(), "axis2");
  const int64_t s1 = t.strides()[a1], s2 = t.strides()[a2];
  const DiagonalSpan span = DiagonalOf(t.dims()[a1], t.dims()[a2], s1, s2, offset);
  DenseTensorMeta m = t.meta();
  m.dims.clear();
  m.strides.clear();
  for (int64_t d = 0; d < t.ndim(); ++d) {
    if (d == a1 || d == a2) continue;
    m.dims.push_back(t.dims()[d]);
    m.strides.push_back(t.strides()[d]);
  }
  m.dims.push_back(span.length);
  m.strides.push_back(s1 + s2);
  // An empty view reads nothing, and a start past the end would point outside the block.
  if (Product(m.dims) != 0) m.offset += span.start;
  return DenseTensor(t.Holder(), m);
}

// The windows of tensor_unfold as a view of t: axis a walks by step, a new last dim by 1.
DenseTensor UnfoldView(const DenseTensor& t, int64_t axis, int64_t size, int64_t step) {
  DenseTensorMeta m = t.meta();
  if (t.ndim() == 0) {  // one element seen as [1]: one window of `size` (0 or 1) elements
    m.dims = DDim{size};
    m.strides = DDim{1};
    return DenseTensor(t.Holder(), m);
  }
  const int64_t a = NormalizeAxis(axis, t.ndim(), "axis");
  const int64_t s = t.strides()[a];
  m.dims[a] = (t.dims()[a] - size) / step + 1;
  // One window (or none) never steps: s * step could overflow for a huge step.
  m.strides[a] = m.dims[a] > 1 ? s * step : s;
  m.dims.push_back(size);
  m.strides.push_back(s);
  return DenseTensor(t.Holder(), m);
}

}  // namespace

template <typename T>
void FlipKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>& axis,
                DenseTensor* out) {
  if (AllocatedEmpty(x, out)) return;
  AxisMaps maps = IdentityMaps(x.dims());
  for (int64_t a : axis) {
    auto& m = maps[NormalizeAxis(a, x.ndim())];
    std::reverse(m.begin(), m.end());
  }
  GatherByMaps<T>(x, maps, T{}, out);
}

template <typename T>
void RollKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>& shifts,
                const std::vector<int64_t>& axis, DenseTensor* out) {
  if (AllocatedEmpty(x, out)) return;
  const bool flat = axis.empty();
  const DenseTensor src = flat ? Flat(funcs::Contiguous(x)) : x;
  AxisMaps maps = IdentityMaps(src.dims());
  for (size_t k = 0; k < shifts.size(); ++k) {
    const int64_t a = flat ? 0 : NormalizeAxis(axis[k], x.ndim());
    const int64_t n = src.dims()[a];
    if (n == 0) continue;
    // Several shifts of one axis add up (as in torch and Paddle).
    // The shift reduced first: i - shift could overflow for a shift near INT64_MIN.
    const int64_t shift = shifts[k] % n;
    for (auto& i : maps[a]) i = (((i - shift) % n) + n) % n;
  }
  if (!flat) {
    GatherByMaps<T>(src, maps, T{}, out);
    return;
  }
  DenseTensor flat_out(x.dtype(), src.dims());
  GatherByMaps<T>(src, maps, T{}, &flat_out);
  DenseTensorMeta m = flat_out.meta();
  m.dims = out->dims();
  m.strides = ContiguousStrides(m.dims);
  *out = DenseTensor(flat_out.Holder(), m);
}

template <typename T>
void PadKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>& paddings,
               int64_t mode, const Scalar& value, DenseTensor* out) {
  if (AllocatedEmpty(x, out)) return;
  if (x.numel() == 0) {  // constant padding around nothing: all fill
    funcs::Fill(out, value);
    return;
  }
  // The maps hold an int64 per output index of every axis, and the last axis again as
  // offsets: negligible beside the output, except when it is (nearly) 1-D, where a pad of
  // 2**31 bools needed 32 GiB of maps for a 2 GiB result (an OOM kill, not a MemoryError).
  const DDim& od = out->dims();
  const double map_bytes =
      8.0 * (std::accumulate(od.begin(), od.end(), 0.0) + static_cast<double>(od.back()));
  const double out_bytes = static_cast<double>(out->numel()) * sizeof(T);
  if (static_cast<PadMode>(mode) == PadMode::kConstant && map_bytes > out_bytes) {
    // The fill (Fill reports values the dtype cannot hold), then x copied into its window. Slower
    // than the maps when rows are short (two passes, a strided copy), so only where the maps would
    // outweigh the output.
    funcs::Fill(out, value);
    DenseTensorMeta window = out->meta();  // paddings are >= 0 (PadInferMeta)
    window.dims = x.dims();
    for (int64_t d = 0; d < x.ndim(); ++d) window.offset += paddings[2 * d] * window.strides[d];
    DenseTensor dst(out->Holder(), window);
    funcs::CopyInto(x, &dst);
    return;
  }
  T fill{};
  if (static_cast<PadMode>(mode) == PadMode::kConstant) {  // the fill value in x's dtype
    DenseTensor one(x.dtype(), DDim{});
    one.AllocateFrom(x.place());
    funcs::Fill(&one, value);
    fill = *static_cast<const T*>(one.data());
  }
  if (funcs::ExceedsMemory(map_bytes + out_bytes)) {
    throw errors::ResourceExhausted("the index maps (", map_bytes,
                                    " bytes) and result of a pad to ", DimsToString(od),
                                    " need more than this machine's memory");
  }
  GatherByMaps<T>(x, PadMaps(x.dims(), paddings, static_cast<PadMode>(mode)), fill, out);
}

template <typename T>
void PadGradKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& grad_out,
                   const std::vector<int64_t>& paddings, int64_t mode, DenseTensor* x_grad) {
  x_grad->AllocateFrom(grad_out.place());
  funcs::Fill(x_grad, 0);
  if (grad_out.numel() == 0 || x_grad->numel() == 0) return;
  ScatterAddByMaps<T>(grad_out, PadMaps(x.dims(), paddings, static_cast<PadMode>(mode)), x_grad);
}

// tril (lower) and triu: a contiguous copy with the other triangle of each matrix zeroed.
template <typename T, bool kLower>
void TriangleKernel(const DenseTensor& x, int64_t diagonal, DenseTensor* out) {
  out->AllocateFrom(x.place());
  funcs::CopyInto(x, out);
  const int64_t nd = out->ndim(), rows = out->dims()[nd - 2], cols = out->dims()[nd - 1];
  const int64_t mats = rows * cols == 0 ? 0 : out->numel() / (rows * cols);
  T* o = static_cast<T*>(out->data());
  // Past these bounds the triangle is all or nothing; clamping keeps i + d from overflowing.
  const int64_t d = std::clamp<int64_t>(diagonal, -rows, cols);
  ParallelFor(0, mats, rows * cols, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      T* mat = o + k * rows * cols;
      for (int64_t i = 0; i < rows; ++i) {
        // Lower keeps columns j <= i + diagonal, upper keeps j >= i + diagonal.
        const int64_t edge = i + d;
        const int64_t z0 = kLower ? std::clamp<int64_t>(edge + 1, 0, cols) : 0;
        const int64_t z1 = kLower ? cols : std::clamp<int64_t>(edge, 0, cols);
        std::fill(mat + i * cols + z0, mat + i * cols + z1, T{});
      }
    }
  });
}
template <typename T>
void TrilKernel(const DeviceContext&, const DenseTensor& x, int64_t diagonal, DenseTensor* out) {
  TriangleKernel<T, true>(x, diagonal, out);
}
template <typename T>
void TriuKernel(const DeviceContext&, const DenseTensor& x, int64_t diagonal, DenseTensor* out) {
  TriangleKernel<T, false>(x, diagonal, out);
}

template <typename T>
void DiagonalKernel(const DeviceContext&, const DenseTensor& x, int64_t offset, int64_t axis1,
                    int64_t axis2, DenseTensor* out) {
  *out = DiagonalView(x, offset, axis1, axis2);
}

template <typename T>
void DiagonalGradKernel(const DeviceContext&, const DenseTensor&, const DenseTensor& grad_out,
                        int64_t offset, int64_t axis1, int64_t axis2, DenseTensor* x_grad) {
  x_grad->AllocateFrom(grad_out.place());
  funcs::Fill(x_grad, 0);
  DenseTensor diag = DiagonalView(*x_grad, offset, axis1, axis2);
  funcs::CopyInto(grad_out, &diag);
}

template <typename T>
void DiagEmbedKernel(const DeviceContext&, const DenseTensor& input, int64_t offset, int64_t dim1,
                     int64_t dim2, DenseTensor* out) {
  out->AllocateFrom(input.place());
  funcs::Fill(out, 0);
  DenseTensor diag = DiagonalView(*out, offset, dim1, dim2);
  funcs::CopyInto(input, &diag);
}

template <typename T>
void TensorUnfoldKernel(const DeviceContext&, const DenseTensor& x, int64_t axis, int64_t size,
                        int64_t step, DenseTensor* out) {
  *out = UnfoldView(x, axis, size, step);
}

// Windows overlap when step < size, so each window is added into x_grad in turn.
template <typename T>
void TensorUnfoldGradKernel(const DeviceContext&, const DenseTensor&, const DenseTensor& grad_out,
                            int64_t axis, int64_t size, int64_t step, DenseTensor* x_grad) {
  T* xg = static_cast<T*>(x_grad->AllocateFrom(grad_out.place()));
  funcs::Fill(x_grad, 0);
  if (grad_out.numel() == 0) return;
  const DenseTensor windows = UnfoldView(*x_grad, axis, size, step);
  const DenseTensor g = funcs::Contiguous(grad_out);
  const T* gp = static_cast<const T*>(g.data());
  // Walk the (overlapping) window view of x_grad in the order of g's contiguous elements.
  const int64_t nd = windows.ndim(), n = windows.numel();
  DDim idx(nd, 0);
  int64_t off = 0;
  for (int64_t k = 0; k < n; ++k) {
    T& acc = xg[off];
    acc = static_cast<T>(static_cast<compute_t<T>>(acc) + static_cast<compute_t<T>>(gp[k]));
    for (int64_t d = nd - 1; d >= 0; --d) {
      off += windows.strides()[d];
      if (++idx[d] < windows.dims()[d]) break;
      off -= windows.strides()[d] * windows.dims()[d];
      idx[d] = 0;
    }
  }
}

OAR_REGISTER_KERNEL(flip, CPU, Any, FlipKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(roll, CPU, Any, RollKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(pad, CPU, Any, PadKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(pad_grad, CPU, Any, PadGradKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(tril, CPU, Any, TrilKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(triu, CPU, Any, TriuKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(diagonal, CPU, Any, DiagonalKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(diagonal_grad, CPU, Any, DiagonalGradKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(diag_embed, CPU, Any, DiagEmbedKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(tensor_unfold, CPU, Any, TensorUnfoldKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(tensor_unfold_grad, CPU, Any, TensorUnfoldGradKernel, OAR_ALL_TYPES);
// Complex elements: these kernels only move (or add) elements.
OAR_REGISTER_KERNEL(flip, CPU, Any, FlipKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(roll, CPU, Any, RollKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(pad, CPU, Any, PadKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(pad_grad, CPU, Any, PadGradKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(tril, CPU, Any, TrilKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(triu, CPU, Any, TriuKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(diagonal, CPU, Any, DiagonalKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(diagonal_grad, CPU, Any, DiagonalGradKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(diag_embed, CPU, Any, DiagEmbedKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(tensor_unfold, CPU, Any, TensorUnfoldKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(tensor_unfold_grad, CPU, Any, TensorUnfoldGradKernel, OAR_COMPLEX_TYPES);

}  // namespace oar
