// The two sparse formats (phi's SparseCooTensor and SparseCsrTensor): their
// parts are dense tensors, so every dense kernel can compute on the values
// (docs/sparse.md). A sparse tensor is immutable once built: ops return new
// ones, sharing the parts they do not change.
#pragma once

#include "oar/core/dense_tensor.h"

namespace oar {

// Coordinate format. indices: int64 [sparse_dim, nnz], column j the position
// of entry j in the leading sparse_dim dimensions; values: [nnz, dims[sparse_dim:]...],
// so trailing dimensions may stay dense (a "hybrid" tensor, as PyTorch's and
// Paddle's). Uncoalesced entries may repeat a position; they add up.
class SparseCooTensor final : public TensorBase {
 public:
  SparseCooTensor() : TensorBase(TensorKind::kSparseCoo) {}
  // Checks the shapes of the parts against each other and against dims (not the
  // index values: the kernels that read them do).
  SparseCooTensor(DenseTensor indices, DenseTensor values, const DDim& dims, bool coalesced);

  static bool classof(const TensorBase* t) { return t->kind() == TensorKind::kSparseCoo; }

  const DDim& dims() const override { return dims_; }
  DType dtype() const override { return values_.dtype(); }
  DataLayout layout() const override { return DataLayout::kSparseCoo; }
  Place place() const override { return values_.place(); }
  bool valid() const override { return values_.valid(); }
  bool initialized() const override { return values_.initialized() && indices_.initialized(); }

  const DenseTensor& indices() const { return indices_; }
  const DenseTensor& values() const { return values_; }
  int64_t nnz() const { return indices_.dims()[1]; }
  int64_t sparse_dim() const { return indices_.dims()[0]; }
  int64_t dense_dim() const { return static_cast<int64_t>(dims_.size()) - sparse_dim(); }
  // Positions are sorted (row-major) and unique.
  bool coalesced() const { return coalesced_; }

 private:
  DenseTensor indices_;
  DenseTensor values_;
  DDim dims_;
  bool coalesced_ = false;
};

// Compressed sparse rows of a matrix [rows, cols] or a batch of them
// [batch, rows, cols] (Paddle's 3-D CSR). crows: int64 [batch * (rows + 1)],
// each matrix's row starts relative to its own entries; cols: int64 [nnz];
// values: [nnz]. Entries of a matrix follow each other in cols/values.
class SparseCsrTensor final : public TensorBase {
 public:
  SparseCsrTensor() : TensorBase(TensorKind::kSparseCsr) {}
  SparseCsrTensor(DenseTensor crows, DenseTensor cols, DenseTensor values, const DDim& dims);

  static bool classof(const TensorBase* t) { return t->kind() == TensorKind::kSparseCsr; }

  const DDim& dims() const override { return dims_; }
  DType dtype() const override { return values_.dtype(); }
  DataLayout layout() const override { return DataLayout::kSparseCsr; }
  Place place() const override { return values_.place(); }
  bool valid() const override { return values_.valid(); }
  bool initialized() const override {
    return values_.initialized() && crows_.initialized() && cols_.initialized();
  }

  const DenseTensor& crows() const { return crows_; }
  const DenseTensor& cols() const { return cols_; }
  const DenseTensor& values() const { return values_; }
  int64_t nnz() const { return cols_.dims()[0]; }
  int64_t batch() const { return dims_.size() == 3 ? dims_[0] : 1; }
  int64_t rows() const { return dims_[dims_.size() - 2]; }

 private:
  DenseTensor crows_;
  DenseTensor cols_;
  DenseTensor values_;
  DDim dims_;
};

}  // namespace oar
