// The kernel registry: tables, selection errors, CPU fallback, and checked
// signatures.
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/infer_meta.h"
#include "oar/kernels/kernel_registry.h"
#include "test_util.h"

namespace oar {
namespace {

using testing::Catch;
using testing::Contains;

using testing::ExpectClose;
using testing::Make;

using UnaryKernelFn = void (*)(const DeviceContext&, const DenseTensor&, DenseTensor*);
using MatmulKernelFn = void (*)(const DeviceContext&, const DenseTensor&, const DenseTensor&, bool,
                                bool, DenseTensor*);

// A test-only kernel: fills out (shaped like x) with sizeof(T).
template <typename T>
void SizeOfKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  out->set_meta(x.dtype(), x.dims());
  funcs::Fill(out, static_cast<double>(sizeof(T)));
}
OAR_REGISTER_KERNEL(test_kernels_registry_sizeof, CPU, Any, SizeOfKernel, int64_t, float);

TEST(KernelRegistry, MatmulTableListsItsDTypes) {
  ASSERT_TRUE(KernelFactory::Instance().HasKernel("matmul"));
  const KernelTable& table = KernelFactory::Instance().Table("matmul");
  EXPECT_EQ(table.name(), "matmul");
  EXPECT_TRUE(table.HasDType(DType::kFloat32));
  EXPECT_TRUE(table.HasDType(DType::kBFloat16));
  EXPECT_TRUE(table.HasDType(DType::kInt32));  // exact integer products, as Paddle's
  EXPECT_FALSE(table.HasDType(DType::kInt8));
  EXPECT_EQ(table.RegisteredDTypes(),
            "int32, int64, float16, bfloat16, float32, float64, complex64, complex128");
  EXPECT_EQ(KernelFactory::Instance().Table("sum").RegisteredDTypes(),
            "bool, int32, int64, float16, bfloat16, float32, float64, uint8, int8, int16, "
            "complex64, complex128");
}

TEST(KernelRegistry, ComplexHasNoOrderingKernels) {
  // An op without a kernel for a dtype is a typed error naming the op and the dtype.
  const KernelTable& lt = KernelFactory::Instance().Table("less_than");
  EXPECT_TRUE(lt.HasDType(DType::kInt8));
  EXPECT_FALSE(lt.HasDType(DType::kComplex64));
  Catch(
      [&] {
        lt.SelectKernelOrThrowError({Backend::kCPU, DataLayout::kAny, DType::kComplex64});
      },
      ErrorCode::kInvalidType, {"'less_than'", "complex64"});
  EXPECT_TRUE(KernelFactory::Instance().Table("equal").HasDType(DType::kComplex128));
  EXPECT_TRUE(KernelFactory::Instance().Table("bitwise_xor").HasDType(DType::kUInt8));
}

TEST(KernelRegistry, UnregisteredDTypeNamesOpAndSupportedDTypes) {
  const Tensor a = Make({1, 2, 3, 4}, {2, 2}, DType::kInt8);
  const Error e = Catch([&] { matmul(a, a); });
  EXPECT_EQ(e.code(), ErrorCode::kInvalidType);
  EXPECT_EQ(e.message().rfind("matmul(): ", 0), 0u) << e.what();
  EXPECT_TRUE(Contains(e.message(), "'matmul'")) << e.what();
  EXPECT_TRUE(Contains(e.message(), "int8")) << e.what();
  EXPECT_TRUE(Contains(e.message(), "int32, int64, float16, bfloat16, float32, float64"))
      << e.what();
}

TEST(KernelRegistry, UnknownKernelIsNotFound) {
  EXPECT_FALSE(KernelFactory::Instance().HasKernel("no_such_kernel"));
  const Error e = Catch([] { KernelFactory::Instance().Table("no_such_kernel"); });
  EXPECT_EQ(e.code(), ErrorCode::kNotFound);
  EXPECT_TRUE(Contains(e.message(), "'no_such_kernel'")) << e.what();
  EXPECT_EQ(Catch([] {
              KernelFactory::Instance().SelectKernelOrThrowError(
                  "no_such_kernel", {Backend::kCPU, DataLayout::kAny, DType::kFloat32});
            }).code(),
            ErrorCode::kNotFound);
}

TEST(KernelRegistry, SelectionFallsBackToCPUAndToAnyLayout) {
  const KernelTable& table = KernelFactory::Instance().Table("matmul");
  const KernelResult cpu =
      table.SelectKernelOrThrowError({Backend::kCPU, DataLayout::kAny, DType::kFloat32});
  EXPECT_FALSE(cpu.has_fallback_cpu);
  const KernelResult gpu =
      table.SelectKernelOrThrowError({Backend::kGPU, DataLayout::kAny, DType::kFloat32});
  EXPECT_TRUE(gpu.has_fallback_cpu);
  EXPECT_EQ(gpu.RunsOn(Backend::kGPU), Backend::kCPU);
  EXPECT_EQ(cpu.RunsOn(Backend::kCPU), Backend::kCPU);
  EXPECT_EQ(&gpu.kernel, &cpu.kernel);
  const KernelResult nchw =
      table.SelectKernelOrThrowError({Backend::kCPU, DataLayout::kNCHW, DType::kFloat32});
  EXPECT_EQ(&nchw.kernel, &cpu.kernel);
  EXPECT_EQ(table.Find({Backend::kCPU, DataLayout::kAny, DType::kUndefined}), nullptr);
  EXPECT_EQ(Catch([&] {
              table.SelectKernelOrThrowError({Backend::kGPU, DataLayout::kAny, DType::kInt8});
            }).code(),
            ErrorCode::kInvalidType);
}

TEST(KernelRegistry, SignatureIsChecked) {
  const KernelResult r = KernelFactory::Instance().SelectKernelOrThrowError(
      "matmul", {Backend::kCPU, DataLayout::kAny, DType::kFloat64});
  const Error e = Catch([&] { r.kernel.GetVariadicKernelFn<UnaryKernelFn>(); });
  EXPECT_EQ(e.code(), ErrorCode::kFatal);
  EXPECT_TRUE(Contains(e.message(), "signature")) << e.what();

  // With the right signature the kernel runs on DenseTensors directly.
  auto* fn = r.kernel.GetVariadicKernelFn<MatmulKernelFn>();
  const Tensor x = Make({1, 2, 3, 4}, {2, 2}), y = Make({5, 6, 7, 8}, {2, 2});
  auto out = std::make_shared<DenseTensor>();
  MatmulInferMeta(x.dense(), y.dense(), false, true, out.get());
  fn(GetDeviceContextByBackend(Backend::kCPU), x.dense(), y.dense(), false, true, out.get());
  ExpectClose(Tensor(out), {17, 23, 39, 53}, {2, 2});
}

TEST(KernelRegistry, RegisterKernelMacroRegistersEachDType) {
  const KernelTable& table = KernelFactory::Instance().Table("test_kernels_registry_sizeof");
  EXPECT_EQ(table.RegisteredDTypes(), "int64, float32");
  for (DType dtype : {DType::kInt64, DType::kFloat32}) {
    auto* fn = table.SelectKernelOrThrowError({Backend::kCPU, DataLayout::kAny, dtype})
                   .kernel.GetVariadicKernelFn<UnaryKernelFn>();
    const Tensor x = Make({0, 0, 0}, {3}, dtype);
    auto out = std::make_shared<DenseTensor>();
    fn(GetDeviceContextByBackend(Backend::kCPU), x.dense(), out.get());
    const double size = dtype == DType::kInt64 ? 8 : 4;  // the instantiation for this dtype ran
    ExpectClose(Tensor(out), {size, size, size}, {3});
  }
}

TEST(KernelRegistry, UnknownBackendHasNoDeviceContext) {
  EXPECT_EQ(Catch([] { GetDeviceContextByBackend(Backend::kGPU); }).code(),
            ErrorCode::kUnimplemented);
}

}  // namespace
}  // namespace oar
