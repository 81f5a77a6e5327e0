// Winograd's F(2x2, 3x3) in oar's own code: the three passes of 3x3 stride-1 float32
// convolutions on CPUs where oneDNN has no Winograd kernel (Note [Winograd's F(2x2,
// 3x3) where oneDNN has none] in conv_impl.h).
//
// A pass works through chunks of tile rows (a tile row: one sample's 2-row strip of
// output, ceil(OW / 2) tiles of 2x2). Per chunk: the input transform writes V[16][C_in][T]
// (T tiles of the chunk), 16 GEMMs multiply the transformed weight U[16][C_out][C_in]
// by it into M[16][C_out][T], and the output transform writes the 2x2 tiles from M
// (the weight gradient instead transforms the output gradient's tiles too and sums
// their products with V over the chunks). A chunk is a few megabytes, so V and M pass
// from step to step through the caches.
#include <algorithm>
#include <cstring>
#include <vector>

#include "oar/core/parallel.h"
#include "oar/kernels/cpu/conv_impl.h"
#include "oar/kernels/cpu/matmul_onednn.h"

namespace oar::conv_engine {
namespace {

constexpr int kTaps = 16;  // a 4x4 input tile, transformed

// A pass's shape: y [N, CO, OH, OW] = correlation of x [N, CI, H, W], whose row
// (column) 0 sits at output row (column) -pad_top (-pad_left), with the 3x3 weight
// the transform u [16][CO][CI] came from.
struct Shape {
  int64_t n, ci, h, w, co, oh, ow, pad_top, pad_left;
  int64_t tiles_h() const { return (oh + 1) / 2; }
  int64_t tiles_w() const { return (ow + 1) / 2; }
};

// What a folded convolution adds to each output after the sum: a bias per output
// channel, then a residual shaped like the output, then relu (oneDNN's order for a
// bias, a sum post-op and a relu post-op). The eager passes add nothing.
struct Epilogue {
  const float* bias = nullptr;
  const float* residual = nullptr;
  bool relu = false;
};

// U = G g G^T for each (out, in) pair, G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1],
// for the outputs [o0, o1). `flip` transposes the channel pair and rotates the window
// by 180 degrees: the data gradient's weight (dx = correlation of dy with w rotated,
// channels swapped). Each output's taps are first gathered tap-major, so the
// arithmetic runs over the inputs in vectors.
void TransformWeight(const float* w, int64_t co, int64_t ci, bool flip, int64_t o0, int64_t o1,
                     float* u) {
  const int64_t out = flip ? ci : co, in = flip ? co : ci;
  std::vector<float> taps(9 * in), t(12 * in);
  for (int64_t o = o0; o < o1; ++o) {
    for (int64_t i = 0; i < in; ++i) {
      const float* src = flip ? w + (i * ci + o) * 9 : w + (o * ci + i) * 9;
      for (int k = 0; k < 9; ++k) taps[k * in + i] = src[flip ? 8 - k : k];
    }
    // t = G g: [4 rows][3 columns][in]
    for (int c = 0; c < 3; ++c) {
      const float* g0 = taps.data() + c * in;
      const float* g1 = g0 + 3 * in;
      const float* g2 = g1 + 3 * in;
      float* t0 = t.data() + c * in;
      for (int64_t i = 0; i < in; ++i) {
        t0[i] = g0[i];
        t0[3 * in + i] = 0.5f * (g0[i] + g1[i] + g2[i]);
        t0[6 * in + i] = 0.5f * (g0[i] - g1[i] + g2[i]);
        t0[9 * in + i] = g2[i];
      }
    }
    // U = t G^T, row r of 4 into taps 4r..4r+3
    for (int r = 0; r < 4; ++r) {
      const float* a0 = t.data() + 3 * r * in;
      const float* a1 = a0 + in;
      const float* a2 = a1 + in;
      float* u0 = u + ((4 * r) * out + o) * in;
      const int64_t tap = out * in;
      for (int64_t i = 0; i < in; ++i) {
        u0[i] = a0[i];
        u0[tap + i] = 0.5f * (a0[i] + a1[i] + a2[i]);
        u0[2 * tap + i] = 0.5f * (a0[i] - a1[i] + a2[i]);
        u0[3 * tap + i] = a2[i];
      }
    }
  }
}

// The transforms' two steps over n tiles at once. __restrict lets the compiler keep
// them in vectors (with four outputs it otherwise checks no overlap and runs scalar).
// B^T's rows: o = (a0 - a2, a1 + a2, a2 - a1, a1 - a3).
void BtRows(const float* __restrict a0, const float* __restrict a1, const float* __restrict a2,
            const float* __restrict a3, float* __restrict o0, float* __restrict o1,
            float* __restrict o2, float* __restrict o3, int64_t n) {
  for (int64_t t = 0; t < n; ++t) {
    o0[t] = a0[t] - a2[t];
    o1[t] = a1[t] + a2[t];
    o2[t] = a2[t] - a1[t];
    o3[t] = a1[t] - a3[t];
  }
}
// A^T's rows: s = a0 + a1 + a2, d = a1 - a2 - a3.
void AtRows(const float* __restrict a0, const float* __restrict a1, const float* __restrict a2,
            const float* __restrict a3, float* __restrict s, float* __restrict d, int64_t n) {
  for (int64_t t = 0; t < n; ++t) {
    s[t] = a0[t] + a1[t] + a2[t];
    d[t] = a1[t] - a2[t] - a3[t];
  }
}

// A's rows (A is 4x2, the transpose of A^T below): o = (a, a + b, a - b, -b).
void ARows(const float* __restrict a, const float* __restrict b, float* __restrict o0,
           float* __restrict o1, float* __restrict o2, float* __restrict o3, int64_t n) {
  for (int64_t t = 0; t < n; ++t) {
    o0[t] = a[t];
    o1[t] = a[t] + b[t];
    o2[t] = a[t] - b[t];
    o3[t] = -b[t];
  }
}

// V = B^T d B of the tiles of tile rows [row0, row1) (row = sample * tiles_h + tile
// row); v is [16][CI][T]. Tile t of a strip reads its columns 2t..2t+3, so each input
// row is split into even and odd columns first: d0..d3 = even[t], odd[t], even[t+1],
// odd[t+1].
void TransformInput(const float* x, const Shape& s, int64_t c0, int64_t c1, int64_t row0,
                    int64_t row1, float* v, int64_t t_stride, std::vector<float>* scratch) {
  const int64_t th = s.tiles_h(), tw = s.tiles_w(), width = 2 * tw + 2, half = tw + 1;
  scratch->resize(std::max<size_t>(scratch->size(), width + 8 * half + 16 * tw));
  float* strip = scratch->data();    // one input row, zero outside the input
  float* split = strip + width;      // per row r: even [half], odd [half]
  float* rt = split + 8 * half;      // row transforms: [row r][value j][tw]
  const int64_t col0 = -s.pad_left;  // input column of the strip's column 0
  const int64_t lo = std::max<int64_t>(0, -col0), hi = std::min<int64_t>(width, s.w - col0);
  for (int64_t c = c0; c < c1; ++c) {
    for (int64_t row = row0; row < row1; ++row) {
      const int64_t b = row / th, ty = row % th, r0 = 2 * ty - s.pad_top;
      const float* plane = x + (b * s.ci + c) * s.h * s.w;
      for (int r = 0; r < 4; ++r) {
        float* even = split + 2 * r * half;
        float* odd = even + half;
        const int64_t ih = r0 + r;
        if (ih < 0 || ih >= s.h || hi <= lo) {
          std::fill(even, even + 2 * half, 0.0f);
        } else {
          std::fill(strip, strip + lo, 0.0f);
          std::memcpy(strip + lo, plane + ih * s.w + col0 + lo, (hi - lo) * sizeof(float));
          std::fill(strip + hi, strip + width, 0.0f);
          for (int64_t j = 0; j < half; ++j) {
            even[j] = strip[2 * j];
            odd[j] = strip[2 * j + 1];
          }
        }
        float* o = rt + r * 4 * tw;
        BtRows(even, odd, even + 1, odd + 1, o, o + tw, o + 2 * tw, o + 3 * tw, tw);
      }
      const int64_t off = (row - row0) * tw;
      for (int j = 0; j < 4; ++j) {
        float* vj = v + (j * s.ci + c) * t_stride + off;
        const int64_t tap = 4 * s.ci * t_stride;  // from V[i][j] to V[i + 1][j]
        BtRows(rt + j * tw, rt + (4 + j) * tw, rt + (8 + j) * tw, rt + (12 + j) * tw, vj, vj + tap,
               vj + 2 * tap, vj + 3 * tap, tw);
      }
    }
  }
}

// Y = A^T M A, A^T = [1 1 1 0; 0 1 -1 -1], from m [16][CO][T] into y.
void TransformOutput(const float* m, const Shape& s, int64_t o0, int64_t o1, int64_t row0,
                     int64_t row1, int64_t t_stride, float* y, const Epilogue& ep,
                     std::vector<float>* scratch) {
  const int64_t th = s.tiles_h(), tw = s.tiles_w();
  scratch->resize(std::max<size_t>(scratch->size(), 8 * tw + 2 * tw));
  float* part = scratch->data();  // A^T M: [output row r][column j][tw]
  float* even = part + 8 * tw;    // an output row's even and odd columns
  float* odd = even + tw;
  const int64_t tap = 4 * s.co * t_stride;  // from M[i][j] to M[i + 1][j]
  for (int64_t o = o0; o < o1; ++o) {
    for (int64_t row = row0; row < row1; ++row) {
      const int64_t b = row / th, ty = row % th, off = (row - row0) * tw;
      for (int j = 0; j < 4; ++j) {
        const float* mj = m + (j * s.co + o) * t_stride + off;
        AtRows(mj, mj + tap, mj + 2 * tap, mj + 3 * tap, part + j * tw, part + (4 + j) * tw, tw);
      }
      float* plane = y + (b * s.co + o) * s.oh * s.ow;
      for (int r = 0; r < 2 && 2 * ty + r < s.oh; ++r) {
        const float* p = part + r * 4 * tw;
        AtRows(p, p + tw, p + 2 * tw, p + 3 * tw, even, odd, tw);
        float* dst = plane + (2 * ty + r) * s.ow;
        const int64_t pairs = s.ow / 2;
        for (int64_t t = 0; t < pairs; ++t) {
          dst[2 * t] = even[t];
          dst[2 * t + 1] = odd[t];
        }
        if (s.ow % 2) dst[s.ow - 1] = even[pairs];
        if (ep.bias != nullptr) {
          const float bias = ep.bias[o];
          const float* res = ep.residual == nullptr ? nullptr : ep.residual + (dst - y);
          for (int64_t j = 0; j < s.ow; ++j) {
            const float v = dst[j] + bias + (res == nullptr ? 0.0f : res[j]);
            dst[j] = ep.relu ? std::max(v, 0.0f) : v;
          }
        }
      }
    }
  }
}

// Bytes of a chunk's transformed input (or output): the three steps of a chunk pass
// it on through the caches the cores share.
constexpr int64_t kChunkBytes = int64_t{4} << 20;

// A float32 buffer from oar's allocator, which keeps freed blocks for the next call
// (fresh pages at every call cost more than the transforms).
float* Buffer(std::vector<DenseTensor>* held, int64_t n) {
  return held->emplace_back(DType::kFloat32, DDim{n}).mutable_data<float>();
}

// Tile rows per chunk: as many as keep a chunk's transformed tiles within kChunkBytes.
int64_t ChunkRows(const Shape& s) {
  const int64_t per_row = kTaps * std::max(s.ci, s.co) * s.tiles_w() * int64_t{sizeof(float)};
  return std::clamp<int64_t>(kChunkBytes / per_row, 1, s.n * s.tiles_h());
}

// The input transform of a chunk's tile rows [row0, row1) (t tiles), split by channel.
void InputTiles(const float* x, const Shape& s, int64_t row0, int64_t row1, int64_t t, float* v) {
  ParallelFor(0, s.ci, 16 * 8 * t, [&](int64_t b, int64_t e) {
    std::vector<float> scratch;
    TransformInput(x, s, b, e, row0, row1, v, t, &scratch);
  });
}

// Each step of a chunk splits over the threads by what it has most of: the input
// transform by input channel, the 16 GEMMs one per thread (Note [Libraries inside a
// chunk run on one thread] in core/thread_pool.cc), the output transform by output
// channel. So a chunk of few tiles and many channels (a 512-channel layer at 7x7) is
// as parallel as one of many tiles.
void Run(const float* x, const float* u, const Shape& s, float* y, const Epilogue& ep = {}) {
  const int64_t rows = s.n * s.tiles_h(), tw = s.tiles_w(), chunk_rows = ChunkRows(s);
  std::vector<DenseTensor> held;
  float* v = Buffer(&held, kTaps * s.ci * chunk_rows * tw);
  float* m = Buffer(&held, kTaps * s.co * chunk_rows * tw);
  for (int64_t row0 = 0; row0 < rows; row0 += chunk_rows) {
    const int64_t row1 = std::min(rows, row0 + chunk_rows), t = (row1 - row0) * tw;
    InputTiles(x, s, row0, row1, t, v);
    ParallelFor(0, kTaps, 2 * s.co * s.ci * t, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) {
        onednn::Gemm(false, false, s.co, t, s.ci, u + k * s.co * s.ci, s.ci, v + k * s.ci * t, t,
                     0.0f, m + k * s.co * t, t);
      }
    });
    ParallelFor(0, s.co, 16 * 6 * t, [&](int64_t b, int64_t e) {
      std::vector<float> scratch;
      TransformOutput(m, s, b, e, row0, row1, t, y, ep, &scratch);
    });
  }
}

