// The LAPACK section (src/oar/ops/lapack.yaml): factorisations and solves on the
// LAPACK that the linked OpenBLAS exports (its Fortran symbols; Debian's OpenBLAS ships
// no LAPACKE header). Tensors are row-major and LAPACK column-major: a row-major
// buffer read column-major is the transpose, which several kernels use instead of
// copying (the comments say which). Each kernel copies its input once (LAPACK
// overwrites it), queries the workspace once per call and reuses it across the
// batch (per chunk of it, below); buffers are std::vectors. OpenBLAS threads inside a
// call only for large matrices (lapack_threads.h); a batch of smaller ones spreads over
// oar's pool (ForEachMatrix), and eigh can split one matrix's work (lapack_eigh.cc).
#include <algorithm>
#include <cmath>
#include <complex>
#include <exception>
#include <limits>
#include <mutex>
#include <optional>
#include <type_traits>
#include <vector>

#include "oar/core/parallel.h"
#include "oar/core/real_of.h"
#include "oar/kernels/cpu/lapack_eigh.h"
#include "oar/kernels/cpu/lapack_lu.h"
#include "oar/kernels/cpu/lapack_routines.h"
#include "oar/kernels/cpu/lapack_threads.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/infer_meta.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

// The guard for the matrices of x (its last two dims).
LapackThreads ThreadsFor(const DenseTensor& x, double weight = 1.0) {
  return LapackThreads(x.dims()[x.ndim() - 2], x.dims()[x.ndim() - 1], weight);
}

// LAPACK takes 32-bit sizes.
int AsLapackInt(int64_t v) {
  OAR_ENFORCE(
      v <= std::numeric_limits<int>::max(),
      errors::InvalidArgument("a matrix dimension of ", v, " exceeds LAPACK's 32-bit sizes"));
  return static_cast<int>(v);
}

struct MatrixShape {
  int64_t batch, rows, cols;
};

MatrixShape ShapeOf(const DenseTensor& x) {
  const int64_t nd = x.ndim();
  const int64_t r = x.dims()[nd - 2], c = x.dims()[nd - 1];
  return {r * c == 0 ? Product(DDim(x.dims().begin(), x.dims().end() - 2)) : x.numel() / (r * c), r,
          c};
}

// Note [A batch of small matrices runs on the pool]
// Matrices small enough for LAPACK to run on the calling thread alone (LapackThreads)
// leave the other cores idle while a batch runs one after another: 64 inverses of
// 32x32 took 1.4x Paddle's time. So run(lo, hi) handles the batch elements [lo, hi)
// with its own workspace, and the chunks run in parallel, each LAPACK call on one
// thread (Note [Libraries inside a chunk run on one thread]); large matrices keep one
// call after another, OpenBLAS threading each. Every matrix is computed the same way
// either way, so results do not depend on the thread count. A chunk stops at its first
// failing matrix and the error of the lowest one is rethrown: the chunks are ordered,
// so that is the batch's first failure, as on one thread.
template <typename F>
void ForEachMatrix(int64_t batch, int64_t rows, int64_t cols, F&& run) {
  if (batch <= 1 || !LapackThreads::Serial(rows, cols)) {
    run(0, batch);
    return;
  }
  std::mutex mu;
  int64_t first = batch;
  std::exception_ptr error;
  const int64_t cost = std::max<int64_t>(1, rows * cols * std::min(rows, cols));
  ParallelFor(0, batch, cost, [&](int64_t lo, int64_t hi) {
    try {
      run(lo, hi);
    } catch (...) {
      const std::lock_guard<std::mutex> lock(mu);
      if (lo < first) {
        first = lo;
        error = std::current_exception();
      }
    }
  });
  if (error) std::rethrow_exception(error);
}

// A workspace size LAPACK returned (as a floating value) rounded up.
template <typename T>
int WorkSize(T query) {
  return std::max(1, static_cast<int>(std::ceil(static_cast<double>(query))));
}
template <typename R>
int WorkSize(std::complex<R> query) {
  return WorkSize(query.real());
}

// Batch element `b` of a contiguous tensor, as a pointer to its matrix.
template <typename T>
const T* MatrixAt(const DenseTensor& t, int64_t b, int64_t size) {
  return static_cast<const T*>(t.data()) + b * size;
}

// Row-major [rows, cols] -> column-major with leading dimension ld (>= rows).
template <typename T>
void ToColMajor(const T* src, int64_t rows, int64_t cols, T* dst, int64_t ld) {
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) dst[i + j * ld] = src[i * cols + j];
  }
}

