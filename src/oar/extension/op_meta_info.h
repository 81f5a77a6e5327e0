// What PD_BUILD_OP declares: an op's inputs, outputs, attributes, in-place
// pairs and its kernel, infer-shape and infer-dtype functions, and the glue
// (PD_KERNEL, PD_INFER_SHAPE, PD_INFER_DTYPE) that calls a user's typed
// function with the arguments of one call (docs/custom_ops.md).
//
// Note [Custom op argument order]
// A user's function takes its arguments by kind, as Paddle's do: tensor
// arguments (const Tensor&, Tensor&, const std::vector<Tensor>&,
// const paddle::optional<Tensor>&) take the declared inputs in order, and the
// other arguments take the declared attributes in order; paddle::Tensor*
// parameters (Paddle 2.3's output parameters) take the declared outputs. In an
// infer-shape function a std::vector<int64_t> is an input's shape while inputs
// are left and an attribute after them, so both spellings of Paddle's examples
// work. The arguments are read in
// parameter order: the reads are the elements of one braced list, which C++
// evaluates left to right.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
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

namespace detail {

template <typename T>
using Bare = std::remove_cvref_t<T>;

// Holds one argument of a user's function read from the context; get() hands
// it out as the parameter type wants it.
template <typename P, typename = void>
struct Arg {
  // An attribute (every parameter type not handled below).
  explicit Arg(CustomOpKernelContext& ctx) : value(ctx.NextAttr<Bare<P>>()) {}
  const Bare<P>& get() { return value; }
  Bare<P> value;
};

template <typename P>
struct Arg<P, std::enable_if_t<std::is_same_v<Bare<P>, Tensor>>> {
  explicit Arg(CustomOpKernelContext& ctx) : in(ctx.NextInput("a Tensor")) {
    if (!in.present || in.tensors.size() != 1) Throw(ctx);
  }
  [[noreturn]] static void Throw(CustomOpKernelContext& ctx);
  Tensor& get() { return in.tensors[0]; }
  CallInput& in;
};

template <typename P>
struct Arg<P, std::enable_if_t<std::is_same_v<Bare<P>, std::vector<Tensor>>>> {
  explicit Arg(CustomOpKernelContext& ctx) : in(ctx.NextInput("a std::vector<Tensor>")) {}
  std::vector<Tensor>& get() { return in.tensors; }
  CallInput& in;
};

template <typename P>
struct Arg<P, std::enable_if_t<std::is_same_v<Bare<P>, optional<Tensor>>>> {
  explicit Arg(CustomOpKernelContext& ctx) {
    CallInput& in = ctx.NextInput("a paddle::optional<Tensor>");
    if (in.present && !in.tensors.empty()) value = in.tensors[0];
  }
  optional<Tensor>& get() { return value; }
  optional<Tensor> value;
};

template <typename P>
struct Arg<P, std::enable_if_t<std::is_same_v<Bare<P>, optional<std::vector<Tensor>>>>> {
  explicit Arg(CustomOpKernelContext& ctx) {
    CallInput& in = ctx.NextInput("a paddle::optional<std::vector<Tensor>>");
    if (in.present) value = in.tensors;
  }
  optional<std::vector<Tensor>>& get() { return value; }
  optional<std::vector<Tensor>> value;
};

// An output the kernel writes (Paddle 2.3's interface: void f(const Tensor& x, Tensor* out)).
template <typename P>
struct Arg<P, std::enable_if_t<std::is_same_v<P, Tensor*>>> {
  explicit Arg(CustomOpKernelContext& ctx) : out(ctx.NextOutputParam()) {}
  Tensor* get() { return out; }
  Tensor* out;
};

// Infer-shape arguments: an input's shape, a list's shapes, an optional shape.
template <typename P>
struct Arg<P, std::enable_if_t<std::is_same_v<Bare<P>, std::vector<int64_t>>>> {
  explicit Arg(CustomOpKernelContext& ctx) {
    if (!ctx.inputs_left()) {
      value = ctx.NextAttr<std::vector<int64_t>>();
      return;
    }
    CallInput& in = ctx.NextInput("a shape (std::vector<int64_t>)");
    if (in.tensors.size() == 1) value = in.tensors[0].shape();
  }
  std::vector<int64_t>& get() { return value; }
  std::vector<int64_t> value;
};

template <typename P>
struct Arg<P, std::enable_if_t<std::is_same_v<Bare<P>, std::vector<std::vector<int64_t>>>>> {
  explicit Arg(CustomOpKernelContext& ctx) {
    for (const Tensor& t : ctx.NextInput("a list of shapes").tensors) value.push_back(t.shape());
  }
  std::vector<std::vector<int64_t>>& get() { return value; }
  std::vector<std::vector<int64_t>> value;
};

template <typename P>
struct Arg<P, std::enable_if_t<std::is_same_v<Bare<P>, optional<std::vector<int64_t>>>>> {
  explicit Arg(CustomOpKernelContext& ctx) {
    CallInput& in = ctx.NextInput("an optional shape");
    if (in.present && in.tensors.size() == 1) value = in.tensors[0].shape();
  }
  optional<std::vector<int64_t>>& get() { return value; }
  optional<std::vector<int64_t>> value;
};

template <typename P>
struct Arg<P,
           std::enable_if_t<std::is_same_v<Bare<P>, optional<std::vector<std::vector<int64_t>>>>>> {
  explicit Arg(CustomOpKernelContext& ctx) {
    CallInput& in = ctx.NextInput("an optional list of shapes");
    if (!in.present) return;
    value.emplace();
    for (const Tensor& t : in.tensors) value->push_back(t.shape());
  }
  optional<std::vector<std::vector<int64_t>>>& get() { return value; }
  optional<std::vector<std::vector<int64_t>>> value;
};

// Infer-dtype arguments.
template <typename P>
struct Arg<P, std::enable_if_t<std::is_same_v<Bare<P>, DataType>>> {
  explicit Arg(CustomOpKernelContext& ctx) {
    CallInput& in = ctx.NextInput("a DataType");
    if (in.tensors.size() == 1) value = in.tensors[0].dtype();
  }
  DataType& get() { return value; }
  DataType value = DataType::UNDEFINED;
};

template <typename P>
struct Arg<P, std::enable_if_t<std::is_same_v<Bare<P>, std::vector<DataType>>>> {
  explicit Arg(CustomOpKernelContext& ctx) {
    for (const Tensor& t : ctx.NextInput("a list of DataTypes").tensors) {
      value.push_back(t.dtype());
    }
  }
  std::vector<DataType>& get() { return value; }
  std::vector<DataType> value;
};

template <typename P>
struct Arg<P, std::enable_if_t<std::is_same_v<Bare<P>, optional<DataType>>>> {
  explicit Arg(CustomOpKernelContext& ctx) {
    CallInput& in = ctx.NextInput("an optional DataType");
    if (in.present && in.tensors.size() == 1) value = in.tensors[0].dtype();
  }
  optional<DataType>& get() { return value; }
  optional<DataType> value;
};

template <typename P>
struct Arg<P, std::enable_if_t<std::is_same_v<Bare<P>, optional<std::vector<DataType>>>>> {
  explicit Arg(CustomOpKernelContext& ctx) {
    CallInput& in = ctx.NextInput("an optional list of DataTypes");
    if (!in.present) return;
    value.emplace();
    for (const Tensor& t : in.tensors) value->push_back(t.dtype());
  }
  optional<std::vector<DataType>>& get() { return value; }
  optional<std::vector<DataType>> value;
};

[[noreturn]] void ThrowSingleTensorExpected(const std::string& op);
template <typename P>
void Arg<P, std::enable_if_t<std::is_same_v<Bare<P>, Tensor>>>::Throw(CustomOpKernelContext& ctx) {
  ThrowSingleTensorExpected(ctx.op());
}

// Reads every parameter of fn in order (Note [Custom op argument order]) and
// calls it; store(ctx, result) keeps what it returned.
template <typename F, F fn>
struct Caller;

template <typename R, typename... P, R (*fn)(P...)>
struct Caller<R (*)(P...), fn> {
  template <typename Store>
  static void Call(CustomOpKernelContext& ctx, Store store) {
    std::tuple<Arg<P>...> args{Arg<P>(ctx)...};  // braced: read left to right
    if constexpr (std::is_void_v<R>) {
      std::apply([](auto&... a) { fn(a.get()...); }, args);
    } else {
      store(ctx, std::apply([](auto&... a) -> R { return fn(a.get()...); }, args));
    }
  }
};

}  // namespace detail