// The weight gradient's side of the output gradient: E = A dy A^T of each 2x2 tile of
// dy (zero where a tile reaches past the output), for the outputs [o0, o1) of the tile
// rows [row0, row1); e is [16][CO][T]. (Y = A^T (U . V) A makes dL/dU = A dY A^T . V.)
void TransformGrad(const float* dy, const Shape& s, int64_t o0, int64_t o1, int64_t row0,
                   int64_t row1, int64_t t_stride, float* e, std::vector<float>* scratch) {
  const int64_t th = s.tiles_h(), tw = s.tiles_w();
  scratch->resize(std::max<size_t>(scratch->size(), 12 * tw));
  float* split = scratch->data();           // per output row r: even [tw], odd [tw]
  float* rt = split + 4 * tw;               // row transforms: [row r][value j][tw]
  const int64_t tap = 4 * s.co * t_stride;  // from E[i][j] to E[i + 1][j]
  for (int64_t o = o0; o < o1; ++o) {
    for (int64_t row = row0; row < row1; ++row) {
      const int64_t b = row / th, ty = row % th, off = (row - row0) * tw;
      const float* plane = dy + (b * s.co + o) * s.oh * s.ow;
      for (int r = 0; r < 2; ++r) {
        float* even = split + 2 * r * tw;
        float* odd = even + tw;
        const int64_t oh = 2 * ty + r;
        if (oh >= s.oh) {
          std::fill(even, even + 2 * tw, 0.0f);
        } else {
          const float* src = plane + oh * s.ow;
          const int64_t pairs = s.ow / 2;
          for (int64_t t = 0; t < pairs; ++t) {
            even[t] = src[2 * t];
            odd[t] = src[2 * t + 1];
          }
          if (s.ow % 2) {
            even[pairs] = src[s.ow - 1];
            odd[pairs] = 0.0f;
          }
        }
        float* q = rt + r * 4 * tw;
        ARows(even, odd, q, q + tw, q + 2 * tw, q + 3 * tw, tw);
      }
      for (int j = 0; j < 4; ++j) {
        float* ej = e + (j * s.co + o) * t_stride + off;
        ARows(rt + j * tw, rt + (4 + j) * tw, ej, ej + tap, ej + 2 * tap, ej + 3 * tap, tw);
      }
    }
  }
}

