// Gathering (advanced indexing): index_select, its gradient, nonzero, gather,
// gather_nd and take_along_axis.
#include "oar/core/parallel.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/funcs/index_rows.h"
#include "oar/kernels/infer_meta.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

// The positions as int64 in [0, size), or an IndexError naming the bad one.
std::vector<int64_t> Positions(const DenseTensor& index, int64_t size, int64_t axis) {
  const DenseTensor idx = funcs::CastTo(funcs::Contiguous(index), DType::kInt64);
  const int64_t* p = static_cast<const int64_t*>(idx.data());
  std::vector<int64_t> out(idx.numel());
  for (int64_t i = 0; i < idx.numel(); ++i) {
    int64_t v = p[i];
    if (v < -size || v >= size) {
      throw errors::OutOfRange("index ", v, " is out of bounds for axis ", axis, " with size ",
                               size);
    }
    out[i] = v < 0 ? v + size : v;
  }
  return out;
}

// [outer, n, inner] view of a contiguous tensor around `axis`.
struct Split3 {
  int64_t outer = 1, n = 1, inner = 1;
};
Split3 Around(const DDim& dims, int64_t axis) {
  Split3 s;
  for (int64_t d = 0; d < axis; ++d) s.outer *= dims[d];
  s.n = dims[axis];
  for (size_t d = axis + 1; d < dims.size(); ++d) s.inner *= dims[d];
  return s;
}

}  // namespace

template <typename T>
void IndexSelectKernel(const DeviceContext&, const DenseTensor& x_in, const DenseTensor& index,
                       int64_t axis, DenseTensor* out) {
  const int64_t a = NormalizeAxis(axis, x_in.ndim());
  const std::vector<int64_t> pos = Positions(index, x_in.dims()[a], a);
  const DenseTensor x = funcs::Contiguous(x_in);
  const Split3 s = Around(x.dims(), a);
  const T* in = static_cast<const T*>(x.data());
  T* o = static_cast<T*>(out->AllocateFrom(x.place()));
  if (out->numel() == 0) return;  // however many empty rows there are
  const int64_t m = static_cast<int64_t>(pos.size());
  ParallelFor(0, s.outer, m * s.inner, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      for (int64_t j = 0; j < m; ++j) {
        const T* src = in + (i * s.n + pos[j]) * s.inner;
        std::copy(src, src + s.inner, o + (i * m + j) * s.inner);
      }
    }
  });
}

template <typename T>
void IndexSelectGradKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& index,
                           const DenseTensor& grad_out_in, int64_t axis, DenseTensor* x_grad) {
  const int64_t a = NormalizeAxis(axis, x.ndim());
  const std::vector<int64_t> pos = Positions(index, x.dims()[a], a);
  const DenseTensor g = funcs::Contiguous(grad_out_in);
  x_grad->AllocateFrom(g.place());
  funcs::Fill(x_grad, 0);
  if (g.numel() == 0) return;  // however many empty rows there are
  const Split3 s = Around(x_grad->dims(), a);
  const T* gp = static_cast<const T*>(g.data());
  T* o = static_cast<T*>(x_grad->data());
  const int64_t m = static_cast<int64_t>(pos.size());
  // Repeated positions accumulate, so rows are processed in order per outer block.
  ParallelFor(0, s.outer, m * s.inner, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      for (int64_t j = 0; j < m; ++j) {
        const T* src = gp + (i * m + j) * s.inner;
        T* dst = o + (i * s.n + pos[j]) * s.inner;
        for (int64_t k = 0; k < s.inner; ++k) {
          dst[k] =
              static_cast<T>(static_cast<compute_t<T>>(dst[k]) + static_cast<compute_t<T>>(src[k]));
        }
      }
    }
  });
}

template <typename T>
void NonzeroKernel(const DeviceContext&, const DenseTensor& x_in, DenseTensor* out) {
  const DenseTensor x = funcs::Contiguous(x_in);
  const T* p = static_cast<const T*>(x.data());
  const int64_t n = x.numel(), nd = x.ndim();
  std::vector<int64_t> hits;
  for (int64_t i = 0; i < n; ++i) {
    if (static_cast<compute_t<T>>(p[i]) != compute_t<T>(0)) hits.push_back(i);
  }
  out->Resize(DDim{static_cast<int64_t>(hits.size()), nd});
  int64_t* o = static_cast<int64_t*>(out->AllocateFrom(x.place()));
  const DDim strides = ContiguousStrides(x.dims());
  for (size_t h = 0; h < hits.size(); ++h) {
    int64_t rem = hits[h];
    for (int64_t d = 0; d < nd; ++d) {
      o[h * nd + d] = x.dims()[d] > 1 ? rem / strides[d] : 0;
      rem = x.dims()[d] > 1 ? rem % strides[d] : rem;
    }
  }
}

