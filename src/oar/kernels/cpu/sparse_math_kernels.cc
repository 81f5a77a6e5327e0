// Kernels of src/oar/ops/sparse_math.yaml: sparse x dense and sparse x sparse
// products, the masked dense product, and the softmax over the stored entries
// of each row. COO operands are computed through their coalesced CSR form.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "oar/core/float16.h"
#include "oar/core/parallel.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/funcs/sparse_utils.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

DenseTensor Allocated(DType dtype, const DDim& dims) {
  DenseTensor t(dtype, dims);
  t.AllocateFrom(CPUPlace());
  return t;
}

SparseCsrTensor CsrOf(const SparseCooTensor& x, const char* arg) {
  const auto nd = static_cast<int64_t>(x.dims().size());
  if ((nd != 2 && nd != 3) || x.sparse_dim() != nd) {
    throw errors::InvalidArgument("'", arg, "' must be a 2-D or 3-D sparse matrix without dense ",
                                  "dimensions, got shape ", DimsToString(x.dims()), " with ",
                                  x.sparse_dim(), " sparse dimensions");
  }
  return funcs::CooToCsr(x);
}

// The [batch, rows, cols] of a 2-D or 3-D operand, checking it is one.
struct Mat3 {
  int64_t b, m, n;
};
Mat3 Shape3(const DDim& d, const char* arg) {
  if (d.size() == 2) return {1, d[0], d[1]};
  if (d.size() == 3) return {d[0], d[1], d[2]};
  throw errors::InvalidArgument("'", arg, "' must be 2-D or 3-D, got shape ", DimsToString(d));
}

void CheckProduct(const DDim& x, const DDim& y) {
  const Mat3 a = Shape3(x, "x"), b = Shape3(y, "y");
  if (x.size() != y.size() || a.b != b.b || a.n != b.m) {
    throw errors::InvalidArgument("cannot multiply x of shape ", DimsToString(x), " by y of shape ",
                                  DimsToString(y), ": both 2-D or both 3-D with equal batches, ",
                                  "and x's columns equal to y's rows");
  }
}

template <typename T>
DenseTensor CsrTimesDense(const SparseCsrTensor& x, const DenseTensor& y_in) {
  CheckProduct(x.dims(), y_in.dims());
  const DenseTensor y = funcs::Contiguous(y_in);
  const Mat3 a = Shape3(x.dims(), "x"), b = Shape3(y.dims(), "y");
  DDim odims = x.dims();
  odims[odims.size() - 1] = b.n;
  DenseTensor out = Allocated(dtype_of_v<T>, odims);
  const int64_t* crows = x.crows().data<int64_t>();
  const int64_t* cols = x.cols().data<int64_t>();
  const T* v = x.values().data<T>();
  const T* yp = y.data<T>();
  T* o = out.data<T>();
  // Each matrix's entries start after those of the matrices before it.
  std::vector<int64_t> base(a.b + 1, 0);
  for (int64_t i = 0; i < a.b; ++i) base[i + 1] = base[i] + crows[i * (a.m + 1) + a.m];
  using C = compute_t<T>;
  ParallelFor(0, a.b * a.m, std::max<int64_t>(1, x.nnz() / std::max<int64_t>(1, a.b * a.m)) * b.n,
              [&](int64_t lo, int64_t hi) {
                std::vector<C> acc(b.n);
                for (int64_t row = lo; row < hi; ++row) {
                  const int64_t i = row / a.m, r = row % a.m;
                  const int64_t* cr = crows + i * (a.m + 1);
                  std::fill(acc.begin(), acc.end(), C(0));
                  for (int64_t k = base[i] + cr[r]; k < base[i] + cr[r + 1]; ++k) {
                    const C w = static_cast<C>(v[k]);
                    const T* yr = yp + (i * b.m + cols[k]) * b.n;
                    for (int64_t c = 0; c < b.n; ++c) acc[c] += w * static_cast<C>(yr[c]);
                  }
                  T* orow = o + row * b.n;
                  for (int64_t c = 0; c < b.n; ++c) orow[c] = static_cast<T>(acc[c]);
                }
              });
  return out;
}

