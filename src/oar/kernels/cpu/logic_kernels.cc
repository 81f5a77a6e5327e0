// Kernels of src/oar/ops/logic.yaml: value tests (isnan, isinf, isfinite,
// isclose), nan_to_num, logical and bitwise ops, all/any, allclose, equal_all,
// masked_fill and masked_select.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>
#include <vector>

#include "oar/core/errors.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/funcs/elementwise.h"
#include "oar/kernels/funcs/strided_loop.h"
#include "oar/kernels/infer_meta.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

using funcs::BinaryElementwise;
using funcs::UnaryElementwise;

template <typename C>
constexpr bool kIsFloat = std::is_floating_point_v<C>;

// A complex number is NaN if either part is, infinite if either part is (even beside
// a NaN), finite if both parts are: PyTorch's and Paddle's tests.
template <typename T>
void IsnanKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  UnaryElementwise<bool, T>(x, out, [](auto a) -> bool {
    if constexpr (kIsFloat<decltype(a)>) return std::isnan(a);
    if constexpr (is_complex_v<decltype(a)>) return std::isnan(a.real()) || std::isnan(a.imag());
    return false;
  });
}
template <typename T>
void IsinfKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  UnaryElementwise<bool, T>(x, out, [](auto a) -> bool {
    if constexpr (kIsFloat<decltype(a)>) return std::isinf(a);
    if constexpr (is_complex_v<decltype(a)>) return std::isinf(a.real()) || std::isinf(a.imag());
    return false;
  });
}
template <typename T>
void IsfiniteKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  UnaryElementwise<bool, T>(x, out, [](auto a) -> bool {
    if constexpr (kIsFloat<decltype(a)>) return std::isfinite(a);
    if constexpr (is_complex_v<decltype(a)>) {
      return std::isfinite(a.real()) && std::isfinite(a.imag());
    }
    return true;
  });
}

// The replacements are taken as given, as PyTorch and Paddle do (posinf=inf keeps
// +inf); the Python wrapper passes the dtype's largest (lowest) finite value for
// posinf=None (neginf=None).
template <typename T>
void NanToNumKernel(const DeviceContext&, const DenseTensor& x, double nan, double posinf,
                    double neginf, DenseTensor* out) {
  using C = compute_t<T>;
  if constexpr (!kIsFloat<C>) {
    UnaryElementwise<T, T>(x, out, [](C a) { return a; });  // integers have none of them
  } else {
    const C n = static_cast<C>(nan);
    const C p = static_cast<C>(posinf);
    const C m = static_cast<C>(neginf);
    UnaryElementwise<T, T>(x, out, [=](C a) {
      if (std::isnan(a)) return n;
      if (std::isinf(a)) return a > 0 ? p : m;
      return a;
    });
  }
}

#define OAR_LOGICAL_KERNEL(Name, expr)                                                            \
  template <typename T>                                                                           \
  void Name(const DeviceContext&, const DenseTensor& x, const DenseTensor& y, DenseTensor* out) { \
    BinaryElementwise<bool, T, T>(x, y, out, [](auto a, auto b) -> bool {                         \
      const bool p = a != decltype(a)(0), q = b != decltype(b)(0);                                \
      return expr;                                                                                \
    });                                                                                           \
  }
OAR_LOGICAL_KERNEL(LogicalAndKernel, p&& q)
OAR_LOGICAL_KERNEL(LogicalOrKernel, p || q)
OAR_LOGICAL_KERNEL(LogicalXorKernel, p != q)
#undef OAR_LOGICAL_KERNEL

template <typename T>
void LogicalNotKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  UnaryElementwise<bool, T>(x, out, [](auto a) -> bool { return a == decltype(a)(0); });
}

#define OAR_BITWISE_KERNEL(Name, op)                                                              \
  template <typename T>                                                                           \
  void Name(const DeviceContext&, const DenseTensor& x, const DenseTensor& y, DenseTensor* out) { \
    BinaryElementwise<T, T, T>(x, y, out,                                                         \
                               [](auto a, auto b) { return static_cast<decltype(a)>(a op b); });  \
  }
OAR_BITWISE_KERNEL(BitwiseAndKernel, &)
OAR_BITWISE_KERNEL(BitwiseOrKernel, |)
OAR_BITWISE_KERNEL(BitwiseXorKernel, ^)
#undef OAR_BITWISE_KERNEL

template <typename T>
void BitwiseNotKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  UnaryElementwise<T, T>(x, out, [](auto a) {
    if constexpr (std::is_same_v<decltype(a), bool>) {
      return !a;  // ~true would be -2, which is true again
    } else {
      return static_cast<decltype(a)>(~a);
    }
  });
}

