// Elementwise binary kernels with broadcasting: arithmetic, comparisons, where.
#include <cmath>
#include <type_traits>

#include "oar/kernels/funcs/elementwise.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {

using funcs::BinaryElementwise;

#define OAR_BINARY_KERNEL(Name, expr)                                                             \
  template <typename T>                                                                           \
  void Name(const DeviceContext&, const DenseTensor& x, const DenseTensor& y, DenseTensor* out) { \
    BinaryElementwise<T, T, T>(x, y, out, [](auto a, auto b) { return expr; });                   \
  }

OAR_BINARY_KERNEL(AddKernel, a + b)
OAR_BINARY_KERNEL(SubtractKernel, a - b)
OAR_BINARY_KERNEL(MultiplyKernel, a* b)
OAR_BINARY_KERNEL(DivideKernel, a / b)
OAR_BINARY_KERNEL(MaximumKernel, (a > b || a != a) ? a : b)
OAR_BINARY_KERNEL(MinimumKernel, (a < b || a != a) ? a : b)
#undef OAR_BINARY_KERNEL

template <typename T>
void ElementwisePowKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& y,
                          DenseTensor* out) {
  BinaryElementwise<T, T, T>(
      x, y, out,
      [](auto a, auto b) {
        using C = decltype(a);
        if constexpr (std::is_integral_v<C>) {
          // Exact integer power; negative exponents follow C truncation (0 unless |a| == 1).
          if (b < 0) return C(a == 1 ? 1 : a == -1 ? ((-b) % 2 ? -1 : 1) : 0);
          C r = 1, base = a;
          for (C e = b; e > 0; e >>= 1, base *= base) {
            if (e & 1) r *= base;
          }
          return r;
        } else {
          return static_cast<C>(std::pow(a, b));
        }
      },
      8);
}

#define OAR_COMPARE_KERNEL(Name, expr)                                                            \
  template <typename T>                                                                           \
  void Name(const DeviceContext&, const DenseTensor& x, const DenseTensor& y, DenseTensor* out) { \
    BinaryElementwise<bool, T, T>(x, y, out, [](auto a, auto b) -> bool { return expr; });        \
  }
OAR_COMPARE_KERNEL(EqualKernel, a == b)
OAR_COMPARE_KERNEL(NotEqualKernel, a != b)
OAR_COMPARE_KERNEL(LessThanKernel, a < b)
OAR_COMPARE_KERNEL(LessEqualKernel, a <= b)
#undef OAR_COMPARE_KERNEL

// x > y is y < x and x >= y is y <= x, NaN included (every comparison with NaN is false):
// the same loops with the operands swapped. Each comparison is a loop instance per dtype
// and kind of operand, and these files' instances are what the build spends its time on.
template <typename T>
void GreaterThanKernel(const DeviceContext& ctx, const DenseTensor& x, const DenseTensor& y,
                       DenseTensor* out) {
  LessThanKernel<T>(ctx, y, x, out);
}
template <typename T>
void GreaterEqualKernel(const DeviceContext& ctx, const DenseTensor& x, const DenseTensor& y,
                        DenseTensor* out) {
  LessEqualKernel<T>(ctx, y, x, out);
}

template <typename T>
void WhereKernel(const DeviceContext&, const DenseTensor& condition, const DenseTensor& x,
                 const DenseTensor& y, DenseTensor* out) {
  funcs::TernaryElementwise<T, bool, T, T>(condition, x, y, out,
                                           [](bool c, auto a, auto b) { return c ? a : b; });
}

OAR_REGISTER_KERNEL(add, CPU, Any, AddKernel, OAR_NUMERIC_TYPES, bool);
OAR_REGISTER_KERNEL(subtract, CPU, Any, SubtractKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(multiply, CPU, Any, MultiplyKernel, OAR_NUMERIC_TYPES, bool);
OAR_REGISTER_KERNEL(divide, CPU, Any, DivideKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(maximum, CPU, Any, MaximumKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(minimum, CPU, Any, MinimumKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(elementwise_pow, CPU, Any, ElementwisePowKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(equal, CPU, Any, EqualKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(not_equal, CPU, Any, NotEqualKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(less_than, CPU, Any, LessThanKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(less_equal, CPU, Any, LessEqualKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(greater_than, CPU, Any, GreaterThanKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(greater_equal, CPU, Any, GreaterEqualKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(where, CPU, Any, WhereKernel, OAR_ALL_TYPES);
// Complex: arithmetic, == and != (complex numbers have no order: the ordering
// comparisons, maximum and minimum have no complex kernel, as in Paddle).
OAR_REGISTER_KERNEL(add, CPU, Any, AddKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(subtract, CPU, Any, SubtractKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(multiply, CPU, Any, MultiplyKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(divide, CPU, Any, DivideKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(elementwise_pow, CPU, Any, ElementwisePowKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(equal, CPU, Any, EqualKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(not_equal, CPU, Any, NotEqualKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(where, CPU, Any, WhereKernel, OAR_COMPLEX_TYPES);

}  // namespace oar
