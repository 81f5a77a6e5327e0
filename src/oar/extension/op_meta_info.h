// What PD_BUILD_OP declares: an op's inputs, outputs, attributes, in-place
// pairs and its kernel, infer-shape and infer-dtype functions
// (docs/custom_ops.md).
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "oar/extension/kernel_args.h"
#include "oar/extension/kernel_context.h"

namespace paddle {

// One op of a declaration chain: the forward op (level 0), its grad op (1) or
// its double-grad op (2).
struct OpMetaInfo {
  std::string name;
  std::vector<std::string> inputs, outputs, attrs;
  std::unordered_map<std::string, std::string> inplace_map;  // input -> output
  KernelFunc kernel, infer_shape, infer_dtype;
};

// What PD_BUILD_OP and friends make: registers an op when constructed (at the
// load of the user's library) and fills it in through the chained calls.
class OpMetaInfoBuilder {
 public:
  OpMetaInfoBuilder(std::string name, size_t level);
  OpMetaInfoBuilder& Inputs(std::vector<std::string> inputs);
  OpMetaInfoBuilder& Outputs(std::vector<std::string> outputs);
  OpMetaInfoBuilder& Attrs(std::vector<std::string> attrs);
  OpMetaInfoBuilder& SetInplaceMap(std::unordered_map<std::string, std::string> inplace_map);
  OpMetaInfoBuilder& SetKernelFn(KernelFunc fn);
  OpMetaInfoBuilder& SetInferShapeFn(KernelFunc fn);
  OpMetaInfoBuilder& SetInferDtypeFn(KernelFunc fn);

 private:
  std::shared_ptr<OpMetaInfo> info_;
};

}  // namespace paddle

#define PD_PRIVATE_CONCAT_(a, b) a##b
#define PD_PRIVATE_CONCAT(a, b) PD_PRIVATE_CONCAT_(a, b)

#define PD_BUILD_OP(op_name)                                                        \
  static ::paddle::OpMetaInfoBuilder PD_PRIVATE_CONCAT(pd_op_meta_info_, op_name) = \
      ::paddle::OpMetaInfoBuilder(#op_name, 0)
#define PD_BUILD_GRAD_OP(op_name)                                                        \
  static ::paddle::OpMetaInfoBuilder PD_PRIVATE_CONCAT(pd_grad_op_meta_info_, op_name) = \
      ::paddle::OpMetaInfoBuilder(#op_name, 1)
#define PD_BUILD_DOUBLE_GRAD_OP(op_name)                                                      \
  static ::paddle::OpMetaInfoBuilder PD_PRIVATE_CONCAT(pd_grad_grad_op_meta_info_, op_name) = \
      ::paddle::OpMetaInfoBuilder(#op_name, 2)