// dw = G^T M G of each (out, in) pair, G^T = [1 1/2 1/2 0; 0 1/2 -1/2 0; 0 1/2 1/2 1],
// for the outputs [o0, o1); m is [16][CO][CI], dw [CO][CI][3][3].
void TransformWeightGrad(const float* m, int64_t co, int64_t ci, int64_t o0, int64_t o1,
                         float* dw) {
  std::vector<float> t(12 * ci), out(9 * ci);
  const int64_t tap = co * ci;
  for (int64_t o = o0; o < o1; ++o) {
    // t = G^T M: [3 rows][4 columns][ci]
    for (int c = 0; c < 4; ++c) {
      const float* m0 = m + (c * co + o) * ci;
      float* t0 = t.data() + c * ci;
      for (int64_t i = 0; i < ci; ++i) {
        const float a = m0[i], b = m0[4 * tap + i], d = m0[8 * tap + i], f = m0[12 * tap + i];
        t0[i] = a + 0.5f * (b + d);
        t0[4 * ci + i] = 0.5f * (b - d);
        t0[8 * ci + i] = 0.5f * (b + d) + f;
      }
    }
    // dw = t G, tap-major, then into [ci][3][3]
    for (int r = 0; r < 3; ++r) {
      const float* a0 = t.data() + 4 * r * ci;
      float* w0 = out.data() + 3 * r * ci;
      for (int64_t i = 0; i < ci; ++i) {
        const float a = a0[i], b = a0[ci + i], d = a0[2 * ci + i], f = a0[3 * ci + i];
        w0[i] = a + 0.5f * (b + d);
        w0[ci + i] = 0.5f * (b - d);
        w0[2 * ci + i] = 0.5f * (b + d) + f;
      }
    }
    for (int64_t i = 0; i < ci; ++i) {
      for (int k = 0; k < 9; ++k) dw[(o * ci + i) * 9 + k] = out[k * ci + i];
    }
  }
}

