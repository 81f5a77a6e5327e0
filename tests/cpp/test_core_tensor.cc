// DenseTensor and Tensor: meta, contiguity of views, RequiredBytes, typed
// data access, item(), names, and the inplace version counter shared by views.
#include <cstdint>
#include <limits>
#include <utility>

#include "test_util.h"

namespace oar {
namespace {

using testing::Catch;
using testing::Contains;

using testing::Make;
using testing::Values;

Tensor Iota(const std::vector<int64_t>& shape, DType dtype = DType::kFloat32) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<double>(i);
  return Make(v, shape, dtype);
}

TEST(DenseTensor, Meta) {
  DenseTensor t(DType::kFloat32, {2, 3, 4});
  EXPECT_EQ(t.dims(), (DDim{2, 3, 4}));
  EXPECT_EQ(t.strides(), (DDim{12, 4, 1}));
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.ndim(), 3);
  EXPECT_EQ(t.offset(), 0);
  EXPECT_EQ(t.dtype(), DType::kFloat32);
  EXPECT_TRUE(t.valid());
  EXPECT_FALSE(t.initialized());
  EXPECT_EQ(t.place(), CPUPlace());
  EXPECT_FALSE(DenseTensor().valid());

  DenseTensor scalar(DType::kInt64, {});
  EXPECT_EQ(scalar.numel(), 1);
  EXPECT_EQ(scalar.ndim(), 0);
  EXPECT_EQ(DenseTensor(DType::kInt64, {3, 0, 2}).numel(), 0);
  EXPECT_EQ(ContiguousStrides({2, 1, 3}), (DDim{3, 3, 1}));
  EXPECT_EQ(DimsToString({2, 3}), "[2, 3]");
  EXPECT_EQ(DimsToString({}), "[]");
}

// A shape holding a 0 has no elements, but its other dims still set the strides: past
// int64 they are refused (NumPy's and PyTorch's rule), not wrapped (a signed overflow).
TEST(DenseTensor, EmptyShapesWhoseOtherDimsPassInt64AreRefused) {
  static constexpr int64_t k40 = int64_t{1} << 40, k31 = int64_t{1} << 31;
  Catch([] { ContiguousStrides({1, 0, k40, k40}); }, ErrorCode::kInvalidArgument, {"too large"});
  Catch([] { CheckedProduct({k40, k40, 0}); }, ErrorCode::kInvalidArgument, {"too large"});
  Catch([] { CheckedProduct({k40, 0, k40}); }, ErrorCode::kInvalidArgument, {"too large"});
  EXPECT_EQ(CheckedProduct({k31, 0, k31}), 0);
  EXPECT_EQ(ContiguousStrides({k31, 0, k31}), (DDim{k31, k31, 1}));
  EXPECT_EQ(Product({k40, k40, 0}), 0);  // modulo 2^64, exactly 0
  // the first dim never enters a stride: a non-empty overflow is CheckedProduct's to refuse
  EXPECT_EQ(ContiguousStrides({k40, k40}), (DDim{k40, 1}));
  Catch([] { CheckedProduct({k40, k40}); }, ErrorCode::kInvalidArgument, {"more than 2^63"});
}

