// Helpers shared by the C++ tests.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "oar/oar.h"

namespace oar::testing {

// All values of t (any dtype, any strides) as doubles, in row-major order.
std::vector<double> Values(const Tensor& t);
// A float64 (or dtype) tensor with the given values and shape.
Tensor Make(const std::vector<double>& values, const std::vector<int64_t>& shape,
            DType dtype = DType::kFloat64, bool stop_gradient = true);
// Asserts t has `shape` and values close to `expected`.
void ExpectClose(const Tensor& t, const std::vector<double>& expected,
                 const std::vector<int64_t>& shape, double rtol = 1e-6, double atol = 1e-8);
// A 1-D float32 leaf that requires grad.
inline Tensor Leaf(const std::vector<double>& v) {
  return Make(v, {static_cast<int64_t>(v.size())}, DType::kFloat32, false);
}
int64_t BytesInUse();

// The Error thrown by f (a failed test if none is).
template <typename F>
Error Catch(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected an oar::Error";
  return Error(ErrorCode::kFatal, "<nothing thrown>");
}

inline bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace oar::testing
