// Complex tensors through the C++ API: storage, casts, matmul on cgemm/zgemm,
// the part ops, and a gradient with PyTorch's convention (dL/dRe + i dL/dIm).
#include <complex>

#include "test_util.h"

namespace oar {
namespace {

using testing::Make;
using testing::Values;

// A complex tensor from interleaved (real, imag) values.
Tensor C(const std::vector<double>& ri, std::vector<int64_t> shape, DType dt = DType::kComplex128) {
  shape.push_back(2);
  return as_complex(Make(ri, shape, ToReal(dt)));
}

TEST(Complex, StorageIsInterleavedStdComplex) {
  const Tensor z = C({1, 2, 3, -4}, {2});
  EXPECT_EQ(z.dtype(), DType::kComplex128);
  const auto* p = z.data<complex128>();
  EXPECT_EQ(p[0], complex128(1, 2));
  EXPECT_EQ(p[1], complex128(3, -4));
  EXPECT_EQ(z.numel(), 2);
  EXPECT_EQ(Values(as_real(z)), (std::vector<double>{1, 2, 3, -4}));
}

TEST(Complex, CastsBothWays) {
  const Tensor z = C({1.5, 2, -3, 4}, {2}, DType::kComplex64);
  EXPECT_EQ(Values(cast(z, DType::kFloat64)), (std::vector<double>{1.5, -3}));
  const Tensor back = cast(Make({1, -2}, {2}, DType::kInt8), DType::kComplex64);
  EXPECT_EQ(Values(back), (std::vector<double>{1, 0, -2, 0}));
  EXPECT_EQ(cast(z, DType::kComplex128).data<complex128>()[0], complex128(1.5, 2));
}

TEST(Complex, MatmulMatchesTheDefinitionOnBothPaths) {
  for (int64_t n : {2, 24}) {  // the plain loop and zgemm (n^3 > 4096)
    std::vector<double> a(n * n * 2), b(n * n * 2);
    for (size_t i = 0; i < a.size(); ++i) {
      a[i] = std::sin(0.3 * i);
      b[i] = std::cos(0.7 * i);
    }
    const Tensor x = C(a, {n, n}), y = C(b, {n, n});
    const Tensor out = matmul(x, y);
    const auto* px = x.data<complex128>();
    const auto* py = y.data<complex128>();
    const auto* po = out.data<complex128>();
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        complex128 want = 0;
        for (int64_t k = 0; k < n; ++k) want += px[i * n + k] * py[k * n + j];
        EXPECT_NEAR(std::abs(po[i * n + j] - want), 0.0, 1e-12) << n << ": " << i << "," << j;
      }
    }
  }
}

TEST(Complex, PartsAndAbs) {
  const Tensor z = C({3, 4, 0, -1}, {2});
  EXPECT_EQ(Values(real(z)), (std::vector<double>{3, 0}));
  EXPECT_EQ(Values(imag(z)), (std::vector<double>{4, -1}));
  EXPECT_EQ(Values(conj(z)), (std::vector<double>{3, -4, 0, 1}));
  EXPECT_EQ(abs(z).dtype(), DType::kFloat64);
  EXPECT_EQ(Values(abs(z)), (std::vector<double>{5, 1}));
  EXPECT_EQ(complex(real(z), imag(z)).data<complex128>()[0], complex128(3, 4));
  EXPECT_EQ(sum(z, {}, DType::kUndefined, false).item<complex128>(), complex128(3, 3));
}

TEST(Complex, GradientOfARealLossIsDLdRePlusIDLdIm) {
  // L = |z|^2 = x^2 + y^2: dL/dx + i dL/dy = 2x + 2iy = 2z.
  Tensor z = C({3, 4, -1, 2}, {2});
  z.set_stop_gradient(false);
  const Tensor loss = sum(real(multiply(z, conj(z))), {}, DType::kUndefined, false);
  const auto grads = Grad({loss}, {z});
  EXPECT_EQ(Values(as_real(grads[0])), (std::vector<double>{6, 8, -2, 4}));
}

}  // namespace
}  // namespace oar