// Fixes the sign (real) or unit phase (complex) that LAPACK leaves arbitrary in a
// singular or eigen-vector: scaled so that its largest-magnitude entry (the first, among
// ties) is real and positive, the rule tests/op_registry.py applies to PyTorch's results
// too. Returns the factor it scaled by (1 when none).
template <typename T>
T NormaliseUnit(T* v, int64_t n) {
  int64_t best = 0;
  for (int64_t i = 1; i < n; ++i) {
    if (std::abs(v[i]) > std::abs(v[best])) best = i;
  }
  if (n == 0) return T(1);
  if constexpr (is_complex_v<T>) {
    using R = real_of_t<T>;
    const R mag = std::abs(v[best]);
    if (mag == R(0)) return T(1);
    const T phase = std::conj(v[best]) / mag;
    for (int64_t i = 0; i < n; ++i) v[i] *= phase;
    v[best] = T(v[best].real(), R(0));
    return phase;
  } else {
    if (v[best] >= T(0)) return T(1);
    for (int64_t i = 0; i < n; ++i) v[i] = -v[i];
    return T(-1);
  }
}

// The unit factor of a pivot d: its sign, or d / |d| for complex (1 at zero).
template <typename T>
T UnitOf(T d) {
  if constexpr (is_complex_v<T>) {
    const real_of_t<T> mag = std::abs(d);
    return mag == 0 ? T(1) : d / mag;
  } else {
    return d < 0 ? T(-1) : T(1);
  }
}

// ---- LU-based: inverse, det, slogdet, solve ----

// getrf of the n x n column-major a; `split`: one matrix, on two threads (lapack_lu.h).
template <typename T>
int FactorSquare(int n, T* a, int* ipiv, bool split) {
  if (split) return SplitGetrf(n, a, ipiv);
  int info = 0;
  Lapack<T>::getrf(n, n, a, n, ipiv, &info);
  return info;
}

// Whether the matrices of a batch of `batch` n x n matrices take the split LU.
bool SplitLu(int64_t batch, int64_t n) { return batch == 1 && SplitGetrfApplies(n); }

void ThrowIfNoInverse(int info, int64_t b) {
  OAR_ENFORCE(info == 0,
              errors::InvalidArgument("the matrix at batch index ", b,
                                      " of argument 'x' is singular (U[", info - 1, ", ", info - 1,
                                      "] of its LU factorisation "
                                      "is zero): it has no inverse"));
}

template <typename T>
void InverseKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  const LapackThreads threads = ThreadsFor(x);
  const DenseTensor xc = funcs::Contiguous(x);
  out->AllocateFrom(x.place());
  [[maybe_unused]] const auto [batch, n, unused] = ShapeOf(x);
  if (out->numel() == 0) return;
  T* o = static_cast<T*>(out->data());
  const int ni = AsLapackInt(n);
  if (batch == 1 && SplitGetriApplies(n)) {
    // The buffer read column-major is x^T; inv(x^T) read back row-major is inv(x).
    Scratch<T> lu(n * n);
    std::copy_n(static_cast<const T*>(xc.data()), n * n, lu.data());
    std::vector<int> ipiv(n);
    ThrowIfNoInverse(FactorSquare(ni, lu.data(), ipiv.data(), SplitLu(batch, n)), 0);
    SplitGetri(ni, lu.data(), ipiv.data(), o);
    return;
  }
  funcs::CopyInto(xc, out);
  ForEachMatrix(batch, n, n, [&](int64_t lo, int64_t hi) {
    std::vector<int> ipiv(n);
    T query = 0;
    int info = 0;
    Lapack<T>::getri(ni, o, ni, ipiv.data(), &query, -1, &info);
    std::vector<T> work(WorkSize(query));
    for (int64_t b = lo; b < hi; ++b) {
      // The buffer read column-major is x^T; inv(x^T) read back row-major is inv(x).
      T* a = o + b * n * n;
      Lapack<T>::getrf(ni, ni, a, ni, ipiv.data(), &info);
      ThrowIfNoInverse(info, b);
      Lapack<T>::getri(ni, a, ni, ipiv.data(), work.data(), static_cast<int>(work.size()), &info);
    }
  });
}

