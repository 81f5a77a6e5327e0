// getrf and getri for one matrix split over two threads of oar's pool, each running
// BLAS on its own thread (docs/linalg.md, "LU on two threads").
//
// OpenBLAS's own threads wake too late on a shared machine (lapack_threads.h), so below
// n ~ 1260 getrf and getri ran on the calling thread alone: at n = 256 that left
// solve at 1.1x PyTorch's time and inv at 1.05x Paddle's. Here:
// - SplitGetrf is one step of blocked right-looking LU with a block of n/2 columns:
//   the left panel is factored (getrf, serial), the right columns are pivoted, solved
//   with L11 and updated with one GEMM, half of them on each thread, and the trailing
//   block is factored (getrf, serial). Pivoting is getrf's (partial, row interchanges
//   applied to the whole row), so the factors are getrf's up to roundoff.
// - SplitGetri solves LU X = I for column blocks of the identity, one per thread, and
//   permutes X's columns as getri does. inv(L)'s column j is zero above row j, so a
//   block of columns starting at c0 solves with L's trailing (n - c0) rows only; the
//   blocks' sizes balance that.
// A worker that wakes late finds its share taken by the calling thread (Note [A late
// worker never delays an op]), so a busy machine costs at most the serial time.
#include "oar/kernels/cpu/lapack_lu.h"

#include <cblas.h>

#include <algorithm>
#include <complex>
#include <cstddef>
#include <type_traits>

#include "oar/kernels/cpu/lapack_routines.h"
#include "oar/kernels/cpu/lapack_threads.h"

extern "C" {
void slaswp_(const int* n, float* a, const int* lda, const int* k1, const int* k2, const int* ipiv,
             const int* incx);
void dlaswp_(const int* n, double* a, const int* lda, const int* k1, const int* k2, const int* ipiv,
             const int* incx);
void claswp_(const int* n, std::complex<float>* a, const int* lda, const int* k1, const int* k2,
             const int* ipiv, const int* incx);
void zlaswp_(const int* n, std::complex<double>* a, const int* lda, const int* k1, const int* k2,
             const int* ipiv, const int* incx);
}

namespace oar {
namespace {

// Column-major BLAS 3 with one shape of call each: trsm solves op(a) x = b in place
// (a on the left, not transposed); gemm_sub is c -= a b. CBLAS takes a real scalar by
// value and a complex one by pointer.
template <typename T, auto Trsm, auto Gemm, auto Laswp>
struct BlasOf {
  static constexpr auto laswp = Laswp;
  static auto Scalar(const T& v) {
    if constexpr (std::is_floating_point_v<T>) {
      return v;
    } else {
      return &v;
    }
  }
  static void trsm(CBLAS_UPLO u, CBLAS_DIAG d, int m, int n, const T* a, int lda, T* b, int ldb) {
    const T one(1);
    Trsm(CblasColMajor, CblasLeft, u, CblasNoTrans, d, m, n, Scalar(one), a, lda, b, ldb);
  }
  static void gemm_sub(int m, int n, int k, const T* a, int lda, const T* b, int ldb, T* c,
                       int ldc) {
    const T minus_one(-1), one(1);
    Gemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, Scalar(minus_one), a, lda, b, ldb,
         Scalar(one), c, ldc);
  }
};

template <typename T>
struct Blas;
template <>
struct Blas<float> : BlasOf<float, cblas_strsm, cblas_sgemm, slaswp_> {};
template <>
struct Blas<double> : BlasOf<double, cblas_dtrsm, cblas_dgemm, dlaswp_> {};
template <>
struct Blas<std::complex<float>> : BlasOf<std::complex<float>, cblas_ctrsm, cblas_cgemm, claswp_> {
};
template <>
struct Blas<std::complex<double>>
    : BlasOf<std::complex<double>, cblas_ztrsm, cblas_zgemm, zlaswp_> {};

// Below these n one thread's getrf / getri was as fast (docs/linalg.md).
constexpr int64_t kSplitGetrfMinN = 192;
constexpr int64_t kSplitGetriMinN = 128;

// The panel width: four panels at n = 256 (with two, the serial panel factorisation
// was 44% of the work; with four, 20%).
int PanelWidth(int n) { return std::max(32, (n / 4 + 15) / 16 * 16); }

// Column j of a column-major matrix with leading dimension n.
template <typename T>
T* Col(T* a, int n, int j) {
  return a + static_cast<ptrdiff_t>(j) * n;
}

}  // namespace

