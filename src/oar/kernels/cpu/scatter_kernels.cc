// Scattering: scatter, scatter_nd_add, scatter_nd, index_add, index_put_nd and
// put_along_axis. Each writes into a copy of x (or, for the in-place variants,
// into x itself). Every position is checked before the first write, so a bad
// index leaves an in-place target untouched. Writes happen in index order on one
// thread: repeated positions accumulate in order, or the last one wins.
#include <algorithm>

#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/funcs/index_rows.h"
#include "oar/kernels/funcs/strided_loop.h"
#include "oar/kernels/infer_meta.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

void CopyUnlessSame(const DenseTensor& x, DenseTensor* out) {
  if (out == &x) return;
  out->AllocateFrom(x.place());
  funcs::CopyInto(x, out);
}

// A contiguous copy of v broadcast to dims (v may also be a view of the target).
DenseTensor BroadcastTo(const DenseTensor& v, const DDim& dims) {
  DenseTensorMeta m = v.meta();
  m.strides = funcs::BroadcastStrides(v, dims);
  m.dims = dims;
  return funcs::Clone(DenseTensor(v.Holder(), m));
}

template <typename T>
T Add(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a || b;
  } else {
    return static_cast<T>(static_cast<compute_t<T>>(a) + static_cast<compute_t<T>>(b));
  }
}

// out[rows[r]] (rows of `inner` elements) = or += src[r].
template <typename T>
void WriteRows(T* out, const T* src, const std::vector<int64_t>& rows, int64_t inner,
               bool accumulate) {
  for (size_t r = 0; r < rows.size(); ++r) {
    T* dst = out + rows[r] * inner;
    const T* s = src + static_cast<int64_t>(r) * inner;
    if (accumulate) {
      for (int64_t k = 0; k < inner; ++k) dst[k] = Add(dst[k], s[k]);
    } else {
      std::copy(s, s + inner, dst);
    }
  }
}

}  // namespace

template <typename T>
void ScatterKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& index,
                   const DenseTensor& updates, bool overwrite, DenseTensor* out) {
  const std::vector<int64_t> rows = funcs::CheckedPositions(index, x.dims()[0], "index", 0);
  const DenseTensor u = funcs::Clone(updates);  // may be a view of x (the in-place variant)
  CopyUnlessSame(x, out);
  DenseTensor target = out->is_contiguous() ? *out : funcs::Clone(*out);
  T* o = static_cast<T*>(target.data());
  const int64_t inner = funcs::NumelFrom(x.dims(), 1);
  if (!overwrite) {  // Paddle: the indexed rows are zeroed, then accumulated into
    for (int64_t r : rows) std::fill(o + r * inner, o + (r + 1) * inner, T(0));
  }
  WriteRows(o, static_cast<const T*>(u.data()), rows, inner, !overwrite);
  if (target.Holder() != out->Holder()) funcs::CopyInto(target, out);
}

template <typename T>
void ScatterNdAddKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& index,
                        const DenseTensor& updates, DenseTensor* out) {
  const std::vector<int64_t> rows = funcs::NdRows(index, x.dims(), "index");
  const DenseTensor u = funcs::Clone(updates);
  CopyUnlessSame(x, out);
  DenseTensor target = out->is_contiguous() ? *out : funcs::Clone(*out);
  WriteRows(static_cast<T*>(target.data()), static_cast<const T*>(u.data()), rows,
            funcs::NumelFrom(x.dims(), index.dims().back()), true);
  if (target.Holder() != out->Holder()) funcs::CopyInto(target, out);
}

template <typename T>
void ScatterNdKernel(const DeviceContext&, const DenseTensor& index, const DenseTensor& updates,
                     const std::vector<int64_t>&, DenseTensor* out) {
  const std::vector<int64_t> rows = funcs::NdRows(index, out->dims(), "index");
  const DenseTensor u = funcs::Contiguous(updates);
  out->AllocateFrom(updates.place());
  funcs::Fill(out, 0);
  WriteRows(static_cast<T*>(out->data()), static_cast<const T*>(u.data()), rows,
            funcs::NumelFrom(out->dims(), index.dims().back()), true);
}

template <typename T>
void IndexPutNdKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& index,
                      const DenseTensor& value, bool accumulate, DenseTensor* out) {
  const int64_t k = index.dims().back();
  DDim want(index.dims().begin(), index.dims().end() - 1);
  for (size_t d = k; d < x.dims().size(); ++d) want.push_back(x.dims()[d]);
  // The values first: an index of [2**31, 0] asks for 2**31 whole-tensor rows, and the
  // MemoryError for their values should come before 16 GiB of row numbers are filled.
  const DenseTensor v = BroadcastTo(value, want);
  const std::vector<int64_t> rows = funcs::NdRows(index, x.dims(), "index");
  CopyUnlessSame(x, out);
  DenseTensor target = out->is_contiguous() ? *out : funcs::Clone(*out);
  WriteRows(static_cast<T*>(target.data()), static_cast<const T*>(v.data()), rows,
            funcs::NumelFrom(x.dims(), k), accumulate);
  if (target.Holder() != out->Holder()) funcs::CopyInto(target, out);
}