// Per batch element: the sign of det(x) (det / |det| for complex; 0 when singular) and
// log|det(x)| (-inf then).
template <typename T>
void SignLogAbsDet(const DenseTensor& x, std::vector<T>* sign, std::vector<real_of_t<T>>* logabs) {
  using R = real_of_t<T>;
  [[maybe_unused]] const auto [batch, n, unused] = ShapeOf(x);
  sign->assign(batch, T(1));
  logabs->assign(batch, R(0));
  if (n == 0) return;
  DenseTensor a = funcs::Clone(x);
  T* p = static_cast<T*>(a.data());
  const int ni = AsLapackInt(n);
  ForEachMatrix(batch, n, n, [&](int64_t lo, int64_t hi) {
    std::vector<int> ipiv(n);
    for (int64_t b = lo; b < hi; ++b) {
      T* m = p + b * n * n;
      // det(x^T) = det(x): no transpose needed.
      const int info = FactorSquare(ni, m, ipiv.data(), SplitLu(batch, n));
      T s = 1;
      R l = 0;
      for (int64_t i = 0; i < n; ++i) {
        const T d = m[i * n + i];
        if (ipiv[i] != i + 1) s = -s;
        s *= UnitOf(d);
        l += std::log(std::abs(d));
      }
      if (info > 0) {
        s = 0;
        l = -std::numeric_limits<R>::infinity();
      }
      (*sign)[b] = s;
      (*logabs)[b] = l;
    }
  });
}

template <typename T>
void DetKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  const LapackThreads threads = ThreadsFor(x);
  T* o = static_cast<T*>(out->AllocateFrom(x.place()));
  std::vector<T> sign;
  std::vector<real_of_t<T>> logabs;
  SignLogAbsDet<T>(funcs::Contiguous(x), &sign, &logabs);
  for (size_t b = 0; b < sign.size(); ++b) o[b] = sign[b] * std::exp(logabs[b]);
}

template <typename T>
void SlogdetKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  const LapackThreads threads = ThreadsFor(x);
  T* o = static_cast<T*>(out->AllocateFrom(x.place()));
  std::vector<T> sign;
  std::vector<real_of_t<T>> logabs;
  SignLogAbsDet<T>(funcs::Contiguous(x), &sign, &logabs);
  std::copy(sign.begin(), sign.end(), o);
  std::copy(logabs.begin(), logabs.end(), o + sign.size());
}

template <typename T>
void SolveKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& y,
                 DenseTensor* out) {
  const LapackThreads threads = ThreadsFor(x);
  T* o = static_cast<T*>(out->AllocateFrom(x.place()));
  [[maybe_unused]] const auto [batch, n, unused] = ShapeOf(x);
  const int64_t k = y.dims()[y.ndim() - 1];
  if (out->numel() == 0) return;
  DenseTensor a = funcs::Clone(x);
  const DenseTensor yc = funcs::Contiguous(y);
  T* pa = static_cast<T*>(a.data());
  const int ni = AsLapackInt(n), ki = AsLapackInt(k);
  ForEachMatrix(batch, n, n, [&](int64_t lo, int64_t hi) {
    std::vector<int> ipiv(n);
    std::vector<T> rhs(n * k);
    for (int64_t b = lo; b < hi; ++b) {
      T* m = pa + b * n * n;
      // m read column-major is x^T = LU; solving with its transpose solves x out = y.
      int info = FactorSquare(ni, m, ipiv.data(), SplitLu(batch, n));
      OAR_ENFORCE(info == 0, errors::InvalidArgument(
                                 "the matrix at batch index ", b,
                                 " of argument 'x' is singular (U[", info - 1, ", ", info - 1,
                                 "] of its LU factorisation "
                                 "is zero): the system has no unique solution"));
      ToColMajor(MatrixAt<T>(yc, b, n * k), n, k, rhs.data(), n);
      Lapack<T>::getrs('T', ni, ki, m, ni, ipiv.data(), rhs.data(), ni, &info);
      T* ob = o + b * n * k;
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < k; ++j) ob[i * k + j] = rhs[i + j * n];
      }
    }
  });
}

template <typename T>
void TriangularSolveKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& y,
                           bool upper, bool transpose, bool unitriangular, DenseTensor* out) {
  const LapackThreads threads = ThreadsFor(x);
  out->AllocateFrom(x.place());
  if (out->numel() == 0) return;
  [[maybe_unused]] const auto [batch, n, unused] = ShapeOf(x);
  const int64_t k = y.dims()[y.ndim() - 1];
  const DenseTensor xc = funcs::Contiguous(x);
  funcs::CopyInto(funcs::Contiguous(y), out);
  T* o = static_cast<T*>(out->data());
  // A singular triangle gives inf/nan, as PyTorch and Paddle do (no check).
  ForEachMatrix(batch, n, std::max<int64_t>(k, 1), [&](int64_t lo, int64_t hi) {
    for (int64_t b = lo; b < hi; ++b) {
      Lapack<T>::trsm(upper ? CblasUpper : CblasLower, transpose ? CblasTrans : CblasNoTrans,
                      unitriangular ? CblasUnit : CblasNonUnit, AsLapackInt(n), AsLapackInt(k),
                      MatrixAt<T>(xc, b, n * n), o + b * n * k);
    }
  });
}

