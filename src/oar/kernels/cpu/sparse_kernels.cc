// Kernels of src/oar/ops/sparse.yaml: building sparse tensors, their parts,
// conversions, coalescing and transposing. None computes on the values beyond
// moving (and, coalescing, summing) them, so each is registered for every dtype;
// the type parameter only selects the table slot.
#include <algorithm>
#include <numeric>

#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/funcs/sparse_utils.h"
#include "oar/kernels/infer_meta.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

// x (contiguous) seen as [prod(dims[:n]), dims[n:]...]: the rows a COO entry
// with n sparse dimensions addresses.
DenseTensor AsRows(const DenseTensor& x_in, int64_t n) {
  const DenseTensor x = funcs::Contiguous(x_in);
  DDim dims{1};
  for (int64_t d = 0; d < n; ++d) dims[0] *= x.dims()[d];
  for (int64_t d = n; d < x.ndim(); ++d) dims.push_back(x.dims()[d]);
  DenseTensorMeta meta(x.dtype(), dims);
  meta.offset = x.offset();
  return DenseTensor(x.Holder(), meta);
}

// The COO entries of a CSR tensor's positions (values shared).
SparseCooTensor CooOf(const SparseCsrTensor& x) { return funcs::CsrToCoo(x); }

void CheckSameShape(const TensorBase& x, const TensorBase& mask) {
  if (x.dims() != mask.dims()) {
    throw errors::InvalidArgument("x has shape ", DimsToString(x.dims()),
                                  " but the mask has shape ", DimsToString(mask.dims()),
                                  "; they must be equal");
  }
}

// perm as a checked permutation of 0..n-1 (negative entries count from the end).
std::vector<int64_t> CheckedPerm(const std::vector<int64_t>& perm, int64_t n) {
  if (static_cast<int64_t>(perm.size()) != n) {
    throw errors::InvalidArgument("perm must have ", n, " entries (one per dimension), got ",
                                  perm.size());
  }
  std::vector<int64_t> p(perm.size());
  std::vector<bool> seen(n, false);
  for (size_t i = 0; i < perm.size(); ++i) {
    p[i] = NormalizeAxis(perm[i], n);
    if (seen[p[i]]) throw errors::InvalidArgument("perm repeats dimension ", p[i]);
    seen[p[i]] = true;
  }
  return p;
}

}  // namespace

template <typename T>
void SparseCooFromPartsKernel(const DeviceContext&, const DenseTensor& indices_in,
                              const DenseTensor& values, const std::vector<int64_t>& shape,
                              SparseCooTensor* out) {
  const DenseTensor indices = funcs::IndicesAsInt64(indices_in, "indices");
  if (indices.ndim() != 2) {
    throw errors::InvalidArgument("indices must be 2-D [sparse_dim, nnz], got shape ",
                                  DimsToString(indices.dims()));
  }
  const int64_t sd = indices.dims()[0], nnz = indices.dims()[1];
  if (values.ndim() < 1 || values.dims()[0] != nnz) {
    throw errors::InvalidArgument("values must have one row per column of indices (", nnz,
                                  "), got shape ", DimsToString(values.dims()));
  }
  const int64_t* idx = indices.data<int64_t>();
  DDim dims;
  if (shape.empty()) {
    for (int64_t d = 0; d < sd; ++d) {
      int64_t mx = -1;
      for (int64_t j = 0; j < nnz; ++j) mx = std::max(mx, idx[d * nnz + j]);
      dims.push_back(mx + 1);
    }
  } else {
    if (static_cast<int64_t>(shape.size()) != sd + values.ndim() - 1) {
      throw errors::InvalidArgument("shape ", DimsToString(MakeDDim(shape)), " has ", shape.size(),
                                    " dimensions but indices give ", sd, " sparse and values ",
                                    values.ndim() - 1, " dense ones");
    }
    dims = MakeDDim(shape);
  }
  for (int64_t d = 1; d < values.ndim(); ++d) {
    if (!shape.empty() && values.dims()[d] != dims[sd + d - 1]) {
      throw errors::InvalidArgument("values have shape ", DimsToString(values.dims()),
                                    " but shape ", DimsToString(dims), " needs dense dimensions ",
                                    "matching them");
    }
    if (shape.empty()) dims.push_back(values.dims()[d]);
  }
  for (int64_t d = 0; d < sd; ++d) {
    for (int64_t j = 0; j < nnz; ++j) {
      const int64_t v = idx[d * nnz + j];
      if (v < 0 || v >= dims[d]) {
        throw errors::OutOfRange("index ", v, " in row ", d, " of indices is out of range for ",
                                 "dimension ", d, " of size ", dims[d]);
      }
    }
  }
  *out = SparseCooTensor(indices, funcs::Contiguous(values), dims, false);
}