template <typename T>
void IndexAddKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& index,
                    int64_t axis, const DenseTensor& value, double alpha, DenseTensor* out) {
  const int64_t a = NormalizeAxis(axis, x.ndim());
  const std::vector<int64_t> pos = funcs::CheckedPositions(index, x.dims()[a], "index", a);
  const DenseTensor v = funcs::Clone(value);
  CopyUnlessSame(x, out);
  DenseTensor target = out->is_contiguous() ? *out : funcs::Clone(*out);
  T* o = static_cast<T*>(target.data());
  const T* vp = static_cast<const T*>(v.data());
  int64_t outer = 1;
  for (int64_t d = 0; d < a; ++d) outer *= x.dims()[d];
  const int64_t n = x.dims()[a], inner = funcs::NumelFrom(x.dims(), a + 1);
  const int64_t m = static_cast<int64_t>(pos.size());
  const auto scale = static_cast<compute_t<T>>(alpha);
  for (int64_t i = 0; i < outer; ++i) {
    for (int64_t j = 0; j < m; ++j) {
      T* dst = o + (i * n + pos[j]) * inner;
      const T* src = vp + (i * m + j) * inner;
      for (int64_t q = 0; q < inner; ++q) {
        if constexpr (std::is_same_v<T, bool>) {
          dst[q] = dst[q] || (src[q] && alpha != 0);
        } else {
          dst[q] = static_cast<T>(static_cast<compute_t<T>>(dst[q]) +
                                  scale * static_cast<compute_t<T>>(src[q]));
        }
      }
    }
  }
  if (target.Holder() != out->Holder()) funcs::CopyInto(target, out);
}

// reduce: 0 assign, 1 add. Without include_self an added-to position starts from
// 0 instead of arr's value.
template <typename T>
void PutAlongAxisKernel(const DeviceContext&, const DenseTensor& arr, const DenseTensor& indices,
                        const DenseTensor& values, int64_t axis, int64_t reduce, bool include_self,
                        bool broadcast, DenseTensor* out) {
  const int64_t a = NormalizeAxis(axis, arr.ndim());
  const DDim dom = PutAlongAxisDomain(arr.dims(), indices.dims(), a, broadcast);
  const std::vector<int64_t> idx = funcs::IndexValues(indices);
  const int64_t size = arr.dims()[a];
  for (int64_t v : idx) funcs::CheckedPosition(v, size, "indices", a);  // before any write
  const DenseTensor v = BroadcastTo(values, dom);
  CopyUnlessSame(arr, out);
  DenseTensor target = out->is_contiguous() ? *out : funcs::Clone(*out);
  T* o = static_cast<T*>(target.data());
  const T* vp = static_cast<const T*>(v.data());
  const int64_t nd = static_cast<int64_t>(dom.size());
  const DDim os = ContiguousStrides(arr.dims());
  DDim is = ContiguousStrides(indices.dims());
  for (int64_t d = 0; d < nd; ++d) {
    if (indices.dims()[d] == 1) is[d] = 0;
  }
  const int64_t n = funcs::NumelFrom(dom, 0);
  std::vector<int64_t> where(n);  // the output offset each domain element writes to
  for (int64_t i = 0; i < n; ++i) {
    int64_t rem = i, ooff = 0, ioff = 0;
    for (int64_t d = nd - 1; d >= 0; --d) {
      const int64_t c = rem % dom[d];
      rem /= dom[d];
      ioff += c * is[d];
      if (d != a) ooff += c * os[d];
    }
    const int64_t p = idx[ioff] < 0 ? idx[ioff] + size : idx[ioff];
    where[i] = ooff + p * os[a];
  }
  if (reduce != 0 && !include_self) {
    for (int64_t w : where) o[w] = T(0);
  }
  for (int64_t i = 0; i < n; ++i) {
    T& dst = o[where[i]];
    dst = reduce == 0 ? vp[i] : Add(dst, vp[i]);
  }
  if (target.Holder() != out->Holder()) funcs::CopyInto(target, out);
}

OAR_REGISTER_KERNEL(scatter, CPU, Any, ScatterKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(scatter_nd_add, CPU, Any, ScatterNdAddKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(scatter_nd, CPU, Any, ScatterNdKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(index_put_nd, CPU, Any, IndexPutNdKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(index_add, CPU, Any, IndexAddKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(scatter_along_axis, CPU, Any, PutAlongAxisKernel, OAR_ALL_TYPES);
// Complex elements: these kernels only move (or add) elements.
OAR_REGISTER_KERNEL(scatter, CPU, Any, ScatterKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(scatter_nd_add, CPU, Any, ScatterNdAddKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(scatter_nd, CPU, Any, ScatterNdKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(index_put_nd, CPU, Any, IndexPutNdKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(index_add, CPU, Any, IndexAddKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(scatter_along_axis, CPU, Any, PutAlongAxisKernel, OAR_COMPLEX_TYPES);

}  // namespace oar
