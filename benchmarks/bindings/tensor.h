// Shared "op" used by every binding candidate, so that only the binding layer differs.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

namespace oar_bench {

struct Impl {
  std::vector<int64_t> shape;
  float value = 0.f;
};

struct Tensor {
  std::shared_ptr<Impl> impl;

  Tensor() = default;
  explicit Tensor(std::shared_ptr<Impl> p) : impl(std::move(p)) {}
  Tensor(float v, std::vector<int64_t> shape)
      : impl(std::make_shared<Impl>(Impl{std::move(shape), v})) {}

  float value() const { return impl->value; }
  const std::vector<int64_t>& shape() const { return impl->shape; }
};

// The "kernel": reads both inputs, allocates a new Impl, returns a new Tensor.
inline Tensor add(const Tensor& x, const Tensor& y) {
  auto r = std::make_shared<Impl>();
  r->shape = x.impl->shape;
  r->value = x.impl->value + y.impl->value;
  return Tensor(std::move(r));
}

inline Tensor matmul(const Tensor& x, const Tensor& y, bool transpose_x) {
  auto r = std::make_shared<Impl>();
  r->shape = transpose_x ? y.impl->shape : x.impl->shape;
  r->value = x.impl->value * y.impl->value;
  return Tensor(std::move(r));
}

}  // namespace oar_bench
