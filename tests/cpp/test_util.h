// Helpers shared by the C++ tests.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
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
// A file path in the test temporary directory that no other test process uses:
// ctest runs the suite once per ISA at the same time, so fixed names collide.
std::string TempPath(const std::string& name);
// n deterministic values in [-1, 1) from `seed` (a linear congruential sequence).
std::vector<double> Random(int64_t n, uint32_t seed);

// How the tests expect an oar::Error: Catch, and nothing else (no EXPECT_THROW
// or try/catch; EXPECT_THROW stays only for exceptions that are not oar::Error).
//
// Catch(f): the Error f throws (a failed test if none is), for further checks.
// Catch(f, code, {parts...}): also expects its code and each part in its message.
// ErrorOf(f): the Error f throws, if any, where failing is one allowed outcome
// of several (a race), not the expected one.
template <typename F>
std::optional<Error> ErrorOf(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  return std::nullopt;
}
template <typename F>
Error Catch(F&& f) {
  if (std::optional<Error> e = ErrorOf(std::forward<F>(f))) return *e;
  ADD_FAILURE() << "expected an oar::Error";
  return Error(ErrorCode::kFatal, "<nothing thrown>");
}
template <typename F>
Error Catch(F&& f, ErrorCode code, std::initializer_list<std::string_view> parts = {}) {
  const Error e = Catch(std::forward<F>(f));
  EXPECT_STREQ(ErrorCodeName(e.code()), ErrorCodeName(code)) << e.what();
  for (std::string_view p : parts) {
    EXPECT_NE(e.message().find(p), std::string::npos) << "'" << p << "' not in: " << e.what();
  }
  return e;
}

inline bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace oar::testing
