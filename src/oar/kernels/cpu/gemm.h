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
#include "oar/kernels/cpu/panel_gemm.h"

namespace oar::cpu {

// Note [A product with one row or column is a GEMV]
// A product whose output is one row (a linear layer at batch 1: ResNet-18's classifier,
// [1, 512] x [512, 1000], or a decoder generating one token) or one column reads each
// element of the matrix once. OpenBLAS's GEMM runs it on one thread through its blocked
// kernel, and oneDNN (from 2^20 multiply-adds) through kernels made for many rows; the
// BLAS's GEMV streams the matrix on all threads. On two threads of the Xeon
// (benchmarks/blas/gemv.cc, benchmarks/results/gemv-xeon-avx512-amx.md), with the weight
// in cache: the classifier 55-56 us as a GEMM, 16-17 as a GEMV; oar's linear on
// [1, 1024] x [1024, 4096] and [1, 4096] x [4096, 1024] took 619 and 676 us on oneDNN,
// 374-376 and 382-388 as a GEMV. With the caches flushed first a small GEMV is 10-25 us
// slower than the one-thread GEMM (it wakes the second thread); in ResNet-18's batch-1
// forward in the C++ runtime the classifier took 112-122 us instead of 143-152. So every
// float32 or float64 product of one row or column that is not part of a batch runs as a
// GEMV (matmul_onednn.cc sends such float32 products here). With beta 0 a GEMV
// overwrites y as GEMM overwrites c (test_kernels_matmul.cc checks it over an output
// holding NaN).
template <typename T>
void GemvOnBlas(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
                const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  const auto gemv = [](CBLAS_TRANSPOSE t, int64_t rows, int64_t cols, const T* mat, int64_t ld,
                       const T* x, int64_t incx, T beta, T* y, int64_t incy) {
    if constexpr (std::is_same_v<T, float>) {
      cblas_sgemv(CblasRowMajor, t, rows, cols, 1.0f, mat, ld, x, incx, beta, y, incy);
    } else {
      cblas_dgemv(CblasRowMajor, t, rows, cols, 1.0, mat, ld, x, incx, beta, y, incy);
    }
  };
  if (m == 1) {  // c[0, :] = op(b)^T op(a)[0, :]; op(a)'s row is a column of a when ta
    if (tb) {
      gemv(CblasNoTrans, n, k, b, ldb, a, ta ? lda : 1, beta, c, 1);
    } else {
      gemv(CblasTrans, k, n, b, ldb, a, ta ? lda : 1, beta, c, 1);
    }
  } else {  // c[:, 0] = op(a) op(b)[:, 0]; op(b)'s column is a row of b when tb
    if (ta) {
      gemv(CblasTrans, k, m, a, lda, b, tb ? 1 : ldb, beta, c, ldc);
    } else {
      gemv(CblasNoTrans, m, k, a, lda, b, tb ? 1 : ldb, beta, c, ldc);
    }
  }
}

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
  if (k > 0 && (m == 1 || n == 1)) {  // Note [A product with one row or column is a GEMV]
    GemvOnBlas<T>(ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc);
    return;
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
// and c with one b (the steps of a recurrent layer). With at least three calls b is
// packed once for float32: for the panel kernel where it runs (few rows, AVX2 or AVX-512; Note
// [A product of few rows streams its weight once] in panel_gemm.h), else for oneDNN where
// the product goes there and packing pays (Note [A recurrent weight is packed once] in
// matmul_onednn.h).
template <typename T>
class StepGemm {
 public:
  StepGemm(bool tb, int64_t m, int64_t n, int64_t k, int64_t lda, const T* b, int64_t ldb, T beta,
           int64_t ldc, int64_t calls)
      : tb_(tb), m_(m), n_(n), k_(k), lda_(lda), ldb_(ldb), ldc_(ldc), b_(b), beta_(beta) {
    if constexpr (std::is_same_v<T, float>) {
      if (calls < 3 || m <= 0 || n <= 0 || k <= 0) return;
      if (PanelGemm::Runs(m)) {
        panel_.emplace(tb, m, n, k, lda, b, ldb, beta, ldc);
      } else if (onednn::UsesOneDnn(DType::kFloat32, {1, m, n, k, false, tb}) &&
                 onednn::PackedGemm::Pays()) {
        packed_.emplace(tb, m, n, k, lda, b, ldb, beta, ldc);
      }
    }
  }
  void operator()(const T* a, T* c) const {
    if constexpr (std::is_same_v<T, float>) {
      if (panel_) {
        panel_->Run(a, c);
        return;
      }
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
  std::optional<PanelGemm> panel_;
  std::optional<onednn::PackedGemm> packed_;
};

}  // namespace oar::cpu
