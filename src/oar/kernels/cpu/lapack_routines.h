// The LAPACK and BLAS routines the kernels of lapack_kernels.cc call, declared (Debian's
// OpenBLAS ships no LAPACKE header: these are its Fortran symbols) and gathered per
// element type into Lapack<T>, so each kernel is written once for float, double,
// complex64 and complex128. Fortran COMPLEX has std::complex's layout.
#pragma once

#include <cblas.h>

#include <complex>
#include <cstddef>

extern "C" {
// LAPACK's Fortran interface; the trailing size_t arguments are the hidden lengths of
// the character arguments (gfortran's convention).
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void sgetri_(const int* n, float* a, const int* lda, const int* ipiv, float* work, const int* lwork,
             int* info);
void dgetri_(const int* n, double* a, const int* lda, const int* ipiv, double* work,
             const int* lwork, int* info);
void sgetrs_(const char* trans, const int* n, const int* nrhs, const float* a, const int* lda,
             const int* ipiv, float* b, const int* ldb, int* info, size_t);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda,
             const int* ipiv, double* b, const int* ldb, int* info, size_t);
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info, size_t);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t);
void sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work,
             const int* lwork, int* info);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work,
             const int* lwork, int* info);
void sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau,
             float* work, const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau,
             double* work, const int* lwork, int* info);
void sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s,
             float* u, const int* ldu, float* vt, const int* ldvt, float* work, const int* lwork,
             int* iwork, int* info, size_t);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s,
             double* u, const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork,
             int* iwork, int* info, size_t);
void ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w,
             float* work, const int* lwork, int* iwork, const int* liwork, int* info, size_t,
             size_t);
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w,
             double* work, const int* lwork, int* iwork, const int* liwork, int* info, size_t,
             size_t);
// Complex LU, Hermitian and general eigendecompositions (Fortran COMPLEX is
// std::complex's layout).
void cgetrf_(const int* m, const int* n, std::complex<float>* a, const int* lda, int* ipiv,
             int* info);
void zgetrf_(const int* m, const int* n, std::complex<double>* a, const int* lda, int* ipiv,
             int* info);
void cgetri_(const int* n, std::complex<float>* a, const int* lda, const int* ipiv,
             std::complex<float>* work, const int* lwork, int* info);
void zgetri_(const int* n, std::complex<double>* a, const int* lda, const int* ipiv,
             std::complex<double>* work, const int* lwork, int* info);
void cgetrs_(const char* trans, const int* n, const int* nrhs, const std::complex<float>* a,
             const int* lda, const int* ipiv, std::complex<float>* b, const int* ldb, int* info,
             size_t);
void zgetrs_(const char* trans, const int* n, const int* nrhs, const std::complex<double>* a,
             const int* lda, const int* ipiv, std::complex<double>* b, const int* ldb, int* info,
             size_t);
void cheevd_(const char* jobz, const char* uplo, const int* n, std::complex<float>* a,
             const int* lda, float* w, std::complex<float>* work, const int* lwork, float* rwork,
             const int* lrwork, int* iwork, const int* liwork, int* info, size_t, size_t);
void zheevd_(const char* jobz, const char* uplo, const int* n, std::complex<double>* a,
             const int* lda, double* w, std::complex<double>* work, const int* lwork, double* rwork,
             const int* lrwork, int* iwork, const int* liwork, int* info, size_t, size_t);
void sgeev_(const char* jobvl, const char* jobvr, const int* n, float* a, const int* lda, float* wr,
            float* wi, float* vl, const int* ldvl, float* vr, const int* ldvr, float* work,
            const int* lwork, int* info, size_t, size_t);
void dgeev_(const char* jobvl, const char* jobvr, const int* n, double* a, const int* lda,
            double* wr, double* wi, double* vl, const int* ldvl, double* vr, const int* ldvr,
            double* work, const int* lwork, int* info, size_t, size_t);
void cgeev_(const char* jobvl, const char* jobvr, const int* n, std::complex<float>* a,
            const int* lda, std::complex<float>* w, std::complex<float>* vl, const int* ldvl,
            std::complex<float>* vr, const int* ldvr, std::complex<float>* work, const int* lwork,
            float* rwork, int* info, size_t, size_t);
void zgeev_(const char* jobvl, const char* jobvr, const int* n, std::complex<double>* a,
            const int* lda, std::complex<double>* w, std::complex<double>* vl, const int* ldvl,
            std::complex<double>* vr, const int* ldvr, std::complex<double>* work, const int* lwork,
            double* rwork, int* info, size_t, size_t);
// Complex Cholesky, QR (geqrf + ungqr) and SVD (gesdd takes a real workspace too).
void cpotrf_(const char* uplo, const int* n, std::complex<float>* a, const int* lda, int* info,
             size_t);
