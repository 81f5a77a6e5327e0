// Views: Tensor::slice with int64_t attributes checked by the infer-shape
// function (PD_CHECK with a message), and a transpose through
// paddle::experimental::transpose that is_contiguous() reports as strided
// until contiguous() copies it.
#include <iostream>
#include <vector>

#include "paddle/extension.h"

#define CHECK_INPUT(x) PD_CHECK(x.place() == paddle::PlaceType::kCPU, #x " must be a CPU Tensor.")

std::vector<paddle::Tensor> SimpleSliceFunction(const paddle::Tensor& x, int64_t begin_index,
                                                int64_t end_index) {
  CHECK_INPUT(x);
  return {x.slice(begin_index, end_index)};
}

std::vector<std::vector<int64_t>> SimpleSliceInferShape(const std::vector<int64_t>& x_shape,
                                                        int64_t begin_index, int64_t end_index) {
  PD_CHECK(begin_index >= 0, "begin_index must not be negative, got ", begin_index);
  PD_CHECK(end_index <= x_shape[0], "end_index is past the first axis (", x_shape[0], ")");
  PD_CHECK(begin_index < end_index, "begin_index must be below end_index.");
  auto out_shape = x_shape;
  out_shape[0] = end_index - begin_index;
  return {out_shape};
}

PD_BUILD_OP(custom_simple_slice)
    .Inputs({"X"})
    .Outputs({"Out"})
    .Attrs({"begin_index: int64_t", "end_index: int64_t"})
    .SetKernelFn(PD_KERNEL(SimpleSliceFunction))
    .SetInferShapeFn(PD_INFER_SHAPE(SimpleSliceInferShape));

// Swaps two axes (negative axes count from the end).
static paddle::Tensor SwapAxes(const paddle::Tensor& t, int64_t dim0, int64_t dim1) {
  int rank = t.shape().size();
  dim0 = dim0 >= 0 ? dim0 : rank + dim0;
  dim1 = dim1 >= 0 ? dim1 : rank + dim1;
  PD_CHECK(dim0 >= 0 && dim0 < rank, "dim0 out of range: ", dim0);
  PD_CHECK(dim1 >= 0 && dim1 < rank, "dim1 out of range: ", dim1);
  std::vector<int> perm(rank);
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[dim0], perm[dim1]);
  return paddle::experimental::transpose(t, perm);
}

// Out = X^T, made contiguous; the checks fail the op if a step misreports.
std::vector<paddle::Tensor> ContiguousForward(paddle::Tensor& x) {  // NOLINT
  PD_CHECK(x.shape().size() == 2, "x must be a 2-d tensor.");
  x = x.contiguous();
  PD_CHECK(x.is_contiguous(), "contiguous() gave a strided tensor");
  auto strided = SwapAxes(x, 0, 1);
  PD_CHECK(!strided.is_contiguous(), "a transpose should be a strided view");
  auto dense = strided.contiguous();
  PD_CHECK(dense.is_contiguous(), "contiguous() gave a strided tensor");
  return {dense};
}

PD_BUILD_OP(custom_contiguous)
    .Inputs({"X"})
    .Outputs({"Out"})
    .SetKernelFn(PD_KERNEL(ContiguousForward));
