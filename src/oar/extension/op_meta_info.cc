#include "oar/extension/op_meta_info.h"

#include "oar/extension/registry.h"

namespace paddle {

OpMetaInfoBuilder::OpMetaInfoBuilder(std::string name, size_t level)
    : info_(oar::extension::CustomOpRegistry::Instance().Declare(name, level)) {}

OpMetaInfoBuilder& OpMetaInfoBuilder::Inputs(std::vector<std::string> inputs) {
  info_->inputs = std::move(inputs);
  return *this;
}
OpMetaInfoBuilder& OpMetaInfoBuilder::Outputs(std::vector<std::string> outputs) {
  info_->outputs = std::move(outputs);
  return *this;
}
OpMetaInfoBuilder& OpMetaInfoBuilder::Attrs(std::vector<std::string> attrs) {
  info_->attrs = std::move(attrs);
  return *this;
}
OpMetaInfoBuilder& OpMetaInfoBuilder::SetInplaceMap(
    std::unordered_map<std::string, std::string> inplace_map) {
  info_->inplace_map = std::move(inplace_map);
  return *this;
}
OpMetaInfoBuilder& OpMetaInfoBuilder::SetKernelFn(KernelFunc fn) {
  info_->kernel = std::move(fn);
  return *this;
}
OpMetaInfoBuilder& OpMetaInfoBuilder::SetInferShapeFn(KernelFunc fn) {
  info_->infer_shape = std::move(fn);
  return *this;
}
OpMetaInfoBuilder& OpMetaInfoBuilder::SetInferDtypeFn(KernelFunc fn) {
  info_->infer_dtype = std::move(fn);
  return *this;
}

}  // namespace paddle