template <typename T>
SparseCsrTensor CsrTimesCsr(const SparseCsrTensor& x, const SparseCsrTensor& y) {
  CheckProduct(x.dims(), y.dims());
  const Mat3 a = Shape3(x.dims(), "x"), b = Shape3(y.dims(), "y");
  const int64_t* xcr = x.crows().data<int64_t>();
  const int64_t* xc = x.cols().data<int64_t>();
  const T* xv = x.values().data<T>();
  const int64_t* ycr = y.crows().data<int64_t>();
  const int64_t* yc = y.cols().data<int64_t>();
  const T* yv = y.values().data<T>();
  using C = compute_t<T>;
  std::vector<int64_t> crows(a.b * (a.m + 1), 0), cols;
  std::vector<T> vals;
  std::vector<C> acc(b.n, C(0));
  std::vector<char> seen(b.n, 0);
  std::vector<int64_t> touched;
  int64_t xbase = 0, ybase = 0;
  for (int64_t i = 0; i < a.b; ++i) {
    const int64_t* xr = xcr + i * (a.m + 1);
    const int64_t* yr = ycr + i * (b.m + 1);
    const auto start = static_cast<int64_t>(cols.size());
    for (int64_t r = 0; r < a.m; ++r) {
      touched.clear();
      for (int64_t k = xbase + xr[r]; k < xbase + xr[r + 1]; ++k) {
        const int64_t mid = xc[k];
        for (int64_t l = ybase + yr[mid]; l < ybase + yr[mid + 1]; ++l) {
          if (!seen[yc[l]]) {
            seen[yc[l]] = 1;
            touched.push_back(yc[l]);
          }
          acc[yc[l]] += static_cast<C>(xv[k]) * static_cast<C>(yv[l]);
        }
      }
      std::sort(touched.begin(), touched.end());
      for (int64_t c : touched) {
        cols.push_back(c);
        vals.push_back(static_cast<T>(acc[c]));
        acc[c] = C(0);
        seen[c] = 0;
      }
      crows[i * (a.m + 1) + r + 1] = static_cast<int64_t>(cols.size()) - start;
    }
    xbase += xr[a.m];
    ybase += yr[b.m];
  }
  const auto nnz = static_cast<int64_t>(cols.size());
  DenseTensor tc = Allocated(DType::kInt64, {static_cast<int64_t>(crows.size())});
  std::copy(crows.begin(), crows.end(), tc.data<int64_t>());
  DenseTensor tcols = Allocated(DType::kInt64, {nnz});
  std::copy(cols.begin(), cols.end(), tcols.data<int64_t>());
  DenseTensor tv = Allocated(dtype_of_v<T>, {nnz});
  std::copy(vals.begin(), vals.end(), tv.data<T>());
  DDim odims = x.dims();
  odims[odims.size() - 1] = b.n;
  return SparseCsrTensor(std::move(tc), std::move(tcols), std::move(tv), odims);
}

// values[j] = x[b, r, :] . y[b, :, c] for each stored position (b, r, c) of mask.
template <typename T>
DenseTensor MaskedProduct(const DenseTensor& x_in, const DenseTensor& y_in,
                          const SparseCooTensor& mask) {
  CheckProduct(x_in.dims(), y_in.dims());
  const Mat3 a = Shape3(x_in.dims(), "x"), b = Shape3(y_in.dims(), "y");
  DDim want = x_in.dims();
  want[want.size() - 1] = b.n;
  if (mask.dims() != want || mask.sparse_dim() != static_cast<int64_t>(want.size())) {
    throw errors::InvalidArgument("the mask must be a sparse tensor of shape ", DimsToString(want),
                                  " (the product's) without dense dimensions, got shape ",
                                  DimsToString(mask.dims()));
  }
  const DenseTensor x = funcs::Contiguous(x_in);
  // y with its last two dims swapped, so each dot product reads contiguous rows.
  DenseTensorMeta tmeta = y_in.meta();
  const size_t nd = tmeta.dims.size();
  std::swap(tmeta.dims[nd - 1], tmeta.dims[nd - 2]);
  std::swap(tmeta.strides[nd - 1], tmeta.strides[nd - 2]);
  const DenseTensor yt = funcs::Contiguous(DenseTensor(y_in.Holder(), tmeta));
  const int64_t nnz = mask.nnz(), sd = mask.sparse_dim();
  const int64_t* idx = mask.indices().data<int64_t>();
  DenseTensor out = Allocated(dtype_of_v<T>, {nnz});
  const T* xp = x.data<T>();
  const T* yp = yt.data<T>();
  T* o = out.data<T>();
  using C = compute_t<T>;
  ParallelFor(0, nnz, a.n, [&](int64_t lo, int64_t hi) {
    for (int64_t j = lo; j < hi; ++j) {
      const int64_t i = sd == 3 ? idx[j] : 0;
      const int64_t r = idx[(sd - 2) * nnz + j], c = idx[(sd - 1) * nnz + j];
      const T* xr = xp + (i * a.m + r) * a.n;
      const T* yr = yp + (i * b.n + c) * b.m;
      C s(0);
      for (int64_t k = 0; k < a.n; ++k) s += static_cast<C>(xr[k]) * static_cast<C>(yr[k]);
      o[j] = static_cast<T>(s);
    }
  });
  return out;
}

