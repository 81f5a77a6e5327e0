#include "oar/kernels/funcs/sparse_utils.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "oar/core/float16.h"
#include "oar/kernels/funcs/copy.h"

namespace oar::funcs {
namespace {

DenseTensor Allocated(DType dtype, const DDim& dims) {
  DenseTensor t(dtype, dims);
  t.AllocateFrom(CPUPlace());
  return t;
}

// dst += src, elementwise over n elements of values' dtype (bool: or).
void AddInto(DType dtype, const void* src, void* dst, int64_t n) {
  VisitDTypeWithComplex(dtype, [&]<typename T>() {
    const T* s = static_cast<const T*>(src);
    T* d = static_cast<T*>(dst);
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_same_v<T, bool>) {
        d[i] = d[i] || s[i];
      } else {
        d[i] = static_cast<T>(static_cast<compute_t<T>>(d[i]) + static_cast<compute_t<T>>(s[i]));
      }
    }
  });
}

bool AllZero(DType dtype, const void* p, int64_t n) {
  return VisitDTypeWithComplex(dtype, [&]<typename T>() {
    const T* v = static_cast<const T*>(p);
    for (int64_t i = 0; i < n; ++i) {
      if (!(static_cast<compute_t<T>>(v[i]) == static_cast<compute_t<T>>(T(0)))) return false;
    }
    return true;
  });
}

// Row-major strides of the first `n` dims of `dims`.
std::vector<int64_t> PositionStrides(const DDim& dims, int64_t n) {
  std::vector<int64_t> s(n, 1);
  for (int64_t d = n - 1; d > 0; --d) s[d - 1] = s[d] * dims[d];
  return s;
}

}  // namespace

DenseTensor IndicesAsInt64(const DenseTensor& t, const char* what) {
  if (t.dtype() != DType::kInt64 && t.dtype() != DType::kInt32) {
    throw errors::InvalidType("the ", what, " must be int32 or int64, got ", t.dtype());
  }
  return CastTo(Contiguous(t), DType::kInt64);
}

int64_t EntrySize(const SparseCooTensor& x) {
  int64_t n = 1;
  for (size_t d = x.sparse_dim(); d < x.dims().size(); ++d) n *= x.dims()[d];
  return n;
}

std::vector<int64_t> LinearPositions(const SparseCooTensor& x) {
  const int64_t sd = x.sparse_dim(), nnz = x.nnz();
  const std::vector<int64_t> stride = PositionStrides(x.dims(), sd);
  const int64_t* idx = x.indices().data<int64_t>();
  std::vector<int64_t> pos(nnz, 0);
  for (int64_t d = 0; d < sd; ++d) {
    for (int64_t j = 0; j < nnz; ++j) pos[j] += idx[d * nnz + j] * stride[d];
  }
  return pos;
}

DenseTensor GatherEntries(const DenseTensor& values, const std::vector<int64_t>& rows) {
  const DenseTensor v = Contiguous(values);
  DDim dims = v.dims();
  dims[0] = static_cast<int64_t>(rows.size());
  DenseTensor out = Allocated(v.dtype(), dims);
  const int64_t n = static_cast<int64_t>(rows.size());
  const size_t row_bytes = v.dims()[0] ? v.numel() / v.dims()[0] * SizeOf(v.dtype()) : 0;
  if (row_bytes == 0) return out;
  const char* src = static_cast<const char*>(v.data());
  char* dst = static_cast<char*>(out.data());
  for (int64_t i = 0; i < n; ++i) {
    if (rows[i] < 0) {
      std::memset(dst + i * row_bytes, 0, row_bytes);
    } else {
      std::memcpy(dst + i * row_bytes, src + rows[i] * row_bytes, row_bytes);
    }
  }
  return out;
}

SparseCooTensor Coalesce(const SparseCooTensor& x) {
  if (x.coalesced()) return x;
  const int64_t nnz = x.nnz(), sd = x.sparse_dim();
  const std::vector<int64_t> pos = LinearPositions(x);
  std::vector<int64_t> order(nnz);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return pos[a] < pos[b]; });
  // Segment starts: the first entry of each distinct position.
  std::vector<int64_t> first;
  for (int64_t k = 0; k < nnz; ++k) {
    if (k == 0 || pos[order[k]] != pos[order[k - 1]]) first.push_back(order[k]);
  }
  const auto m = static_cast<int64_t>(first.size());
  DenseTensor indices = Allocated(DType::kInt64, {sd, m});
  const int64_t* in_idx = x.indices().data<int64_t>();
  int64_t* out_idx = indices.data<int64_t>();
  for (int64_t d = 0; d < sd; ++d) {
    for (int64_t j = 0; j < m; ++j) out_idx[d * m + j] = in_idx[d * nnz + first[j]];
  }
  DenseTensor values = GatherEntries(x.values(), first);
  const int64_t esize = EntrySize(x);
  const DenseTensor in_v = Contiguous(x.values());
  const char* src = static_cast<const char*>(in_v.data());
  char* dst = static_cast<char*>(values.data());
  const size_t row_bytes = esize * SizeOf(in_v.dtype());
  for (int64_t k = 0, seg = -1; k < nnz; ++k) {
    if (k == 0 || pos[order[k]] != pos[order[k - 1]]) {
      ++seg;
      continue;  // the first of a segment is already in place
    }
    AddInto(in_v.dtype(), src + order[k] * row_bytes, dst + seg * row_bytes, esize);
  }
  return SparseCooTensor(std::move(indices), std::move(values), x.dims(), true);
}