template <typename T>
void SparseCsrFromPartsKernel(const DeviceContext&, const DenseTensor& crows,
                              const DenseTensor& cols, const DenseTensor& values,
                              const std::vector<int64_t>& shape, SparseCsrTensor* out) {
  if (values.ndim() != 1) {
    throw errors::InvalidArgument("values of a CSR tensor must be 1-D, got shape ",
                                  DimsToString(values.dims()));
  }
  *out = SparseCsrTensor(funcs::IndicesAsInt64(crows, "crows"), funcs::IndicesAsInt64(cols, "cols"),
                         funcs::Contiguous(values), MakeDDim(shape));
  funcs::CheckCsrStructure(*out);
}

template <typename T>
void SparseIndicesCooKernel(const DeviceContext&, const SparseCooTensor& x, DenseTensor* out) {
  *out = x.indices();
}
template <typename T>
void SparseCrowsCsrKernel(const DeviceContext&, const SparseCsrTensor& x, DenseTensor* out) {
  *out = x.crows();
}
template <typename T>
void SparseColsCsrKernel(const DeviceContext&, const SparseCsrTensor& x, DenseTensor* out) {
  *out = x.cols();
}
template <typename T>
void SparseValuesCooKernel(const DeviceContext&, const SparseCooTensor& x, DenseTensor* out) {
  *out = x.values();
}
template <typename T>
void SparseValuesCsrKernel(const DeviceContext&, const SparseCsrTensor& x, DenseTensor* out) {
  *out = x.values();
}

template <typename T>
void SparseWithValuesCooKernel(const DeviceContext&, const SparseCooTensor& x,
                               const DenseTensor& values, SparseCooTensor* out) {
  DDim want{x.nnz()};
  for (size_t d = x.sparse_dim(); d < x.dims().size(); ++d) want.push_back(x.dims()[d]);
  if (values.dims() != want) {
    throw errors::InvalidArgument("values must have shape ", DimsToString(want),
                                  " (one entry per stored position of x), got ",
                                  DimsToString(values.dims()));
  }
  *out = SparseCooTensor(x.indices(), funcs::Contiguous(values), x.dims(), x.coalesced());
}

template <typename T>
void SparseWithValuesCsrKernel(const DeviceContext&, const SparseCsrTensor& x,
                               const DenseTensor& values, SparseCsrTensor* out) {
  if (values.dims() != DDim{x.nnz()}) {
    throw errors::InvalidArgument("values must have shape [", x.nnz(),
                                  "] (one per stored position of x), got ",
                                  DimsToString(values.dims()));
  }
  *out = SparseCsrTensor(x.crows(), x.cols(), funcs::Contiguous(values), x.dims());
}

template <typename T>
void SparseMaskValuesDenseCooKernel(const DeviceContext&, const DenseTensor& x,
                                    const SparseCooTensor& mask, DenseTensor* out) {
  CheckSameShape(x, mask);
  *out = funcs::GatherEntries(AsRows(x, mask.sparse_dim()), funcs::LinearPositions(mask));
}

template <typename T>
void SparseMaskValuesDenseCsrKernel(const DeviceContext&, const DenseTensor& x,
                                    const SparseCsrTensor& mask, DenseTensor* out) {
  CheckSameShape(x, mask);
  const SparseCooTensor m = CooOf(mask);
  *out = funcs::GatherEntries(AsRows(x, m.sparse_dim()), funcs::LinearPositions(m));
}

