// bfloat16 (and, where the CPU has it, float16) GEMM on oneDNN's matmul
// primitive (matmul_onednn.h). oneDNN reads strided operands itself, so
// transposed and sliced views cost no copy, and it broadcasts batch dims, so a
// batched product is one primitive. Primitives are created per call: oneDNN's
// primitive cache makes a repeat of the same shapes and strides cheap. It runs
// on its OpenMP runtime with omp_get_max_threads() threads, as the convolutions
// do (conv_onednn.cc).
#include "oar/kernels/cpu/matmul_onednn.h"

#include <algorithm>
#include <unordered_map>

#include "oar/kernels/cpu/onednn_util.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/infer_meta.h"

namespace oar::onednn {
namespace {

using dnnl::memory;

// A dim of size 1 may carry any stride in oar; oneDNN checks every stride, so
// such dims get the extent of the dims inside them.
memory::dims SafeStrides(const memory::dims& dims, memory::dims strides) {
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] != 1) continue;
    int64_t extent = 1;
    for (size_t i = d + 1; i < dims.size(); ++i) {
      extent = std::max(extent, (dims[i] - 1) * strides[i] + 1);
    }
    strides[d] = extent;
  }
  return strides;
}

// Whether oneDNN's optimised kernels can read t in place: one of the two last
// dims has a unit stride, and every dim longer than 1 a positive stride (a
// memory descriptor cannot express a flipped view's negative stride or an
// expanded view's zero stride).
bool Readable(const DenseTensor& t) {
  const int64_t nd = t.ndim();
  for (int64_t d = 0; d < nd; ++d) {
    if (t.dims()[d] > 1 && t.strides()[d] <= 0) return false;
  }
  const int64_t r = t.dims()[nd - 2], c = t.dims()[nd - 1];
  const int64_t sr = t.strides()[nd - 2], sc = t.strides()[nd - 1];
  return sc == 1 || sr == 1 || r == 1 || c == 1;
}

// op(t) as a [batch..., rows, cols] descriptor of rank `rank`: leading dims of
// size 1 where t has fewer batch dims (oneDNN broadcasts those), a transpose as
// swapped strides of the last two dims.
memory::desc OperandDesc(const DenseTensor& t, bool trans, size_t rank) {
  const int64_t nd = t.ndim();
  memory::dims dims(rank, 1), strides(rank, 1);
  const size_t lead = rank - static_cast<size_t>(nd);
  for (int64_t d = 0; d < nd; ++d) {
    dims[lead + d] = t.dims()[d];
    strides[lead + d] = t.strides()[d];
  }
  if (trans) {
    std::swap(dims[rank - 2], dims[rank - 1]);
    std::swap(strides[rank - 2], strides[rank - 1]);
  }
  return {dims, DataType(t.dtype()), SafeStrides(dims, strides)};
}

memory::dims PlainStrides(const memory::dims& dims) {
  memory::dims s(dims.size(), 1);
  for (size_t i = dims.size() - 1; i-- > 0;) s[i] = s[i + 1] * std::max<int64_t>(dims[i + 1], 1);
  return SafeStrides(dims, s);
}

dnnl::matmul::primitive_desc MakePd(const memory::desc& a, const memory::desc& b,
                                    const memory::desc* bias, const memory::desc& c) {
  if (bias != nullptr) return {dnnl::matmul::desc(a, b, *bias, c), Engine()};
  return {dnnl::matmul::desc(a, b, c), Engine()};
}

// A small product in `dtype` on plain layouts: what the per-call primitives
// will be like, for HasFastMatmul.
bool ProbeFast(DType dtype) {
  try {
    const memory::dims d = {64, 64};
    const memory::desc md(d, DataType(dtype), memory::dims{64, 1});
    return IsOptimized(MakePd(md, md, nullptr, md));
  } catch (const dnnl::error&) {
    return false;  // no implementation at all for this dtype
  }
}

}  // namespace

bool HasFastMatmul(DType dtype) {
  // Immutable after their thread-safe initialisation: a CPU does not change.
  static const bool bf16 = ProbeFast(DType::kBFloat16);
  static const bool f16 = ProbeFast(DType::kFloat16);
  if (dtype == DType::kBFloat16) return bf16;
  if (dtype == DType::kFloat16) return f16;
  return false;
}

void Matmul(const DenseTensor& x_in, bool tx, const DenseTensor& y_in, bool ty,
            const DenseTensor* bias_in, DenseTensor* out) {
  const DenseTensor x = Readable(x_in) ? x_in : funcs::Contiguous(x_in);
  const DenseTensor y = Readable(y_in) ? y_in : funcs::Contiguous(y_in);
  const DDim batch = BroadcastShape(DDim(x.dims().begin(), x.dims().end() - 2),
                                    DDim(y.dims().begin(), y.dims().end() - 2), "x", "y");
  const size_t rank = batch.size() + 2;
  // Everything oneDNN may refuse inside the guard, which makes it an oar error.
  Guard("matmul", [&] {
    const memory::desc a = OperandDesc(x, tx, rank), b = OperandDesc(y, ty, rank);
    memory::dims cd(batch.begin(), batch.end());
    cd.push_back(a.dims()[rank - 2]);
    cd.push_back(b.dims()[rank - 1]);
    const memory::desc c(cd, DataType(out->dtype()), PlainStrides(cd));
    DenseTensor bias;
    memory::desc bd;
    if (bias_in != nullptr) {
      bias = funcs::Contiguous(*bias_in);
      memory::dims bdims(rank, 1);
      bdims.back() = cd.back();
      bd = memory::desc(bdims, DataType(bias.dtype()), PlainStrides(bdims));
    }
    const auto pd = MakePd(a, b, bias_in != nullptr ? &bd : nullptr, c);
    const auto mem = [](const memory::desc& md, const DenseTensor& t) {
      // oneDNN never writes to an input; the cast only satisfies its signature.
      return memory(md, Engine(), const_cast<void*>(t.data()));
    };
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, mem(a, x)},
                                            {DNNL_ARG_WEIGHTS, mem(b, y)},
                                            {DNNL_ARG_DST, memory(c, Engine(), out->data())}};
    if (bias_in != nullptr) args.insert({DNNL_ARG_BIAS, mem(bd, bias)});
    dnnl::stream s(Engine());
    dnnl::matmul(pd).execute(s, args);
    s.wait();
  });
}

}  // namespace oar::onednn