template <typename T>
void CholeskyKernel(const DeviceContext&, const DenseTensor& x, bool upper, DenseTensor* out) {
  const LapackThreads threads = ThreadsFor(x);
  out->AllocateFrom(x.place());
  if (out->numel() == 0) return;
  [[maybe_unused]] const auto [batch, n, unused] = ShapeOf(x);
  funcs::CopyInto(funcs::Contiguous(x), out);
  T* o = static_cast<T*>(out->data());
  const int ni = AsLapackInt(n);
  ForEachMatrix(batch, n, n, [&](int64_t lo, int64_t hi) {
    for (int64_t b = lo; b < hi; ++b) {
      T* m = o + b * n * n;
      int info = 0;
      // Column-major, m is x^T (conj(x) when x is Hermitian), whose upper triangle is x's
      // lower one (the part read, as in PyTorch); x^T = U^H U leaves U column-major, which
      // read row-major is U^T = L (x = U^T conj(U) = L L^H); the upper factor is L^H.
      Lapack<T>::potrf('U', ni, m, ni, &info);
      OAR_ENFORCE(info == 0,
                  errors::InvalidArgument("the matrix at batch index ", b,
                                          " of argument 'x' is not positive-definite (its leading "
                                          "minor of order ",
                                          info, " is not positive): no Cholesky factorisation"));
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = i + 1; j < n; ++j) {
          if (upper) {
            if constexpr (is_complex_v<T>) {
              m[i * n + j] = std::conj(m[j * n + i]);
            } else {
              m[i * n + j] = m[j * n + i];
            }
            m[j * n + i] = 0;
          } else {
            m[i * n + j] = 0;
          }
        }
      }
    }
  });
}

// ---- QR, SVD, eigh: packed outputs (one declared output per op, docs/linalg.md) ----

template <typename T>
void QrPackedKernel(const DeviceContext&, const DenseTensor& x, bool complete, DenseTensor* out) {
  const LapackThreads threads = ThreadsFor(x);
  T* o = static_cast<T*>(out->AllocateFrom(x.place()));
  if (out->numel() == 0) return;
  const auto [batch, m, n] = ShapeOf(x);
  const int64_t k = std::min(m, n), kq = complete ? m : k, w = m + n;
  std::fill(o, o + out->numel(), T(0));
  const DenseTensor xc = funcs::Contiguous(x);
  const int mi = AsLapackInt(m), ni = AsLapackInt(n), ki = AsLapackInt(k);
  const int kqi = AsLapackInt(kq);
  // Q needs kq columns: the factored matrix's own columns unless complete asks for more.
  const int64_t qcols = std::max(n, kq);
  ForEachMatrix(batch, m, n, [&](int64_t lo, int64_t hi) {
    std::vector<T> a(m * qcols), tau(std::max<int64_t>(k, 1));
    T q1 = 0, q2 = 0;
    int info = 0;
    Lapack<T>::geqrf(mi, ni, a.data(), mi, tau.data(), &q1, -1, &info);
    if (k > 0) Lapack<T>::orgqr(mi, kqi, ki, a.data(), mi, tau.data(), &q2, -1, &info);
    std::vector<T> work(std::max(WorkSize(q1), WorkSize(q2)));
    for (int64_t b = lo; b < hi; ++b) {
      ToColMajor(MatrixAt<T>(xc, b, m * n), m, n, a.data(), m);
      Lapack<T>::geqrf(mi, ni, a.data(), mi, tau.data(), work.data(), static_cast<int>(work.size()),
                       &info);
      T* ob = o + b * kq * w;
      for (int64_t i = 0; i < k; ++i) {
        for (int64_t j = i; j < n; ++j) ob[i * w + m + j] = a[i + j * m];
      }
      if (k > 0) {
        Lapack<T>::orgqr(mi, kqi, ki, a.data(), mi, tau.data(), work.data(),
                         static_cast<int>(work.size()), &info);
      } else {
        // No reflectors: Q is the identity.
        std::fill(a.begin(), a.end(), T(0));
        for (int64_t i = 0; i < std::min(m, kq); ++i) a[i + i * m] = 1;
      }
      // Column r of Q (contiguous column-major) is row r of Q^T.
      for (int64_t r = 0; r < kq; ++r) std::copy_n(a.data() + r * m, m, ob + r * w);
    }
  });
}

