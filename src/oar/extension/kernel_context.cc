#include "oar/extension/kernel_context.h"

#include "oar/extension/kernel_args.h"

namespace paddle {

CallInput& CustomOpKernelContext::NextInput(const char* want) {
  if (next_input_ >= inputs_->size()) {
    throw oar::errors::InvalidArgument("custom op '", op_, "': the function's parameter ",
                                       next_input_ + next_attr_ + 1, " is ", want, ", but the op ",
                                       "declares only ", inputs_->size(), " inputs");
  }
  return (*inputs_)[next_input_++];
}

Tensor* CustomOpKernelContext::NextOutputParam() {
  if (next_output_ >= output_params.size()) {
    throw oar::errors::InvalidArgument("custom op '", op_, "': the function takes more ",
                                       "paddle::Tensor* outputs than the op's ",
                                       output_params.size(), " outputs");
  }
  output_params_used = true;
  return &output_params[next_output_++];
}

size_t CustomOpKernelContext::NextAttrIndex() {
  if (next_attr_ >= attrs_->size()) {
    throw oar::errors::InvalidArgument(
        "custom op '", op_, "': the function's parameter ", next_input_ + next_attr_ + 1,
        " is an attribute, but the op ", "declares only ", attrs_->size(), " attributes");
  }
  return next_attr_++;
}

void CustomOpKernelContext::ThrowAttrType(size_t i, const char* kernel_type) const {
  throw oar::errors::InvalidType("custom op '", op_, "': attribute '", (*attr_names_)[i],
                                 "' is taken by the function as ", kernel_type,
                                 ", which is not the type the op declares for it");
}

namespace detail {
void ThrowSingleTensorExpected(const std::string& op) {
  throw oar::errors::InvalidArgument("custom op '", op,
                                     "': a Tensor parameter received a list or an omitted "
                                     "input; declare it with paddle::Vec or paddle::Optional and "
                                     "take std::vector<Tensor> or paddle::optional<Tensor>");
}
}  // namespace detail

}  // namespace paddle
