// Optional inputs (paddle::Optional): Out = 2 X + Y (omitted Y: Out = 2 X), an
// optional list, an optional input written in place.
#include <vector>

#include "paddle/extension.h"

std::vector<paddle::Tensor> AddOptionalForward(const paddle::Tensor& x,
                                               const paddle::optional<paddle::Tensor>& y) {
  paddle::Tensor out = x * 2.0;
  if (y) out = out + *y;
  return {out};
}

std::vector<paddle::Tensor> AddOptionalBackward(const paddle::optional<paddle::Tensor>& y,
                                                const paddle::Tensor& grad_out) {
  paddle::Tensor grad_y;
  if (y.is_initialized()) grad_y = grad_out.copy_to(paddle::CPUPlace(), true);
  return {grad_out * 2.0, grad_y};
}

PD_BUILD_OP(add_optional)
    .Inputs({"X", paddle::Optional("Y")})
    .Outputs({"Out"})
    .SetKernelFn(PD_KERNEL(AddOptionalForward));

PD_BUILD_GRAD_OP(add_optional)
    .Inputs({paddle::Optional("Y"), paddle::Grad("Out")})
    .Outputs({paddle::Grad("X"), paddle::Grad(paddle::Optional("Y"))})
    .SetKernelFn(PD_KERNEL(AddOptionalBackward));

// Out = X + sum(Ys) for an optional list Ys (omitted: Out = X), with infer
// functions taking the optional list's shapes and dtypes.
std::vector<paddle::Tensor> AddOptionalListForward(
    const paddle::Tensor& x, const paddle::optional<std::vector<paddle::Tensor>>& ys) {
  paddle::Tensor out = x * 1.0;
  if (ys) {
    for (const auto& y : *ys) out = out + y;
  }
  return {out};
}

std::vector<paddle::Tensor> AddOptionalListBackward(
    const paddle::optional<std::vector<paddle::Tensor>>& ys, const paddle::Tensor& grad_out) {
  std::vector<paddle::Tensor> grads = {grad_out * 1.0};
  if (ys) {
    for (size_t i = 0; i < ys->size(); ++i) grads.push_back(grad_out * 1.0);
  }
  return grads;
}

std::vector<std::vector<int64_t>> AddOptionalListInferShape(
    const std::vector<int64_t>& x_shape,
    const paddle::optional<std::vector<std::vector<int64_t>>>& ys_shapes) {
  PD_CHECK(!ys_shapes || ys_shapes->empty() || ys_shapes->at(0) == x_shape, "shapes differ");
  return {x_shape};
}

std::vector<paddle::DataType> AddOptionalListInferDtype(
    const paddle::DataType& x_dtype, const paddle::optional<std::vector<paddle::DataType>>&) {
  return {x_dtype};
}

PD_BUILD_OP(add_optional_list)
    .Inputs({"X", paddle::Optional(paddle::Vec("Ys"))})
    .Outputs({"Out"})
    .SetKernelFn(PD_KERNEL(AddOptionalListForward))
    .SetInferShapeFn(PD_INFER_SHAPE(AddOptionalListInferShape))
    .SetInferDtypeFn(PD_INFER_DTYPE(AddOptionalListInferDtype));

PD_BUILD_GRAD_OP(add_optional_list)
    .Inputs({paddle::Optional(paddle::Vec("Ys")), paddle::Grad("Out")})
    .Outputs({paddle::Grad("X"), paddle::Grad(paddle::Optional(paddle::Vec("Ys")))})
    .SetKernelFn(PD_KERNEL(AddOptionalListBackward));

// OutX = 2 X (+ Y); an optional Y is also written in place: Y += X (OutY). The
// infer functions cover only OutX, as Paddle's leave in-place outputs out.
std::vector<paddle::Tensor> OptionalInplaceForward(const paddle::Tensor& x,
                                                   paddle::optional<paddle::Tensor>& y) {  // NOLINT
  paddle::Tensor out_x = x * 2.0;
  if (y) {
    out_x = out_x + *y;
    PD_DISPATCH_FLOATING_TYPES(y->dtype(), "OptionalInplaceForward", ([&] {
                                 data_t* py = y->data<data_t>();
                                 for (int64_t i = 0; i < y->numel(); ++i) {
                                   py[i] += x.data<data_t>()[i];
                                 }
                               }));
  }
  return {out_x};
}

std::vector<std::vector<int64_t>> OptionalInplaceInferShape(
    const std::vector<int64_t>& x_shape, const paddle::optional<std::vector<int64_t>>&) {
  return {x_shape};
}

// dX = 2 dOutX + dOutY; dY (in place into dOutY) = dOutX + dOutY.
std::vector<paddle::Tensor> OptionalInplaceBackward(
    const paddle::Tensor& grad_out_x,
    paddle::optional<paddle::Tensor>& grad_out_y) {  // NOLINT
  paddle::Tensor grad_x = grad_out_x * 2.0;
  if (grad_out_y) {
    grad_x = grad_x + *grad_out_y;
    paddle::Tensor sum = *grad_out_y + grad_out_x;
    PD_DISPATCH_FLOATING_TYPES(sum.dtype(), "OptionalInplaceBackward", ([&] {
                                 for (int64_t i = 0; i < sum.numel(); ++i) {
                                   grad_out_y->data<data_t>()[i] = sum.data<data_t>()[i];
                                 }
                               }));
  }
  return {grad_x};
}

PD_BUILD_OP(optional_inplace)
    .Inputs({"X", paddle::Optional("Y")})
    .Outputs({"OutX", paddle::Optional("OutY")})
    .SetInplaceMap({{paddle::Optional("Y"), paddle::Optional("OutY")}})
    .SetKernelFn(PD_KERNEL(OptionalInplaceForward))
    .SetInferShapeFn(PD_INFER_SHAPE(OptionalInplaceInferShape));

PD_BUILD_GRAD_OP(optional_inplace)
    .Inputs({paddle::Grad("OutX"), paddle::Grad(paddle::Optional("OutY"))})
    .Outputs({paddle::Grad("X"), paddle::Grad(paddle::Optional("Y"))})
    .SetInplaceMap({{paddle::Grad(paddle::Optional("OutY")), paddle::Grad(paddle::Optional("Y"))}})
    .SetKernelFn(PD_KERNEL(OptionalInplaceBackward));
