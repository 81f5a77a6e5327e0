// The instruction-set level oar's run-time dispatch may use on this CPU.
//
// Note [One cap on the dispatched ISA]
// Every kernel that picks its code by what the CPU has (the SIMD math tables,
// erf and gelu, the 2x2 max pool, the bfloat16 GEMM packer, oneDNN's
// primitives) asks MaxCpuIsa() and nothing else, so one setting moves all of
// them down together. OAR_MAX_CPU_ISA=sse2|avx2|avx512|avx512_bf16 in the
// environment, read once at start-up, caps the level below what the CPU has
// (a level above it changes nothing): an AVX-512 machine then runs, and its
// tests prove, the AVX2 and SSE2 paths an older machine takes. oneDNN is capped
// to the matching level (ONEDNN_MAX_CPU_ISA, unless that is set too). The rest
// of the library is compiled for the building CPU (-march=native); the
// compiler neither reassociates nor drops the FMA contractions both machine
// kinds have, so those loops give the same bits at every level.
#pragma once

#include <string_view>

namespace oar {

enum class CpuIsa {
  kScalar,      // not x86-64: the portable loops
  kSse2,        // x86-64's baseline (SSE2)
  kAvx2,        // x86-64-v3: AVX2, FMA, F16C, BMI2
  kAvx512,      // x86-64-v4: AVX-512 F, BW, CD, DQ, VL
  kAvx512Bf16,  // x86-64-v4 and AVX512_BF16's dot products
};

// What this CPU (and its OS) supports.
CpuIsa DetectedCpuIsa();

// DetectedCpuIsa() capped by OAR_MAX_CPU_ISA: what dispatch uses. Decided at
// the first call (thread-safe) and fixed for the process. An unknown value of
// the variable is an InvalidArgument naming it and the accepted values, thrown
// by every call (oar's Python import makes one, so it surfaces there).
CpuIsa MaxCpuIsa();

// Whether dispatch may use `isa`: MaxCpuIsa() >= isa.
inline bool CpuIsaAllowed(CpuIsa isa) { return MaxCpuIsa() >= isa; }

// "scalar", "sse2", "avx2", "avx512", "avx512_bf16"; OAR_MAX_CPU_ISA takes
// the last four.
std::string_view CpuIsaName(CpuIsa isa);

}  // namespace oar
