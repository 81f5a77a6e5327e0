// Paddle's checks (PD_CHECK, PD_THROW) and dtype dispatch (PD_DISPATCH_*) for
// custom operators. A dispatch macro runs its last argument, a lambda, with
// `data_t` bound to the element type of the given DataType:
//
//   PD_DISPATCH_FLOATING_TYPES(x.dtype(), "relu", ([&] { Relu<data_t>(...); }));
//
// A dtype outside the macro's list, and a failed check, throw oar's typed
// errors, which reach Python as ValueError / TypeError.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "oar/core/errors.h"
#include "oar/extension/tensor.h"

// PD_THROW("text", value, ...): always fails, with the arguments concatenated.
#define PD_THROW(...) \
  throw ::oar::errors::InvalidArgument(__VA_ARGS__, " (", __FILE__, ":", __LINE__, ")")

// PD_CHECK(cond) or PD_CHECK(cond, "text", value, ...).
#define PD_CHECK(cond, ...)                                                                 \
  do {                                                                                      \
    if (!(cond)) [[unlikely]] {                                                             \
      throw ::oar::errors::InvalidArgument(                                                 \
          "Expected " #cond ", but it is not satisfied. " __VA_OPT__(, ) __VA_ARGS__, " (", \
          __FILE__, ":", __LINE__, ")");                                                    \
    }                                                                                       \
  } while (0)

// Paddle's error summaries, phi::errors::InvalidArgument("x is %d", 3) and the
// like (also common::errors::...): an oar error of the matching kind whose text
// is the printf-style format with its arguments substituted in order. The
// PADDLE_ENFORCE_* checks below throw them with a hint naming the failed
// comparison, so a kernel written for Paddle reports its own messages.
namespace phi {
using ErrorSummary = ::oar::Error;
namespace errors {
namespace detail {
// Substitutes args for the %-conversions of fmt in order (%% is a percent
// sign); arguments left over are appended, as Paddle's messages tolerate.
std::string FormatMessage(const std::string& fmt, const std::vector<std::string>& args);
template <typename... Args>
std::string Format(const std::string& fmt, const Args&... args) {
  std::vector<std::string> texts;
  texts.reserve(sizeof...(Args));
  (texts.push_back(::oar::StrCat(args)), ...);
  return FormatMessage(fmt, texts);
}
}  // namespace detail

#define PD_PRIVATE_ERROR_KIND(Name, Code)                                      \
  template <typename... Args>                                                  \
  ::oar::Error Name(const std::string& fmt, const Args&... args) {             \
    return ::oar::Error(::oar::ErrorCode::Code, detail::Format(fmt, args...)); \
  }
PD_PRIVATE_ERROR_KIND(InvalidArgument, kInvalidArgument)
PD_PRIVATE_ERROR_KIND(InvalidType, kInvalidType)
PD_PRIVATE_ERROR_KIND(OutOfRange, kOutOfRange)
PD_PRIVATE_ERROR_KIND(NotFound, kNotFound)
PD_PRIVATE_ERROR_KIND(AlreadyExists, kInvalidArgument)
PD_PRIVATE_ERROR_KIND(Unimplemented, kUnimplemented)
PD_PRIVATE_ERROR_KIND(Unavailable, kUnimplemented)
PD_PRIVATE_ERROR_KIND(PreconditionNotMet, kPreconditionNotMet)
PD_PRIVATE_ERROR_KIND(PermissionDenied, kPreconditionNotMet)
PD_PRIVATE_ERROR_KIND(ExecutionTimeout, kPreconditionNotMet)
PD_PRIVATE_ERROR_KIND(ResourceExhausted, kResourceExhausted)
PD_PRIVATE_ERROR_KIND(External, kFatal)
PD_PRIVATE_ERROR_KIND(Fatal, kFatal)
#undef PD_PRIVATE_ERROR_KIND
}  // namespace errors
}  // namespace phi

namespace common {
namespace errors = ::phi::errors;
using ErrorSummary = ::phi::ErrorSummary;
}  // namespace common

namespace paddle::detail {
// Throws `error` with the hint and the location appended.
[[noreturn]] void ThrowEnforce(::oar::Error error, const std::string& hint, const char* file,
                               int line);
// The error an enforce throws: a phi::errors summary as given, or (Paddle's
// older form) a format and its arguments, or nothing, as an InvalidArgument.
inline ::oar::Error ToSummary(::oar::Error e) { return e; }
inline ::oar::Error ToSummary() { return ::oar::Error(::oar::ErrorCode::kInvalidArgument, ""); }
template <typename... Args>
::oar::Error ToSummary(const std::string& fmt, const Args&... args) {
  return ::phi::errors::InvalidArgument(fmt, args...);
}
// Text of a compared value (a bool as true/false, a pointer as its address).
template <typename T>
std::string EnforceText(const T& v) {
  if constexpr (std::is_pointer_v<T> || std::is_null_pointer_v<T>) {
    std::ostringstream os;
    os << static_cast<const void*>(v);
    return os.str();
  } else {
    return ::oar::StrCat(v);
  }
}
}  // namespace paddle::detail