// Refuses a matrix holding inf or NaN, as PyTorch and NumPy do for these drivers: on
// one, gesdd iterated for ever (a rectangular batch, found by the fuzzer), and geev's
// balancing refused the NaN-scaled matrix while the steps after it wrote past their
// buffers (a double free).
template <typename T>
void EnforceFinite(const T* a, int64_t count, int64_t b) {
  const bool finite = std::all_of(a, a + count, [](const T& e) {
    if constexpr (std::is_floating_point_v<T>) {
      return std::isfinite(e);
    } else {
      return std::isfinite(e.real()) && std::isfinite(e.imag());
    }
  });
  OAR_ENFORCE(finite, errors::InvalidArgument("the matrix at batch index ", b,
                                              " of argument 'x' holds inf or NaN"));
}

template <typename T>
void SvdPackedKernel(const DeviceContext&, const DenseTensor& x, bool full_matrices,
                     DenseTensor* out) {
  const LapackThreads threads = ThreadsFor(x, /*weight=*/2.0);
  T* o = static_cast<T*>(out->AllocateFrom(x.place()));
  if (out->numel() == 0) return;
  const auto [batch, m, n] = ShapeOf(x);
  const int64_t k = std::min(m, n), w = m + 1 + n, rows = out->dims()[out->ndim() - 2];
  std::fill(o, o + out->numel(), T(0));
  using R = real_of_t<T>;
  // U and Vh have k rows (reduced) or m and n (full).
  const int64_t ur = full_matrices ? m : k, vr = full_matrices ? n : k;
  if (k == 0) {
    for (int64_t b = 0; b < batch; ++b) {
      T* ob = o + b * rows * w;
      for (int64_t i = 0; i < ur; ++i) ob[i * w + i] = 1;
      for (int64_t i = 0; i < vr; ++i) ob[i * w + m + 1 + i] = 1;
    }
    return;
  }
  DenseTensor a = funcs::Clone(x);
  T* pa = static_cast<T*>(a.data());
  // Read column-major, x's buffer is x^T (n x m) = conj(V) S U^T: LAPACK's "U" is
  // conj(V) (its contiguous columns are the rows of Vh = V^H) and its "VT" is U^T.
  const char jobz = full_matrices ? 'A' : 'S';
  const int mi = AsLapackInt(n), ni = AsLapackInt(m);  // LAPACK's m, n: the transpose
  const int ldvt = AsLapackInt(ur);
  ForEachMatrix(batch, m, n, [&](int64_t lo, int64_t hi) {
    std::vector<T> v(n * vr), ut(ur * m);
    std::vector<R> s(k);
    // The complex routine's real workspace (LAPACK's bound for jobz 'S'/'A').
    const int64_t big = std::max(m, n);
    std::vector<R> rwork(is_complex_v<T> ? k * std::max(5 * k + 7, 2 * big + 2 * k + 1) : 0);
    std::vector<int> iwork(8 * k);
    T query = 0;
    int info = 0;
    Lapack<T>::gesdd(jobz, mi, ni, pa, mi, s.data(), v.data(), mi, ut.data(), ldvt, &query, -1,
                     rwork.data(), iwork.data(), &info);
    std::vector<T> work(WorkSize(query));
    for (int64_t b = lo; b < hi; ++b) {
      EnforceFinite(pa + b * m * n, m * n, b);
      Lapack<T>::gesdd(jobz, mi, ni, pa + b * m * n, mi, s.data(), v.data(), mi, ut.data(), ldvt,
                       work.data(), static_cast<int>(work.size()), rwork.data(), iwork.data(),
                       &info);
      OAR_ENFORCE(info == 0, errors::InvalidArgument("the SVD of the matrix at batch index ", b,
                                                     " of argument 'x' did not converge (LAPACK "
                                                     "gesdd info ",
                                                     info, ")"));
      T* ob = o + b * rows * w;
      for (int64_t i = 0; i < std::max(ur, vr); ++i) {
        T factor = 1;
        if (i < ur) {
          // Row i of U^T is ut(i, :) column-major (stride ldvt).
          T* dst = ob + i * w;
          for (int64_t j = 0; j < m; ++j) dst[j] = ut[i + j * ldvt];
          factor = NormaliseUnit(dst, m);
        }
        if (i < vr) {
          T* dst = ob + i * w + m + 1;
          std::copy_n(v.data() + i * n, n, dst);
          // A singular pair turns together (u p, v p keeps u s v^H: Vh's row takes conj(p));
          // a row past k on its own.
          if (i >= k) {
            NormaliseUnit(dst, n);
          } else if (factor != T(1)) {
            const T vf = [&] {
              if constexpr (is_complex_v<T>) {
                return std::conj(factor);
              } else {
                return factor;
              }
            }();
            for (int64_t j = 0; j < n; ++j) dst[j] *= vf;
          }
        }
        if (i < k) ob[i * w + m] = T(s[i]);
      }
    }
  });
}

