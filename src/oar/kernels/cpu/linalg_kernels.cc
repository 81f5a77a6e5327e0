// matmul: batched, broadcasting GEMM on a real BLAS (benchmarks/blas/ has the
// measurement that picked it). Transposed views are passed to BLAS as
// transpose flags instead of being copied; tiny products skip BLAS, whose
// call overhead dwarfs a few multiply-adds. float32 products large enough and
// bfloat16 run on oneDNN (matmul_onednn.h); real products go through cpu::Gemm.
#include <cblas.h>

#include "oar/kernels/cpu/gemm.h"
#include "oar/kernels/cpu/matmul_onednn.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/funcs/strided_loop.h"
#include "oar/kernels/infer_meta.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

// A matrix operand in BLAS terms: the last two dims of a tensor.
struct MatArg {
  DenseTensor t;  // a view BLAS can read (last two dims have a unit stride)
  bool trans;     // BLAS transpose flag, already combined with the user's flag
  int64_t ld;     // leading dimension
  // The memory is read as the transpose of `t`'s logical layout (a transposed
  // view): a contiguous copy of `t` would then mean the other matrix.
  bool flipped = false;
};

// Prepares the [.., r, c] operand so BLAS sees it (optionally transposed by the user).
MatArg PrepareMat(const DenseTensor& x, bool user_trans) {
  const int64_t nd = x.ndim();
  const int64_t r = x.dims()[nd - 2], c = x.dims()[nd - 1];
  const int64_t sr = x.strides()[nd - 2], sc = x.strides()[nd - 1];
  if ((sc == 1 || c == 1) && sr >= std::max<int64_t>(c, 1)) return {x, user_trans, sr};
  if ((sr == 1 || r == 1) && sc >= std::max<int64_t>(r, 1)) return {x, !user_trans, sc, true};
  DenseTensor cont = funcs::Contiguous(x);
  return {cont, user_trans, std::max<int64_t>(c, 1), false};
}

// 1-D operands become matrices: x as a row, y as a column (a vector's
// transpose flag means nothing).
void PromoteVectors(DenseTensor* x, DenseTensor* y, bool* transpose_x, bool* transpose_y) {
  if (x->ndim() == 1) {
    DenseTensorMeta m = x->meta();
    m.dims.insert(m.dims.begin(), 1);
    m.strides.insert(m.strides.begin(), m.dims[1] * std::max<int64_t>(m.strides[0], 1));
    *x = DenseTensor(x->Holder(), m);
    *transpose_x = false;
  }
  if (y->ndim() == 1) {
    DenseTensorMeta m = y->meta();
    m.dims.push_back(1);
    m.strides.push_back(1);
    *y = DenseTensor(y->Holder(), m);
    *transpose_y = false;
  }
}

template <typename T>
void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
          int64_t ldb, T* c, int64_t ldc) {
  // A plain loop for small products (it beats the BLAS call) and for integers, which
  // have no BLAS (Paddle's int32/int64 matmul is Eigen's; exact, wrapping on overflow
  // like every integer op, -fwrapv). Rows of c are built from rows of b in i, p, j
  // order, so the inner loop runs along contiguous memory; each c[i][j] still sums its
  // products in the order of p.
  if (std::is_integral_v<T> || m * n * k <= 4096) {
    for (int64_t i = 0; i < m; ++i) {
      T* ci = c + i * ldc;
      for (int64_t j = 0; j < n; ++j) ci[j] = T(0);
      for (int64_t p = 0; p < k; ++p) {
        const T av = ta ? a[p * lda + i] : a[i * lda + p];
        // Skipping a zero row is exact for integers only (0 * inf is NaN for floats).
        if constexpr (std::is_integral_v<T>) {
          if (av == T(0)) continue;
        }
        if (tb) {
          for (int64_t j = 0; j < n; ++j) ci[j] += av * b[j * ldb + p];
        } else {
          const T* bp = b + p * ldb;
          for (int64_t j = 0; j < n; ++j) ci[j] += av * bp[j];
        }
      }
    }
    return;
  }
  if constexpr (is_complex_v<T>) {
    // cgemm/zgemm take alpha and beta by pointer; std::complex has their layout.
    const auto TA = ta ? CblasTrans : CblasNoTrans;
    const auto TB = tb ? CblasTrans : CblasNoTrans;
    const T one(1), zero(0);
    if constexpr (std::is_same_v<T, complex64>) {
      cblas_cgemm(CblasRowMajor, TA, TB, m, n, k, &one, a, lda, b, ldb, &zero, c, ldc);
    } else {
      cblas_zgemm(CblasRowMajor, TA, TB, m, n, k, &one, a, lda, b, ldb, &zero, c, ldc);
    }
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    cpu::Gemm<T>(ta, tb, m, n, k, a, lda, b, ldb, T(0), c, ldc);
  }
}

