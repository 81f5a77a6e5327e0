// Paddle's checks (PD_CHECK, PD_THROW) and dtype dispatch (PD_DISPATCH_*) for
// custom operators. A dispatch macro runs its last argument, a lambda, with
// `data_t` bound to the element type of the given DataType:
//
//   PD_DISPATCH_FLOATING_TYPES(x.dtype(), "relu", ([&] { Relu<data_t>(...); }));
//
// A dtype outside the macro's list, and a failed check, throw oar's typed
// errors, which reach Python as ValueError / TypeError.
#pragma once

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
