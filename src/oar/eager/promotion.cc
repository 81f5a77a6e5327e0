#include "oar/eager/promotion.h"

#include <iostream>
#include <mutex>

#include "oar/api/api_base.h"
#include "oar/eager/dygraph_functions.h"

namespace oar {

namespace {
// Paddle's eager arithmetic and comparison ops log this line (a glog warning, once per
// process) the first time they promote operands of different dtypes; oar writes the
// same line to stderr, once.
void NotePromotion() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::cerr << "oar: Got different data type, run type promotion automatically, this may "
                 "cause data type been changed.\n";
  });
}
}  // namespace

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

namespace {
// Paddle's kinds for a 0-d operand: integers (not bool), floating (not float8), complex.
int ScalarKind(DType t) {
  return IsIntegral(t) ? 1 : IsFloating(t) ? 2 : IsComplex(t) ? 3 : 0;
}
}  // namespace

DType ZeroDimDType(const char* op, const Tensor& x, const Tensor& y, ZeroDimRule rule) {
  if (!x.defined() || !y.defined()) return DType::kUndefined;
  // the arithmetic and comparison ops (the declarations' zero_dim key) come here
  if (x.dtype() != y.dtype()) NotePromotion();
  const bool x0 = x.ndim() == 0, y0 = y.ndim() == 0;
  if (!x0 && !y0) return DType::kUndefined;
  const DType a = x.dtype(), b = y.dtype();
  if (rule == ZeroDimRule::kScalar && x0 != y0 && ScalarKind(a) != 0 &&
      ScalarKind(a) == ScalarKind(b)) {
    return x0 ? b : a;
  }
  try {
    return PromoteTypes(a, b);  // float8 has no promotion: an error
  } catch (Error& e) {
    e.Prepend(StrCat(op, "(): "));
    throw;
  }
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