// Eigenvalues and eigenvectors (column i of vecs, contiguous) of batch element b into
// its rows of the packed output, each eigenvector's sign fixed.
template <typename T>
void PackEigh(T* o, int64_t b, int64_t n, const T* wv, const T* vecs) {
  T* ob = o + b * n * (n + 1);
  for (int64_t i = 0; i < n; ++i) {
    ob[i * (n + 1)] = wv[i];
    T* vec = ob + i * (n + 1) + 1;
    std::copy_n(vecs + i * n, n, vec);
    NormaliseUnit(vec, n);
  }
}

void CheckEigh(int info, int64_t b, const char* routine) {
  OAR_ENFORCE(info == 0, errors::InvalidArgument("the eigendecomposition of the matrix at batch "
                                                 "index ",
                                                 b, " of argument 'x' did not converge (LAPACK ",
                                                 routine, " info ", info, ")"));
}

// A batch's matrices run in parallel on oar's pool, each LAPACK call on one thread;
// a single matrix splits its own work over the pool (SplitSyevd), which runs inline
// inside a batch's task so that a matrix's result does not depend on its batch or
// on the thread count. Large matrices run one after another, OpenBLAS threading each.
template <typename T>
void EighPackedKernel(const DeviceContext&, const DenseTensor& x, bool upper, DenseTensor* out) {
  T* o = static_cast<T*>(out->AllocateFrom(x.place()));
  if (out->numel() == 0) return;
  [[maybe_unused]] const auto [batch, n, unused] = ShapeOf(x);
  DenseTensor a = funcs::Clone(x);
  T* pa = static_cast<T*>(a.data());
  const int ni = AsLapackInt(n);
  // Column-major the buffer is x^T: x's lower triangle is its upper one.
  const char uplo = upper ? 'L' : 'U';
  auto solve = [&](int64_t lo, int64_t hi) {
    const LapackThreads threads(n, n);
    std::vector<T> wv(n);
    const bool split = SplitSyevdApplies(n);
    Scratch<T> v(split ? n * n : 0);
    T query = 0;
    int iquery = 0, info = 0;
    Lapack<T>::syevd(uplo, ni, pa, ni, wv.data(), &query, -1, &iquery, -1, &info);
    const int lw = WorkSize(query), liw = std::max(1, iquery);
    Scratch<T> work(lw);
    std::vector<int> iwork(liw);
    for (int64_t b = lo; b < hi; ++b) {
      T* m = pa + b * n * n;
      if (split) {
        if (const std::optional<int> done = SplitSyevd(uplo, ni, m, wv.data(), v.data())) {
          CheckEigh(*done, b, "stedc");
          PackEigh(o, b, n, wv.data(), v.data());
          continue;
        }
      }
      Lapack<T>::syevd(uplo, ni, m, ni, wv.data(), work.data(), lw, iwork.data(), liw, &info);
      CheckEigh(info, b, "syevd");
      PackEigh(o, b, n, wv.data(), m);
    }
  };
  if (batch > 1 && LapackThreads::Serial(n, n)) {
    ParallelFor(0, batch, n * n * n, solve);
  } else {
    solve(0, batch);
  }
}

// ---- general eigendecomposition (geev) and complex Hermitian (heevd) ----

