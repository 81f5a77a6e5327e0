#include "oar/eager/promotion.h"

#include "oar/api/api_base.h"
#include "oar/eager/dygraph_functions.h"

namespace oar {

DType PromotedDType(const char* op, const std::vector<DType>& dtypes) {
  DType d = DType::kUndefined;
  try {
    for (DType t : dtypes) {
      if (t == DType::kUndefined) continue;
      d = d == DType::kUndefined || d == t ? t : api::PromoteOperands(d, t);
    }
  } catch (Error& e) {
    e.Prepend(StrCat(op, "(): "));
    throw;
  }
  return d;
}

DType DTypeOfTensor(const Tensor& t) { return t.defined() ? t.dtype() : DType::kUndefined; }

std::vector<DType> DTypesOf(const std::vector<Tensor>& ts) {
  std::vector<DType> v;
  v.reserve(ts.size());
  for (const auto& t : ts) v.push_back(DTypeOfTensor(t));
  return v;
}

Tensor PromoteTo(const Tensor& t, DType dtype) {
  return !t.defined() || t.dtype() == dtype ? t : cast(t, dtype);
}

std::vector<Tensor> PromoteTo(const std::vector<Tensor>& ts, DType dtype) {
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const auto& t : ts) out.push_back(PromoteTo(t, dtype));
  return out;
}

}  // namespace oar
