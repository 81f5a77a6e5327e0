// The table each SIMD-width translation unit of vec_math fills in
// (vec_math_sse2.cc, vec_math_avx2.cc, vec_math_avx512.cc); vec_math.cc picks
// one at run time. Only plain declarations here: those files are compiled with
// wider ISA flags, so nothing inline may be shared with the rest of the library
// (the linker could keep the wide copy of an inline function for everyone).
#pragma once

#include <cstdint>
#include <type_traits>  // std::void_t (vec_math_isa.inc)

#include "oar/kernels/funcs/vec_math.h"

namespace oar::vec::detail {

template <typename S>
struct TypedTable {
  void (*apply[static_cast<int>(Fn::kCount)])(const S*, S*, int64_t);
  S (*exp_sub_sum)(const S*, S, S*, int64_t);
  S (*max_ignoring_nan)(const S*, int64_t);
  S (*sum)(const S*, int64_t);
  void (*sum_runs)(const S* const*, int, int64_t, S*);
  S (*max)(const S*, int64_t);
  S (*min)(const S*, int64_t);
  void (*max_runs)(const S* const*, int, int64_t, S*);
  void (*min_runs)(const S* const*, int, int64_t, S*);
};

struct Table {
  const char* isa;
  TypedTable<float> f;
  TypedTable<double> d;
  void (*gelu)(const float*, float*, int64_t);
  void (*gelu_grad)(const float*, const float*, float*, int64_t);
};

#if defined(__x86_64__) || defined(_M_X64)
const Table& TableSse2();
const Table& TableAvx2();
const Table& TableAvx512();
#endif

}  // namespace oar::vec::detail
