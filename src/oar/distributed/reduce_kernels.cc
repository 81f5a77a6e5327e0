#include "oar/distributed/reduce_kernels.h"

#include <algorithm>
#include <cstdint>

#include "oar/core/errors.h"

namespace oar::distributed {
namespace {

// float16/bfloat16 reduce through float, as their arithmetic does elsewhere.
template <typename T>
using Acc = std::conditional_t<std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>, float, T>;

template <typename T, typename F>
ReduceFn Binary(F f) {
  return [f](void* out, const void* a, const void* b, size_t n) {
    T* o = static_cast<T*>(out);
    const T* x = static_cast<const T*>(a);
    const T* y = static_cast<const T*>(b);
    for (size_t i = 0; i < n; ++i) {
      o[i] = static_cast<T>(f(static_cast<Acc<T>>(x[i]), static_cast<Acc<T>>(y[i])));
    }
  };
}

template <typename T>
ReduceFn Make(ReduceOp op) {
  using A = Acc<T>;
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kAvg:
      return Binary<T>([](A a, A b) { return a + b; });
    case ReduceOp::kProd:
      return Binary<T>([](A a, A b) { return a * b; });
    case ReduceOp::kMax:
      return Binary<T>([](A a, A b) { return std::max(a, b); });
    case ReduceOp::kMin:
      return Binary<T>([](A a, A b) { return std::min(a, b); });
  }
  throw errors::InvalidArgument("all_reduce(): unknown reduce op ", static_cast<int>(op));
}

template <typename T>
void Divide(void* x, size_t n, int d) {
  T* p = static_cast<T*>(x);
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<T>(static_cast<Acc<T>>(p[i]) / d);
}

}  // namespace

void CheckCollectiveDType(DType dtype, const char* api) {
  switch (dtype) {
    case DType::kFloat32:
    case DType::kFloat64:
    case DType::kInt32:
    case DType::kInt64:
    case DType::kFloat16:
    case DType::kBFloat16:
      return;
    default:
      throw errors::InvalidType(api, "(): tensor of dtype ", DTypeName(dtype),
                                " is not supported; expected float16, bfloat16, float32, float64, "
                                "int32 or int64");
  }
}

ReduceFn MakeReduceFn(DType dtype, ReduceOp op) {
  switch (dtype) {
    case DType::kFloat32:
      return Make<float>(op);
    case DType::kFloat64:
      return Make<double>(op);
    case DType::kInt32:
      return Make<int32_t>(op);
    case DType::kInt64:
      return Make<int64_t>(op);
    case DType::kFloat16:
      return Make<float16>(op);
    case DType::kBFloat16:
      return Make<bfloat16>(op);
    default:
      CheckCollectiveDType(dtype, "all_reduce");
  }
  return {};
}

void DivideInPlace(void* x, size_t n, DType dtype, int divisor) {
  switch (dtype) {
    case DType::kFloat32:
      return Divide<float>(x, n, divisor);
    case DType::kFloat64:
      return Divide<double>(x, n, divisor);
    case DType::kInt32:
      return Divide<int32_t>(x, n, divisor);
    case DType::kInt64:
      return Divide<int64_t>(x, n, divisor);
    case DType::kFloat16:
      return Divide<float16>(x, n, divisor);
    case DType::kBFloat16:
      return Divide<bfloat16>(x, n, divisor);
    default:
      CheckCollectiveDType(dtype, "all_reduce");
  }
}

}  // namespace oar::distributed
