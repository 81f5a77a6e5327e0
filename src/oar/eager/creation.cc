#include "oar/eager/creation.h"

#include <cstring>

#include "oar/eager/dygraph_functions.h"

namespace oar {

Tensor zeros(const std::vector<int64_t>& shape, DType dtype) { return full(shape, 0.0, dtype); }
Tensor ones(const std::vector<int64_t>& shape, DType dtype) { return full(shape, 1.0, dtype); }
Tensor zeros_like(const Tensor& x, DType dtype) { return full_like(x, 0.0, dtype); }
Tensor ones_like(const Tensor& x, DType dtype) { return full_like(x, 1.0, dtype); }
Tensor rand(const std::vector<int64_t>& shape, DType dtype) {
  return uniform(shape, dtype, 0.0, 1.0, 0);
}
Tensor randn(const std::vector<int64_t>& shape, DType dtype) {
  return normal(shape, 0.0, 1.0, 0, dtype);
}

template <typename T>
Tensor to_tensor(const std::vector<T>& data, const std::vector<int64_t>& shape,
                 bool stop_gradient) {
  const std::vector<int64_t> dims =
      shape.empty() && data.size() != 1 ? std::vector<int64_t>{int64_t(data.size())} : shape;
  Tensor t = empty(dims, dtype_of_v<T>);
  OAR_ENFORCE(t.numel() == static_cast<int64_t>(data.size()),
              errors::InvalidArgument("to_tensor(): ", data.size(), " values do not fill shape ",
                                      StrCat(dims)));
  T* p = t.data<T>();
  for (size_t i = 0; i < data.size(); ++i) p[i] = data[i];
  if (!stop_gradient) t.set_stop_gradient(false);
  return t;
}

template Tensor to_tensor<float>(const std::vector<float>&, const std::vector<int64_t>&, bool);
template Tensor to_tensor<double>(const std::vector<double>&, const std::vector<int64_t>&, bool);
template Tensor to_tensor<int32_t>(const std::vector<int32_t>&, const std::vector<int64_t>&, bool);
template Tensor to_tensor<int64_t>(const std::vector<int64_t>&, const std::vector<int64_t>&, bool);
template Tensor to_tensor<bool>(const std::vector<bool>&, const std::vector<int64_t>&, bool);
template Tensor to_tensor<float16>(const std::vector<float16>&, const std::vector<int64_t>&, bool);
template Tensor to_tensor<bfloat16>(const std::vector<bfloat16>&, const std::vector<int64_t>&,
                                    bool);

}  // namespace oar
