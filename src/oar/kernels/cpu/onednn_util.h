// What the oneDNN-backed kernels share (conv_onednn.cc, matmul_onednn.cc): the
// CPU engine, the mapping of oar dtypes to oneDNN's, and turning oneDNN's
// exceptions into oar errors. Only kernel files include this header.
#pragma once

#include <dnnl.hpp>

#include <cstdlib>
#include <string>

#include "oar/core/cpu_isa.h"
#include "oar/core/dtype.h"
#include "oar/core/errors.h"

namespace oar::onednn {

// oneDNN follows oar's dispatch cap (Note [One cap on the dispatched ISA] in
// core/cpu_isa.h) unless ONEDNN_MAX_CPU_ISA asks for its own. oneDNN takes a
// cap only before its first primitive, so Engine() sets it. Its lowest level is
// SSE4.1: under an SSE2 cap oneDNN runs that.
inline void CapOneDnnIsa() {
  if (std::getenv("ONEDNN_MAX_CPU_ISA") != nullptr || std::getenv("DNNL_MAX_CPU_ISA") != nullptr) {
    return;
  }
  const CpuIsa cap = MaxCpuIsa();
  if (cap == DetectedCpuIsa()) return;
  using dnnl::cpu_isa;
  const cpu_isa isa = cap >= CpuIsa::kAvx512 ? cpu_isa::avx512_core_vnni
                      : cap == CpuIsa::kAvx2 ? cpu_isa::avx2
                                             : cpu_isa::sse41;
  if (dnnl::set_max_cpu_isa(isa) != dnnl::status::success) {
    throw errors::Fatal("oneDNN refused the ISA cap OAR_MAX_CPU_ISA=", CpuIsaName(cap));
  }
}

// One engine for the process: a function-local static (thread-safe
// initialisation, immutable afterwards), as an inline function so every
// translation unit shares the same object. Every oneDNN call goes through it,
// so the ISA cap precedes them all.
inline const dnnl::engine& Engine() {
  static const dnnl::engine engine = [] {
    CapOneDnnIsa();
    return dnnl::engine(dnnl::engine::kind::cpu, 0);
  }();
  return engine;
}

// Whether oneDNN runs its AVX-512 kernels on this CPU (under oar's ISA cap).
// Probed once: a CPU does not change, and the static is immutable after its
// thread-safe initialisation.
inline bool RunsAvx512() {
  static const bool wide = [] {
    Engine();  // sets the ISA cap first
    const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
    const auto avx512 = static_cast<unsigned>(dnnl::cpu_isa::avx512_core);
    return (isa & avx512) == avx512;
  }();
  return wide;
}

// oneDNN's type for the dtypes the kernels hand it (undef for others).
inline dnnl::memory::data_type DataType(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return dnnl::memory::data_type::f32;
    case DType::kBFloat16:
      return dnnl::memory::data_type::bf16;
    case DType::kFloat16:
      return dnnl::memory::data_type::f16;
    default:
      return dnnl::memory::data_type::undef;
  }
}

// Whether oneDNN picked an optimised implementation rather than its reference
// loops (which it uses for any dtype the CPU lacks instructions for; they are
// far slower than converting to float32 and using the float32 kernels).
template <typename PrimitiveDesc>
bool IsOptimized(const PrimitiveDesc& pd) {
  const std::string impl = pd.impl_info_str();
  return impl.rfind("ref", 0) != 0;
}

// oneDNN reports its own failures as dnnl::error; the ops' callers expect oar errors.
template <typename F>
void Guard(const char* what, F f) {
  try {
    f();
  } catch (const dnnl::error& e) {
    throw errors::Fatal("oneDNN ", what, " failed: ", e.what());
  }
}

}  // namespace oar::onednn
