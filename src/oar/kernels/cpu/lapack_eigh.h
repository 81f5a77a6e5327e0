// The symmetric eigendecomposition of one matrix on two threads (lapack_eigh.cc).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>

#include "oar/core/allocator.h"

namespace oar {

// Uninitialised scratch memory from oar's allocator (mimalloc), which keeps freed
// pages for reuse. glibc gave std::vector's large blocks back to the system at each
// free, and faulting them in again took 0.6 of eigh's 2.2 ms at n = 256.
template <typename T>
class Scratch {
 public:
  explicit Scratch(int64_t count)
      : block_(AllocateShared(CPUPlace(),
                              sizeof(T) * static_cast<size_t>(std::max<int64_t>(count, 1)))) {}
  T* data() const { return static_cast<T*>(block_->ptr()); }

 private:
  std::shared_ptr<Allocation> block_;
};

// Whether SplitSyevd serves an n x n matrix: n from where it beat syevd on one thread
// (docs/linalg.md, "eigh on two threads") up to where OpenBLAS threads syevd itself
// (LapackThreads). On one thread, or inside a parallel region, it runs serially.
bool SplitSyevdApplies(int64_t n);

// syevd's result (jobz 'V') for the symmetric n x n column-major matrix `a`, whose
// `uplo` triangle is read and which is destroyed: the eigenvalues ascending in w, the
// eigenvectors in the columns of v (n x n, leading dimension n). Returns LAPACK's
// info (0: converged), or nothing, a untouched, for a matrix that syevd would scale
// (its norm near under- or overflow, or not finite): call syevd for those.
template <typename T>
std::optional<int> SplitSyevd(char uplo, int n, T* a, T* w, T* v);

}  // namespace oar
