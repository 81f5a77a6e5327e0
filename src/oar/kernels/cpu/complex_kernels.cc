// Complex parts and constructors: real, imag, conj, angle, complex, as_complex,
// as_real. Complex elements are std::complex (interleaved real, imag), so
// as_complex and as_real are copies between [..., 2] reals and complexes with
// the same bytes.
#include <cmath>
#include <complex>
#include <cstring>
#include <numbers>
#include <type_traits>

#include "oar/core/real_of.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/funcs/elementwise.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {

using funcs::BinaryElementwise;
using funcs::UnaryElementwise;

template <typename T>
void RealKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  if constexpr (is_complex_v<T>) {
    UnaryElementwise<real_of_t<T>, T>(x, out, [](T a) { return a.real(); });
  } else {
    UnaryElementwise<T, T>(x, out, [](auto a) { return a; });
  }
}

template <typename T>
void ImagKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  if constexpr (is_complex_v<T>) {
    UnaryElementwise<real_of_t<T>, T>(x, out, [](T a) { return a.imag(); });
  } else {
    UnaryElementwise<T, T>(x, out, [](auto a) { return decltype(a)(0); });
  }
}

template <typename T>
void ConjKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  if constexpr (is_complex_v<T>) {
    UnaryElementwise<T, T>(x, out, [](T a) { return std::conj(a); });
  } else {
    UnaryElementwise<T, T>(x, out, [](auto a) { return a; });
  }
}

// arg(z) in (-pi, pi]; a real x gives 0 (x >= 0) or pi (x < 0), NaN for NaN.
template <typename T>
void AngleKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  if constexpr (is_complex_v<T>) {
    UnaryElementwise<real_of_t<T>, T>(x, out, [](T a) { return std::arg(a); });
  } else {
    UnaryElementwise<T, T>(x, out, [](auto a) {
      using C = decltype(a);
      return a != a ? a : a < C(0) ? C(std::numbers::pi) : C(0);
    });
  }
}

// T is the (promoted) real dtype of real and imag.
template <typename T>
void ComplexKernel(const DeviceContext&, const DenseTensor& real, const DenseTensor& imag,
                   DenseTensor* out) {
  BinaryElementwise<std::complex<T>, T, T>(real, imag, out,
                                           [](T a, T b) { return std::complex<T>(a, b); });
}

namespace {
// A contiguous copy of x reinterpreted with `dtype` and `dims` (same bytes).
void ReinterpretCopy(const DenseTensor& x, DenseTensor* out) {
  const DenseTensor src = funcs::Contiguous(x);
  void* dst = out->AllocateFrom(x.place());
  const size_t bytes = static_cast<size_t>(x.numel()) * SizeOf(x.dtype());
  if (bytes) std::memcpy(dst, src.data(), bytes);
}
}  // namespace

template <typename T>
void AsComplexKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  ReinterpretCopy(x, out);
}

template <typename T>
void AsRealKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  ReinterpretCopy(x, out);
}

OAR_REGISTER_KERNEL(real, CPU, Any, RealKernel, OAR_NUMERIC_TYPES, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(imag, CPU, Any, ImagKernel, OAR_NUMERIC_TYPES, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(conj, CPU, Any, ConjKernel, OAR_NUMERIC_TYPES, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(angle, CPU, Any, AngleKernel, OAR_FLOAT_TYPES, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(complex, CPU, Any, ComplexKernel, float, double);
OAR_REGISTER_KERNEL(as_complex, CPU, Any, AsComplexKernel, float, double);
OAR_REGISTER_KERNEL(as_real, CPU, Any, AsRealKernel, OAR_COMPLEX_TYPES);

}  // namespace oar