// The segments of stored entries that form the rows softmax normalises over:
// [start, end) pairs of the entries of a coalesced COO tensor sharing all but
// the last index.
std::vector<int64_t> RowStarts(const SparseCooTensor& x) {
  const std::vector<int64_t> pos = funcs::LinearPositions(x);
  const int64_t last = x.dims()[x.dims().size() - 1];
  std::vector<int64_t> starts;
  for (size_t j = 0; j < pos.size(); ++j) {
    if (j == 0 || pos[j] / last != pos[j - 1] / last) starts.push_back(static_cast<int64_t>(j));
  }
  starts.push_back(static_cast<int64_t>(pos.size()));
  return starts;
}

std::vector<int64_t> CsrRowStarts(const SparseCsrTensor& x) {
  const int64_t* cr = x.crows().data<int64_t>();
  std::vector<int64_t> starts{0};
  int64_t base = 0;
  for (int64_t i = 0; i < x.batch(); ++i) {
    const int64_t* c = cr + i * (x.rows() + 1);
    for (int64_t r = 0; r < x.rows(); ++r) starts.push_back(base + c[r + 1]);
    base += c[x.rows()];
  }
  return starts;
}

void CheckSoftmaxAxis(int64_t axis, const TensorBase& x, int64_t sparse_dim) {
  const auto nd = static_cast<int64_t>(x.dims().size());
  if (axis != -1 && axis != nd - 1) {
    throw errors::InvalidArgument("the softmax of a sparse tensor runs over its last dimension ",
                                  "(axis -1 or ", nd - 1, "), got axis ", axis);
  }
  if (sparse_dim != nd) {
    throw errors::InvalidArgument("the last dimension of x is dense (", sparse_dim, " of ", nd,
                                  " dimensions are sparse); rows of stored entries need a sparse "
                                  "last dimension (apply the dense op to the values instead)");
  }
}

template <typename T>
DenseTensor SegmentSoftmax(const DenseTensor& values, const std::vector<int64_t>& starts) {
  const DenseTensor v = funcs::Contiguous(values);
  DenseTensor out = Allocated(v.dtype(), v.dims());
  const T* in = v.data<T>();
  T* o = out.data<T>();
  using C = compute_t<T>;
  for (size_t s = 0; s + 1 < starts.size(); ++s) {
    C mx = -std::numeric_limits<C>::infinity();
    for (int64_t k = starts[s]; k < starts[s + 1]; ++k) mx = std::max(mx, static_cast<C>(in[k]));
    C sum(0);
    for (int64_t k = starts[s]; k < starts[s + 1]; ++k) sum += std::exp(static_cast<C>(in[k]) - mx);
    for (int64_t k = starts[s]; k < starts[s + 1]; ++k) {
      o[k] = static_cast<T>(std::exp(static_cast<C>(in[k]) - mx) / sum);
    }
  }
  return out;
}

// At each entry, the sum of the entries sharing its row id (any order).
template <typename T>
DenseTensor RowSums(const DenseTensor& values, const std::vector<int64_t>& row) {
  const DenseTensor v = funcs::Contiguous(values);
  DenseTensor out = Allocated(v.dtype(), v.dims());
  const T* in = v.data<T>();
  T* o = out.data<T>();
  std::vector<int64_t> order(row.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return row[a] < row[b]; });
  using C = compute_t<T>;
  for (size_t lo = 0; lo < order.size();) {
    size_t hi = lo;
    C sum(0);
    while (hi < order.size() && row[order[hi]] == row[order[lo]])
      sum += static_cast<C>(in[order[hi++]]);
    for (size_t k = lo; k < hi; ++k) o[order[k]] = static_cast<T>(sum);
    lo = hi;
  }
  return out;
}

