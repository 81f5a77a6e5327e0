// Note [One cap on the dispatched ISA] in cpu_isa.h.
#include "oar/core/cpu_isa.h"

#include <array>
#include <cstdlib>
#include <optional>
#include <string>

#include "oar/core/errors.h"

namespace oar {
namespace {

// The levels OAR_MAX_CPU_ISA names (x86-64's; elsewhere dispatch has one level).
constexpr std::array<CpuIsa, 4> kCaps = {CpuIsa::kSse2, CpuIsa::kAvx2, CpuIsa::kAvx512,
                                         CpuIsa::kAvx512Bf16};

CpuIsa Detect() {
#if defined(__x86_64__) || defined(_M_X64)
  // The psABI's micro-architecture levels, which the per-width units are built
  // for (-march=x86-64-v3 / -v4); libgcc's checks include the OS's XSAVE
  // support for the wider registers.
  __builtin_cpu_init();
  if (__builtin_cpu_supports("x86-64-v4")) {
    return __builtin_cpu_supports("avx512bf16") ? CpuIsa::kAvx512Bf16 : CpuIsa::kAvx512;
  }
  if (__builtin_cpu_supports("x86-64-v3")) return CpuIsa::kAvx2;
  return CpuIsa::kSse2;
#else
  return CpuIsa::kScalar;
#endif
}

// The cap, or nothing when the variable is unset or empty; a bad value is kept
// as text so that every call reports it.
struct Cap {
  std::optional<CpuIsa> isa;
  std::string bad;
};

Cap ReadCap() {
  const char* v = std::getenv("OAR_MAX_CPU_ISA");
  if (v == nullptr || *v == '\0') return {};
  for (const CpuIsa isa : kCaps) {
    if (CpuIsaName(isa) == v) return {isa, {}};
  }
  return {std::nullopt, v};
}

}  // namespace

std::string_view CpuIsaName(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::kScalar:
      return "scalar";
    case CpuIsa::kSse2:
      return "sse2";
    case CpuIsa::kAvx2:
      return "avx2";
    case CpuIsa::kAvx512:
      return "avx512";
    case CpuIsa::kAvx512Bf16:
      return "avx512_bf16";
  }
  return "unknown";
}

CpuIsa DetectedCpuIsa() {
  static const CpuIsa detected = Detect();
  return detected;
}

CpuIsa MaxCpuIsa() {
  // Immutable after the thread-safe initialisation: read once per process.
  static const Cap cap = ReadCap();
  if (!cap.bad.empty()) {
    throw errors::InvalidArgument("OAR_MAX_CPU_ISA is '", cap.bad,
                                  "'; expected one of sse2, avx2, avx512, avx512_bf16 "
                                  "(or unset for everything this CPU has)");
  }
  const CpuIsa detected = DetectedCpuIsa();
  return cap.isa && *cap.isa < detected ? *cap.isa : detected;
}

}  // namespace oar
