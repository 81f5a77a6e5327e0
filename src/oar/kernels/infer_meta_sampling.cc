#include "oar/kernels/infer_meta_sampling.h"

#include "oar/core/errors.h"
#include "oar/kernels/infer_meta.h"

namespace oar {

void BinomialInferMeta(const DenseTensor& count, const DenseTensor& prob, DenseTensor* out) {
  OAR_ENFORCE(IsFloating(count.dtype()),
              errors::InvalidType("argument 'count' must be a floating tensor, but got ",
                                  DTypeName(count.dtype())));
  OAR_ENFORCE(IsFloating(prob.dtype()),
              errors::InvalidType("argument 'prob' must be a floating tensor, but got ",
                                  DTypeName(prob.dtype())));
  out->set_meta(DType::kInt64, BroadcastShape(count.dims(), prob.dims(), "count", "prob"));
}

}  // namespace oar