// Calls f(offset of x, offset of out) for every element of x in row-major
// order, with `out_strides` (in elements, aligned to x's dims) mapping x's
// index to the output's. Sequential: its users depend on the order or
// accumulate into shared outputs.
template <typename F>
void ForEachElement(const DDim& dims, const DDim& x_strides, const DDim& out_strides, F f) {
  const size_t rank = dims.size();
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  if (n == 0) return;
  std::vector<int64_t> idx(rank, 0);
  int64_t xo = 0, oo = 0;
  for (int64_t k = 0; k < n; ++k) {
    f(xo, oo);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < dims[d]) {
        xo += x_strides[d];
        oo += out_strides[d];
        break;
      }
      xo -= x_strides[d] * (dims[d] - 1);
      oo -= out_strides[d] * (dims[d] - 1);
      idx[d] = 0;
    }
  }
}

// all/any: the output starts at the identity (true for all, false for any,
// also the answer over no elements) and every element of x folds into the
// output element its index maps to; reduced axes map with stride 0.
template <typename T, bool kAll>
void ReduceBool(const DenseTensor& x, const std::vector<int64_t>& axis, DenseTensor* out) {
  bool* o = static_cast<bool*>(out->AllocateFrom(x.place()));
  std::fill(o, o + out->numel(), kAll);
  if (x.numel() == 0) return;  // the identity is the answer (and x may have no memory)
  const auto axes = NormalizeReduceAxes(axis, x.ndim());
  const DDim& dims = x.dims();
  DDim out_strides(dims.size(), 0);
  int64_t s = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    const bool reduced =
        axes.empty() || std::find(axes.begin(), axes.end(), int64_t(d)) != axes.end();
    if (!reduced) {
      out_strides[d] = s;
      s *= dims[d];
    }
  }
  const T* p = static_cast<const T*>(x.data());
  ForEachElement(dims, x.strides(), out_strides, [&](int64_t xo, int64_t oo) {
    const bool v = static_cast<compute_t<T>>(p[xo]) != compute_t<T>(0);
    if constexpr (kAll) {
      o[oo] = o[oo] && v;
    } else {
      o[oo] = o[oo] || v;
    }
  });
}

template <typename T>
void AllKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>& axis, bool,
               DenseTensor* out) {
  ReduceBool<T, true>(x, axis, out);
}
template <typename T>
void AnyKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>& axis, bool,
               DenseTensor* out) {
  ReduceBool<T, false>(x, axis, out);
}

// |a - b| <= atol + rtol * |b|; equal values (infinities included) are close,
// an infinity is close to nothing else, NaN only to NaN with equal_nan.
template <typename T>
auto CloseFn(double rtol, double atol, bool equal_nan) {
  return [=](auto a, auto b) -> bool {
    if (a == b) return true;
    if constexpr (kIsFloat<decltype(a)>) {
      if (std::isnan(a) || std::isnan(b)) return equal_nan && std::isnan(a) && std::isnan(b);
      if (std::isinf(a) || std::isinf(b)) return false;
    }
    const double da = static_cast<double>(a), db = static_cast<double>(b);
    return std::fabs(da - db) <= atol + rtol * std::fabs(db);
  };
}

template <typename T>
void IscloseKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& y, double rtol,
                   double atol, bool equal_nan, DenseTensor* out) {
  BinaryElementwise<bool, T, T>(x, y, out, CloseFn<T>(rtol, atol, equal_nan), 2);
}

// The elementwise result into a temporary, then whether all of it is true.
template <typename T, typename F>
bool AllOf(const DenseTensor& x, const DenseTensor& y, F f) {
  DenseTensor tmp(DType::kBool, BroadcastShape(x.dims(), y.dims()));
  BinaryElementwise<bool, T, T>(x, y, &tmp, f);
  const bool* p = static_cast<const bool*>(tmp.data());
  return std::all_of(p, p + tmp.numel(), [](bool b) { return b; });
}

template <typename T>
void AllcloseKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& y, double rtol,
                    double atol, bool equal_nan, DenseTensor* out) {
  const bool r = AllOf<T>(x, y, CloseFn<T>(rtol, atol, equal_nan));
  *static_cast<bool*>(out->AllocateFrom(x.place())) = r;
}

template <typename T>
void EqualAllKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& y,
                    DenseTensor* out) {
  const bool r =
      x.dims() == y.dims() && AllOf<T>(x, y, [](auto a, auto b) -> bool { return a == b; });
  *static_cast<bool*>(out->AllocateFrom(x.place())) = r;
}

template <typename T>
void MaskedFillKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& mask,
                      const DenseTensor& value, DenseTensor* out) {
  funcs::TernaryElementwise<T, T, bool, T>(x, mask, value, out,
                                           [](auto a, bool m, auto v) { return m ? v : a; });
}