// Resize and AllocateFrom find the strides and the element count in one loop: they
// refuse the shapes CheckedProduct and ContiguousStrides refuse, with their messages.
TEST(DenseTensor, ResizeAndAllocateFromRefuseWhatTheShapeChecksRefuse) {
  static constexpr int64_t k40 = int64_t{1} << 40, k31 = int64_t{1} << 31;
  DenseTensor t(DType::kFloat32, {2, 3});
  Catch([&] { t.Resize({2, -1, 3}); }, ErrorCode::kInvalidArgument, {"negative dimension"});
  Catch([&] { t.Resize({k40, 3, k40}); }, ErrorCode::kInvalidArgument, {"more than 2^63"});
  Catch([&] { t.Resize({1, 0, k40, k40}); }, ErrorCode::kInvalidArgument, {"too large"});
  // a rejected shape leaves strides of its own length, never a stale shorter list
  EXPECT_EQ(t.strides().size(), t.dims().size());

  t.Resize({k31, 0, k31});
  EXPECT_EQ(t.strides(), (DDim{k31, k31, 1}));
  t.AllocateFrom(CPUPlace());  // no element: a zero-byte block
  EXPECT_TRUE(t.initialized());
  EXPECT_EQ(t.memory_size(), 0u);

  t.Resize({4, 1, 5});
  EXPECT_EQ(t.strides(), (DDim{5, 5, 1}));
  t.AllocateFrom(CPUPlace());
  EXPECT_EQ(t.memory_size(), 80u);

  // a meta set as a whole is checked when memory is asked for
  DenseTensorMeta bad(DType::kFloat32, {2});
  bad.dims = {3, -2};
  DenseTensor u;
  u.set_meta(bad);
  Catch([&] { u.AllocateFrom(CPUPlace()); }, ErrorCode::kInvalidArgument, {"negative dimension"});
  // elements that fit int64 but whose bytes do not fit size_t
  DenseTensor huge(DType::kFloat64, {int64_t{1} << 62});
  Catch([&] { huge.AllocateFrom(CPUPlace()); }, ErrorCode::kResourceExhausted,
        {"[4611686018427387904]", "float64", "more bytes than memory can address"});
  // a view's strides become contiguous when it is given fresh memory
  DenseTensorMeta view(DType::kFloat32, {2, 3});
  view.strides = {1, 2};
  DenseTensor v(nullptr, view);
  v.AllocateFrom(CPUPlace());
  EXPECT_EQ(v.strides(), (DDim{3, 1}));
  EXPECT_EQ(v.memory_size(), 24u);
}

TEST(DenseTensor, DataWithoutMemoryIsAPreconditionError) {
  DenseTensor t(DType::kFloat32, {2});
  EXPECT_EQ(Catch([&] { t.data(); }).code(), ErrorCode::kPreconditionNotMet);
  DenseTensor undefined;
  EXPECT_EQ(Catch([&] { undefined.AllocateFrom(CPUPlace()); }).code(),
            ErrorCode::kPreconditionNotMet);
}

TEST(DenseTensor, IsContiguousForViews) {
  const Tensor x = Iota({4, 6});
  EXPECT_TRUE(x.is_contiguous());
  EXPECT_FALSE(transpose(x, {1, 0}).is_contiguous());
  EXPECT_TRUE(slice(x, {0}, {1}, {3}).is_contiguous());           // whole rows: offset only
  EXPECT_FALSE(slice(x, {1}, {1}, {3}).is_contiguous());          // part of each row
  EXPECT_TRUE(slice(x, {0, 1}, {2, 0}, {3, 6}).is_contiguous());  // one full row
  EXPECT_FALSE(strided_slice(x, {1}, {0}, {6}, {2}).is_contiguous());
  EXPECT_FALSE(
      strided_slice(x, {0}, {-1}, {std::numeric_limits<int64_t>::min()}, {-1}).is_contiguous());
  EXPECT_FALSE(expand(Iota({1, 6}), {3, 6}).is_contiguous());
  EXPECT_TRUE(expand(Iota({1, 6}), {1, 6}).is_contiguous());
  EXPECT_TRUE(unsqueeze(x, {0, 2}).is_contiguous());
  EXPECT_TRUE(scalar_tensor<float>(1.0f).is_contiguous());

  // Size-1 and size-0 dimensions do not care about their strides.
  auto holder = AllocateShared(CPUPlace(), 64);
  DenseTensorMeta m(DType::kFloat32, {3, 1, 2});
  m.strides = {2, 77, 1};
  EXPECT_TRUE(DenseTensor(holder, m).is_contiguous());
}

