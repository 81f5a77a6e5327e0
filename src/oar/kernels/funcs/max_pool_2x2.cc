// Picks the 2x2 max pool's unit for a dtype (max_pool_2x2.h).
#include "oar/kernels/funcs/max_pool_2x2.h"

#include "oar/core/cpu_isa.h"
#include "oar/kernels/funcs/max_pool_isa.h"

namespace oar::funcs {

MaxPool2x2Fn MaxPool2x2For(DType dtype) {
#if defined(__x86_64__)
  if (CpuIsaAllowed(CpuIsa::kAvx512)) {
    switch (dtype) {
      case DType::kFloat32:
        return max_pool_isa::Avx512F32;
      case DType::kBFloat16:
        return max_pool_isa::Avx512Bf16;
      case DType::kFloat16:
        return max_pool_isa::Avx512F16;
      default:
        return nullptr;
    }
  }
  if (CpuIsaAllowed(CpuIsa::kAvx2) && dtype == DType::kFloat32) return max_pool_isa::Avx2F32;
#endif
  return nullptr;
}

}  // namespace oar::funcs
