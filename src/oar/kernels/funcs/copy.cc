#include "oar/kernels/funcs/copy.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "oar/kernels/funcs/elementwise.h"

namespace oar::funcs {

// The cache the kernel lists as cpu0's level 3 (one CCX's on AMD), else its level 2,
// else 32 MB. Not sysconf(_SC_LEVEL3_CACHE_SIZE): glibc reported 320 MB for an EPYC
// whose L3 is 32 MB per CCX.
int64_t LastLevelCacheBytes() {
  static const int64_t bytes = [] {
    for (const char* index : {"index3", "index2"}) {
      const std::string path = std::string("/sys/devices/system/cpu/cpu0/cache/") + index + "/size";
      if (std::FILE* f = std::fopen(path.c_str(), "r")) {
        long long v = 0;
        char unit = 0;
        const int got = std::fscanf(f, "%lld%c", &v, &unit);
        std::fclose(f);
        if (got >= 1 && v > 0) {
          return static_cast<int64_t>(v) * (unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : 1);
        }
      }
    }
    return int64_t{32} << 20;
  }();
  return bytes;
}

namespace {
// The float8 dtypes (storage only, core/float8.h) and every other dtype.
template <typename Fn>
void VisitWithFloat8(DType t, Fn&& fn) {
  if (t == DType::kFloat8E4M3FN) return fn.template operator()<float8_e4m3fn>();
  if (t == DType::kFloat8E5M2) return fn.template operator()<float8_e5m2>();
  VisitDTypeWithComplex(t, fn);
}

// A cast to or from a float8 dtype goes through float: the only computation these
// dtypes have. Between equal dtypes the bytes are copied (NaN patterns kept).
void CopyFloat8(const DenseTensor& src, DenseTensor* dst) {
  if (src.dtype() == dst->dtype()) {
    UnaryElementwise<uint8_t, uint8_t>(src, dst, [](auto v) { return v; });
    return;
  }
  VisitWithFloat8(dst->dtype(), [&]<typename O>() {
    VisitWithFloat8(src.dtype(), [&]<typename I>() {
      if constexpr (std::is_same_v<O, bool>) {
        UnaryElementwise<O, I>(src, dst, [](auto v) { return v != decltype(v)(0); });
      } else if constexpr (is_complex_v<I>) {  // to float8: the real part
        UnaryElementwise<O, I>(src, dst, [](auto v) { return static_cast<float>(v.real()); });
      } else if constexpr (is_complex_v<O>) {
        using R = typename O::value_type;
        UnaryElementwise<O, I>(src, dst, [](auto v) { return O(static_cast<R>(v)); });
      } else {
        UnaryElementwise<O, I>(src, dst, [](auto v) { return static_cast<compute_t<O>>(v); });
      }
    });
  });
}
}  // namespace

void CopyInto(const DenseTensor& src, DenseTensor* dst) {
  OAR_ENFORCE(
      src.dims() == dst->dims(),
      errors::InvalidArgument("copy: source shape ", DimsToString(src.dims()),
                              " differs from destination shape ", DimsToString(dst->dims())));
  if (IsFloat8(src.dtype()) || IsFloat8(dst->dtype())) return CopyFloat8(src, dst);
  VisitDTypeWithComplex(dst->dtype(), [&]<typename O>() {
    VisitDTypeWithComplex(src.dtype(), [&]<typename I>() {
      if constexpr (std::is_same_v<O, bool>) {
        UnaryElementwise<O, I>(src, dst, [](auto v) { return v != decltype(v)(0); });
      } else if constexpr (is_complex_v<I> && !is_complex_v<O>) {
        // complex -> real keeps the real part (Paddle's cast, numpy's astype).
        UnaryElementwise<O, I>(src, dst,
                               [](auto v) { return static_cast<compute_t<O>>(v.real()); });
      } else if constexpr (is_complex_v<O> && !is_complex_v<I>) {
        using R = typename O::value_type;
        UnaryElementwise<O, I>(src, dst,
                               [](auto v) { return O(static_cast<R>(static_cast<double>(v))); });
      } else {
        UnaryElementwise<O, I>(src, dst, [](auto v) { return static_cast<compute_t<O>>(v); });
      }
    });
  });
}

DenseTensor Clone(const DenseTensor& x) {
  DenseTensor out(x.dtype(), x.dims());
  out.AllocateFrom(x.place());
  CopyInto(x, &out);
  return out;
}

DenseTensor Contiguous(const DenseTensor& x) { return x.is_contiguous() ? x : Clone(x); }

DenseTensor CastTo(const DenseTensor& x, DType dtype) {
  if (x.dtype() == dtype) return x;
  DenseTensor out(dtype, x.dims());
  out.AllocateFrom(x.place());
  CopyInto(x, &out);
  return out;
}

namespace {
template <typename T>
T ScalarAs(const Scalar& s, DType dtype) {
  if constexpr (is_complex_v<T>) {
    using R = typename T::value_type;
    return T(static_cast<R>(s.to_double()), static_cast<R>(s.imag()));
  } else if constexpr (std::is_same_v<T, bool>) {
    return s.to_bool();
  } else if constexpr (std::is_integral_v<T>) {
    constexpr auto lo = std::numeric_limits<T>::lowest();
    constexpr auto hi = std::numeric_limits<T>::max();
    OAR_ENFORCE(s.imag() == 0, errors::InvalidArgument("the complex value ", s,
                                                       " cannot be represented in ", dtype));
    if (s.is_floating()) {
      const double d = s.to_double();
      OAR_ENFORCE(std::isfinite(d) && d >= static_cast<double>(lo) && d <= static_cast<double>(hi),
                  errors::InvalidArgument("the value ", s, " cannot be represented in ", dtype));
      return static_cast<T>(d);
    }
    const int64_t i = s.to_int64();
    OAR_ENFORCE(i >= lo && i <= hi,
                errors::InvalidArgument("the value ", s, " cannot be represented in ", dtype));
    return static_cast<T>(i);
  } else {
    OAR_ENFORCE(s.imag() == 0, errors::InvalidArgument("the complex value ", s,
                                                       " cannot be represented in ", dtype));
    return static_cast<T>(static_cast<compute_t<T>>(s.to_double()));
  }
}
}  // namespace

void Fill(DenseTensor* t, const Scalar& value) {
  VisitDTypeWithComplex(t->dtype(), [&]<typename T>() {
    const T v = ScalarAs<T>(value, t->dtype());
    T* p = static_cast<T*>(t->AllocateFrom(t->place()));
    if (t->is_contiguous()) {
      const int64_t n = t->numel();
      ParallelFor(0, n, 1, [&](int64_t b, int64_t e) {
        // A local copy: through the captured reference, every store to p
        // might change v, and the float16/bfloat16 loop stayed scalar (a 1.6M
        // element bfloat16 fill took 6x float32's time).
        const T fill = v;
        for (int64_t i = b; i < e; ++i) p[i] = fill;
      });
      return;
    }
    LoopOperands<1> ops{{reinterpret_cast<char*>(p)}, {ByteStrides(*t, t->dims())}};
    StridedLoop<1>(
        t->dims(), ops, 1,
        [&](int64_t n, const std::array<char*, 1>& ptr, const std::array<int64_t, 1>& s) {
          char* c = ptr[0];
          for (int64_t i = 0; i < n; ++i, c += s[0]) *reinterpret_cast<T*>(c) = v;
        });
  });
}

}  // namespace oar::funcs