std::vector<int64_t> CooRowIds(const SparseCooTensor& x) {
  std::vector<int64_t> pos = funcs::LinearPositions(x);
  const int64_t last = x.dims()[x.dims().size() - 1];
  for (auto& p : pos) p /= last;
  return pos;
}

std::vector<int64_t> CsrRowIds(const SparseCsrTensor& x) {
  const std::vector<int64_t> starts = CsrRowStarts(x);
  std::vector<int64_t> ids(x.nnz());
  for (size_t r = 0; r + 1 < starts.size(); ++r) {
    std::fill(ids.begin() + starts[r], ids.begin() + starts[r + 1], static_cast<int64_t>(r));
  }
  return ids;
}

}  // namespace

template <typename T>
void SparseMatmulCsrDenseKernel(const DeviceContext&, const SparseCsrTensor& x,
                                const DenseTensor& y, DenseTensor* out) {
  *out = CsrTimesDense<T>(x, y);
}
template <typename T>
void SparseMatmulCooDenseKernel(const DeviceContext&, const SparseCooTensor& x,
                                const DenseTensor& y, DenseTensor* out) {
  *out = CsrTimesDense<T>(CsrOf(x, "x"), y);
}
template <typename T>
void SparseMatmulCsrCsrKernel(const DeviceContext&, const SparseCsrTensor& x,
                              const SparseCsrTensor& y, SparseCsrTensor* out) {
  *out = CsrTimesCsr<T>(x, y);
}
template <typename T>
void SparseMatmulCooCooKernel(const DeviceContext&, const SparseCooTensor& x,
                              const SparseCooTensor& y, SparseCooTensor* out) {
  *out = funcs::CsrToCoo(CsrTimesCsr<T>(CsrOf(x, "x"), CsrOf(y, "y")));
}

template <typename T>
void SparseMaskedMatmulCooKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& y,
                                 const SparseCooTensor& mask, SparseCooTensor* out) {
  *out =
      SparseCooTensor(mask.indices(), MaskedProduct<T>(x, y, mask), mask.dims(), mask.coalesced());
}
template <typename T>
void SparseMaskedMatmulCsrKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& y,
                                 const SparseCsrTensor& mask, SparseCsrTensor* out) {
  *out = SparseCsrTensor(mask.crows(), mask.cols(), MaskedProduct<T>(x, y, funcs::CsrToCoo(mask)),
                         mask.dims());
}

template <typename T>
void SparseSoftmaxCooKernel(const DeviceContext&, const SparseCooTensor& x_in, int64_t axis,
                            SparseCooTensor* out) {
  CheckSoftmaxAxis(axis, x_in, x_in.sparse_dim());
  const SparseCooTensor x = funcs::Coalesce(x_in);
  *out = SparseCooTensor(x.indices(), SegmentSoftmax<T>(x.values(), RowStarts(x)), x.dims(), true);
}
template <typename T>
void SparseSoftmaxCsrKernel(const DeviceContext&, const SparseCsrTensor& x, int64_t axis,
                            SparseCsrTensor* out) {
  CheckSoftmaxAxis(axis, x, static_cast<int64_t>(x.dims().size()));
  *out = SparseCsrTensor(x.crows(), x.cols(), SegmentSoftmax<T>(x.values(), CsrRowStarts(x)),
                         x.dims());
}

template <typename T>
void SparseRowSumCooKernel(const DeviceContext&, const SparseCooTensor& x, SparseCooTensor* out) {
  CheckSoftmaxAxis(-1, x, x.sparse_dim());
  *out =
      SparseCooTensor(x.indices(), RowSums<T>(x.values(), CooRowIds(x)), x.dims(), x.coalesced());
}
template <typename T>
void SparseRowSumCsrKernel(const DeviceContext&, const SparseCsrTensor& x, SparseCsrTensor* out) {
  *out = SparseCsrTensor(x.crows(), x.cols(), RowSums<T>(x.values(), CsrRowIds(x)), x.dims());
}

