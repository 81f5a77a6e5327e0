#include "oar/kernels/kernel_registry.h"

#include <sstream>

namespace oar {

std::ostream& operator<<(std::ostream& os, Backend b) {
  switch (b) {
    case Backend::kCPU:
      return os << "CPU";
    case Backend::kGPU:
      return os << "GPU";
    default:
      return os << "Undefined";
  }
}
std::ostream& operator<<(std::ostream& os, DataLayout l) {
  switch (l) {
    case DataLayout::kAny:
      return os << "ANY_LAYOUT";
    case DataLayout::kNCHW:
      return os << "NCHW";
    case DataLayout::kNHWC:
      return os << "NHWC";
    case DataLayout::kSparseCoo:
      return os << "SPARSE_COO";
    case DataLayout::kSparseCsr:
      return os << "SPARSE_CSR";
  }
  return os;
}
std::ostream& operator<<(std::ostream& os, const KernelKey& k) {
  return os << "(" << k.backend << ", " << k.layout << ", " << k.dtype << ")";
}

namespace detail {
constinit const CPUContext cpu_context;

const DeviceContext& OtherDeviceContext(Backend backend) {
  throw errors::Unimplemented("no device context for backend ", backend,
                              ": this build of oar supports only the CPU");
}
}  // namespace detail

void Kernel::ThrowSignatureMismatch(const std::type_info& wanted) const {
  throw errors::Fatal("kernel called with signature ", wanted.name(),
                      " but registered with signature ", signature_->name());
}

void KernelTable::Set(const KernelKey& key, Kernel kernel) { kernels_[Index(key)] = kernel; }

const Kernel* KernelTable::Find(const KernelKey& key) const {
  if (key.backend == Backend::kUndefined || key.dtype == DType::kUndefined) return nullptr;
  const Kernel& k = kernels_[Index(key)];
  if (k.IsValid()) return &k;
  // A dense layout falls back to the layout-agnostic kernel; a sparse one never
  // does, since a dense kernel cannot read a sparse tensor.
  if (key.layout != DataLayout::kAny && !IsSparseLayout(key.layout)) {
    const Kernel& any = kernels_[Index({key.backend, DataLayout::kAny, key.dtype})];
    if (any.IsValid()) return &any;
  }
  return nullptr;
}

bool KernelTable::HasDType(DType dtype) const {
  for (int l = 0; l < kNumLayouts; ++l) {
    if (Find({Backend::kCPU, static_cast<DataLayout>(l), dtype}) != nullptr) return true;
  }
  return false;
}

bool KernelTable::HasLayout(DataLayout layout) const {
  for (int d = 0; d < kNumDTypes; ++d) {
    if (Find({Backend::kCPU, layout, static_cast<DType>(d)}) != nullptr) return true;
  }
  return false;
}

std::string KernelTable::RegisteredDTypes() const {
  std::ostringstream os;
  bool first = true;
  for (int d = 0; d < kNumDTypes; ++d) {
    if (HasDType(static_cast<DType>(d))) {
      os << (first ? "" : ", ") << static_cast<DType>(d);
      first = false;
    }
  }
  return os.str();
}

KernelResult KernelTable::SelectFallbackOrThrowError(const KernelKey& key) const {
  if (const Kernel* k = Find(key)) return {*k, false};
  if (key.backend != Backend::kCPU) {
    // Paddle's fallback: run the CPU kernel when the backend has none.
    if (const Kernel* k = Find({Backend::kCPU, key.layout, key.dtype})) return {*k, true};
  }
  if (IsSparseLayout(key.layout) && !HasLayout(key.layout)) {
    throw errors::InvalidType("the kernel '", name_, "' takes dense tensors, not ", key.layout,
                              " ones; convert with to_dense() or use the op of oar.sparse");
  }
  if (!IsSparseLayout(key.layout) && !HasLayout(key.layout)) {
    throw errors::InvalidType("the kernel '", name_, "' takes sparse tensors, not dense ones");
  }
  throw errors::InvalidType("the kernel '", name_, "' is not registered for ", key.dtype, " on ",
                            key.backend, " (key ", key, "); it supports: ", RegisteredDTypes());
}

KernelFactory& KernelFactory::Instance() {
  static KernelFactory factory;  // filled during static initialisation, then read-only
  return factory;
}

void KernelFactory::Register(const std::string& name, const KernelKey& key, Kernel kernel) {
  auto& table = tables_[name];
  if (!table) table = std::make_unique<KernelTable>(name);
  table->Set(key, kernel);
}

const KernelTable& KernelFactory::Table(const std::string& name) const {
  auto it = tables_.find(name);
  if (it == tables_.end()) {
    throw errors::NotFound("the kernel '", name, "' is not registered");
  }
  return *it->second;
}

}  // namespace oar