template <typename T>
void SparseMaskValuesCooCooKernel(const DeviceContext&, const SparseCooTensor& x,
                                  const SparseCooTensor& mask, DenseTensor* out) {
  // Entry by entry when the positions are the same: the gradient of an uncoalesced
  // tensor holds one value per entry, not per position (docs/sparse.md).
  if (funcs::SamePositions(x, mask)) {
    *out = x.values();
    return;
  }
  const SparseCooTensor xc = funcs::Coalesce(x);
  *out = funcs::GatherEntries(xc.values(), funcs::MatchEntries(xc, mask));
}

template <typename T>
void SparseMaskValuesCsrCsrKernel(const DeviceContext&, const SparseCsrTensor& x,
                                  const SparseCsrTensor& mask, DenseTensor* out) {
  if (funcs::SamePositions(x, mask)) {
    *out = x.values();
    return;
  }
  const SparseCooTensor xc = funcs::Coalesce(CooOf(x));
  *out = funcs::GatherEntries(xc.values(), funcs::MatchEntries(xc, CooOf(mask)));
}

template <typename T>
void SparseCooToDenseKernel(const DeviceContext&, const SparseCooTensor& x, DenseTensor* out) {
  *out = funcs::CooToDense(x);
}
template <typename T>
void SparseCsrToDenseKernel(const DeviceContext&, const SparseCsrTensor& x, DenseTensor* out) {
  *out = funcs::CooToDense(CooOf(x));
}

template <typename T>
void SparseDenseToCooKernel(const DeviceContext&, const DenseTensor& x, int64_t sparse_dim,
                            SparseCooTensor* out) {
  *out = funcs::DenseToCoo(x, sparse_dim);
}
template <typename T>
void SparseCsrToCooKernel(const DeviceContext&, const SparseCsrTensor& x, int64_t sparse_dim,
                          SparseCooTensor* out) {
  if (sparse_dim != static_cast<int64_t>(x.dims().size())) {
    throw errors::InvalidArgument("a ", x.dims().size(), "-D CSR tensor converts to COO with ",
                                  "sparse_dim ", x.dims().size(), ", got ", sparse_dim);
  }
  *out = CooOf(x);
}

template <typename T>
void SparseDenseToCsrKernel(const DeviceContext&, const DenseTensor& x, SparseCsrTensor* out) {
  if (x.ndim() != 2 && x.ndim() != 3) {
    throw errors::InvalidArgument("only a 2-D or 3-D tensor converts to CSR, got shape ",
                                  DimsToString(x.dims()));
  }
  *out = funcs::CooToCsr(funcs::DenseToCoo(x, x.ndim()));
}
template <typename T>
void SparseCooToCsrKernel(const DeviceContext&, const SparseCooTensor& x, SparseCsrTensor* out) {
  *out = funcs::CooToCsr(x);
}

template <typename T>
void SparseCoalesceCooKernel(const DeviceContext&, const SparseCooTensor& x, SparseCooTensor* out) {
  *out = funcs::Coalesce(x);
}

template <typename T>
void SparseTransposeCooKernel(const DeviceContext&, const SparseCooTensor& x,
                              const std::vector<int64_t>& perm_in, SparseCooTensor* out) {
  const auto nd = static_cast<int64_t>(x.dims().size());
  const int64_t sd = x.sparse_dim(), nnz = x.nnz();
  const std::vector<int64_t> perm = CheckedPerm(perm_in, nd);
  for (int64_t d = 0; d < nd; ++d) {
    if ((d < sd) != (perm[d] < sd)) {
      throw errors::InvalidArgument("perm ", DimsToString(MakeDDim(perm_in)), " mixes the ", sd,
                                    " sparse and ", nd - sd,
                                    " dense dimensions; each must be permuted among themselves");
    }
  }
  DenseTensor indices(DType::kInt64, {sd, nnz});
  int64_t* o = static_cast<int64_t*>(indices.AllocateFrom(CPUPlace()));
  const int64_t* in = x.indices().data<int64_t>();
  DDim dims(nd);
  bool identity = true;
  for (int64_t d = 0; d < nd; ++d) {
    dims[d] = x.dims()[perm[d]];
    identity &= perm[d] == d;
  }
  for (int64_t d = 0; d < sd; ++d)
    std::copy(in + perm[d] * nnz, in + (perm[d] + 1) * nnz, o + d * nnz);
  // The dense part: a strided view of the values with their trailing axes permuted.
  const DenseTensor& v = x.values();
  DenseTensorMeta meta = v.meta();
  for (int64_t d = sd; d < nd; ++d) {
    meta.dims[d - sd + 1] = v.dims()[perm[d] - sd + 1];
    meta.strides[d - sd + 1] = v.strides()[perm[d] - sd + 1];
  }
  const DenseTensor values = funcs::Contiguous(DenseTensor(v.Holder(), meta));
  *out = SparseCooTensor(std::move(indices), values, dims, identity && x.coalesced());
}

