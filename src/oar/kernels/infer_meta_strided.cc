#include "oar/kernels/infer_meta_strided.h"

#include "oar/core/errors.h"
#include "oar/kernels/infer_meta.h"

namespace oar {

void AsStridedInferMeta(const DenseTensor& x, const std::vector<int64_t>& shape,
                        const std::vector<int64_t>& stride, int64_t offset, DenseTensor* out) {
  OAR_ENFORCE(shape.size() == stride.size(),
              errors::InvalidArgument("arguments 'shape' (", shape.size(), " dims) and 'stride' (",
                                      stride.size(), " dims) must have the same length"));
  OAR_ENFORCE(offset >= 0,
              errors::InvalidArgument("argument 'offset' must be >= 0, but got ", offset));
  int64_t last = offset;                 // the position of the view's last element
  bool empty = false, overflow = false;  // overflow: past int64, so past any tensor
  for (size_t i = 0; i < shape.size(); ++i) {
    OAR_ENFORCE(shape[i] >= 0,
                errors::InvalidArgument("argument 'shape' must hold sizes >= 0, but got ", shape[i],
                                        " at dim ", i));
    OAR_ENFORCE(stride[i] >= 0,
                errors::InvalidArgument("argument 'stride' must hold steps >= 0, but got ",
                                        stride[i], " at dim ", i));
    empty = empty || shape[i] == 0;
    int64_t span = 0;
    if (shape[i] > 0) {
      overflow = overflow || __builtin_mul_overflow(shape[i] - 1, stride[i], &span) ||
                 __builtin_add_overflow(last, span, &last);
    }
  }
  OAR_ENFORCE(empty || !overflow,
              errors::OutOfRange("the view (shape ", DimsToString(DDim(shape.begin(), shape.end())),
                                 ", stride ", DimsToString(DDim(stride.begin(), stride.end())),
                                 ", offset ", offset,
                                 ") reaches past element 2^63 but argument "
                                 "'x' has ",
                                 x.numel(), " elements"));
  OAR_ENFORCE(empty || last < x.numel(),
              errors::OutOfRange("the view (shape ", DimsToString(DDim(shape.begin(), shape.end())),
                                 ", stride ", DimsToString(DDim(stride.begin(), stride.end())),
                                 ", offset ", offset, ") reaches element ", last,
                                 " but argument 'x' has ", x.numel(), " elements"));
  out->set_meta(x.dtype(), DDim(shape.begin(), shape.end()));
}

void AsStridedGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out,
                            const std::vector<int64_t>& shape, const std::vector<int64_t>& stride,
                            int64_t offset, DenseTensor* x_grad) {
  DenseTensor view;
  AsStridedInferMeta(x, shape, stride, offset, &view);
  OAR_ENFORCE(
      grad_out.dims() == view.dims(),
      errors::InvalidArgument("argument 'grad_out' has shape ", DimsToString(grad_out.dims()),
                              " but the view has shape ", DimsToString(view.dims())));
  x_grad->set_meta(grad_out.dtype(), x.dims());
}

}  // namespace oar