// geev on the column-major a (overwritten): the eigenvalues and the right eigenvectors
// as complex columns of v (n x n, column-major).
template <typename T>
int Geev(int n, T* a, std::complex<real_of_t<T>>* w, std::complex<real_of_t<T>>* v,
         std::vector<T>* work, std::vector<real_of_t<T>>* rwork) {
  using R = real_of_t<T>;
  const char jl = 'N', jr = 'V';
  const int one = 1;
  int info = 0;
  if constexpr (std::is_same_v<T, R>) {
    std::vector<R> wr(n), wi(n), vr(static_cast<size_t>(n) * n);
    auto call = [&](T* wk, int lw) {
      if constexpr (std::is_same_v<R, float>) {
        sgeev_(&jl, &jr, &n, a, &n, wr.data(), wi.data(), nullptr, &one, vr.data(), &n, wk, &lw,
               &info, 1, 1);
      } else {
        dgeev_(&jl, &jr, &n, a, &n, wr.data(), wi.data(), nullptr, &one, vr.data(), &n, wk, &lw,
               &info, 1, 1);
      }
    };
    if (work->empty()) {
      T q = 0;
      call(&q, -1);
      work->resize(WorkSize(q));
    }
    call(work->data(), static_cast<int>(work->size()));
    // A complex pair j, j+1 is stored as two real columns: v_j = re + i im, v_{j+1} its
    // conjugate.
    for (int j = 0; j < n; ++j) {
      w[j] = {wr[j], wi[j]};
      const R* re = vr.data() + static_cast<size_t>(j) * n;
      if (wi[j] != R(0) && j + 1 < n) {
        const R* im = re + n;
        for (int r = 0; r < n; ++r) {
          v[static_cast<size_t>(j) * n + r] = {re[r], im[r]};
          v[static_cast<size_t>(j + 1) * n + r] = {re[r], -im[r]};
        }
        w[j + 1] = {wr[j + 1], wi[j + 1]};
        ++j;
      } else {
        for (int r = 0; r < n; ++r) v[static_cast<size_t>(j) * n + r] = {re[r], R(0)};
      }
    }
  } else {
    rwork->resize(2 * static_cast<size_t>(n));
    auto call = [&](T* wk, int lw) {
      if constexpr (std::is_same_v<R, float>) {
        cgeev_(&jl, &jr, &n, a, &n, w, nullptr, &one, v, &n, wk, &lw, rwork->data(), &info, 1, 1);
      } else {
        zgeev_(&jl, &jr, &n, a, &n, w, nullptr, &one, v, &n, wk, &lw, rwork->data(), &info, 1, 1);
      }
    };
    if (work->empty()) {
      T q = 0;
      call(&q, -1);
      work->resize(WorkSize(q));
    }
    call(work->data(), static_cast<int>(work->size()));
  }
  return info;
}

// x [..., n, n] (real or complex) -> complex [..., n, 1 + n]: row i is eigenvalue i
// then its eigenvector (unit norm, phase fixed by NormaliseUnit), in LAPACK's order.
template <typename T>
void EigPackedKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  const LapackThreads threads = ThreadsFor(x);
  using R = real_of_t<T>;
  using C = std::complex<R>;
  C* o = static_cast<C*>(out->AllocateFrom(x.place()));
  if (out->numel() == 0) return;
  [[maybe_unused]] const auto [batch, n, unused] = ShapeOf(x);
  const DenseTensor xc = funcs::Contiguous(x);
  const int ni = AsLapackInt(n);
  ForEachMatrix(batch, n, n, [&](int64_t lo, int64_t hi) {
    std::vector<T> a(n * n), work;
    std::vector<R> rwork;
    std::vector<C> w(n), v(n * n);
    for (int64_t b = lo; b < hi; ++b) {
      ToColMajor(MatrixAt<T>(xc, b, n * n), n, n, a.data(), n);
      EnforceFinite(a.data(), n * n, b);
      const int info = Geev<T>(ni, a.data(), w.data(), v.data(), &work, &rwork);
      CheckEigh(info, b, "geev");
      C* ob = o + b * n * (n + 1);
      for (int64_t i = 0; i < n; ++i) {
        ob[i * (n + 1)] = w[i];
        C* vec = ob + i * (n + 1) + 1;
        std::copy_n(v.data() + i * n, n, vec);  // eigenvector i: column i, contiguous
        NormaliseUnit(vec, n);
      }
    }
  });
}

// Complex Hermitian eigh: x's buffer read column-major is x^T = conj(x), whose
// eigenvectors are the conjugates of x's (same eigenvalues): heevd on it, conjugated.
// The eigenvalues go into the packed complex output with zero imaginary parts.
template <typename C>
void HermitianEighPackedKernel(const DeviceContext&, const DenseTensor& x, bool upper,
                               DenseTensor* out) {
  const LapackThreads threads = ThreadsFor(x);
  using R = typename C::value_type;
  C* o = static_cast<C*>(out->AllocateFrom(x.place()));
  if (out->numel() == 0) return;
  [[maybe_unused]] const auto [batch, n, unused] = ShapeOf(x);
  DenseTensor a = funcs::Clone(x);
  C* pa = static_cast<C*>(a.data());
  const int ni = AsLapackInt(n);
  const char jobz = 'V', uplo = upper ? 'L' : 'U';
  ForEachMatrix(batch, n, n, [&](int64_t lo, int64_t hi) {
    std::vector<R> wv(n);
    auto call = [&](C* m, C* wk, int lw, R* rw, int lrw, int* iw, int liw, int* info) {
      if constexpr (std::is_same_v<R, float>) {
        cheevd_(&jobz, &uplo, &ni, m, &ni, wv.data(), wk, &lw, rw, &lrw, iw, &liw, info, 1, 1);
      } else {
        zheevd_(&jobz, &uplo, &ni, m, &ni, wv.data(), wk, &lw, rw, &lrw, iw, &liw, info, 1, 1);
      }
    };
    C q = 0;
    R rq = 0;
    int iq = 0, info = 0;
    call(pa, &q, -1, &rq, -1, &iq, -1, &info);
    std::vector<C> work(WorkSize(q));
    std::vector<R> rwork(WorkSize(rq));
    std::vector<int> iwork(std::max(1, iq));
    for (int64_t b = lo; b < hi; ++b) {
      C* m = pa + b * n * n;
      call(m, work.data(), static_cast<int>(work.size()), rwork.data(),
           static_cast<int>(rwork.size()), iwork.data(), static_cast<int>(iwork.size()), &info);
      CheckEigh(info, b, "heevd");
      C* ob = o + b * n * (n + 1);
      for (int64_t i = 0; i < n; ++i) {
        ob[i * (n + 1)] = C(wv[i], R(0));
        C* vec = ob + i * (n + 1) + 1;
        for (int64_t r = 0; r < n; ++r) vec[r] = std::conj(m[i * n + r]);
        NormaliseUnit(vec, n);
      }
    }
  });
}

