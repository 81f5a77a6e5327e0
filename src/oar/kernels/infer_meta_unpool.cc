#include "oar/kernels/infer_meta_unpool.h"

#include "oar/core/errors.h"
#include "oar/kernels/infer_meta.h"

namespace oar {

void MaxUnpoolInferMeta(const DenseTensor& x, const DenseTensor& index,
                        const std::vector<int64_t>& output_size, DenseTensor* out) {
  const DDim& xd = x.dims();
  OAR_ENFORCE(xd.size() >= 3 && xd.size() == output_size.size() + 2,
              errors::InvalidArgument("argument 'x' must be [N, C, *spatial] with ",
                                      output_size.size(), " spatial dims (one per entry of ",
                                      "output_size), but has shape ", DimsToString(xd)));
  OAR_ENFORCE(
      index.dtype() == DType::kInt64,
      errors::InvalidType("argument 'index' must be an int64 tensor, but got ", index.dtype()));
  OAR_ENFORCE(index.dims() == xd,
              errors::InvalidArgument("argument 'index' has shape ", DimsToString(index.dims()),
                                      " but must have the shape of x ", DimsToString(xd)));
  DDim od{xd[0], xd[1]};
  for (int64_t s : output_size) {
    OAR_ENFORCE(s > 0, errors::InvalidArgument("argument 'output_size' must hold positive ",
                                               "sizes, but got ", s));
    od.push_back(s);
  }
  out->set_meta(x.dtype(), od);
}

}  // namespace oar