// Paddle's gather: index_select that also takes a 0-d index (the axis is dropped)
// and an [N, 1] one; negative positions count from the end, as in Paddle 3.
template <typename T>
void GatherKernel(const DeviceContext&, const DenseTensor& x_in, const DenseTensor& index,
                  int64_t axis, DenseTensor* out) {
  const int64_t a = NormalizeAxis(axis, x_in.ndim());
  const std::vector<int64_t> pos = funcs::CheckedPositions(index, x_in.dims()[a], "index", a);
  const DenseTensor x = funcs::Contiguous(x_in);
  const Split3 s = Around(x.dims(), a);
  const T* in = static_cast<const T*>(x.data());
  T* o = static_cast<T*>(out->AllocateFrom(x.place()));
  if (out->numel() == 0) return;
  const int64_t m = static_cast<int64_t>(pos.size());
  ParallelFor(0, s.outer, m * s.inner, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      for (int64_t j = 0; j < m; ++j) {
        const T* src = in + (i * s.n + pos[j]) * s.inner;
        std::copy(src, src + s.inner, o + (i * m + j) * s.inner);
      }
    }
  });
}

template <typename T>
void GatherNdKernel(const DeviceContext&, const DenseTensor& x_in, const DenseTensor& index,
                    DenseTensor* out) {
  // The output first: its MemoryError for a [2**31, 0] index (2**31 copies of x) should come
  // before 16 GiB of row numbers are filled.
  T* o = static_cast<T*>(out->AllocateFrom(x_in.place()));
  const std::vector<int64_t> rows = funcs::NdRows(index, x_in.dims(), "index");
  const DenseTensor x = funcs::Contiguous(x_in);
  const int64_t inner = funcs::NumelFrom(x.dims(), index.dims().back());
  const T* in = static_cast<const T*>(x.data());
  if (out->numel() == 0) return;
  const int64_t n = static_cast<int64_t>(rows.size());
  ParallelFor(0, n, inner, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      std::copy(in + rows[r] * inner, in + (rows[r] + 1) * inner, o + r * inner);
    }
  });
}

// out[c] = arr[c with c[axis] = indices[c]]; with broadcast, the size-1 dims of arr
// and indices (other than axis) stretch to out's (stride 0).
template <typename T>
void TakeAlongAxisKernel(const DeviceContext&, const DenseTensor& arr_in,
                         const DenseTensor& indices, int64_t axis, bool, DenseTensor* out) {
  const int64_t a = NormalizeAxis(axis, arr_in.ndim());
  const DenseTensor arr = funcs::Contiguous(arr_in);
  const std::vector<int64_t> idx = funcs::IndexValues(indices);
  T* o = static_cast<T*>(out->AllocateFrom(arr.place()));
  const int64_t n = out->numel();
  if (n == 0) return;
  const DDim& od = out->dims();
  const int64_t nd = static_cast<int64_t>(od.size());
  DDim as = ContiguousStrides(arr.dims()), is = ContiguousStrides(indices.dims());
  for (int64_t d = 0; d < nd; ++d) {
    if (d != a && arr.dims()[d] == 1) as[d] = 0;
    if (indices.dims()[d] == 1) is[d] = 0;
  }
  const int64_t size = arr.dims()[a];
  for (int64_t v : idx) funcs::CheckedPosition(v, size, "indices", a);  // before any read
  const T* in = static_cast<const T*>(arr.data());
  ParallelFor(0, n, nd + 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      int64_t rem = i, aoff = 0, ioff = 0;
      for (int64_t d = nd - 1; d >= 0; --d) {
        const int64_t c = rem % od[d];
        rem /= od[d];
        ioff += c * is[d];
        if (d != a) aoff += c * as[d];
      }
      const int64_t p = idx[ioff] < 0 ? idx[ioff] + size : idx[ioff];
      o[i] = in[aoff + p * as[a]];
    }
  });
}

OAR_REGISTER_KERNEL(gather, CPU, Any, GatherKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(gather_nd, CPU, Any, GatherNdKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(take_along_axis, CPU, Any, TakeAlongAxisKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(index_select, CPU, Any, IndexSelectKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(index_select_grad, CPU, Any, IndexSelectGradKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(nonzero, CPU, Any, NonzeroKernel, OAR_ALL_TYPES, OAR_COMPLEX_TYPES);
// Complex elements: these kernels only move (or add) elements.
OAR_REGISTER_KERNEL(gather, CPU, Any, GatherKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(gather_nd, CPU, Any, GatherNdKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(take_along_axis, CPU, Any, TakeAlongAxisKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(index_select, CPU, Any, IndexSelectKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(index_select_grad, CPU, Any, IndexSelectGradKernel, OAR_COMPLEX_TYPES);

}  // namespace oar
