// syevd's work for one matrix split over two threads of oar's pool, each running
// LAPACK on its own thread (docs/linalg.md, "eigh on two threads").
//
// syevd is three stages: sytrd reduces the matrix to a tridiagonal T = Q^T A Q,
// stedc (divide and conquer) finds T's eigenvectors Z, ormtr forms Q Z. On one
// thread at n = 256 (float32) they took 0.55, 1.18 and 0.86 ms, and OpenBLAS's own
// threads wake too late on a shared machine to help (lapack_threads.h). The two later stages split
// into independent halves:
// - stedc's first step tears T into two tridiagonals plus a rank-one term; the halves'
//   eigenproblems are solved in parallel (stedc each) and merged here with LAPACK's
//   own merge steps (laed2 deflates, laed9 solves the secular equation and forms the
//   rank-one problem's eigenvectors), whose matrix product, the merge's main cost,
//   is split into four GEMMs;
// - ormtr applies Q to each half of Z's columns.
// sytrd stays serial. A worker that wakes late finds its share taken by the calling
// thread, so a busy machine costs at most the serial time.
#include "oar/kernels/cpu/lapack_eigh.h"

#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "oar/core/parallel.h"
#include "oar/kernels/cpu/lapack_threads.h"

extern "C" {
// LAPACK's Fortran interface (gfortran's hidden character lengths last).
void ssytrd_(const char* uplo, const int* n, float* a, const int* lda, float* d, float* e,
             float* tau, float* work, const int* lwork, int* info, size_t);
void dsytrd_(const char* uplo, const int* n, double* a, const int* lda, double* d, double* e,
             double* tau, double* work, const int* lwork, int* info, size_t);
void sstedc_(const char* compz, const int* n, float* d, float* e, float* z, const int* ldz,
             float* work, const int* lwork, int* iwork, const int* liwork, int* info, size_t);
void dstedc_(const char* compz, const int* n, double* d, double* e, double* z, const int* ldz,
             double* work, const int* lwork, int* iwork, const int* liwork, int* info, size_t);
void sormtr_(const char* side, const char* uplo, const char* trans, const int* m, const int* n,
             const float* a, const int* lda, const float* tau, float* c, const int* ldc,
             float* work, const int* lwork, int* info, size_t, size_t, size_t);
void dormtr_(const char* side, const char* uplo, const char* trans, const int* m, const int* n,
             const double* a, const int* lda, const double* tau, double* c, const int* ldc,
             double* work, const int* lwork, int* info, size_t, size_t, size_t);
// Divide and conquer's merge steps (LAPACK's auxiliary routines, exported by OpenBLAS).
void slaed2_(int* k, const int* n, const int* n1, float* d, float* q, const int* ldq, int* indxq,
             float* rho, float* z, float* dlamda, float* w, float* q2, int* indx, int* indxc,
             int* indxp, int* coltyp, int* info);
void dlaed2_(int* k, const int* n, const int* n1, double* d, double* q, const int* ldq, int* indxq,
             double* rho, double* z, double* dlamda, double* w, double* q2, int* indx, int* indxc,
             int* indxp, int* coltyp, int* info);
// The secular equation's root i (1-based) of k: delta(j) = dlamda(j) - lambda_i.
void slaed4_(const int* k, const int* i, const float* dlamda, const float* z, float* delta,
             const float* rho, float* lambda, int* info);
void dlaed4_(const int* k, const int* i, const double* dlamda, const double* z, double* delta,
             const double* rho, double* lambda, int* info);
void slamrg_(const int* n1, const int* n2, const float* a, const int* s1, const int* s2, int* idx);
void dlamrg_(const int* n1, const int* n2, const double* a, const int* s1, const int* s2, int* idx);
}