bool SplitGetrfApplies(int64_t n) { return n >= kSplitGetrfMinN && LapackThreads::Serial(n, n); }
bool SplitGetriApplies(int64_t n) { return n >= kSplitGetriMinN && LapackThreads::Serial(n, n); }

template <typename T>
int SplitGetrf(int n, T* a, int* ipiv) {
  using B = Blas<T>;
  const int one = 1, nb = PanelWidth(n);
  int info = 0;
  int k = 0;  // the panels before column k are factored
  for (; n - k > nb; k += nb) {
    // The panel: rows and columns from k, nb columns wide.
    const int rows = n - k;
    int panel_info = 0;
    Lapack<T>::getrf(rows, nb, Col(a, n, k) + k, n, ipiv + k, &panel_info);
    if (info == 0 && panel_info != 0) info = panel_info + k;
    for (int i = k; i < k + nb; ++i) ipiv[i] += k;
    // The columns right of it: pivot, U12 = L11^-1 A12, A22 -= L21 U12; half on each
    // thread (inline when the trailing block is small, ParallelFor's threshold).
    const int right = rows - nb, half = right / 2, k1 = k + 1, k2 = k + nb;
    RunTasks(2, int64_t(rows) * nb * half, [&](int t) {
      const int c0 = k + nb + (t == 0 ? 0 : half), cols = t == 0 ? half : right - half;
      T* block = Col(a, n, c0);
      B::laswp(&cols, block, &n, &k1, &k2, ipiv, &one);
      B::trsm(CblasLower, CblasUnit, nb, cols, Col(a, n, k) + k, n, block + k, n);
      B::gemm_sub(right, cols, nb, Col(a, n, k) + k2, n, block + k, n, block + k2, n);
    });
  }
  int last_info = 0;
  const int rest = n - k;
  Lapack<T>::getrf(rest, rest, Col(a, n, k) + k, n, ipiv + k, &last_info);
  if (info == 0 && last_info != 0) info = last_info + k;
  for (int i = k; i < n; ++i) ipiv[i] += k;
  // Each panel's interchanges, applied to the columns left of it (in panel order, as
  // getrf's are).
  for (int p = nb; p < n; p += nb) {
    const int k1 = p + 1, k2 = std::min(p + nb, n);
    B::laswp(&p, a, &n, &k1, &k2, ipiv, &one);
  }
  return info;
}

template <typename T>
void SplitGetri(int n, const T* lu, const int* ipiv, T* inv) {
  using B = Blas<T>;
  // Block [0, s) costs 2 n^2 s multiply-adds (L and U, n rows each), block [s, n)
  // (n - s)^3 + n^2 (n - s): equal at s ~ 0.405 n.
  const int s = static_cast<int>(0.405 * n);
  RunTasks(2, int64_t(n) * n * s, [&](int t) {
    const int c0 = t == 0 ? 0 : s, cols = t == 0 ? s : n - s;
    if (cols == 0) return;
    T* block = Col(inv, n, c0);
    std::fill_n(block, static_cast<ptrdiff_t>(cols) * n, T(0));
    for (int j = 0; j < cols; ++j) Col(block, n, j)[c0 + j] = T(1);
    B::trsm(CblasLower, CblasUnit, n - c0, cols, Col(lu, n, c0) + c0, n, block + c0, n);
    B::trsm(CblasUpper, CblasNonUnit, n, cols, lu, n, block, n);
  });
  // inv(A) = U^-1 L^-1 P^T: undo the row interchanges on the columns, last first.
  for (int j = n - 1; j >= 0; --j) {
    const int p = ipiv[j] - 1;
    if (p != j) std::swap_ranges(Col(inv, n, j), Col(inv, n, j) + n, Col(inv, n, p));
  }
}

template int SplitGetrf<float>(int, float*, int*);
template int SplitGetrf<double>(int, double*, int*);
template int SplitGetrf<std::complex<float>>(int, std::complex<float>*, int*);
template int SplitGetrf<std::complex<double>>(int, std::complex<double>*, int*);
template void SplitGetri<float>(int, const float*, const int*, float*);
template void SplitGetri<double>(int, const double*, const int*, double*);
template void SplitGetri<std::complex<float>>(int, const std::complex<float>*, const int*,
                                              std::complex<float>*);
template void SplitGetri<std::complex<double>>(int, const std::complex<double>*, const int*,
                                               std::complex<double>*);

}  // namespace oar