void zpotrf_(const char* uplo, const int* n, std::complex<double>* a, const int* lda, int* info,
             size_t);
void cgeqrf_(const int* m, const int* n, std::complex<float>* a, const int* lda,
             std::complex<float>* tau, std::complex<float>* work, const int* lwork, int* info);
void zgeqrf_(const int* m, const int* n, std::complex<double>* a, const int* lda,
             std::complex<double>* tau, std::complex<double>* work, const int* lwork, int* info);
void cungqr_(const int* m, const int* n, const int* k, std::complex<float>* a, const int* lda,
             const std::complex<float>* tau, std::complex<float>* work, const int* lwork,
             int* info);
void zungqr_(const int* m, const int* n, const int* k, std::complex<double>* a, const int* lda,
             const std::complex<double>* tau, std::complex<double>* work, const int* lwork,
             int* info);
void cgesdd_(const char* jobz, const int* m, const int* n, std::complex<float>* a, const int* lda,
             float* s, std::complex<float>* u, const int* ldu, std::complex<float>* vt,
             const int* ldvt, std::complex<float>* work, const int* lwork, float* rwork, int* iwork,
             int* info, size_t);
void zgesdd_(const char* jobz, const int* m, const int* n, std::complex<double>* a, const int* lda,
             double* s, std::complex<double>* u, const int* ldu, std::complex<double>* vt,
             const int* ldvt, std::complex<double>* work, const int* lwork, double* rwork,
             int* iwork, int* info, size_t);
}

