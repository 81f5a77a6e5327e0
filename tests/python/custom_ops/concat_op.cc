// A concatenation of a list of tensors (paddle::Vec) along an attribute's axis,
// with infer-shape and infer-dtype functions and a list-valued gradient.
#include <vector>

#include "paddle/extension.h"

namespace {

int64_t Axis(int64_t axis, size_t rank) {
  return axis < 0 ? axis + static_cast<int64_t>(rank) : axis;
}

// Rows before the axis and elements after it.
int64_t Outer(const std::vector<int64_t>& shape, int64_t axis) {
  int64_t n = 1;
  for (int64_t d = 0; d < axis; ++d) n *= shape[d];
  return n;
}

}  // namespace

std::vector<paddle::Tensor> ConcatForward(const std::vector<paddle::Tensor>& xs, int64_t axis) {
  PD_CHECK(!xs.empty(), "concat needs at least one tensor");
  std::vector<int64_t> shape = xs[0].shape();
  const int64_t a = Axis(axis, shape.size());
  int64_t total = 0;
  for (const auto& x : xs) total += x.shape()[a];
  shape[a] = total;
  auto out = paddle::empty(shape, xs[0].dtype(), xs[0].place());
  const int64_t outer = Outer(shape, a);
  const int64_t out_row = out.numel() / outer;
  PD_DISPATCH_FLOATING_TYPES(out.dtype(), "ConcatForward", ([&] {
                               int64_t offset = 0;
                               for (const auto& x : xs) {
                                 const int64_t row = x.numel() / outer;
                                 for (int64_t o = 0; o < outer; ++o) {
                                   for (int64_t k = 0; k < row; ++k) {
                                     out.data<data_t>()[o * out_row + offset + k] =
                                         x.data<data_t>()[o * row + k];
                                   }
                                 }
                                 offset += row;
                               }
                             }));
  return {out};
}

std::vector<paddle::Tensor> ConcatBackward(const std::vector<paddle::Tensor>& xs,
                                           const paddle::Tensor& grad_out, int64_t axis) {
  const std::vector<int64_t> shape = grad_out.shape();
  const int64_t a = Axis(axis, shape.size());
  const int64_t outer = Outer(shape, a);
  const int64_t out_row = grad_out.numel() / outer;
  std::vector<paddle::Tensor> grads;
  int64_t offset = 0;
  for (const auto& x : xs) {
    auto g = paddle::empty(x.shape(), x.dtype(), x.place());
    const int64_t row = x.numel() / outer;
    PD_DISPATCH_FLOATING_TYPES(x.dtype(), "ConcatBackward", ([&] {
                                 for (int64_t o = 0; o < outer; ++o) {
                                   for (int64_t k = 0; k < row; ++k) {
                                     g.data<data_t>()[o * row + k] =
                                         grad_out.data<data_t>()[o * out_row + offset + k];
                                   }
                                 }
                               }));
    offset += row;
    grads.push_back(g);
  }
  return grads;
}

std::vector<std::vector<int64_t>> ConcatInferShape(const std::vector<std::vector<int64_t>>& shapes,
                                                   int64_t axis) {
  std::vector<int64_t> out = shapes[0];
  const int64_t a = Axis(axis, out.size());
  out[a] = 0;
  for (const auto& s : shapes) out[a] += s[a];
  return {out};
}

std::vector<paddle::DataType> ConcatInferDtype(const std::vector<paddle::DataType>& dtypes) {
  return {dtypes[0]};
}

PD_BUILD_OP(custom_concat)
    .Inputs({paddle::Vec("X")})
    .Outputs({"Out"})
    .Attrs({"axis: int64_t"})
    .SetKernelFn(PD_KERNEL(ConcatForward))
    .SetInferShapeFn(PD_INFER_SHAPE(ConcatInferShape))
    .SetInferDtypeFn(PD_INFER_DTYPE(ConcatInferDtype));

PD_BUILD_GRAD_OP(custom_concat)
    .Inputs({paddle::Vec("X"), paddle::Grad("Out")})
    .Outputs({paddle::Grad(paddle::Vec("X"))})
    .Attrs({"axis: int64_t"})
    .SetKernelFn(PD_KERNEL(ConcatBackward));

// An infer-shape function that disagrees with the kernel: the call must fail.
std::vector<std::vector<int64_t>> WrongInferShape(const std::vector<std::vector<int64_t>>& shapes,
                                                  int64_t) {
  return {{shapes[0][0] + 100}};
}

PD_BUILD_OP(concat_wrong_shape)
    .Inputs({paddle::Vec("X")})
    .Outputs({"Out"})
    .Attrs({"axis: int64_t"})
    .SetKernelFn(PD_KERNEL(ConcatForward))
    .SetInferShapeFn(PD_INFER_SHAPE(WrongInferShape));