template <typename T>
void SparseTransposeCsrKernel(const DeviceContext& ctx, const SparseCsrTensor& x,
                              const std::vector<int64_t>& perm, SparseCsrTensor* out) {
  SparseCooTensor t;
  SparseTransposeCooKernel<T>(ctx, CooOf(x), perm, &t);
  *out = funcs::CooToCsr(t);
}

}  // namespace oar

#define OAR_SPARSE_KERNEL(name, layout, func) \
  OAR_REGISTER_KERNEL(name, CPU, layout, func, OAR_ALL_TYPES, OAR_COMPLEX_TYPES)

OAR_SPARSE_KERNEL(sparse_coo_from_parts, Any, oar::SparseCooFromPartsKernel);
OAR_SPARSE_KERNEL(sparse_csr_from_parts, Any, oar::SparseCsrFromPartsKernel);
OAR_SPARSE_KERNEL(sparse_indices_coo, SparseCoo, oar::SparseIndicesCooKernel);
OAR_SPARSE_KERNEL(sparse_crows_csr, SparseCsr, oar::SparseCrowsCsrKernel);
OAR_SPARSE_KERNEL(sparse_cols_csr, SparseCsr, oar::SparseColsCsrKernel);
OAR_SPARSE_KERNEL(sparse_values_coo, SparseCoo, oar::SparseValuesCooKernel);
OAR_SPARSE_KERNEL(sparse_values_csr, SparseCsr, oar::SparseValuesCsrKernel);
OAR_SPARSE_KERNEL(sparse_with_values_coo, SparseCoo, oar::SparseWithValuesCooKernel);
OAR_SPARSE_KERNEL(sparse_with_values_csr, SparseCsr, oar::SparseWithValuesCsrKernel);
OAR_SPARSE_KERNEL(sparse_mask_values_dense_coo, SparseCoo, oar::SparseMaskValuesDenseCooKernel);
OAR_SPARSE_KERNEL(sparse_mask_values_dense_csr, SparseCsr, oar::SparseMaskValuesDenseCsrKernel);
OAR_SPARSE_KERNEL(sparse_mask_values_coo_coo, SparseCoo, oar::SparseMaskValuesCooCooKernel);
OAR_SPARSE_KERNEL(sparse_mask_values_csr_csr, SparseCsr, oar::SparseMaskValuesCsrCsrKernel);
OAR_SPARSE_KERNEL(sparse_coo_to_dense, SparseCoo, oar::SparseCooToDenseKernel);
OAR_SPARSE_KERNEL(sparse_csr_to_dense, SparseCsr, oar::SparseCsrToDenseKernel);
OAR_SPARSE_KERNEL(sparse_dense_to_coo, Any, oar::SparseDenseToCooKernel);
OAR_SPARSE_KERNEL(sparse_csr_to_coo, SparseCsr, oar::SparseCsrToCooKernel);
OAR_SPARSE_KERNEL(sparse_dense_to_csr, Any, oar::SparseDenseToCsrKernel);
OAR_SPARSE_KERNEL(sparse_coo_to_csr, SparseCoo, oar::SparseCooToCsrKernel);
OAR_SPARSE_KERNEL(sparse_coalesce_coo, SparseCoo, oar::SparseCoalesceCooKernel);
OAR_SPARSE_KERNEL(sparse_transpose_coo, SparseCoo, oar::SparseTransposeCooKernel);
OAR_SPARSE_KERNEL(sparse_transpose_csr, SparseCsr, oar::SparseTransposeCsrKernel);
