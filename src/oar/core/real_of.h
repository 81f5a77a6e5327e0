// The real type of an element type, for kernels written once for real and complex T
// (is_complex_v, its companion, is in dtype.h).
#pragma once

#include <complex>

namespace oar {

template <typename T>
struct RealOf {
  using type = T;
};
template <typename T>
struct RealOf<std::complex<T>> {
  using type = T;
};
template <typename T>
using real_of_t = typename RealOf<T>::type;

}  // namespace oar
