#include "oar/eager/amp.h"

#include "oar/eager/dygraph_functions.h"

namespace oar::amp {

namespace {
bool Castable(DType d) {
  return d == DType::kFloat32 || d == DType::kBFloat16 || d == DType::kFloat16;
}
}  // namespace

DType DestDType(const char* op, OpList list, std::span<const DType> input_dtypes) {
  const State& s = CurrentState();
  if (s.lists) {
    if (s.lists->black.contains(op)) {
      list = OpList::kBlack;
    } else if (s.lists->white.contains(op)) {
      list = OpList::kWhite;
    }
  }
  bool any_f32 = false, any_castable = false;
  for (DType d : input_dtypes) {
    any_castable = any_castable || Castable(d);
    any_f32 = any_f32 || d == DType::kFloat32;
  }
  if (!any_castable) return DType::kUndefined;
  DType dest = DType::kUndefined;
  switch (list) {
    case OpList::kWhite:
      dest = s.dtype;
      break;
    case OpList::kBlack:
      dest = DType::kFloat32;
      break;
    case OpList::kGray:
      // O1: promotion (the branch after this one) already runs mixed inputs
      // in the widest dtype. O2 with use_promote: the same when a float32 is in.
      if (s.level == Level::kO1 || (s.use_promote && any_f32)) return DType::kUndefined;
      dest = s.dtype;
      break;
  }
  for (DType d : input_dtypes) {
    if (Castable(d) && d != dest) return dest;
  }
  return DType::kUndefined;
}

Tensor AutoCast(const Tensor& t, DType dtype) {
  if (!t.has_meta() || !Castable(t.dtype()) || t.dtype() == dtype) return t;
  return cast(t, dtype);
}

std::vector<Tensor> AutoCast(const std::vector<Tensor>& ts, DType dtype) {
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.push_back(AutoCast(t, dtype));
  return out;
}

}  // namespace oar::amp