namespace {
// x and y side by side, uncoalesced: the sum once coalesced.
SparseCooTensor Concatenated(const SparseCooTensor& x, const SparseCooTensor& y) {
  if (x.dims() != y.dims() || x.sparse_dim() != y.sparse_dim()) {
    throw errors::InvalidArgument("x (shape ", DimsToString(x.dims()), ", ", x.sparse_dim(),
                                  " sparse dims) and y (shape ", DimsToString(y.dims()), ", ",
                                  y.sparse_dim(), " sparse dims) must agree");
  }
  const int64_t sd = x.sparse_dim(), nx = x.nnz(), ny = y.nnz();
  DenseTensor indices = Allocated(DType::kInt64, {sd, nx + ny});
  int64_t* o = indices.data<int64_t>();
  const int64_t* xi = x.indices().data<int64_t>();
  const int64_t* yi = y.indices().data<int64_t>();
  for (int64_t d = 0; d < sd; ++d) {
    std::copy(xi + d * nx, xi + (d + 1) * nx, o + d * (nx + ny));
    std::copy(yi + d * ny, yi + (d + 1) * ny, o + d * (nx + ny) + nx);
  }
  DDim vdims = x.values().dims();
  vdims[0] = nx + ny;
  DenseTensor values = Allocated(x.dtype(), vdims);
  const DenseTensor xv = funcs::Contiguous(x.values()), yv = funcs::Contiguous(y.values());
  const size_t xb = xv.numel() * SizeOf(xv.dtype()), yb = yv.numel() * SizeOf(yv.dtype());
  if (xb) std::memcpy(values.data(), xv.data(), xb);
  if (yb) std::memcpy(static_cast<char*>(values.data()) + xb, yv.data(), yb);
  return SparseCooTensor(std::move(indices), std::move(values), x.dims(), false);
}
}  // namespace

template <typename T>
void SparseAddCooCooKernel(const DeviceContext&, const SparseCooTensor& x, const SparseCooTensor& y,
                           SparseCooTensor* out) {
  *out = funcs::Coalesce(Concatenated(x, y));
}
template <typename T>
void SparseAddCsrCsrKernel(const DeviceContext&, const SparseCsrTensor& x, const SparseCsrTensor& y,
                           SparseCsrTensor* out) {
  *out = funcs::CooToCsr(Concatenated(funcs::CsrToCoo(x), funcs::CsrToCoo(y)));
}

}  // namespace oar

#define OAR_SPARSE_MATH_KERNEL(name, layout, func) \
  OAR_REGISTER_KERNEL(name, CPU, layout, func, float, double)

OAR_SPARSE_MATH_KERNEL(sparse_matmul_coo_dense, SparseCoo, oar::SparseMatmulCooDenseKernel);
OAR_SPARSE_MATH_KERNEL(sparse_matmul_csr_dense, SparseCsr, oar::SparseMatmulCsrDenseKernel);
OAR_SPARSE_MATH_KERNEL(sparse_matmul_coo_coo, SparseCoo, oar::SparseMatmulCooCooKernel);
OAR_SPARSE_MATH_KERNEL(sparse_matmul_csr_csr, SparseCsr, oar::SparseMatmulCsrCsrKernel);
OAR_SPARSE_MATH_KERNEL(sparse_masked_matmul_coo, SparseCoo, oar::SparseMaskedMatmulCooKernel);
OAR_SPARSE_MATH_KERNEL(sparse_masked_matmul_csr, SparseCsr, oar::SparseMaskedMatmulCsrKernel);
OAR_SPARSE_MATH_KERNEL(sparse_softmax_coo, SparseCoo, oar::SparseSoftmaxCooKernel);
OAR_SPARSE_MATH_KERNEL(sparse_softmax_csr, SparseCsr, oar::SparseSoftmaxCsrKernel);
OAR_SPARSE_MATH_KERNEL(sparse_row_sum_coo, SparseCoo, oar::SparseRowSumCooKernel);
OAR_SPARSE_MATH_KERNEL(sparse_row_sum_csr, SparseCsr, oar::SparseRowSumCsrKernel);
OAR_REGISTER_KERNEL(sparse_add_coo_coo, CPU, SparseCoo, oar::SparseAddCooCooKernel, OAR_ALL_TYPES,
                    OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(sparse_add_csr_csr, CPU, SparseCsr, oar::SparseAddCsrCsrKernel, OAR_ALL_TYPES,
                    OAR_COMPLEX_TYPES);