// dw [CO][CI][3][3] from x and dy: M[k] = E[k] V[k]^T summed over the chunks'
// tiles, one GEMM per transformed tap and chunk (beta 1 after the first chunk, so
// each M[k] adds its chunks in order on one thread).
void RunWeightGrad(const float* x, const float* dy, const Shape& s, float* dw) {
  const int64_t rows = s.n * s.tiles_h(), tw = s.tiles_w(), chunk_rows = ChunkRows(s);
  std::vector<DenseTensor> held;
  float* v = Buffer(&held, kTaps * s.ci * chunk_rows * tw);
  float* e = Buffer(&held, kTaps * s.co * chunk_rows * tw);
  float* m = Buffer(&held, kTaps * s.co * s.ci);
  for (int64_t row0 = 0; row0 < rows; row0 += chunk_rows) {
    const int64_t row1 = std::min(rows, row0 + chunk_rows), t = (row1 - row0) * tw;
    InputTiles(x, s, row0, row1, t, v);
    ParallelFor(0, s.co, 16 * 4 * t, [&](int64_t b, int64_t end) {
      std::vector<float> scratch;
      TransformGrad(dy, s, b, end, row0, row1, t, e, &scratch);
    });
    ParallelFor(0, kTaps, 2 * s.co * s.ci * t, [&](int64_t b, int64_t end) {
      for (int64_t k = b; k < end; ++k) {
        onednn::Gemm(false, true, s.co, s.ci, t, e + k * s.co * t, t, v + k * s.ci * t, t,
                     row0 == 0 ? 0.0f : 1.0f, m + k * s.co * s.ci, s.ci);
      }
    });
  }
  ParallelFor(0, s.co, 16 * 12 * s.ci,
              [&](int64_t b, int64_t end) { TransformWeightGrad(m, s.co, s.ci, b, end, dw); });
}