// ---- LU with partial pivoting ----

// Factors each matrix of x; writes the packed factors (row-major) and/or the 1-based
// pivots.
template <typename T>
void LuFactor(const DenseTensor& x, T* lu, int* pivots) {
  const auto [batch, m, n] = ShapeOf(x);
  const int64_t k = std::min(m, n);
  if (batch * m * n == 0) return;
  const DenseTensor xc = funcs::Contiguous(x);
  const int mi = AsLapackInt(m), ni = AsLapackInt(n);
  ForEachMatrix(batch, m, n, [&](int64_t lo, int64_t hi) {
    std::vector<T> a(m * n);
    std::vector<int> ipiv(k);
    for (int64_t b = lo; b < hi; ++b) {
      ToColMajor(MatrixAt<T>(xc, b, m * n), m, n, a.data(), m);
      // A singular matrix still factors (info > 0 marks a zero pivot), as in Paddle.
      if (m == n) {
        FactorSquare(ni, a.data(), ipiv.data(), SplitLu(batch, n));
      } else {
        int info = 0;
        Lapack<T>::getrf(mi, ni, a.data(), mi, ipiv.data(), &info);
      }
      if (lu) {
        T* ob = lu + b * m * n;
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) ob[i * n + j] = a[i + j * m];
        }
      }
      if (pivots) std::copy(ipiv.begin(), ipiv.end(), pivots + b * k);
    }
  });
}

template <typename T>
void LuPackedKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  const LapackThreads threads = ThreadsFor(x);
  LuFactor<T>(x, static_cast<T*>(out->AllocateFrom(x.place())), nullptr);
}

template <typename T>
void LuPivotsKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  const LapackThreads threads = ThreadsFor(x);
  LuFactor<T>(x, nullptr, static_cast<int*>(out->AllocateFrom(x.place())));
}

}  // namespace

OAR_REGISTER_KERNEL(inverse, CPU, Any, InverseKernel, float, double, complex64, complex128);
OAR_REGISTER_KERNEL(det, CPU, Any, DetKernel, float, double, complex64, complex128);
OAR_REGISTER_KERNEL(slogdet, CPU, Any, SlogdetKernel, float, double, complex64, complex128);
OAR_REGISTER_KERNEL(solve, CPU, Any, SolveKernel, float, double, complex64, complex128);
OAR_REGISTER_KERNEL(triangular_solve, CPU, Any, TriangularSolveKernel, float, double, complex64,
                    complex128);
OAR_REGISTER_KERNEL(cholesky, CPU, Any, CholeskyKernel, float, double, complex64, complex128);
OAR_REGISTER_KERNEL(qr_packed, CPU, Any, QrPackedKernel, float, double, complex64, complex128);
OAR_REGISTER_KERNEL(svd_packed, CPU, Any, SvdPackedKernel, float, double, complex64, complex128);
OAR_REGISTER_KERNEL(eigh_packed, CPU, Any, EighPackedKernel, float, double);
OAR_REGISTER_KERNEL(eigh_packed, CPU, Any, HermitianEighPackedKernel, complex64, complex128);
OAR_REGISTER_KERNEL(eig_packed, CPU, Any, EigPackedKernel, float, double, complex64, complex128);
OAR_REGISTER_KERNEL(lu_packed, CPU, Any, LuPackedKernel, float, double, complex64, complex128);
OAR_REGISTER_KERNEL(lu_pivots, CPU, Any, LuPivotsKernel, float, double, complex64, complex128);

}  // namespace oar
