#include "oar/extension/kernel_context.h"

#include <string_view>

#include "oar/extension/dispatch.h"
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
void ThrowEnforce(oar::Error error, const std::string& hint, const char* file, int line) {
  if (!hint.empty()) error.Append(oar::StrCat("\n  [Hint: ", hint, "]"));
  error.Append(oar::StrCat(" (", file, ":", line, ")"));
  throw error;
}

void ThrowSingleTensorExpected(const std::string& op) {
  throw oar::errors::InvalidArgument("custom op '", op,
                                     "': a Tensor parameter received a list or an omitted "
                                     "input; declare it with paddle::Vec or paddle::Optional and "
                                     "take std::vector<Tensor> or paddle::optional<Tensor>");
}
}  // namespace detail

}  // namespace paddle

namespace phi::errors::detail {
std::string FormatMessage(const std::string& fmt, const std::vector<std::string>& args) {
  std::string out;
  size_t next = 0;
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      out += fmt[i];
      continue;
    }
    if (i + 1 < fmt.size() && fmt[i + 1] == '%') {
      out += '%';
      ++i;
      continue;
    }
    // A conversion: flags, width, precision and length, then the letter.
    size_t j = i + 1;
    while (j < fmt.size() &&
           std::string_view("-+ #0123456789.hlLzjt").find(fmt[j]) != std::string_view::npos) {
      ++j;
    }
    if (j >= fmt.size() || next >= args.size()) {
      out += fmt[i];  // a lone percent sign, or more conversions than arguments
      continue;
    }
    out += args[next++];
    i = j;
  }
  for (; next < args.size(); ++next) out += args[next];
  return out;
}
}  // namespace phi::errors::detail