// The weight's transform [16, out, in] for one pass, split over the threads by output
// (`flip`: the data gradient's, as TransformWeight says).
DenseTensor TransformedWeight(const DenseTensor& w, bool flip) {
  const int64_t co = w.dims()[0], ci = w.dims()[1], out = flip ? ci : co, in = flip ? co : ci;
  DenseTensor u(DType::kFloat32, DDim{kTaps, out, in});
  float* pu = u.mutable_data<float>();
  ParallelFor(0, out, 16 * in, [&](int64_t b, int64_t e) {
    TransformWeight(static_cast<const float*>(w.data()), co, ci, flip, b, e, pu);
  });
  return u;
}

}  // namespace

namespace detail {

void WinogradForward(const DenseTensor& x, const DenseTensor& w, const WindowGeometry& g,
                     DenseTensor* y) {
  const Shape s{x.dims()[0], x.dims()[1], g.in[1],         g.in[2],        w.dims()[0],
                g.out[1],    g.out[2],    g.pad_before[1], g.pad_before[2]};
  const DenseTensor u = TransformedWeight(w, false);
  Run(static_cast<const float*>(x.data()), static_cast<const float*>(u.data()), s,
      static_cast<float*>(y->data()));
}

// dx[i] = sum_r dy[i + pad - r] w[r]: a correlation of dy, whose row 0 sits at dx's
// row pad - 2, with the window rotated.
void WinogradBackwardData(const DenseTensor& dy, const DenseTensor& w, const WindowGeometry& g,
                          DenseTensor* dx) {
  const int64_t co = w.dims()[0], ci = w.dims()[1];
  const Shape s{
      dy.dims()[0],       co, g.out[1], g.out[2], ci, g.in[1], g.in[2], 2 - g.pad_before[1],
      2 - g.pad_before[2]};
  const DenseTensor u = TransformedWeight(w, true);
  Run(static_cast<const float*>(dy.data()), static_cast<const float*>(u.data()), s,
      static_cast<float*>(dx->data()));
}

void WinogradBackwardWeights(const DenseTensor& x, const DenseTensor& dy, const WindowGeometry& g,
                             DenseTensor* dw) {
  const Shape s{x.dims()[0], x.dims()[1], g.in[1],         g.in[2],        dw->dims()[0],
                g.out[1],    g.out[2],    g.pad_before[1], g.pad_before[2]};
  RunWeightGrad(static_cast<const float*>(x.data()), static_cast<const float*>(dy.data()), s,
                static_cast<float*>(dw->data()));
}

}  // namespace detail

DenseTensor WinogradWeight(const DenseTensor& w) { return TransformedWeight(w, false); }

void WinogradForwardFolded(const DenseTensor& x, const DenseTensor& u, const WindowGeometry& g,
                           const float* bias, const DenseTensor* residual, bool relu,
                           DenseTensor* y) {
  const Shape s{x.dims()[0], x.dims()[1], g.in[1],         g.in[2],        u.dims()[1],
                g.out[1],    g.out[2],    g.pad_before[1], g.pad_before[2]};
  const Epilogue ep{
      bias, residual == nullptr ? nullptr : static_cast<const float*>(residual->data()), relu};
  Run(static_cast<const float*>(x.data()), static_cast<const float*>(u.data()), s,
      static_cast<float*>(y->data()), ep);
}

}  // namespace oar::conv_engine
