// The kernel registry keyed by (backend, layout, dtype), with phi's
// SelectKernelOrThrowError semantics: a missing kernel is a clear error, and a
// backend without a kernel falls back to the CPU one.
//
// Kernels register at static-initialisation time with OAR_REGISTER_KERNEL and
// the registry is read-only afterwards. The generated API resolves the table of
// an op once (a function-local static), so a call never looks a name up.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <typeinfo>
#include <unordered_map>

#include "oar/core/errors.h"
#include "oar/kernels/context.h"
#include "oar/kernels/kernel_key.h"

namespace oar {

class Kernel {
 public:
  Kernel() = default;
  template <typename Fn>
  explicit Kernel(Fn* fn) : fn_(reinterpret_cast<void (*)()>(fn)), signature_(&typeid(Fn*)) {}

  bool IsValid() const { return fn_ != nullptr; }
  // The kernel as a function pointer of type Fn; the signature is checked.
  template <typename Fn>
  Fn GetVariadicKernelFn() const {
    if (*signature_ != typeid(Fn)) [[unlikely]] {
      ThrowSignatureMismatch(typeid(Fn));
    }
    return reinterpret_cast<Fn>(fn_);
  }

 private:
  [[noreturn]] void ThrowSignatureMismatch(const std::type_info& wanted) const;
  void (*fn_)() = nullptr;
  const std::type_info* signature_ = nullptr;
};

struct KernelResult {
  const Kernel& kernel;
  bool has_fallback_cpu;
  // The backend whose device context runs the kernel selected for `requested`.
  Backend RunsOn(Backend requested) const { return has_fallback_cpu ? Backend::kCPU : requested; }
};

// All kernels of one op name, indexed directly by the key.
class KernelTable {
 public:
  explicit KernelTable(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }
  void Set(const KernelKey& key, Kernel kernel);
  const Kernel* Find(const KernelKey& key) const;
  // The dtypes with a CPU kernel (in any layout), for error messages and tests.
  std::string RegisteredDTypes() const;
  bool HasDType(DType dtype) const;
  // Some dtype has a CPU kernel for tensors of this layout.
  bool HasLayout(DataLayout layout) const;

  // The kernel of `key`, or the CPU one for a backend without it; a clear
  // error when there is neither. The exact key inline (every op asks once),
  // the fallbacks and errors out of line.
  KernelResult SelectKernelOrThrowError(const KernelKey& key) const {
    if (key.backend != Backend::kUndefined && key.dtype != DType::kUndefined) [[likely]] {
      const Kernel& k = kernels_[Index(key)];
      if (k.IsValid()) [[likely]]
        return {k, false};
    }
    return SelectFallbackOrThrowError(key);
  }

 private:
  KernelResult SelectFallbackOrThrowError(const KernelKey& key) const;
  static size_t Index(const KernelKey& k) {
    return (static_cast<size_t>(k.backend) * kNumLayouts + static_cast<size_t>(k.layout)) *
               kNumDTypes +
           static_cast<size_t>(k.dtype);
  }
  std::string name_;
  std::array<Kernel, kNumBackends * kNumLayouts * kNumDTypes> kernels_{};
};

class KernelFactory {
 public:
  static KernelFactory& Instance();

  void Register(const std::string& name, const KernelKey& key, Kernel kernel);
  // The table of `name`; throws NotFound if no kernel of that name exists.
  const KernelTable& Table(const std::string& name) const;
  bool HasKernel(const std::string& name) const { return tables_.count(name) != 0; }
  KernelResult SelectKernelOrThrowError(const std::string& name, const KernelKey& key) const {
    return Table(name).SelectKernelOrThrowError(key);
  }

 private:
  KernelFactory() = default;
  std::unordered_map<std::string, std::unique_ptr<KernelTable>> tables_;
};

namespace detail {
template <typename... Ts, typename Maker>
int RegisterKernelTypes(const char* name, Backend backend, DataLayout layout, Maker maker) {
  (KernelFactory::Instance().Register(name, KernelKey{backend, layout, dtype_of_v<Ts>},
                                      Kernel(maker.template operator()<Ts>())),
   ...);
  return 0;
}
}  // namespace detail

}  // namespace oar

#define OAR_KERNEL_CONCAT_INNER_(a, b) a##b
#define OAR_KERNEL_CONCAT_(a, b) OAR_KERNEL_CONCAT_INNER_(a, b)

// OAR_REGISTER_KERNEL(add, CPU, Any, AddKernel, float, double) registers
// AddKernel<float> and AddKernel<double> as kernel "add" on the CPU.
#define OAR_REGISTER_KERNEL(name, backend, layout, func, ...)                                \
  [[maybe_unused]] static const int OAR_KERNEL_CONCAT_(oar_kernel_reg_##name##_, __LINE__) = \
      ::oar::detail::RegisterKernelTypes<__VA_ARGS__>(#name, ::oar::Backend::k##backend,     \
                                                      ::oar::DataLayout::k##layout,          \
                                                      []<typename T>() { return &func<T>; })

// The dtype lists kernels are commonly registered for.
#define OAR_FLOAT_TYPES float, double, ::oar::float16, ::oar::bfloat16
#define OAR_INT_TYPES int32_t, int64_t, int16_t, int8_t, uint8_t
#define OAR_NUMERIC_TYPES OAR_FLOAT_TYPES, OAR_INT_TYPES
// std::complex<float>, std::complex<double>: registered per op where the op has a
// complex meaning (Paddle's complex kernels), never through the lists above.
#define OAR_COMPLEX_TYPES ::oar::complex64, ::oar::complex128
#define OAR_ALL_TYPES OAR_NUMERIC_TYPES, bool
// The storage-only float8 dtypes (core/float8.h): registered for the kernels that
// only move elements (views, concat, copies) and for cast.
#define OAR_FLOAT8_TYPES ::oar::float8_e4m3fn, ::oar::float8_e5m2