SparseCooTensor DenseToCoo(const DenseTensor& x_in, int64_t sparse_dim) {
  const int64_t nd = x_in.ndim();
  if (sparse_dim < 1 || sparse_dim > nd) {
    throw errors::InvalidArgument("sparse_dim must be in [1, ", nd, "] for a ", nd,
                                  "-D tensor, got ", sparse_dim);
  }
  const DenseTensor x = Contiguous(x_in);
  int64_t rows = 1;
  for (int64_t d = 0; d < sparse_dim; ++d) rows *= x.dims()[d];
  const int64_t esize = rows ? x.numel() / rows : 0;
  const size_t row_bytes = esize * SizeOf(x.dtype());
  const char* p = static_cast<const char*>(x.data());
  std::vector<int64_t> kept;
  // Rows of no elements hold no non-zero: not walked (2**40 of them never returned).
  for (int64_t r = 0; esize > 0 && r < rows; ++r) {
    if (!AllZero(x.dtype(), p + r * row_bytes, esize)) kept.push_back(r);
  }
  const auto nnz = static_cast<int64_t>(kept.size());
  DenseTensor indices = Allocated(DType::kInt64, {sparse_dim, nnz});
  int64_t* idx = indices.data<int64_t>();
  for (int64_t j = 0; j < nnz; ++j) {
    int64_t rem = kept[j];
    for (int64_t d = sparse_dim - 1; d >= 0; --d) {
      idx[d * nnz + j] = rem % x.dims()[d];
      rem /= x.dims()[d];
    }
  }
  DDim vdims{nnz};
  for (int64_t d = sparse_dim; d < nd; ++d) vdims.push_back(x.dims()[d]);
  DenseTensor values = Allocated(x.dtype(), vdims);
  char* dst = static_cast<char*>(values.data());
  // No bytes per row (a zero-sized dense dim): nothing to copy, and the buffers may be null.
  if (row_bytes > 0) {
    for (int64_t j = 0; j < nnz; ++j)
      std::memcpy(dst + j * row_bytes, p + kept[j] * row_bytes, row_bytes);
  }
  return SparseCooTensor(std::move(indices), std::move(values), x.dims(), true);
}

DenseTensor CooToDense(const SparseCooTensor& x) {
  DenseTensor out = Allocated(x.dtype(), x.dims());
  Fill(&out, 0);
  const int64_t esize = EntrySize(x), nnz = x.nnz();
  if (esize == 0 || nnz == 0) return out;
  const std::vector<int64_t> pos = LinearPositions(x);
  const DenseTensor v = Contiguous(x.values());
  const size_t row_bytes = esize * SizeOf(v.dtype());
  const char* src = static_cast<const char*>(v.data());
  char* dst = static_cast<char*>(out.data());
  for (int64_t j = 0; j < nnz; ++j) {
    AddInto(v.dtype(), src + j * row_bytes, dst + pos[j] * row_bytes, esize);
  }
  return out;
}

SparseCooTensor CsrToCoo(const SparseCsrTensor& x) {
  const bool batched = x.dims().size() == 3;
  const int64_t nnz = x.nnz(), rows = x.rows(), sd = batched ? 3 : 2;
  DenseTensor indices = Allocated(DType::kInt64, {sd, nnz});
  int64_t* idx = indices.data<int64_t>();
  const int64_t* crows = x.crows().data<int64_t>();
  const int64_t* cols = x.cols().data<int64_t>();
  int64_t base = 0;
  bool sorted = true;
  for (int64_t b = 0; b < x.batch(); ++b) {
    const int64_t* cr = crows + b * (rows + 1);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t k = base + cr[r]; k < base + cr[r + 1]; ++k) {
        if (batched) idx[k] = b;
        idx[(sd - 2) * nnz + k] = r;
        idx[(sd - 1) * nnz + k] = cols[k];
        if (k > base + cr[r] && cols[k] <= cols[k - 1]) sorted = false;
      }
    }
    base += cr[rows];
  }
  return SparseCooTensor(std::move(indices), Contiguous(x.values()), x.dims(), sorted);
}

