// linear (GEMM with the bias as its accumulator), embedding and its gradient, one_hot.
#include <type_traits>

#include "oar/core/parallel.h"
#include "oar/kernels/cpu/gemm.h"
#include "oar/kernels/cpu/matmul_onednn.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/infer_meta.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

// out[m, n] = x[m, k] @ w[k, n] + b[n] for float/double: the bias rows are written
// first and the GEMM accumulates onto them (beta = 1), so the bias costs no extra pass.
template <typename T>
void LinearRows(const T* x, const T* w, const T* b, int64_t m, int64_t k, int64_t n, T* out) {
  ParallelFor(0, m, n, [&](int64_t rb, int64_t re) {
    for (int64_t i = rb; i < re; ++i) std::copy(b, b + n, out + i * n);
  });
  if (k == 0) return;
  cpu::Gemm<T>(false, false, m, n, k, x, k, w, n, T(1), out, n);
}

// The ids as int64, each in [0, rows), else an error naming the first bad one.
std::vector<int64_t> Ids(const DenseTensor& x, int64_t rows) {
  const DenseTensor ids = funcs::CastTo(funcs::Contiguous(x), DType::kInt64);
  const auto* p = static_cast<const int64_t*>(ids.data());
  std::vector<int64_t> out(p, p + ids.numel());
  for (int64_t v : out) {
    if (v < 0 || v >= rows) {
      throw errors::OutOfRange("argument 'x' holds id ", v, ", out of range [0, ", rows,
                               ") for a weight with ", rows, " rows");
    }
  }
  return out;
}

}  // namespace

template <typename T>
void LinearKernel(const DeviceContext&, const DenseTensor& x_in, const DenseTensor& w_in,
                  const DenseTensor& b_in, DenseTensor* out) {
  const int64_t k = w_in.dims()[0], n = w_in.dims()[1];
  const int64_t m = k == 0 ? (n == 0 ? 0 : out->numel() / n) : x_in.numel() / k;
  if (k > 0 && onednn::UsesOneDnn(dtype_of_v<T>, {1, m, n, k, false, false})) {
    // On oneDNN (Note [float32 GEMMs on oneDNN]; bfloat16, or float16 where the
    // CPU has it): x's leading dims are batch dims weight broadcasts over, the
    // bias is added in the product's float32 output pass, before a low
    // precision output is rounded once.
    out->AllocateFrom(x_in.place());
    if (out->numel() == 0) return;
    DenseTensor x = x_in;
    if (x.ndim() == 1) {  // a single row
      DenseTensorMeta m = x.meta();
      m.dims.insert(m.dims.begin(), 1);
      m.strides.insert(m.strides.begin(), k * std::max<int64_t>(m.strides[0], 1));
      x = DenseTensor(x.Holder(), m);
    }
    onednn::Matmul(x, false, w_in, false, &b_in, out);
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    const DenseTensor x = funcs::Contiguous(x_in), w = funcs::Contiguous(w_in),
                      b = funcs::Contiguous(b_in);
    T* o = static_cast<T*>(out->AllocateFrom(x.place()));
    if (out->numel() == 0) return;
    LinearRows<T>(static_cast<const T*>(x.data()), static_cast<const T*>(w.data()),
                  static_cast<const T*>(b.data()), m, k, n, o);
  } else {
    // Otherwise compute in float32, round once at the end.
    const DenseTensor x = funcs::CastTo(funcs::Contiguous(x_in), DType::kFloat32),
                      w = funcs::CastTo(funcs::Contiguous(w_in), DType::kFloat32),
                      b = funcs::CastTo(funcs::Contiguous(b_in), DType::kFloat32);
    T* o = static_cast<T*>(out->AllocateFrom(x.place()));
    if (out->numel() == 0) return;
    std::vector<float> tmp(static_cast<size_t>(m * n));
    LinearRows<float>(static_cast<const float*>(x.data()), static_cast<const float*>(w.data()),
                      static_cast<const float*>(b.data()), m, k, n, tmp.data());
    for (int64_t i = 0; i < m * n; ++i) o[i] = static_cast<T>(tmp[i]);
  }
}

template <typename T>
void EmbeddingKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& w_in,
                     int64_t padding_idx, DenseTensor* out) {
  const DenseTensor w = funcs::Contiguous(w_in);
  const int64_t rows = w.dims()[0], dim = w.dims()[1];
  const std::vector<int64_t> ids = Ids(x, rows);
  const T* pw = static_cast<const T*>(w.data());
  T* o = static_cast<T*>(out->AllocateFrom(w.place()));
  const auto count = static_cast<int64_t>(ids.size());
  ParallelFor(0, count, dim, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      if (ids[i] == padding_idx) {
        std::fill(o + i * dim, o + (i + 1) * dim, T(0));
      } else {
        std::copy(pw + ids[i] * dim, pw + (ids[i] + 1) * dim, o + i * dim);
      }
    }
  });
}

template <typename T>
void EmbeddingGradKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& w,
                         const DenseTensor& grad_out_in, int64_t padding_idx,
                         DenseTensor* weight_grad) {
  using C = compute_t<T>;
  const DenseTensor g = funcs::Contiguous(grad_out_in);
  const int64_t rows = w.dims()[0], dim = w.dims()[1];
  const std::vector<int64_t> ids = Ids(x, rows);
  const T* pg = static_cast<const T*>(g.data());
  weight_grad->AllocateFrom(g.place());
  funcs::Fill(weight_grad, 0);
  T* dw = static_cast<T*>(weight_grad->data());
  // Repeated ids accumulate into one row, so the ids are walked in order and the
  // threads split the embedding columns instead.
  ParallelFor(0, dim, static_cast<int64_t>(ids.size()), [&](int64_t cb, int64_t ce) {
    for (size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] == padding_idx) continue;
      T* dst = dw + ids[i] * dim;
      const T* src = pg + static_cast<int64_t>(i) * dim;
      for (int64_t c = cb; c < ce; ++c) dst[c] = static_cast<T>(C(dst[c]) + C(src[c]));
    }
  });
}

template <typename T>
void OneHotKernel(const DeviceContext&, const DenseTensor& x, int64_t num_classes,
                  DenseTensor* out) {
  const DenseTensor ids = funcs::CastTo(funcs::Contiguous(x), DType::kInt64);
  const auto* p = static_cast<const int64_t*>(ids.data());
  float* o = static_cast<float*>(out->AllocateFrom(ids.place()));
  funcs::Fill(out, 0);
  for (int64_t i = 0; i < ids.numel(); ++i) {
    if (p[i] < 0 || p[i] >= num_classes) {
      throw errors::OutOfRange("argument 'x' holds ", p[i], ", out of range [0, ", num_classes,
                               ") for num_classes ", num_classes);
    }
    o[i * num_classes + p[i]] = 1.0f;
  }
}

OAR_REGISTER_KERNEL(linear, CPU, Any, LinearKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(embedding, CPU, Any, EmbeddingKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(embedding_grad, CPU, Any, EmbeddingGradKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(one_hot, CPU, Any, OneHotKernel, int32_t, int64_t);

}  // namespace oar