// Compute type T (float or double) for tensors already in T.
template <typename T>
void MatmulImpl(const DenseTensor& x_in, const DenseTensor& y_in, bool transpose_x,
                bool transpose_y, DenseTensor* out) {
  DenseTensor x = x_in, y = y_in;
  PromoteVectors(&x, &y, &transpose_x, &transpose_y);
  T* o = static_cast<T*>(out->AllocateFrom(x_in.place()));
  if (out->numel() == 0) return;
  const int64_t xr = x.ndim(), yr = y.ndim();
  const int64_t M = transpose_x ? x.dims()[xr - 1] : x.dims()[xr - 2];
  const int64_t K = transpose_x ? x.dims()[xr - 2] : x.dims()[xr - 1];
  const int64_t N = transpose_y ? y.dims()[yr - 2] : y.dims()[yr - 1];
  if (K == 0) {
    for (int64_t i = 0; i < out->numel(); ++i) o[i] = T(0);
    return;
  }
  MatArg a = PrepareMat(x, transpose_x), b = PrepareMat(y, transpose_y);
  const T* pa = static_cast<const T*>(a.t.data());
  const T* pb = static_cast<const T*>(b.t.data());
  if (xr == 2 && yr == 2) {  // one product: no batch dims to broadcast
    Gemm<T>(a.trans, b.trans, M, N, K, pa, a.ld, pb, b.ld, o, N);
    return;
  }

  // Batch dims, broadcast.
  DDim bx(a.t.dims().begin(), a.t.dims().end() - 2), by(b.t.dims().begin(), b.t.dims().end() - 2);
  const DDim batch = BroadcastShape(bx, by);
  const int64_t nb = Product(batch);
  // y shared by every batch and x's batches contiguous: one GEMM with M * batch rows.
  if (!a.trans && !a.flipped && Product(by) == 1 && nb > 1) {
    DenseTensor xc = funcs::Contiguous(a.t);
    Gemm<T>(false, b.trans, nb * M, N, K, static_cast<const T*>(xc.data()), K, pb, b.ld, o, N);
    return;
  }
  DenseTensorMeta mx = a.t.meta(), my = b.t.meta();
  mx.dims = bx;
  mx.strides = DDim(a.t.strides().begin(), a.t.strides().end() - 2);
  my.dims = by;
  my.strides = DDim(b.t.strides().begin(), b.t.strides().end() - 2);
  const DDim sx = funcs::BroadcastStrides(DenseTensor(nullptr, mx), batch);
  const DDim sy = funcs::BroadcastStrides(DenseTensor(nullptr, my), batch);
  DDim idx(batch.size(), 0);
  for (int64_t bi = 0; bi < nb; ++bi) {
    int64_t ox = 0, oy = 0;
    for (size_t d = 0; d < batch.size(); ++d) {
      ox += idx[d] * sx[d];
      oy += idx[d] * sy[d];
    }
    Gemm<T>(a.trans, b.trans, M, N, K, pa + ox, a.ld, pb + oy, b.ld, o + bi * M * N, N);
    for (size_t d = batch.size(); d-- > 0;) {
      if (++idx[d] < batch[d]) break;
      idx[d] = 0;
    }
  }
}

}  // namespace

template <typename T>
void MatmulKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& y,
                  bool transpose_x, bool transpose_y, DenseTensor* out) {
  if constexpr (std::is_same_v<T, double> || is_complex_v<T> || std::is_integral_v<T>) {
    MatmulImpl<T>(x, y, transpose_x, transpose_y, out);
  } else {
    const int64_t kx =
        x.ndim() == 1 || !transpose_x ? x.dims()[x.ndim() - 1] : x.dims()[x.ndim() - 2];
    const int64_t mx = x.ndim() == 1 ? 1 : x.dims()[x.ndim() - (transpose_x ? 1 : 2)];
    const int64_t ny = y.ndim() == 1 ? 1 : y.dims()[y.ndim() - (transpose_y ? 2 : 1)];
    const int64_t batch = mx * ny == 0 ? 0 : out->numel() / (mx * ny);
    if (onednn::UsesOneDnn(dtype_of_v<T>, {batch, mx, ny, kx, transpose_x && x.ndim() > 1,
                                           transpose_y && y.ndim() > 1})) {
      // float32 (Note [float32 GEMMs on oneDNN]); bfloat16 (float16 where the
      // CPU has it) read in their dtype and accumulated in float32, each output
      // rounded once. A batch is one primitive.
      DenseTensor xm = x, ym = y;
      PromoteVectors(&xm, &ym, &transpose_x, &transpose_y);
      out->AllocateFrom(x.place());
      onednn::Matmul(xm, transpose_x, ym, transpose_y, nullptr, out);
      return;
    }
    if constexpr (std::is_same_v<T, float>) {
      MatmulImpl<float>(x, y, transpose_x, transpose_y, out);
      return;
    }
    // Otherwise (and for small products, where oneDNN's per-call cost
    // dominates) compute in float32, round once at the end: the same result
    // up to the order of the float32 sums.
    const DenseTensor xf = funcs::CastTo(x, DType::kFloat32);
    const DenseTensor yf = funcs::CastTo(y, DType::kFloat32);
    DenseTensor of(DType::kFloat32, out->dims());
    MatmulImpl<float>(xf, yf, transpose_x, transpose_y, &of);
    out->AllocateFrom(x.place());
    funcs::CopyInto(of, out);
  }
}

OAR_REGISTER_KERNEL(matmul, CPU, Any, MatmulKernel, OAR_FLOAT_TYPES, OAR_COMPLEX_TYPES, int32_t,
                    int64_t);

}  // namespace oar
