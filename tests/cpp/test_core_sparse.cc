// Sparse tensors at the C++ level (docs/sparse.md): the impls' checks, Tensor's
// kinds, the sparse layouts of the kernel key, and gradients of sparse leaves.
#include "oar/kernels/kernel_registry.h"
#include "test_util.h"

namespace oar::testing {
namespace {

DenseTensor Int64s(const std::vector<int64_t>& v, const DDim& dims) {
  DenseTensor t(DType::kInt64, dims);
  std::copy(v.begin(), v.end(), t.mutable_data<int64_t>());
  return t;
}

DenseTensor Floats(const std::vector<float>& v, const DDim& dims) {
  DenseTensor t(DType::kFloat32, dims);
  std::copy(v.begin(), v.end(), t.mutable_data<float>());
  return t;
}

TEST(SparseTensor, CooChecksItsParts) {
  const SparseCooTensor ok(Int64s({0, 1, 2, 0}, {2, 2}), Floats({1, 2}, {2}), {3, 3}, false);
  EXPECT_EQ(ok.nnz(), 2);
  EXPECT_EQ(ok.sparse_dim(), 2);
  EXPECT_EQ(ok.dense_dim(), 0);
  EXPECT_EQ(ok.layout(), DataLayout::kSparseCoo);
  Catch([] { SparseCooTensor(Floats({0, 1}, {1, 2}), Floats({1, 2}, {2}), {3}, false); },
        ErrorCode::kInvalidType, {"indices", "must be int64"});
  Catch([] { SparseCooTensor(Int64s({0, 1}, {1, 2}), Floats({1, 2, 3}, {3}), {3}, false); },
        ErrorCode::kInvalidArgument, {"must have shape [2]", "got [3]"});
  Catch([] { SparseCooTensor(Int64s({0, 1}, {1, 2}), Floats({1, 2}, {2}), {}, false); },
        ErrorCode::kInvalidArgument, {"between 1 and 0 rows of indices"});
}

TEST(SparseTensor, CsrChecksItsParts) {
  const SparseCsrTensor ok(Int64s({0, 1, 2}, {3}), Int64s({1, 0}, {2}), Floats({1, 2}, {2}),
                           {2, 2});
  EXPECT_EQ(ok.nnz(), 2);
  EXPECT_EQ(ok.rows(), 2);
  Catch(
      [] {
        SparseCsrTensor(Int64s({0, 2}, {2}), Int64s({1, 0}, {2}), Floats({1, 2}, {2}), {2, 2});
      },
      ErrorCode::kInvalidArgument, {"crows", "must have 3 elements"});
  Catch(
      [] {
        SparseCsrTensor(Int64s({0, 1, 2}, {3}), Int64s({1, 0}, {2}), Floats({1, 2}, {2}), {2});
      },
      ErrorCode::kInvalidArgument, {"2-D or 3-D"});
}

TEST(SparseTensor, TensorKnowsItsKind) {
  const Tensor s(std::make_shared<SparseCooTensor>(Int64s({0, 2}, {1, 2}), Floats({1, 2}, {2}),
                                                   DDim{3}, true));
  EXPECT_TRUE(s.is_sparse_coo() && s.is_sparse() && !s.is_dense());
  EXPECT_EQ(s.shape(), std::vector<int64_t>{3});
  EXPECT_EQ(s.dtype(), DType::kFloat32);
  Catch([&] { s.dense(); }, ErrorCode::kInvalidType,
        {"expected a dense tensor, but got a sparse_coo tensor", "to_dense()"});
  Catch([&] { s.sparse_csr(); }, ErrorCode::kInvalidType, {"expected a sparse_csr tensor"});
  EXPECT_EQ(Values(sparse_to_dense(s)), (std::vector<double>{1, 0, 2}));
}

TEST(SparseTensor, ASparseLayoutNeverFallsBackToADenseKernel) {
  const KernelTable& abs = KernelFactory::Instance().Table("abs");
  EXPECT_EQ(abs.Find({Backend::kCPU, DataLayout::kSparseCoo, DType::kFloat32}), nullptr);
  Catch(
      [&] {
        abs.SelectKernelOrThrowError({Backend::kCPU, DataLayout::kSparseCoo, DType::kFloat32});
      },
      ErrorCode::kInvalidType, {"'abs' takes dense tensors, not SPARSE_COO ones"});
  const KernelTable& values = KernelFactory::Instance().Table("sparse_values_csr");
  EXPECT_TRUE(values.HasLayout(DataLayout::kSparseCsr));
  Catch(
      [&] { values.SelectKernelOrThrowError({Backend::kCPU, DataLayout::kAny, DType::kFloat32}); },
      ErrorCode::kInvalidType, {"takes sparse tensors, not dense ones"});
}

TEST(SparseTensor, ASparseLeafGetsASparseGradient) {
  Tensor d = Make({0, 2, 0, 3}, {2, 2});
  Tensor x = sparse_to_coo(d, 2);
  x.set_stop_gradient(false);
  // twice: the engine sums the two sparse gradients sparse
  Tensor y = add(sparse_to_dense(x), sparse_to_dense(x));
  sum(multiply(y, Make({1, 2, 3, 4}, {2, 2}))).backward();
  ASSERT_TRUE(x.grad().is_sparse_coo());
  EXPECT_EQ(Values(sparse_to_dense(x.grad())), (std::vector<double>{0, 4, 0, 8}));
}

}  // namespace
}  // namespace oar::testing