// The broadcast shape of x and mask with each one's element strides in it.
struct MaskedLayout {
  DDim dims, x_strides, mask_strides;
};
MaskedLayout LayoutOf(const DenseTensor& x, const DenseTensor& mask) {
  MaskedLayout l;
  l.dims = BroadcastShape(x.dims(), mask.dims(), "x", "mask");
  l.x_strides = funcs::BroadcastStrides(x, l.dims);
  l.mask_strides = funcs::BroadcastStrides(mask, l.dims);
  return l;
}

template <typename T>
void MaskedSelectKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& mask,
                        DenseTensor* out) {
  const MaskedLayout l = LayoutOf(x, mask);
  if (Product(l.dims) == 0) {
    out->Resize(DDim{0});
    out->AllocateFrom(x.place());
    return;
  }
  const bool* m = static_cast<const bool*>(mask.data());
  int64_t count = 0;
  ForEachElement(l.dims, l.mask_strides, l.mask_strides,
                 [&](int64_t mo, int64_t) { count += m[mo] ? 1 : 0; });
  out->Resize(DDim{count});
  T* o = static_cast<T*>(out->AllocateFrom(x.place()));
  const T* p = static_cast<const T*>(x.data());
  int64_t k = 0;
  ForEachElement(l.dims, l.x_strides, l.mask_strides, [&](int64_t xo, int64_t mo) {
    if (m[mo]) o[k++] = p[xo];
  });
}

template <typename T>
void MaskedSelectGradKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& mask,
                            const DenseTensor& grad_out, DenseTensor* x_grad) {
  const MaskedLayout l = LayoutOf(x, mask);
  const bool* m = Product(l.dims) ? static_cast<const bool*>(mask.data()) : nullptr;
  int64_t count = 0;
  ForEachElement(l.dims, l.mask_strides, l.mask_strides,
                 [&](int64_t mo, int64_t) { count += m[mo] ? 1 : 0; });
  OAR_ENFORCE(count == grad_out.numel(),
              errors::InvalidArgument("argument 'grad_out' has ", grad_out.numel(),
                                      " elements but 'mask' selects ", count));
  T* o = static_cast<T*>(x_grad->AllocateFrom(grad_out.place()));
  const int64_t n = x_grad->numel();
  std::fill(o, o + n, T(0));
  if (count == 0) return;
  const DenseTensor g = funcs::Contiguous(grad_out);
  const T* gp = static_cast<const T*>(g.data());
  DDim out_strides(l.dims.size(), 0);
  int64_t s = 1;
  for (size_t d = l.dims.size(); d-- > 0;) {
    out_strides[d] = s;
    s *= l.dims[d];
  }
  int64_t k = 0;
  ForEachElement(l.dims, l.mask_strides, out_strides, [&](int64_t mo, int64_t oo) {
    if (m[mo]) o[oo] = gp[k++];
  });
}

}  // namespace

OAR_REGISTER_KERNEL(isnan, CPU, Any, IsnanKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(isinf, CPU, Any, IsinfKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(isfinite, CPU, Any, IsfiniteKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(nan_to_num, CPU, Any, NanToNumKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(logical_and, CPU, Any, LogicalAndKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(logical_or, CPU, Any, LogicalOrKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(logical_xor, CPU, Any, LogicalXorKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(logical_not, CPU, Any, LogicalNotKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(bitwise_and, CPU, Any, BitwiseAndKernel, OAR_INT_TYPES, bool);
OAR_REGISTER_KERNEL(bitwise_or, CPU, Any, BitwiseOrKernel, OAR_INT_TYPES, bool);
OAR_REGISTER_KERNEL(bitwise_xor, CPU, Any, BitwiseXorKernel, OAR_INT_TYPES, bool);
OAR_REGISTER_KERNEL(bitwise_not, CPU, Any, BitwiseNotKernel, OAR_INT_TYPES, bool);
OAR_REGISTER_KERNEL(all, CPU, Any, AllKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(any, CPU, Any, AnyKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(isclose, CPU, Any, IscloseKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(allclose, CPU, Any, AllcloseKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(equal_all, CPU, Any, EqualAllKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(masked_fill, CPU, Any, MaskedFillKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(masked_select, CPU, Any, MaskedSelectKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(masked_select_grad, CPU, Any, MaskedSelectGradKernel, OAR_FLOAT_TYPES);
// Complex elements: these kernels only move (or add) elements.
OAR_REGISTER_KERNEL(masked_fill, CPU, Any, MaskedFillKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(masked_select, CPU, Any, MaskedSelectKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(masked_select_grad, CPU, Any, MaskedSelectGradKernel, OAR_COMPLEX_TYPES);
// The value tests, and the logical reading of complex elements (non-zero is true).
OAR_REGISTER_KERNEL(isnan, CPU, Any, IsnanKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(isinf, CPU, Any, IsinfKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(isfinite, CPU, Any, IsfiniteKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(logical_not, CPU, Any, LogicalNotKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(all, CPU, Any, AllKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(any, CPU, Any, AnyKernel, OAR_COMPLEX_TYPES);

}  // namespace oar
