#include "oar/core/dense_tensor.h"

#include <algorithm>
#include <sstream>

namespace oar {

std::string DimsToString(const DDim& d) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < d.size(); ++i) os << (i ? ", " : "") << d[i];
  os << ']';
  return os.str();
}

void ThrowStridesOverflow(const DDim& dims) {
  throw errors::InvalidArgument("the shape ", DimsToString(dims),
                                " is too large: its dims other than 0 multiply past 2^63");
}

namespace {
// CheckedProduct for a shape with a zero, a negative dim or a product past int64: the
// error, or 0 for an empty shape whose other dims multiply within int64.
[[gnu::noinline, gnu::cold]] int64_t CheckedProductSlow(const DDim& d) {
  const bool empty = std::find(d.begin(), d.end(), 0) != d.end();  // not Product: 2^64 wraps to 0
  int64_t n = 1;
  for (int64_t v : d) {
    // Shape inference that wraps a size (a sum past int64) would otherwise slip through
    // here whenever another dim is 0.
    if (v < 0) {
      throw errors::InvalidArgument("the shape ", DimsToString(d), " has a negative dimension");
    }
    if (v != 0 && __builtin_mul_overflow(n, v, &n)) {
      if (empty) ThrowStridesOverflow(d);
      throw errors::InvalidArgument("the shape ", DimsToString(d),
                                    " has too many elements (more than 2^63)");
    }
  }
  return empty ? 0 : n;
}
}  // namespace

int64_t CheckedProduct(const DDim& d) {
  int64_t n = 1;
  for (int64_t v : d) {
    if (v <= 0 || __builtin_mul_overflow(n, v, &n)) [[unlikely]]
      return CheckedProductSlow(d);
  }
  return n;
}

bool DenseTensor::is_contiguous() const {
  if (meta_.dims.size() <= 1) {  // the common small case, without a loop
    return meta_.dims.empty() || meta_.strides[0] == 1 || meta_.dims[0] <= 1;
  }
  const int64_t* dims = meta_.dims.data();
  const int64_t* strides = meta_.strides.data();
  int64_t expected = 1;
  for (size_t i = meta_.dims.size(); i-- > 0;) {
    const int64_t d = dims[i];
    if (d == 1) continue;
    if (strides[i] != expected) return numel() == 0;  // no element: any strides will do
    expected *= d;
  }
  return true;
}

void DenseTensor::set_meta(DType dtype, const DDim& dims) {
  meta_.dtype = dtype;
  Resize(dims);
}

namespace {
// The slow path of SetContiguousStrides: a shape with a zero, a negative dim or a
// product past int64. It throws as CheckedProduct does, then as ContiguousStrides does
// for an empty shape whose strides overflow (a temporary is fine off the hot path).
[[gnu::noinline]] int64_t SetContiguousStridesSlow(const DDim& dims, DDim* strides) {
  const int64_t count = CheckedProduct(dims);
  *strides = ContiguousStrides(dims);
  return count;
}

// ContiguousStrides written into `strides` in place, returning the element count
// (CheckedProduct's). Every op's output passes here twice (Resize in shape inference,
// then AllocateFrom); a temporary and its move cost as much as the loop, and one loop
// finds both the strides and the count, as in a shape of positive dims they are the
// same running product.
int64_t SetContiguousStrides(const DDim& dims, DDim* strides) {
  const size_t n = dims.size();
  strides->resize_for_overwrite(n);  // every element is written below
  int64_t s = 1;
  for (size_t i = n; i-- > 0;) {
    (*strides)[i] = s;
    if (dims[i] <= 0 || __builtin_mul_overflow(s, dims[i], &s)) [[unlikely]]
      return SetContiguousStridesSlow(dims, strides);
  }
  return s;
}

[[noreturn, gnu::noinline, gnu::cold]] void ThrowTooManyBytes(const DenseTensorMeta& meta) {
  throw errors::ResourceExhausted("a tensor of shape ", DimsToString(meta.dims), " and dtype ",
                                  meta.dtype, " needs more bytes than memory can address");
}
}  // namespace

// On a shape it rejects, the tensor keeps the new dims (with strides of their size), so
// its meta stays consistent; shape inference then fails the op that asked.
void DenseTensor::Resize(const DDim& dims) {
  meta_.dims = dims;
  SetContiguousStrides(meta_.dims, &meta_.strides);
  meta_.offset = 0;
}

void DenseTensor::ThrowNoMemory() {
  detail::ThrowWithExpectation(
      errors::PreconditionNotMet("the tensor has no memory: it was never computed or its "
                                 "buffer was released (saved without data)"),
      "Expected holder_ != nullptr, but it is not true.");
}

void* DenseTensor::AllocateFrom(const Place& place) {
  OAR_ENFORCE(meta_.valid(), errors::PreconditionNotMet(
                                 "cannot allocate memory for a tensor whose dtype is undefined"));
  const size_t es = SizeOf(meta_.dtype);
  if (!holder_ || holder_->place() != place || holder_->size() < RequiredBytes()) {
    // Fresh memory is always laid out contiguously.
    const int64_t count = SetContiguousStrides(meta_.dims, &meta_.strides);
    meta_.offset = 0;
    size_t bytes;
    if (__builtin_mul_overflow(static_cast<size_t>(count), es, &bytes)) ThrowTooManyBytes(meta_);
    holder_ = AllocateShared(place, bytes);
  }
  return data();
}

size_t DenseTensor::RequiredBytes() const {
  if (numel() == 0) return 0;
  int64_t hi = meta_.offset;
  for (size_t i = 0; i < meta_.dims.size(); ++i) {
    if (meta_.strides[i] > 0) hi += (meta_.dims[i] - 1) * meta_.strides[i];
  }
  return static_cast<size_t>(hi + 1) * SizeOf(meta_.dtype);
}

void DenseTensor::CheckType(DType expected) const {
  OAR_ENFORCE(meta_.dtype == expected,
              errors::InvalidType("the tensor holds ", meta_.dtype, " data but ", expected,
                                  " was requested"));
}

}  // namespace oar
