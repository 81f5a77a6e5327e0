#include "oar/core/sparse_tensor.h"

#include "oar/core/errors.h"

namespace oar {

const char* TensorKindName(TensorKind kind) {
  switch (kind) {
    case TensorKind::kDense:
      return "dense";
    case TensorKind::kSparseCoo:
      return "sparse_coo";
    case TensorKind::kSparseCsr:
      return "sparse_csr";
  }
  return "unknown";
}

namespace {
// The sparse dims number an entry's position as one int64 (sorting, coalescing, matching,
// the CSR row offsets): their product must fit, or positions wrap and distinct entries
// merge ([2**40, 2**40] put (2**24, 0) on (0, 0)). A dim < 0 is refused too.
void CheckSparseDims(const DDim& dims, int64_t count, const char* layout) {
  int64_t n = 1;
  for (int64_t d = 0; d < count; ++d) {
    if (dims[d] < 0 || (dims[d] != 0 && __builtin_mul_overflow(n, dims[d], &n))) {
      throw errors::InvalidArgument("a sparse ", layout, " tensor of shape ", DimsToString(dims),
                                    ": its sparse dims must be >= 0 and multiply to at most "
                                    "2^63 - 1 positions");
    }
  }
}

void CheckIndexTensor(const DenseTensor& t, const char* what, int64_t ndim) {
  if (t.dtype() != DType::kInt64) {
    throw errors::InvalidType("the ", what, " of a sparse tensor must be int64, got ", t.dtype());
  }
  if (t.ndim() != ndim) {
    throw errors::InvalidArgument("the ", what, " of a sparse tensor must be ", ndim,
                                  "-D, got shape ", DimsToString(t.dims()));
  }
}
}  // namespace

SparseCooTensor::SparseCooTensor(DenseTensor indices, DenseTensor values, const DDim& dims,
                                 bool coalesced)
    : TensorBase(TensorKind::kSparseCoo),
      indices_(std::move(indices)),
      values_(std::move(values)),
      dims_(dims),
      coalesced_(coalesced) {
  CheckIndexTensor(indices_, "indices", 2);
  const int64_t sparse_dim = indices_.dims()[0], nnz = indices_.dims()[1];
  const auto nd = static_cast<int64_t>(dims_.size());
  if (sparse_dim < 1 || sparse_dim > nd) {
    throw errors::InvalidArgument("a sparse COO tensor of shape ", DimsToString(dims_),
                                  " needs between 1 and ", nd, " rows of indices, got ",
                                  sparse_dim);
  }
  CheckSparseDims(dims_, sparse_dim, "COO");
  DDim want{nnz};
  for (int64_t d = sparse_dim; d < nd; ++d) want.push_back(dims_[d]);
  if (values_.dims() != want) {
    throw errors::InvalidArgument("the values of a sparse COO tensor of shape ",
                                  DimsToString(dims_), " with ", sparse_dim,
                                  " sparse dimensions and ", nnz, " entries must have shape ",
                                  DimsToString(want), ", got ", DimsToString(values_.dims()));
  }
}

SparseCsrTensor::SparseCsrTensor(DenseTensor crows, DenseTensor cols, DenseTensor values,
                                 const DDim& dims)
    : TensorBase(TensorKind::kSparseCsr),
      crows_(std::move(crows)),
      cols_(std::move(cols)),
      values_(std::move(values)),
      dims_(dims) {
  if (dims_.size() != 2 && dims_.size() != 3) {
    throw errors::InvalidArgument(
        "a sparse CSR tensor is 2-D or 3-D (a batch of matrices), got "
        "shape ",
        DimsToString(dims_));
  }
  CheckIndexTensor(crows_, "crows", 1);
  CheckIndexTensor(cols_, "cols", 1);
  CheckSparseDims(dims_, static_cast<int64_t>(dims_.size()), "CSR");
  // batch * (rows + 1) in checked arithmetic: a shape near 2^63 wrapped it to 0, an empty
  // crows passed, and the structure check then read crows[0] (a segfault).
  int64_t want = 0;
  if (__builtin_add_overflow(rows(), 1, &want) || __builtin_mul_overflow(batch(), want, &want)) {
    throw errors::InvalidArgument("a sparse CSR tensor of shape ", DimsToString(dims_),
                                  " needs more than 2^63 row offsets (crows)");
  }
  if (crows_.dims()[0] != want) {
    throw errors::InvalidArgument("the crows of a sparse CSR tensor of shape ", DimsToString(dims_),
                                  " must have ", want, " elements, got ", crows_.dims()[0]);
  }
  if (values_.dims() != DDim{cols_.dims()[0]}) {
    throw errors::InvalidArgument("the values of a sparse CSR tensor must have shape [",
                                  cols_.dims()[0], "] (one per column index), got ",
                                  DimsToString(values_.dims()));
  }
}

}  // namespace oar
