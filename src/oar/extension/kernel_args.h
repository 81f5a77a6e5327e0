// PD_KERNEL, PD_INFER_SHAPE and PD_INFER_DTYPE: the glue that calls a user's
// typed function with the arguments of one call (docs/custom_ops.md).
//
// Note [Custom op argument order]
// A user's function takes its arguments by kind, as Paddle's do: tensor
// arguments (const Tensor&, Tensor&, const std::vector<Tensor>&,
// const paddle::optional<Tensor>&) take the declared inputs in order, and the
// other arguments take the declared attributes in order; paddle::Tensor*
// parameters (Paddle 2.3's output parameters) take the declared outputs. In an
// infer-shape function a std::vector<int64_t> is an input's shape while inputs
// are left and an attribute after them, so both spellings of Paddle's examples
// work. The arguments are read in parameter order: the reads are the elements
// of one braced list, which C++ evaluates left to right.
#pragma once

#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "oar/extension/kernel_context.h"

namespace paddle {
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
}  // namespace paddle

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
