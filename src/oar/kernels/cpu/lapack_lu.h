// LU factorisation and inversion of one matrix split over two threads of oar's pool
// (lapack_lu.cc, docs/linalg.md "LU on two threads").
#pragma once

#include <cstdint>

namespace oar {

// Whether SplitGetrf / SplitGetri serve one n x n matrix: from where the split beat
// getrf / getri on one thread up to where OpenBLAS threads them itself (LapackThreads).
bool SplitGetrfApplies(int64_t n);
bool SplitGetriApplies(int64_t n);

// getrf's result for the n x n column-major matrix a (leading dimension n): the packed
// factors in a, the 1-based row pivots in ipiv; returns getrf's info (0, or the first
// zero pivot's 1-based index; the factorisation still completes, as getrf's does).
template <typename T>
int SplitGetrf(int n, T* a, int* ipiv);

// The inverse of the matrix whose factors getrf (or SplitGetrf) left in lu and ipiv,
// written to inv (n x n, column-major, leading dimension n); lu is not changed. What
// getri computes, with the work split over two threads.
template <typename T>
void SplitGetri(int n, const T* lu, const int* ipiv, T* inv);

}  // namespace oar
