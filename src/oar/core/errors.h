// Typed errors. Every failure a user can cause is one of these, and its message
// names the op, the argument and what was expected versus received
// (docs/design.md §6). The bindings map the type to a Python exception class.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "oar/core/small_vector.h"

namespace oar {

enum class ErrorCode {
  kInvalidArgument,     // a value is wrong (shape, range of an attribute) -> ValueError
  kInvalidType,         // an argument has the wrong type or dtype -> TypeError
  kOutOfRange,          // an index or axis is out of range -> IndexError
  kNotFound,            // a kernel or name is not registered -> RuntimeError
  kUnimplemented,       // a valid request this build does not do -> NotImplementedError
  kPreconditionNotMet,  // the state forbids it (graph freed, tensor modified) -> RuntimeError
  kResourceExhausted,   // out of memory -> MemoryError
  kFatal,               // an internal invariant broke -> RuntimeError
};

const char* ErrorCodeName(ErrorCode code);

class Error : public std::exception {
 public:
  Error(ErrorCode code, std::string msg) : code_(code), msg_(std::move(msg)) {}
  ErrorCode code() const noexcept { return code_; }
  const char* what() const noexcept override { return msg_.c_str(); }
  const std::string& message() const noexcept { return msg_; }
  // Adds context in front ("matmul(): ...") unless the message already starts with it.
  void Prepend(const std::string& prefix);
  void Append(const std::string& suffix) { msg_ += suffix; }

 private:
  ErrorCode code_;
  std::string msg_;
};

namespace detail {

template <typename T>
void StreamOne(std::ostream& os, const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    os << (v ? "true" : "false");
  } else {
    os << v;
  }
}
template <typename T>
void StreamOne(std::ostream& os, const std::vector<T>& v) {
  os << '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) os << ", ";
    StreamOne(os, v[i]);
  }
  os << ']';
}
template <typename T, size_t N>
void StreamOne(std::ostream& os, const SmallVector<T, N>& v) {
  os << '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) os << ", ";
    StreamOne(os, v[i]);
  }
  os << ']';
}

}  // namespace detail

// Concatenates its arguments as text; only used on error and debug paths.
template <typename... Args>
std::string StrCat(const Args&... args) {
  std::ostringstream os;
  (detail::StreamOne(os, args), ...);
  return os.str();
}

namespace errors {
#define OAR_DEFINE_ERROR_FACTORY(Name, Code)               \
  template <typename... Args>                              \
  Error Name(const Args&... args) {                        \
    return Error(ErrorCode::Code, ::oar::StrCat(args...)); \
  }
OAR_DEFINE_ERROR_FACTORY(InvalidArgument, kInvalidArgument)
OAR_DEFINE_ERROR_FACTORY(InvalidType, kInvalidType)
OAR_DEFINE_ERROR_FACTORY(OutOfRange, kOutOfRange)
OAR_DEFINE_ERROR_FACTORY(NotFound, kNotFound)
OAR_DEFINE_ERROR_FACTORY(Unimplemented, kUnimplemented)
OAR_DEFINE_ERROR_FACTORY(PreconditionNotMet, kPreconditionNotMet)
OAR_DEFINE_ERROR_FACTORY(ResourceExhausted, kResourceExhausted)
OAR_DEFINE_ERROR_FACTORY(Fatal, kFatal)
#undef OAR_DEFINE_ERROR_FACTORY
}  // namespace errors

namespace detail {
[[noreturn]] void ThrowWithExpectation(Error err, const std::string& expectation);

template <typename A, typename B>
[[noreturn]] void ThrowCompare(Error err, const char* a_expr, const char* op, const char* b_expr,
                               const A& a, const B& b, const char* negated) {
  ThrowWithExpectation(std::move(err),
                       StrCat("Expected ", a_expr, " ", op, " ", b_expr, ", but received ", a_expr,
                              ":", a, " ", negated, " ", b_expr, ":", b, "."));
}
}  // namespace detail

}  // namespace oar

// OAR_ENFORCE(cond, errors::InvalidArgument("...")): the error expression is
// evaluated only when the check fails.
#define OAR_ENFORCE(cond, err)                                                               \
  do {                                                                                       \
    if (!(cond)) [[unlikely]] {                                                              \
      ::oar::detail::ThrowWithExpectation((err), "Expected " #cond ", but it is not true."); \
    }                                                                                        \
  } while (0)

#define OAR_ENFORCE_CMP_(a, b, op, negated, err)                                \
  do {                                                                          \
    const auto& oar_a_ = (a);                                                   \
    const auto& oar_b_ = (b);                                                   \
    if (!(oar_a_ op oar_b_)) [[unlikely]] {                                     \
      ::oar::detail::ThrowCompare((err), #a, #op, #b, oar_a_, oar_b_, negated); \
    }                                                                           \
  } while (0)

#define OAR_ENFORCE_EQ(a, b, err) OAR_ENFORCE_CMP_(a, b, ==, "!=", err)
#define OAR_ENFORCE_NE(a, b, err) OAR_ENFORCE_CMP_(a, b, !=, "==", err)
#define OAR_ENFORCE_GT(a, b, err) OAR_ENFORCE_CMP_(a, b, >, "<=", err)
#define OAR_ENFORCE_GE(a, b, err) OAR_ENFORCE_CMP_(a, b, >=, "<", err)
#define OAR_ENFORCE_LT(a, b, err) OAR_ENFORCE_CMP_(a, b, <, ">=", err)
#define OAR_ENFORCE_LE(a, b, err) OAR_ENFORCE_CMP_(a, b, <=, ">", err)
#define OAR_ENFORCE_NOT_NULL(p, err) OAR_ENFORCE((p) != nullptr, err)
