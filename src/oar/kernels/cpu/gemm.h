// c = op(a) op(b) + beta * c, row-major, float or double: the one call the CPU
// kernels that drive GEMMs on raw buffers share (convolution, the fused RNN).
// float32 products large enough go to oneDNN, the rest to the BLAS oar links
// (Note [float32 GEMMs on oneDNN] in matmul_onednn.h).
#pragma once

#include <cblas.h>

#include <cstdint>
#include <optional>
#include <type_traits>

#include "oar/kernels/cpu/matmul_onednn.h"

namespace oar::cpu {

template <typename T>
void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
          int64_t ldb, T beta, T* c, int64_t ldc) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  if constexpr (std::is_same_v<T, float>) {
    if (m > 0 && n > 0 && k > 0 && onednn::UsesOneDnn(DType::kFloat32, {1, m, n, k, ta, tb})) {
      onednn::Gemm(ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc);
      return;
    }
  }
  const auto TA = ta ? CblasTrans : CblasNoTrans;
  const auto TB = tb ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, TA, TB, m, n, k, 1.0f, a, lda, b, ldb, beta, c, ldc);
  } else {
    cblas_dgemm(CblasRowMajor, TA, TB, m, n, k, 1.0, a, lda, b, ldb, beta, c, ldc);
  }
}

// Gemm(false, tb, m, n, k, a, lda, b, ldb, beta, c, ldc) for `calls` pairs of a
// and c with one b (the steps of a recurrent layer): float32 products that go to
// oneDNN get b packed once when there are at least three calls,
// on CPUs where that pays (Note [A recurrent weight is packed once] in
// matmul_onednn.h).
template <typename T>
class StepGemm {
 public:
  StepGemm(bool tb, int64_t m, int64_t n, int64_t k, int64_t lda, const T* b, int64_t ldb, T beta,
           int64_t ldc, int64_t calls)
      : tb_(tb), m_(m), n_(n), k_(k), lda_(lda), ldb_(ldb), ldc_(ldc), b_(b), beta_(beta) {
    if constexpr (std::is_same_v<T, float>) {
      if (calls >= 3 && m > 0 && n > 0 && k > 0 &&
          onednn::UsesOneDnn(DType::kFloat32, {1, m, n, k, false, tb}) &&
          onednn::PackedGemm::Pays()) {
        packed_.emplace(tb, m, n, k, lda, b, ldb, beta, ldc);
      }
    }
  }
  void operator()(const T* a, T* c) const {
    if constexpr (std::is_same_v<T, float>) {
      if (packed_) {
        packed_->Run(a, c);
        return;
      }
    }
    Gemm<T>(false, tb_, m_, n_, k_, a, lda_, b_, ldb_, beta_, c, ldc_);
  }

 private:
  bool tb_;
  int64_t m_, n_, k_, lda_, ldb_, ldc_;
  const T* b_;
  T beta_;
  std::optional<onednn::PackedGemm> packed_;
};

}  // namespace oar::cpu