// PD_KERNEL(fn): fn returns its outputs (std::vector<Tensor>), or nothing when
// every output is an input modified in place (SetInplaceMap) or written through a
// paddle::Tensor* parameter.
#define PD_KERNEL(...)                                                                 \
  ::paddle::KernelFunc([](::paddle::CustomOpKernelContext& ctx) {                      \
    ::paddle::detail::Caller<decltype(&__VA_ARGS__), &__VA_ARGS__>::Call(              \
        ctx, [](::paddle::CustomOpKernelContext& c, auto&& out) { c.outputs = out; }); \
  })
// PD_INFER_SHAPE(fn): fn returns one shape (std::vector<int64_t>) per output.
#define PD_INFER_SHAPE(...)                                                           \
  ::paddle::KernelFunc([](::paddle::CustomOpKernelContext& ctx) {                     \
    ::paddle::detail::Caller<decltype(&__VA_ARGS__), &__VA_ARGS__>::Call(             \
        ctx, [](::paddle::CustomOpKernelContext& c, auto&& out) { c.shapes = out; }); \
  })
// PD_INFER_DTYPE(fn): fn returns one DataType per output.
#define PD_INFER_DTYPE(...)                                                           \
  ::paddle::KernelFunc([](::paddle::CustomOpKernelContext& ctx) {                     \
    ::paddle::detail::Caller<decltype(&__VA_ARGS__), &__VA_ARGS__>::Call(             \
        ctx, [](::paddle::CustomOpKernelContext& c, auto&& out) { c.dtypes = out; }); \
  })

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
