// The index work the sparse kernels share: coalescing, conversions between
// dense, COO and CSR, and finding entries by position (docs/sparse.md). Values
// move as rows of bytes (an entry's dense part), so only summing needs the type.
#pragma once

#include <vector>

#include "oar/core/sparse_tensor.h"

namespace oar::funcs {

// A contiguous int64 copy of an int32/int64 index tensor (shared when it is one).
DenseTensor IndicesAsInt64(const DenseTensor& t, const char* what);

// Elements per entry: the product of the dense dimensions.
int64_t EntrySize(const SparseCooTensor& x);

// Row-major position of each entry in the sparse dimensions.
std::vector<int64_t> LinearPositions(const SparseCooTensor& x);

// Entry rows[i] of `values` ([n, ...], contiguous) as row i of a new [rows.size(), ...]
// tensor; a negative row gives zeros.
DenseTensor GatherEntries(const DenseTensor& values, const std::vector<int64_t>& rows);

// x with its entries sorted by position and repeated positions summed
// (x itself when already coalesced).
SparseCooTensor Coalesce(const SparseCooTensor& x);

// The COO tensor of the elements (sparse_dim == ndim) or the sub-tensors
// (sparse_dim < ndim) of x that hold a non-zero value, in row-major order.
SparseCooTensor DenseToCoo(const DenseTensor& x, int64_t sparse_dim);
// x as a dense contiguous tensor (repeated positions summed).
DenseTensor CooToDense(const SparseCooTensor& x);

// CSR <-> COO: 2-D matrices or [batch, rows, cols] batches; the COO side has
// no dense dimensions.
SparseCooTensor CsrToCoo(const SparseCsrTensor& x);
SparseCsrTensor CooToCsr(const SparseCooTensor& x);

// Checks crows/cols of a CSR tensor: crows start at 0, never decrease, end at
// each matrix's nnz; columns in range.
void CheckCsrStructure(const SparseCsrTensor& x);

// Whether a and b store the same positions in the same order (entry j of one is
// entry j of the other).
bool SamePositions(const SparseCooTensor& a, const SparseCooTensor& b);
bool SamePositions(const SparseCsrTensor& a, const SparseCsrTensor& b);

// For each entry of `mask`, the index of the entry of coalesced `x` at the same
// position, or -1 (both COO with equal shapes and sparse dims).
std::vector<int64_t> MatchEntries(const SparseCooTensor& x, const SparseCooTensor& mask);

}  // namespace oar::funcs