SparseCsrTensor CooToCsr(const SparseCooTensor& x_in) {
  const auto nd = static_cast<int64_t>(x_in.dims().size());
  if ((nd != 2 && nd != 3) || x_in.sparse_dim() != nd) {
    throw errors::InvalidArgument(
        "only a 2-D or 3-D sparse COO tensor without dense dimensions converts to CSR, got shape ",
        DimsToString(x_in.dims()), " with ", x_in.sparse_dim(), " sparse dimensions");
  }
  const SparseCooTensor x = Coalesce(x_in);
  const int64_t nnz = x.nnz();
  const int64_t batch = nd == 3 ? x.dims()[0] : 1, rows = x.dims()[nd - 2];
  int64_t offsets = 0;  // checked before anything is written: it wrapped to 0 for [2, 2**63-1]
  if (__builtin_add_overflow(rows, 1, &offsets) ||
      __builtin_mul_overflow(batch, offsets, &offsets)) {
    throw errors::InvalidArgument("a sparse CSR tensor of shape ", DimsToString(x.dims()),
                                  " needs more than 2^63 row offsets (crows)");
  }
  DenseTensor crows = Allocated(DType::kInt64, {offsets});
  int64_t* cr = crows.data<int64_t>();
  std::fill(cr, cr + crows.numel(), 0);
  const int64_t* idx = x.indices().data<int64_t>();
  std::vector<int64_t> per_batch(batch, 0);
  for (int64_t j = 0; j < nnz; ++j) {
    const int64_t b = nd == 3 ? idx[j] : 0;
    const int64_t r = idx[(nd - 2) * nnz + j];
    ++cr[b * (rows + 1) + r + 1];
  }
  for (int64_t b = 0; b < batch; ++b) {
    int64_t* c = cr + b * (rows + 1);
    for (int64_t r = 0; r < rows; ++r) c[r + 1] += c[r];
  }
  DenseTensor cols = Allocated(DType::kInt64, {nnz});
  if (nnz > 0) {  // an empty tensor's buffers may be null, which memcpy may not get
    std::memcpy(cols.data<int64_t>(), idx + (nd - 1) * nnz, nnz * sizeof(int64_t));
  }
  // Coalesced entries are sorted by (batch, row, col): CSR order already.
  return SparseCsrTensor(std::move(crows), std::move(cols), Contiguous(x.values()), x.dims());
}

void CheckCsrStructure(const SparseCsrTensor& x) {
  const int64_t rows = x.rows(), ncols = x.dims()[x.dims().size() - 1];
  const int64_t* crows = x.crows().data<int64_t>();
  const int64_t* cols = x.cols().data<int64_t>();
  int64_t total = 0;
  for (int64_t b = 0; b < x.batch(); ++b) {
    const int64_t* cr = crows + b * (rows + 1);
    if (cr[0] != 0) {
      throw errors::InvalidArgument("crows of each matrix must start at 0, got ", cr[0],
                                    " for matrix ", b);
    }
    for (int64_t r = 0; r < rows; ++r) {
      if (cr[r + 1] < cr[r]) {
        throw errors::InvalidArgument("crows must not decrease, got ", cr[r], " then ", cr[r + 1]);
      }
    }
    if (cr[rows] > x.nnz() - total) {  // before adding: three batches' totals wrapped
      throw errors::InvalidArgument("crows count more entries than cols holds (", x.nnz(), ")");
    }
    total += cr[rows];
  }
  if (total != x.nnz()) {
    throw errors::InvalidArgument("crows count ", total, " entries but cols holds ", x.nnz());
  }
  for (int64_t k = 0; k < x.nnz(); ++k) {
    if (cols[k] < 0 || cols[k] >= ncols) {
      throw errors::OutOfRange("column index ", cols[k], " is out of range for ", ncols,
                               " columns");
    }
  }
}

namespace {
bool SameInts(const DenseTensor& a, const DenseTensor& b) {
  if (a.dims() != b.dims()) return false;
  if (a.Holder() == b.Holder() && a.offset() == b.offset()) return true;
  return std::equal(a.data<int64_t>(), a.data<int64_t>() + a.numel(), b.data<int64_t>());
}
}  // namespace

bool SamePositions(const SparseCooTensor& a, const SparseCooTensor& b) {
  return a.dims() == b.dims() && SameInts(a.indices(), b.indices());
}

bool SamePositions(const SparseCsrTensor& a, const SparseCsrTensor& b) {
  return a.dims() == b.dims() && SameInts(a.crows(), b.crows()) && SameInts(a.cols(), b.cols());
}

std::vector<int64_t> MatchEntries(const SparseCooTensor& x, const SparseCooTensor& mask) {
  if (x.dims() != mask.dims() || x.sparse_dim() != mask.sparse_dim()) {
    throw errors::InvalidArgument("the tensor (shape ", DimsToString(x.dims()), ", ",
                                  x.sparse_dim(), " sparse dims) and the mask (shape ",
                                  DimsToString(mask.dims()), ", ", mask.sparse_dim(),
                                  " sparse dims) must agree");
  }
  const std::vector<int64_t> xp = LinearPositions(x);  // sorted: x is coalesced
  const std::vector<int64_t> mp = LinearPositions(mask);
  std::vector<int64_t> out(mp.size());
  for (size_t j = 0; j < mp.size(); ++j) {
    const auto it = std::lower_bound(xp.begin(), xp.end(), mp[j]);
    out[j] = it != xp.end() && *it == mp[j] ? it - xp.begin() : -1;
  }
  return out;
}

}  // namespace oar::funcs