TEST(DenseTensor, EmptyTensorIsContiguousWhateverItsStrides) {
  const Tensor x = Iota({4, 6});
  EXPECT_TRUE(strided_slice(x, {0, 1}, {2, 0}, {2, 6}, {1, 2}).is_contiguous());  // x[2:2, ::2]
  DenseTensorMeta m(DType::kFloat32, {3, 0, 2});
  m.strides = {5, 5, 5};
  EXPECT_TRUE(DenseTensor(AllocateShared(CPUPlace(), 0), m).is_contiguous());
}

TEST(DenseTensor, RequiredBytes) {
  const Tensor x = Iota({4, 5});  // float32
  EXPECT_EQ(x.dense().RequiredBytes(), 80u);
  // Rows 1 and 2: offset 5, reaches element 14.
  EXPECT_EQ(slice(x, {0}, {1}, {3}).dense().RequiredBytes(), 60u);
  // Columns 1..2 of every row: offset 1, reaches 1 + 3 * 5 + 1 = 17.
  EXPECT_EQ(slice(x, {1}, {1}, {3}).dense().RequiredBytes(), 72u);
  EXPECT_EQ(transpose(x, {1, 0}).dense().RequiredBytes(), 80u);
  EXPECT_EQ(expand(Iota({1, 5}), {7, 5}).dense().RequiredBytes(), 20u);
  // Reversed: offset 3 (the last row), negative stride reaches down to 0.
  const Tensor rev = strided_slice(x, {0}, {-1}, {std::numeric_limits<int64_t>::min()}, {-1});
  EXPECT_EQ(rev.dense().offset(), 15);
  EXPECT_EQ(rev.dense().RequiredBytes(), 80u);
  EXPECT_EQ(slice(x, {0}, {2}, {2}).dense().RequiredBytes(), 0u);  // empty view
}

TEST(Tensor, DataWithTheWrongDTypeIsATypeError) {
  Tensor x = Iota({3}, DType::kFloat32);
  EXPECT_NE(x.data<float>(), nullptr);
  const Error e = Catch([&] { x.data<int64_t>(); });
  EXPECT_EQ(e.code(), ErrorCode::kInvalidType);
  EXPECT_NE(e.message().find("float32"), std::string::npos) << e.what();
  EXPECT_NE(e.message().find("int64"), std::string::npos) << e.what();
  EXPECT_EQ(Catch([&] { std::as_const(x).data<double>(); }).code(), ErrorCode::kInvalidType);
  EXPECT_EQ(Catch([&] { x.dense().mutable_data<int32_t>(); }).code(), ErrorCode::kInvalidType);
}

TEST(Tensor, ItemNeedsExactlyOneElement) {
  EXPECT_EQ(scalar_tensor<double>(2.5).item<double>(), 2.5);
  EXPECT_EQ(Make({3.75}, {1, 1}).item<float>(), 3.75f);
  EXPECT_EQ(Make({3.75}, {1}).item<int64_t>(), 3);  // converted
  EXPECT_EQ(Make({-2.5}, {}, DType::kFloat16).item<float>(), -2.5f);
  EXPECT_EQ(Make({1}, {}, DType::kBool).item<int32_t>(), 1);
  for (const auto& shape : std::vector<std::vector<int64_t>>{{2}, {0}, {1, 3}}) {
    std::vector<double> v(shape.size() == 1 ? shape[0] : 3, 1.0);
    const Error e = Catch([&] { Make(v, shape).item<double>(); });
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(e.message().find(StrCat(shape)), std::string::npos) << e.what();
  }
}

TEST(Tensor, UndefinedTensor) {
  Tensor t;
  EXPECT_FALSE(t.defined());
  EXPECT_FALSE(t.initialized());
  EXPECT_EQ(t.current_inplace_version(), 0u);
  EXPECT_EQ(Catch([&] { t.dims(); }).code(), ErrorCode::kPreconditionNotMet);
}

