// The arguments of one call of a custom op's kernel, infer-shape or
// infer-dtype function (docs/custom_ops.md): the declared inputs' tensors, the
// attributes' values, and what the function gave back; and Paddle's argument
// name marks (Grad, Vec, Optional, New).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "oar/extension/tensor.h"

namespace paddle {

// Suffixes of argument names (Paddle's): X@GRAD is the gradient of X, X@VECTOR
// a list of tensors, X@OPTIONAL an input that may be None, X@NEW below.
inline std::string Grad(const std::string& name) { return name + "@GRAD"; }
inline std::string Vec(const std::string& name) { return name + "@VECTOR"; }
inline std::string Optional(const std::string& name) { return name + "@OPTIONAL"; }
// A double-grad op's output that has a forward name ("X@GRAD", the gradient of
// the grad op's input X) is spelled New(Grad("X")) = "X@GRAD@NEW".
inline std::string New(const std::string& name) { return name + "@NEW"; }

// An attribute's value, of the type its declaration ("name: type") names.
using AttrValue = std::variant<bool, int, float, double, int64_t, std::string, std::vector<bool>,
                               std::vector<int>, std::vector<float>, std::vector<double>,
                               std::vector<int64_t>, std::vector<std::string>>;

// One declared input of one call: its tensors (one, a list, or none for an
// optional input that was not given).
struct CallInput {
  std::vector<Tensor> tensors;
  bool present = true;
};

// The arguments of one call of a kernel, infer-shape or infer-dtype function,
// and what the function gave back.
class CustomOpKernelContext {
 public:
  CustomOpKernelContext(const std::string& op, std::vector<CallInput>* inputs,
                        const std::vector<AttrValue>* attrs,
                        const std::vector<std::string>* attr_names)
      : op_(op), inputs_(inputs), attrs_(attrs), attr_names_(attr_names) {}

  const std::string& op() const { return op_; }
  bool inputs_left() const { return next_input_ < inputs_->size(); }
  // The next declared input (Note [Custom op argument order]).
  CallInput& NextInput(const char* want);
  // The next attribute as T.
  template <typename T>
  const T& NextAttr() {
    const size_t i = NextAttrIndex();
    if (const T* v = std::get_if<T>(&(*attrs_)[i])) return *v;
    ThrowAttrType(i, TypeName<T>());
  }

  // The next output a kernel writes through a paddle::Tensor* parameter.
  Tensor* NextOutputParam();

  std::vector<Tensor> outputs;
  std::vector<Tensor> output_params;  // one per declared output, for Tensor* parameters
  bool output_params_used = false;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<DataType> dtypes;

 private:
  template <typename T>
  static const char* TypeName();
  size_t NextAttrIndex();
  [[noreturn]] void ThrowAttrType(size_t i, const char* kernel_type) const;

  const std::string& op_;
  std::vector<CallInput>* inputs_;
  const std::vector<AttrValue>* attrs_;
  const std::vector<std::string>* attr_names_;
  size_t next_input_ = 0;
  size_t next_attr_ = 0;
  size_t next_output_ = 0;
};

template <typename T>
const char* CustomOpKernelContext::TypeName() {
  if constexpr (std::is_same_v<T, bool>) return "bool";
  if constexpr (std::is_same_v<T, int>) return "int";
  if constexpr (std::is_same_v<T, float>) return "float";
  if constexpr (std::is_same_v<T, double>) return "double";
  if constexpr (std::is_same_v<T, int64_t>) return "int64_t";
  if constexpr (std::is_same_v<T, std::string>) return "std::string";
  if constexpr (std::is_same_v<T, std::vector<bool>>) return "std::vector<bool>";
  if constexpr (std::is_same_v<T, std::vector<int>>) return "std::vector<int>";
  if constexpr (std::is_same_v<T, std::vector<float>>) return "std::vector<float>";
  if constexpr (std::is_same_v<T, std::vector<double>>) return "std::vector<double>";
  if constexpr (std::is_same_v<T, std::vector<int64_t>>) return "std::vector<int64_t>";
  if constexpr (std::is_same_v<T, std::vector<std::string>>) return "std::vector<std::string>";
  return "?";
}

using KernelFunc = std::function<void(CustomOpKernelContext&)>;

}  // namespace paddle
