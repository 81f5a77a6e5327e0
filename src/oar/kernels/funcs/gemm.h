// c = op(a) op(b) + beta * c on the BLAS oar links (row-major, float or double): the one
// call the kernels that drive GEMMs themselves share (convolution, the fused RNN).
#pragma once

#include <cblas.h>

#include <cstdint>
#include <type_traits>

namespace oar::funcs {

template <typename T>
void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
          int64_t ldb, T beta, T* c, int64_t ldc) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  const auto TA = ta ? CblasTrans : CblasNoTrans;
  const auto TB = tb ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, TA, TB, m, n, k, 1.0f, a, lda, b, ldb, beta, c, ldc);
  } else {
    cblas_dgemm(CblasRowMajor, TA, TB, m, n, k, 1.0, a, lda, b, ldb, beta, c, ldc);
  }
}

}  // namespace oar::funcs