// Note [A tensor's name is held out of line]: copies share the string but never see
// another handle's set_name; an empty name is no name.
TEST(Tensor, EachHandleKeepsItsOwnName) {
  Tensor a = Iota({2});
  EXPECT_FALSE(a.has_name());
  EXPECT_EQ(a.name(), "");
  a.set_name("weight_with_a_name_longer_than_the_small_buffer");
  Tensor b = a;
  Tensor d = a.detach();
  b.set_name("b");
  EXPECT_EQ(a.name(), "weight_with_a_name_longer_than_the_small_buffer");
  EXPECT_EQ(d.name(), a.name());
  EXPECT_EQ(b.name(), "b");
  Tensor moved = std::move(b);
  EXPECT_EQ(moved.name(), "b");
  moved.set_name("");
  EXPECT_FALSE(moved.has_name());
  EXPECT_EQ(Tensor(a.impl(), "c").name(), "c");
  EXPECT_FALSE(Tensor(a.impl(), "").has_name());
  a.reset();
  EXPECT_EQ(a.name(), "");
  EXPECT_EQ(d.name(), "weight_with_a_name_longer_than_the_small_buffer");
}

// Note [A moved-from handle is destroyed inline]: a handle is released when it owns an
// object, whatever its pointer; one moved from owns nothing and releases nothing.
TEST(Tensor, DestroyingAHandleReleasesWhatItOwns) {
  const std::shared_ptr<TensorBase> owner = Iota({2}).impl();
  {
    // An aliasing handle: a null pointer that still shares the owner's count.
    Tensor aliased{std::shared_ptr<TensorBase>(owner, nullptr)};
    EXPECT_FALSE(aliased.defined());
    EXPECT_EQ(owner.use_count(), 2);
  }
  EXPECT_EQ(owner.use_count(), 1);
  {
    Tensor a(owner, "a");
    Tensor b = std::move(a);
    EXPECT_EQ(owner.use_count(), 2);
    { Tensor moved_from = std::move(a); }  // NOLINT(bugprone-use-after-move): a is empty
    EXPECT_EQ(owner.use_count(), 2);
    EXPECT_EQ(b.name(), "a");
  }
  EXPECT_EQ(owner.use_count(), 1);
}

TEST(Tensor, ViewsShareMemoryAndTheInplaceVersion) {
  Tensor x = Iota({2, 3});
  const Tensor r = reshape(x, {3, 2});
  const Tensor t = transpose(x, {1, 0});
  const Tensor s = slice(x, {1}, {1}, {3});
  const Tensor copy = assign(x);
  for (const Tensor* v : {&r, &t, &s}) {
    EXPECT_EQ(v->dense().Holder(), x.dense().Holder());
    EXPECT_EQ(v->current_inplace_version(), 0u);
  }
  EXPECT_NE(copy.dense().Holder(), x.dense().Holder());

  add_(x, ones({2, 3}));
  EXPECT_EQ(x.current_inplace_version(), 1u);
  for (const Tensor* v : {&r, &t, &s}) EXPECT_EQ(v->current_inplace_version(), 1u);
  EXPECT_EQ(copy.current_inplace_version(), 0u);
  EXPECT_EQ(Values(t), (std::vector<double>{1, 4, 2, 5, 3, 6}));  // sees the write
  EXPECT_EQ(Values(copy), (std::vector<double>{0, 1, 2, 3, 4, 5}));

  // Writing through a view bumps the shared counter too.
  Tensor view = s;
  multiply_(view, full({2, 2}, 10.0));
  EXPECT_EQ(x.current_inplace_version(), 2u);
  EXPECT_EQ(Values(x), (std::vector<double>{1, 20, 30, 4, 50, 60}));

  view.bump_inplace_version();
  EXPECT_EQ(r.current_inplace_version(), 3u);
  x.reset_inplace_version(/*set_to_zero=*/true);
  EXPECT_EQ(t.current_inplace_version(), 0u);
}

TEST(Tensor, ReshapeThatCopiesHasItsOwnVersion) {
  Tensor x = Iota({2, 3});
  const Tensor copied = reshape(transpose(x, {1, 0}), {6});  // not viewable: a copy
  EXPECT_NE(copied.dense().Holder(), x.dense().Holder());
  x.bump_inplace_version();
  EXPECT_EQ(copied.current_inplace_version(), 0u);
}

}  // namespace
}  // namespace oar