namespace oar {
namespace {

template <typename T>
struct Routines;

template <>
struct Routines<float> {
  static constexpr auto sytrd = ssytrd_;
  static constexpr auto stedc = sstedc_;
  static constexpr auto ormtr = sormtr_;
  static constexpr auto laed2 = slaed2_;
  static constexpr auto laed4 = slaed4_;
  static constexpr auto lamrg = slamrg_;
  static constexpr auto gemm = cblas_sgemm;
  static constexpr auto nrm2 = cblas_snrm2;
};

template <>
struct Routines<double> {
  static constexpr auto sytrd = dsytrd_;
  static constexpr auto stedc = dstedc_;
  static constexpr auto ormtr = dormtr_;
  static constexpr auto laed2 = dlaed2_;
  static constexpr auto laed4 = dlaed4_;
  static constexpr auto lamrg = dlamrg_;
  static constexpr auto gemm = cblas_dgemm;
  static constexpr auto nrm2 = cblas_dnrm2;
};

// Below this n the pool's hand-off costs more than the halves save (docs/linalg.md).
constexpr int64_t kSplitMinN = 128;

// The largest magnitude in the `uplo` triangle of column-major a (what syevd reads).
template <typename T>
T TriangleMaxAbs(char uplo, int n, const T* a) {
  T m = 0;
  for (int j = 0; j < n; ++j) {
    const int lo = uplo == 'U' ? 0 : j, hi = uplo == 'U' ? j + 1 : n;
    for (int i = lo; i < hi; ++i) {
      const T v = std::abs(a[i + static_cast<int64_t>(j) * n]);
      if (std::isnan(v)) return v;
      m = std::max(m, v);
    }
  }
  return m;
}

// The merge's rank-one problem after deflation: diag(dlamda) + rho w w^T (k x k). Its
// eigenvalues go to d[0, k); its eigenvectors, rows permuted by indxc into q2's column
// order, times q2 give q's first k columns. The roots (laed4 each) and then the
// vectors with their products are split over two threads; in between, the serial
// step recomputes w from the roots (Gu and Eisenstat's formula, what laed3/laed9 do)
// so that the vectors come out orthogonal.
template <typename T>
int MergeRankOne(int n, int m, int k, T rho, const T* dlamda, T* w, const int* indxc,
                 const int* ctot, const T* q2, T* d, T* q) {
  using L = Routines<T>;
  // Column j of `delta` holds dlamda - lambda_j (k <= 2: the eigenvector itself).
  Scratch<T> delta(int64_t(k) * k), vecs(int64_t(k) * k);
  T* dl = delta.data();
  std::atomic<int> failed{0};
  const int kl = k / 2;
  RunTasks(2, int64_t(k) * k * 16, [&](int t) {
    for (int j = t == 0 ? 0 : kl; j < (t == 0 ? kl : k); ++j) {
      const int root = j + 1;
      int info = 0;
      L::laed4(&k, &root, dlamda, w, dl + int64_t(j) * k, &rho, d + j, &info);
      if (info != 0) failed.store(info);
    }
  });
  if (failed.load() != 0) return failed.load();
  if (k > 2) {
    for (int i = 0; i < k; ++i) {
      T prod = dl[i + int64_t(i) * k];
      for (int j = 0; j < k; ++j) {
        if (j != i) prod *= dl[i + int64_t(j) * k] / (dlamda[i] - dlamda[j]);
      }
      w[i] = std::copysign(std::sqrt(-prod), w[i]);
    }
  }
  const int n12 = ctot[0] + ctot[1], n23 = ctot[1] + ctot[2], c1 = ctot[0];
  RunTasks(2, int64_t(n) * n * k / 2, [&](int t) {
    const int j0 = t == 0 ? 0 : kl, cols = t == 0 ? kl : k - kl;
    std::vector<T> col(k);
    for (int j = j0; j < j0 + cols; ++j) {
      const T* dj = dl + int64_t(j) * k;
      for (int i = 0; i < k; ++i) col[i] = k > 2 ? w[i] / dj[i] : dj[i];
      const T norm = k > 2 ? L::nrm2(k, col.data(), 1) : T(1);
      T* out = vecs.data() + int64_t(j) * k;
      for (int i = 0; i < k; ++i) out[i] = col[indxc[i] - 1] / norm;
    }
    if (cols == 0) return;
    // q2 holds T1's non-deflated vectors (m rows, n12 columns) then T2's (n - m rows,
    // n23 columns): q's top and bottom rows are separate products.
    for (const bool top : {true, false}) {
      const int rows = top ? m : n - m, inner = top ? n12 : n23;
      T* c = q + (top ? 0 : m) + int64_t(j0) * n;
      if (inner == 0) {
        for (int j = 0; j < cols; ++j) std::fill_n(c + int64_t(j) * n, rows, T(0));
        continue;
      }
      const T* a = top ? q2 : q2 + int64_t(m) * n12;
      const T* b = vecs.data() + (top ? 0 : c1) + int64_t(j0) * k;
      L::gemm(CblasColMajor, CblasNoTrans, CblasNoTrans, rows, cols, inner, T(1), a, rows, b, k,
              T(0), c, n);
    }
  });
  return 0;
}

// T's eigenproblem by one divide-and-conquer step: the halves T1, T2 (each with the
// tearing term |rho| taken off its corner) on two threads, then the rank-one merge
// (laed2 deflates, MergeRankOne). On return d holds the eigenvalues and q (n x n) the
// eigenvectors, both in the merge's order; order[j] (1-based) is the position of the
// j-th smallest.
template <typename T>
int DivideAndConquer(int n, T* d, T* e, T* q, std::vector<int>& order) {
  using L = Routines<T>;
  const int m = n / 2, m2 = n - m;
  T rho = e[m - 1];
  d[m - 1] -= std::abs(rho);
  d[m] -= std::abs(rho);
  std::fill(q, q + int64_t(n) * n, T(0));
  std::atomic<int> failed{0};
  RunTasks(2, int64_t(n) * n * n, [&](int half) {
    const int size = half == 0 ? m : m2, off = half == 0 ? 0 : m;
    T wq = 0;
    int iwq = 0, info = 0;
    const int none = -1;
    L::stedc("I", &size, d + off, e + off, q, &n, &wq, &none, &iwq, &none, &info, 1);
    // LAPACK's workspaces, and the half's own off-diagonal (stedc overwrites it).
    const int lw = static_cast<int>(wq) + 1, liw = std::max(1, iwq);
    Scratch<T> work(lw);
    std::vector<int> iwork(liw);
    std::vector<T> sub(e + off, e + off + size);
    L::stedc("I", &size, d + off, sub.data(), q + off + int64_t(off) * n, &n, work.data(), &lw,
             iwork.data(), &liw, &info, 1);
    if (info != 0) failed.store(info);
  });
  if (failed.load() != 0) return failed.load();
  // The rank-one vector: T1's eigenvectors' last row and T2's first.
  std::vector<T> z(n), dlamda(n), w(n);
  Scratch<T> q2(int64_t(n) * n);
  for (int j = 0; j < m; ++j) z[j] = q[(m - 1) + int64_t(j) * n];
  for (int j = m; j < n; ++j) z[j] = q[m + int64_t(j) * n];
  // Each half's eigenvalues come out of stedc ascending.
  order.resize(n);
  for (int i = 0; i < m; ++i) order[i] = i + 1;
  for (int i = 0; i < m2; ++i) order[m + i] = i + 1;
  std::vector<int> indx(n), indxc(n), indxp(n), coltyp(n);
  int k = 0, info = 0;
  L::laed2(&k, &n, &m, d, q, &n, order.data(), &rho, z.data(), dlamda.data(), w.data(), q2.data(),
           indx.data(), indxc.data(), indxp.data(), coltyp.data(), &info);
  if (info != 0) return info;
  if (k == 0) {  // all deflated: laed2 left d and q sorted
    for (int i = 0; i < n; ++i) order[i] = i + 1;
    return 0;
  }
  info = MergeRankOne(n, m, k, rho, dlamda.data(), w.data(), indxc.data(), coltyp.data(), q2.data(),
                      d, q);
  if (info != 0) return info;
  const int rest = n - k, one = 1, desc = -1;
  L::lamrg(&k, &rest, d, &one, &desc, order.data());
  return 0;
}

}  // namespace

bool SplitSyevdApplies(int64_t n) { return n >= kSplitMinN && LapackThreads::Serial(n, n); }

template <typename T>
std::optional<int> SplitSyevd(char uplo, int n, T* a, T* w, T* v) {
  using L = Routines<T>;
  // syevd scales a matrix whose norm is near under- or overflow; such (and non-finite)
  // matrices are left to it.
  const T small = std::numeric_limits<T>::min() / (std::numeric_limits<T>::epsilon() / 2);
  const T anrm = TriangleMaxAbs(uplo, n, a);
  if (!(anrm >= std::sqrt(small) && anrm <= std::sqrt(1 / small))) return std::nullopt;
  const LapackThreads one(n, n);
  std::vector<T> d(n), e(n), tau(n);
  int info = 0;
  {
    T query = 0;
    const int none = -1;
    L::sytrd(&uplo, &n, a, &n, d.data(), e.data(), tau.data(), &query, &none, &info, 1);
    std::vector<T> work(static_cast<size_t>(query) + 1);
    const int lw = static_cast<int>(work.size());
    L::sytrd(&uplo, &n, a, &n, d.data(), e.data(), tau.data(), work.data(), &lw, &info, 1);
  }
  // As stedc does, solve T scaled to unit max-norm.
  T tnrm = 0;
  for (int i = 0; i < n; ++i) tnrm = std::max(tnrm, std::abs(d[i]));
  for (int i = 0; i + 1 < n; ++i) tnrm = std::max(tnrm, std::abs(e[i]));
  for (int i = 0; i < n; ++i) d[i] /= tnrm;
  for (int i = 0; i + 1 < n; ++i) e[i] /= tnrm;
  Scratch<T> q(int64_t(n) * n);
  std::vector<int> order;
  info = DivideAndConquer(n, d.data(), e.data(), q.data(), order);
  if (info != 0) return info;
  for (int j = 0; j < n; ++j) {
    w[j] = d[order[j] - 1] * tnrm;
    std::copy_n(q.data() + static_cast<int64_t>(order[j] - 1) * n, n, v + int64_t(j) * n);
  }
  // v <- Q v, column halves in parallel. ormtr's unblocked steps set each reflector's
  // leading entry to one in place and restore it afterwards, so two calls must not share
  // the reflectors: the second half reads a copy made before either starts (measured:
  // 4% of results wrong with shared reflectors).
  const int half = n / 2;
  Scratch<T> reflectors(int64_t(n) * n);
  std::copy_n(a, int64_t(n) * n, reflectors.data());
  std::atomic<int> failed{0};
  RunTasks(2, int64_t(n) * n * n, [&](int t) {
    const int cols = t == 0 ? half : n - half;
    T* c = v + static_cast<int64_t>(t == 0 ? 0 : half) * n;
    const T* r = t == 0 ? a : reflectors.data();
    T query = 0;
    int inf = 0;
    const int none = -1;
    L::ormtr("L", &uplo, "N", &n, &cols, r, &n, tau.data(), c, &n, &query, &none, &inf, 1, 1, 1);
    // ormtr's answer leaves out the block reflector ormql/ormqr keep in the same
    // workspace (65 x 64 entries); given only the answer they fell back to their
    // unblocked code (ger-based, 1.5x slower at n = 256).
    const int lw = static_cast<int>(query) + 65 * 64;
    Scratch<T> work(lw);
    L::ormtr("L", &uplo, "N", &n, &cols, r, &n, tau.data(), c, &n, work.data(), &lw, &inf, 1, 1, 1);
    if (inf != 0) failed.store(inf);
  });
  return failed.load();
}

template std::optional<int> SplitSyevd<float>(char, int, float*, float*, float*);
template std::optional<int> SplitSyevd<double>(char, int, double*, double*, double*);

}  // namespace oar
