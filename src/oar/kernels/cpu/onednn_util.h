// What the oneDNN-backed kernels share (conv_onednn.cc, matmul_onednn.cc): the
// CPU engine, the mapping of oar dtypes to oneDNN's, and turning oneDNN's
// exceptions into oar errors. Only kernel files include this header.
#pragma once

#include <dnnl.hpp>

#include <string>

#include "oar/core/dtype.h"
#include "oar/core/errors.h"

namespace oar::onednn {

// One engine for the process: a function-local static (thread-safe
// initialisation, immutable afterwards), as an inline function so every
// translation unit shares the same object.
inline const dnnl::engine& Engine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
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