namespace oar {

// The routines of one element type under one name. gesdd takes a real workspace
// (rwork) that only the complex routines use; potrf/geqrf/orgqr are the complex
// routines' counterparts (orgqr is ungqr for complex); trsm solves op(a) b' = b in
// place, row-major, op a plain transpose (not the conjugate one) as in the real case.
template <typename T>
struct Lapack;

template <>
struct Lapack<float> {
  static void getrf(int m, int n, float* a, int lda, int* ipiv, int* info) {
    sgetrf_(&m, &n, a, &lda, ipiv, info);
  }
  static void getri(int n, float* a, int lda, const int* ipiv, float* w, int lw, int* info) {
    sgetri_(&n, a, &lda, ipiv, w, &lw, info);
  }
  static void getrs(char t, int n, int nrhs, const float* a, int lda, const int* ipiv, float* b,
                    int ldb, int* info) {
    sgetrs_(&t, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
  }
  static void potrf(char uplo, int n, float* a, int lda, int* info) {
    spotrf_(&uplo, &n, a, &lda, info, 1);
  }
  static void geqrf(int m, int n, float* a, int lda, float* tau, float* w, int lw, int* info) {
    sgeqrf_(&m, &n, a, &lda, tau, w, &lw, info);
  }
  static void orgqr(int m, int n, int k, float* a, int lda, const float* tau, float* w, int lw,
                    int* info) {
    sorgqr_(&m, &n, &k, a, &lda, tau, w, &lw, info);
  }
  static void gesdd(char jobz, int m, int n, float* a, int lda, float* s, float* u, int ldu,
                    float* vt, int ldvt, float* w, int lw, float* /*rwork*/, int* iw, int* info) {
    sgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, w, &lw, iw, info, 1);
  }
  static void syevd(char uplo, int n, float* a, int lda, float* wv, float* w, int lw, int* iw,
                    int liw, int* info) {
    const char jobz = 'V';
    ssyevd_(&jobz, &uplo, &n, a, &lda, wv, w, &lw, iw, &liw, info, 1, 1);
  }
  static void trsm(CBLAS_UPLO u, CBLAS_TRANSPOSE t, CBLAS_DIAG d, int n, int k, const float* a,
                   float* b) {
    cblas_strsm(CblasRowMajor, CblasLeft, u, t, d, n, k, 1.0f, a, n, b, k);
  }
};

template <>
struct Lapack<double> {
  static void getrf(int m, int n, double* a, int lda, int* ipiv, int* info) {
    dgetrf_(&m, &n, a, &lda, ipiv, info);
  }
  static void getri(int n, double* a, int lda, const int* ipiv, double* w, int lw, int* info) {
    dgetri_(&n, a, &lda, ipiv, w, &lw, info);
  }
  static void getrs(char t, int n, int nrhs, const double* a, int lda, const int* ipiv, double* b,
                    int ldb, int* info) {
    dgetrs_(&t, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
  }
  static void potrf(char uplo, int n, double* a, int lda, int* info) {
    dpotrf_(&uplo, &n, a, &lda, info, 1);
  }
  static void geqrf(int m, int n, double* a, int lda, double* tau, double* w, int lw, int* info) {
    dgeqrf_(&m, &n, a, &lda, tau, w, &lw, info);
  }
  static void orgqr(int m, int n, int k, double* a, int lda, const double* tau, double* w, int lw,
                    int* info) {
    dorgqr_(&m, &n, &k, a, &lda, tau, w, &lw, info);
  }
  static void gesdd(char jobz, int m, int n, double* a, int lda, double* s, double* u, int ldu,
                    double* vt, int ldvt, double* w, int lw, double* /*rwork*/, int* iw,
                    int* info) {
    dgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, w, &lw, iw, info, 1);
  }
  static void syevd(char uplo, int n, double* a, int lda, double* wv, double* w, int lw, int* iw,
                    int liw, int* info) {
    const char jobz = 'V';
    dsyevd_(&jobz, &uplo, &n, a, &lda, wv, w, &lw, iw, &liw, info, 1, 1);
  }
  static void trsm(CBLAS_UPLO u, CBLAS_TRANSPOSE t, CBLAS_DIAG d, int n, int k, const double* a,
                   double* b) {
    cblas_dtrsm(CblasRowMajor, CblasLeft, u, t, d, n, k, 1.0, a, n, b, k);
  }
};

template <>
struct Lapack<std::complex<float>> {
  using C = std::complex<float>;
  static void getrf(int m, int n, C* a, int lda, int* ipiv, int* info) {
    cgetrf_(&m, &n, a, &lda, ipiv, info);
  }
  static void getri(int n, C* a, int lda, const int* ipiv, C* w, int lw, int* info) {
    cgetri_(&n, a, &lda, ipiv, w, &lw, info);
  }
  static void getrs(char t, int n, int nrhs, const C* a, int lda, const int* ipiv, C* b, int ldb,
                    int* info) {
    cgetrs_(&t, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
  }
  static void potrf(char uplo, int n, C* a, int lda, int* info) {
    cpotrf_(&uplo, &n, a, &lda, info, 1);
  }
  static void geqrf(int m, int n, C* a, int lda, C* tau, C* w, int lw, int* info) {
    cgeqrf_(&m, &n, a, &lda, tau, w, &lw, info);
  }
  static void orgqr(int m, int n, int k, C* a, int lda, const C* tau, C* w, int lw, int* info) {
    cungqr_(&m, &n, &k, a, &lda, tau, w, &lw, info);
  }
  static void gesdd(char jobz, int m, int n, C* a, int lda, float* s, C* u, int ldu, C* vt,
                    int ldvt, C* w, int lw, float* rwork, int* iw, int* info) {
    cgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, w, &lw, rwork, iw, info, 1);
  }
  static void trsm(CBLAS_UPLO u, CBLAS_TRANSPOSE t, CBLAS_DIAG d, int n, int k, const C* a, C* b) {
    const C one(1.0f);
    cblas_ctrsm(CblasRowMajor, CblasLeft, u, t, d, n, k, &one, a, n, b, k);
  }
};

template <>
struct Lapack<std::complex<double>> {
  using C = std::complex<double>;
  static void getrf(int m, int n, C* a, int lda, int* ipiv, int* info) {
    zgetrf_(&m, &n, a, &lda, ipiv, info);
  }
  static void getri(int n, C* a, int lda, const int* ipiv, C* w, int lw, int* info) {
    zgetri_(&n, a, &lda, ipiv, w, &lw, info);
  }
  static void getrs(char t, int n, int nrhs, const C* a, int lda, const int* ipiv, C* b, int ldb,
                    int* info) {
    zgetrs_(&t, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
  }
  static void potrf(char uplo, int n, C* a, int lda, int* info) {
    zpotrf_(&uplo, &n, a, &lda, info, 1);
  }
  static void geqrf(int m, int n, C* a, int lda, C* tau, C* w, int lw, int* info) {
    zgeqrf_(&m, &n, a, &lda, tau, w, &lw, info);
  }
  static void orgqr(int m, int n, int k, C* a, int lda, const C* tau, C* w, int lw, int* info) {
    zungqr_(&m, &n, &k, a, &lda, tau, w, &lw, info);
  }
  static void gesdd(char jobz, int m, int n, C* a, int lda, double* s, C* u, int ldu, C* vt,
                    int ldvt, C* w, int lw, double* rwork, int* iw, int* info) {
    zgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, w, &lw, rwork, iw, info, 1);
  }
  static void trsm(CBLAS_UPLO u, CBLAS_TRANSPOSE t, CBLAS_DIAG d, int n, int k, const C* a, C* b) {
    const C one(1.0);
    cblas_ztrsm(CblasRowMajor, CblasLeft, u, t, d, n, k, &one, a, n, b, k);
  }
};

}  // namespace oar
