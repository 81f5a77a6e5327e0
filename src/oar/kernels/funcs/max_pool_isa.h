// The per-width units of the 2x2 max pool (max_pool_2x2_avx512.cc,
// max_pool_2x2_avx2.cc), each with the MaxPool2x2Fn contract of
// max_pool_2x2.h, and of the 3x3 stride-2 run (max_pool_3x3_avx2.cc, the
// MaxPool3x3RunFn contract of max_pool_3x3.h); max_pool_2x2.cc and
// max_pool_3x3.cc pick one. Plain declarations only: those units are built with
// wider ISA flags than the library.
#pragma once

#include <cstdint>

namespace oar::funcs::max_pool_isa {

#if defined(__x86_64__)
void Avx512F32(const void* plane, int64_t IW, int64_t OH, int64_t OW, int64_t* out);
void Avx512Bf16(const void* plane, int64_t IW, int64_t OH, int64_t OW, int64_t* out);
void Avx512F16(const void* plane, int64_t IW, int64_t OH, int64_t OW, int64_t* out);
void Avx2F32(const void* plane, int64_t IW, int64_t OH, int64_t OW, int64_t* out);
void Avx2F32Run3x3(const void* plane, int64_t IW, int64_t row0, int64_t rows, int64_t col0,
                   int64_t n, int64_t* index, void* values);
#endif

}  // namespace oar::funcs::max_pool_isa