// PADDLE_ENFORCE_EQ(a, b, phi::errors::InvalidArgument("...", ...)) and NE, GT,
// GE, LT, LE: when `a OP b` is false, throws the summary's error with a hint
// showing both values. Each operand is evaluated once.
#define PD_PRIVATE_ENFORCE_CMP(A, B, OP, ...)                                                  \
  do {                                                                                         \
    const auto& __pd_a = (A);                                                                  \
    const auto& __pd_b = (B);                                                                  \
    if (!(__pd_a OP __pd_b)) [[unlikely]] {                                                    \
      ::paddle::detail::ThrowEnforce(::paddle::detail::ToSummary(__VA_ARGS__),                 \
                                     "Expected " #A " " #OP " " #B ", but received " #A ":" +  \
                                         ::paddle::detail::EnforceText(__pd_a) + ", " #B ":" + \
                                         ::paddle::detail::EnforceText(__pd_b) + ".",          \
                                     __FILE__, __LINE__);                                      \
    }                                                                                          \
  } while (0)
#define PADDLE_ENFORCE_EQ(A, B, ...) PD_PRIVATE_ENFORCE_CMP(A, B, ==, __VA_ARGS__)
#define PADDLE_ENFORCE_NE(A, B, ...) PD_PRIVATE_ENFORCE_CMP(A, B, !=, __VA_ARGS__)
#define PADDLE_ENFORCE_GT(A, B, ...) PD_PRIVATE_ENFORCE_CMP(A, B, >, __VA_ARGS__)
#define PADDLE_ENFORCE_GE(A, B, ...) PD_PRIVATE_ENFORCE_CMP(A, B, >=, __VA_ARGS__)
#define PADDLE_ENFORCE_LT(A, B, ...) PD_PRIVATE_ENFORCE_CMP(A, B, <, __VA_ARGS__)
#define PADDLE_ENFORCE_LE(A, B, ...) PD_PRIVATE_ENFORCE_CMP(A, B, <=, __VA_ARGS__)
// PADDLE_ENFORCE_NOT_NULL(p, summary), PADDLE_ENFORCE(cond, summary), PADDLE_THROW(summary).
#define PADDLE_ENFORCE_NOT_NULL(P, ...)                                              \
  do {                                                                               \
    if ((P) == nullptr) [[unlikely]] {                                               \
      ::paddle::detail::ThrowEnforce(::paddle::detail::ToSummary(__VA_ARGS__),       \
                                     #P " should not be null.", __FILE__, __LINE__); \
    }                                                                                \
  } while (0)
#define PADDLE_ENFORCE(COND, ...)                                                                 \
  do {                                                                                            \
    if (!(COND)) [[unlikely]] {                                                                   \
      ::paddle::detail::ThrowEnforce(::paddle::detail::ToSummary(__VA_ARGS__),                    \
                                     "Expected " #COND ", but it is false.", __FILE__, __LINE__); \
    }                                                                                             \
  } while (0)
#define PADDLE_THROW(...) \
  ::paddle::detail::ThrowEnforce(::paddle::detail::ToSummary(__VA_ARGS__), "", __FILE__, __LINE__)

#define PD_PRIVATE_CASE_TYPE(enum_type, type, ...) \
  case enum_type: {                                \
    using data_t = type;                           \
    return __VA_ARGS__();                          \
  }

#define PD_PRIVATE_DISPATCH_UNSUPPORTED(NAME, TYPE)                                \
  default:                                                                         \
    throw ::oar::errors::InvalidType(NAME, " has no kernel for data type `", TYPE, \
                                     "`: its dispatch macro does not cover that type")

#define PD_PRIVATE_FLOATING_CASES(...)                                  \
  PD_PRIVATE_CASE_TYPE(::paddle::DataType::FLOAT32, float, __VA_ARGS__) \
  PD_PRIVATE_CASE_TYPE(::paddle::DataType::FLOAT64, double, __VA_ARGS__)

#define PD_PRIVATE_HALF_CASES(...)                                                  \
  PD_PRIVATE_CASE_TYPE(::paddle::DataType::FLOAT16, ::paddle::float16, __VA_ARGS__) \
  PD_PRIVATE_CASE_TYPE(::paddle::DataType::BFLOAT16, ::paddle::bfloat16, __VA_ARGS__)

#define PD_PRIVATE_INTEGRAL_CASES(...)                                  \
  PD_PRIVATE_CASE_TYPE(::paddle::DataType::INT32, int32_t, __VA_ARGS__) \
  PD_PRIVATE_CASE_TYPE(::paddle::DataType::INT64, int64_t, __VA_ARGS__) \
  PD_PRIVATE_CASE_TYPE(::paddle::DataType::INT8, int8_t, __VA_ARGS__)   \
  PD_PRIVATE_CASE_TYPE(::paddle::DataType::UINT8, uint8_t, __VA_ARGS__) \
  PD_PRIVATE_CASE_TYPE(::paddle::DataType::INT16, int16_t, __VA_ARGS__)

#define PD_PRIVATE_COMPLEX_CASES(...)                                                   \
  PD_PRIVATE_CASE_TYPE(::paddle::DataType::COMPLEX64, ::paddle::complex64, __VA_ARGS__) \
  PD_PRIVATE_CASE_TYPE(::paddle::DataType::COMPLEX128, ::paddle::complex128, __VA_ARGS__)

// One switch over TYPE with the given case lists (each a macro of the above).
#define PD_PRIVATE_DISPATCH(TYPE, NAME, CASES, ...)      \
  [&] {                                                  \
    const ::paddle::DataType __pd_dtype = TYPE;          \
    switch (__pd_dtype) {                                \
      CASES(__VA_ARGS__)                                 \
      PD_PRIVATE_DISPATCH_UNSUPPORTED(NAME, __pd_dtype); \
    }                                                    \
  }()

#define PD_PRIVATE_FLOATING_AND_HALF_CASES(...) \
  PD_PRIVATE_FLOATING_CASES(__VA_ARGS__) PD_PRIVATE_HALF_CASES(__VA_ARGS__)
#define PD_PRIVATE_FLOATING_AND_COMPLEX_CASES(...) \
  PD_PRIVATE_FLOATING_CASES(__VA_ARGS__) PD_PRIVATE_COMPLEX_CASES(__VA_ARGS__)
#define PD_PRIVATE_FLOATING_AND_INTEGRAL_CASES(...) \
  PD_PRIVATE_FLOATING_CASES(__VA_ARGS__) PD_PRIVATE_INTEGRAL_CASES(__VA_ARGS__)
#define PD_PRIVATE_FLOATING_AND_INTEGRAL_AND_COMPLEX_CASES(...) \
  PD_PRIVATE_FLOATING_AND_INTEGRAL_CASES(__VA_ARGS__) PD_PRIVATE_COMPLEX_CASES(__VA_ARGS__)

#define PD_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...) \
  PD_PRIVATE_DISPATCH(TYPE, NAME, PD_PRIVATE_FLOATING_CASES, __VA_ARGS__)
#define PD_DISPATCH_FLOATING_AND_HALF_TYPES(TYPE, NAME, ...) \
  PD_PRIVATE_DISPATCH(TYPE, NAME, PD_PRIVATE_FLOATING_AND_HALF_CASES, __VA_ARGS__)
#define PD_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, ...) \
  PD_PRIVATE_DISPATCH(TYPE, NAME, PD_PRIVATE_INTEGRAL_CASES, __VA_ARGS__)
#define PD_DISPATCH_COMPLEX_TYPES(TYPE, NAME, ...) \
  PD_PRIVATE_DISPATCH(TYPE, NAME, PD_PRIVATE_COMPLEX_CASES, __VA_ARGS__)
#define PD_DISPATCH_FLOATING_AND_COMPLEX_TYPES(TYPE, NAME, ...) \
  PD_PRIVATE_DISPATCH(TYPE, NAME, PD_PRIVATE_FLOATING_AND_COMPLEX_CASES, __VA_ARGS__)
#define PD_DISPATCH_FLOATING_AND_INTEGRAL_TYPES(TYPE, NAME, ...) \
  PD_PRIVATE_DISPATCH(TYPE, NAME, PD_PRIVATE_FLOATING_AND_INTEGRAL_CASES, __VA_ARGS__)
#define PD_DISPATCH_FLOATING_AND_INTEGRAL_AND_COMPLEX_TYPES(TYPE, NAME, ...) \
  PD_PRIVATE_DISPATCH(TYPE, NAME, PD_PRIVATE_FLOATING_AND_INTEGRAL_AND_COMPLEX_CASES, __VA_ARGS__)
