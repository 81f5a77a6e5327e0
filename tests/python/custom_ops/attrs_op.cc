// Attributes of every type, two outputs and a grad op that reads an attribute.
// `Info` writes each attribute's value (or a digest of it) as one float64, so
// the test sees what reached the kernel; Out = X * int_attr.
#include <string>
#include <vector>

#include "paddle/extension.h"

template <typename T>
double Sum(const std::vector<T>& v) {
  double s = 0;
  for (const T& e : v) s += static_cast<double>(e);
  return s;
}

std::vector<paddle::Tensor> AttrsForward(
    const paddle::Tensor& x, bool bool_attr, int int_attr, float float_attr, double double_attr,
    int64_t int64_attr, const std::string& str_attr, const std::vector<bool>& bool_vec_attr,
    const std::vector<int>& int_vec_attr, const std::vector<float>& float_vec_attr,
    const std::vector<double>& double_vec_attr, const std::vector<int64_t>& int64_vec_attr,
    const std::vector<std::string>& str_vec_attr) {
  size_t str_vec_chars = 0;
  for (const auto& s : str_vec_attr) str_vec_chars += s.size();
  const std::vector<double> info = {bool_attr ? 1.0 : 0.0,
                                    static_cast<double>(int_attr),
                                    float_attr,
                                    double_attr,
                                    static_cast<double>(int64_attr),
                                    static_cast<double>(str_attr.size()),
                                    Sum(bool_vec_attr),
                                    Sum(int_vec_attr),
                                    Sum(float_vec_attr),
                                    Sum(double_vec_attr),
                                    Sum(int64_vec_attr),
                                    static_cast<double>(str_vec_attr.size()),
                                    static_cast<double>(str_vec_chars)};
  auto info_t = paddle::empty({static_cast<int64_t>(info.size())}, paddle::DataType::FLOAT64);
  for (size_t i = 0; i < info.size(); ++i) info_t.data<double>()[i] = info[i];
  return {x * static_cast<double>(int_attr), info_t};
}

std::vector<paddle::Tensor> AttrsBackward(const paddle::Tensor& grad_out, int int_attr) {
  return {grad_out * static_cast<double>(int_attr)};
}

PD_BUILD_OP(attrs_op)
    .Inputs({"X"})
    .Outputs({"Out", "Info"})
    .Attrs({"bool_attr: bool", "int_attr: int", "float_attr: float", "double_attr: double",
            "int64_attr: int64_t", "str_attr: std::string", "bool_vec_attr: std::vector<bool>",
            "int_vec_attr: std::vector<int>", "float_vec_attr: std::vector<float>",
            "double_vec_attr: std::vector<double>", "int64_vec_attr: std::vector<int64_t>",
            "str_vec_attr: std::vector<std::string>"})
    .SetKernelFn(PD_KERNEL(AttrsForward));

PD_BUILD_GRAD_OP(attrs_op)
    .Inputs({paddle::Grad("Out")})
    .Outputs({paddle::Grad("X")})
    .Attrs({"int_attr: int"})
    .SetKernelFn(PD_KERNEL(AttrsBackward));
