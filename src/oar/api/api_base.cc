#include "oar/api/api_base.h"

#include <utility>

#include "oar/kernels/funcs/byte_extent.h"
#include "oar/kernels/funcs/copy.h"

namespace oar::api {

DType PromoteOperands(DType a, DType b) {
  // Paddle promotes floating pairs, and a complex operand with anything.
  if ((IsFloating(a) && IsFloating(b)) || IsComplex(a) || IsComplex(b)) return PromoteTypes(a, b);
  throw errors::InvalidType(
      "the tensor inputs have different dtypes, ", a, " and ", b,
      "; only floating-point and complex dtypes are promoted (Paddle's rule). Cast one "
      "of them explicitly, e.g. x.astype('",
      PromoteTypes(a, b), "')");
}

void ThrowBadInput(const Tensor& t, const char* arg, int position) {
  if (!t.defined()) {
    throw errors::InvalidArgument("argument '", arg, "' (position ", position,
                                  ") must be a Tensor, but got an undefined tensor");
  }
  throw errors::PreconditionNotMet("argument '", arg, "' (position ", position,
                                   ") is a tensor without data (its buffer was released)");
}

PreparedTensor::PreparedTensor(DenseTensor owned)
    : owned_(std::make_unique<DenseTensor>(std::move(owned)).release()), ptr_(owned_.get()) {}

void PreparedTensor::DeleteOwned::operator()(DenseTensor* t) const noexcept {
  std::default_delete<DenseTensor>()(t);
}

PreparedTensor CastForKernel(const DenseTensor& d, DType kernel_dtype) {
  return PreparedTensor(funcs::CastTo(d, kernel_dtype));
}

PreparedSparse<SparseCooTensor> PrepareSparseCoo(const Tensor& t, DType kernel_dtype,
                                                 bool transform) {
  const SparseCooTensor& s = t.sparse_coo();
  if (!transform || s.dtype() == kernel_dtype || kernel_dtype == DType::kUndefined) {
    return PreparedSparse<SparseCooTensor>(&s);
  }
  return PreparedSparse<SparseCooTensor>(SparseCooTensor(
      s.indices(), funcs::CastTo(s.values(), kernel_dtype), s.dims(), s.coalesced()));
}

PreparedSparse<SparseCsrTensor> PrepareSparseCsr(const Tensor& t, DType kernel_dtype,
                                                 bool transform) {
  const SparseCsrTensor& s = t.sparse_csr();
  if (!transform || s.dtype() == kernel_dtype || kernel_dtype == DType::kUndefined) {
    return PreparedSparse<SparseCsrTensor>(&s);
  }
  return PreparedSparse<SparseCsrTensor>(
      SparseCsrTensor(s.crows(), s.cols(), funcs::CastTo(s.values(), kernel_dtype), s.dims()));
}

void ThrowNoSparseKernel(const std::vector<const Tensor*>& inputs, const char* signatures) {
  std::string got;
  for (const Tensor* t : inputs) {
    if (!got.empty()) got += ", ";
    got += t->defined() ? TensorKindName(t->kind()) : "None";
  }
  throw errors::InvalidType("no kernel takes tensors of kinds (", got, "); the kernels take ",
                            signatures);
}

PreparedTensorList PrepareData(const std::vector<Tensor>& ts, DType kernel_dtype, bool transform) {
  PreparedTensorList out;
  out.owned.reserve(ts.size());
  out.ptrs.reserve(ts.size());
  for (const auto& t : ts) {
    out.owned.push_back(PrepareData(t, kernel_dtype, transform));
    out.ptrs.push_back(out.owned.back().get());
  }
  return out;
}

void KernelKeyParser::AddOther(const Tensor& t) {
  if (!t.defined()) return;
  // The first sparse input decides the layout (Paddle's sparse kernel key).
  if (layout_ == DataLayout::kAny) layout_ = t.layout();
  Add(*t.impl());
}

void CheckInplaceTarget(const Tensor& x, const DenseTensor& inferred) {
  const DenseTensor& d = x.dense();
  if (inferred.dims() != d.dims()) {
    throw errors::InvalidArgument("the in-place result has shape ", DimsToString(inferred.dims()),
                                  " but 'x' has shape ", DimsToString(d.dims()),
                                  "; an in-place op cannot change the shape of its input");
  }
  // An empty tensor has no elements to share memory, whatever its strides (the
  // engine sums empty gradients in place, and an empty expand is "contiguous").
  if (d.numel() == 0) return;
  for (size_t i = 0; i < d.dims().size(); ++i) {
    if (d.strides()[i] == 0 && d.dims()[i] > 1) {
      throw errors::InvalidArgument(
          "'x' is an expanded view in which several elements share one memory location; "
          "an in-place op on it would be ambiguous. Use clone() first");
    }
  }
}

namespace {

// The bytes of t's allocation its elements reach.
funcs::ByteExtent ExtentInHolder(const DenseTensor& t) {
  const auto size = static_cast<int64_t>(SizeOf(t.dtype()));
  return funcs::ExtentOf(t.offset() * size, t.dims(), t.strides(), size, size);
}

bool ReadsWhatIsWritten(const DenseTensor& in, const DenseTensor& out) {
  if (in.Holder() != out.Holder() || in.Holder() == nullptr) [[likely]] {
    return false;
  }
  if (in.numel() == 0 || out.numel() == 0) return false;
  if (in.dtype() == out.dtype() && in.offset() == out.offset() && in.dims() == out.dims() &&
      in.strides() == out.strides()) {
    return false;
  }
  return ExtentInHolder(in).Meets(ExtentInHolder(out));
}

}  // namespace

void ReadApartFromTarget(PreparedTensor& input, const DenseTensor& target) {
  if (ReadsWhatIsWritten(*input, target)) input = PreparedTensor(funcs::Clone(*input));
}

void ReadApartFromTarget(PreparedTensorList& inputs, const DenseTensor& target) {
  for (size_t i = 0; i < inputs.ptrs.size(); ++i) {
    if (ReadsWhatIsWritten(*inputs.ptrs[i], target)) {
      inputs.owned[i] = PreparedTensor(funcs::Clone(*inputs.ptrs[i]));
      inputs.ptrs[i] = inputs.owned[i].get();
    }
  }
}

}  // namespace oar::api
