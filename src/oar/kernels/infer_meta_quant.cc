#include "oar/kernels/infer_meta_quant.h"

#include "oar/core/errors.h"

namespace oar {

void FakeQuantizeDequantizeInferMeta(const DenseTensor& x, const DenseTensor& scale,
                                     int64_t bit_length, int64_t quant_axis, DenseTensor* out) {
  OAR_ENFORCE(
      IsFloating(x.dtype()),
      errors::InvalidType("argument 'x' must be a floating tensor, got ", DTypeName(x.dtype())));
  OAR_ENFORCE(IsFloating(scale.dtype()),
              errors::InvalidType("argument 'scale' must be a floating tensor, got ",
                                  DTypeName(scale.dtype())));
  OAR_ENFORCE(
      bit_length >= 2 && bit_length <= 16,
      errors::InvalidArgument("argument 'bit_length' must be in [2, 16], got ", bit_length));
  if (scale.numel() != 1) {
    const int64_t rank = static_cast<int64_t>(x.dims().size());
    OAR_ENFORCE(quant_axis >= -rank && quant_axis < rank && rank > 0,
                errors::OutOfRange("argument 'quant_axis' (", quant_axis,
                                   ") is out of range for a tensor of rank ", rank));
    const int64_t axis = quant_axis < 0 ? quant_axis + rank : quant_axis;
    OAR_ENFORCE(scale.dims().size() == 1 && scale.numel() == x.dims()[axis],
                errors::InvalidArgument(
                    "argument 'scale' must hold one element or one per slice along axis ", axis,
                    " (", x.dims()[axis], "), got shape ", DimsToString(scale.dims())));
  }
  out->set_meta(x.dtype(), x.dims());
}

}  // namespace oar
