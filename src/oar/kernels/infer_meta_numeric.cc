#include "oar/kernels/infer_meta_numeric.h"

#include "oar/core/errors.h"
#include "oar/kernels/infer_meta.h"

namespace oar {

void SearchsortedInferMeta(const DenseTensor& sorted_sequence, const DenseTensor& values,
                           bool out_int32, bool right, DenseTensor* out) {
  (void)right;
  const int64_t nd = sorted_sequence.ndim();
  OAR_ENFORCE(nd >= 1, errors::InvalidArgument(
                           "argument 'sorted_sequence' must have at least 1 dimension, but it is "
                           "0-D"));
  if (nd > 1) {
    bool same_lead = values.ndim() == nd;
    for (int64_t i = 0; same_lead && i + 1 < nd; ++i) {
      same_lead = values.dims()[i] == sorted_sequence.dims()[i];
    }
    OAR_ENFORCE(same_lead, errors::InvalidArgument(
                               "argument 'values' (shape ", DimsToString(values.dims()),
                               ") must have the leading dimensions of 'sorted_sequence' (shape ",
                               DimsToString(sorted_sequence.dims()), ") when that is not 1-D"));
  }
  out->set_meta(out_int32 ? DType::kInt32 : DType::kInt64, values.dims());
}

}  // namespace oar
