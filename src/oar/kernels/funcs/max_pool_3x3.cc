// Picks the 3x3 stride-2 max pool run's unit for a dtype (max_pool_3x3.h).
#include "oar/kernels/funcs/max_pool_3x3.h"

#include "oar/core/cpu_isa.h"
#include "oar/kernels/funcs/max_pool_isa.h"

namespace oar::funcs {

MaxPool3x3RunFn MaxPool3x3RunFor(DType dtype) {
#if defined(__x86_64__)
  if (CpuIsaAllowed(CpuIsa::kAvx2) && dtype == DType::kFloat32) return max_pool_isa::Avx2F32Run3x3;
#endif
  return nullptr;
}

}  // namespace oar::funcs
