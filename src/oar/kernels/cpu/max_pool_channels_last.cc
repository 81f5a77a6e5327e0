#include "oar/kernels/cpu/max_pool_channels_last.h"

#include <algorithm>
#include <utility>

#include "oar/core/parallel.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/infer_meta_conv.h"

namespace oar::conv_engine {

namespace {

WindowGeometry Geometry(const DDim& x, const std::vector<int64_t>& kernel_size,
                        const std::vector<int64_t>& strides, const std::vector<int64_t>& paddings,
                        bool ceil_mode) {
  return PoolGeometry(x, kernel_size, strides, paddings, ceil_mode, false);
}

// Whether every window of x_dims's pooling holds an element.
bool WindowsFilled(const DDim& x_dims, const std::vector<int64_t>& kernel_size,
                   const std::vector<int64_t>& strides, const std::vector<int64_t>& paddings,
                   bool ceil_mode) {
  const WindowGeometry g = Geometry(x_dims, kernel_size, strides, paddings, ceil_mode);
  for (int d = 1; d < 3; ++d) {
    for (int64_t o = 0; o < g.out[d]; ++o) {
      const Window w = PoolWindow(g, d, o, false);
      if (w.begin >= w.end) return false;  // an empty window: the ops' kernel decides
    }
  }
  return g.out[1] > 0 && g.out[2] > 0;
}

// Where one chunk of channels of a pooling's input or output lies: sample n's chunk k
// starts at base + n * n_step + k * k_step, and its pixel (h, w) h * h_step + w * w_step
// floats further (channels last: one chunk of all channels; channel blocks: one chunk a
// block).
struct Plane {
  int64_t n_step, k_step, h_step, w_step;
};

// The pooling of every output row, `chunks` chunks of `chunk` channels a pixel; Chunk,
// where not 0, is `chunk` known to the compiler (a block: one vector).
template <int64_t Chunk>
void PoolRows(const WindowGeometry& g, int64_t n, int64_t chunks, int64_t chunk, const float* x,
              const Plane& in, float* y, const Plane& out) {
  const int64_t OH = g.out[1], OW = g.out[2], len = Chunk > 0 ? Chunk : chunk;
  const int64_t sh = in.h_step, sw = in.w_step;
  std::vector<Window> rows, cols;
  for (int64_t o = 0; o < OH; ++o) rows.push_back(PoolWindow(g, 1, o, false));
  for (int64_t o = 0; o < OW; ++o) cols.push_back(PoolWindow(g, 2, o, false));
  // On oar's pool, as the folded convolution before it at batch 1 (Note [A batch of one
  // runs in parts of its output channels]; Note [Max pooling reads and writes channel
  // blocks]). A blocked input by chunks first (that convolution wrote its blocks by
  // thread so), a channels-last one by pixels.
  const int64_t n_rows = n * OH;
  const bool chunks_first = in.k_step >= in.h_step;
  // The cost only sets the chunking: a window's taps saturated, so it cannot overflow.
  const int64_t taps = std::min<int64_t>(g.kernel[1] * g.kernel[2], 64);
  ParallelFor(0, chunks * n_rows, OW * len * taps, [&](int64_t kr_begin, int64_t kr_end) {
    for (int64_t kr = kr_begin; kr < kr_end; ++kr) {
      const int64_t k = chunks_first ? kr / n_rows : kr % chunks;
      const int64_t r = chunks_first ? kr % n_rows : kr / chunks;
      const int64_t i = r / OH, oh = r % OH;
      const Window& wh = rows[static_cast<size_t>(oh)];
      const float* xk = x + i * in.n_step + k * in.k_step;
      float* yk = y + i * out.n_step + k * out.k_step + oh * out.h_step;
      for (int64_t ow = 0; ow < OW; ++ow) {
        const Window& ww = cols[static_cast<size_t>(ow)];
        float* o = yk + ow * out.w_step;
        const float* first = xk + wh.begin * sh + ww.begin * sw;
#pragma omp simd
        for (int64_t c = 0; c < len; ++c) o[c] = first[c];
        // Row-major over the window, as the ops' kernel: a NaN wins.
        for (int64_t ih = wh.begin; ih < wh.end; ++ih) {
          for (int64_t iw = ww.begin; iw < ww.end; ++iw) {
            const float* v = xk + ih * sh + iw * sw;
#pragma omp simd
            for (int64_t c = 0; c < len; ++c) o[c] = (v[c] > o[c]) | (v[c] != v[c]) ? v[c] : o[c];
          }
        }
      }
    }
  });
}

// A channels-last float32 tensor of dims [N, C, H, W], its memory [N, H, W, C].
DenseTensor ChannelsLast(int64_t N, int64_t C, int64_t H, int64_t W) {
  DenseTensor y(DType::kFloat32, DDim{N, C, H, W});
  y.mutable_data<float>();
  DenseTensorMeta meta = y.meta();
  meta.strides = DDim{H * W * C, 1, W * C, C};
  y.set_meta(std::move(meta));
  return y;
}

}  // namespace

bool MaxPoolTakes(const DenseTensor& x, const std::vector<int64_t>& kernel_size,
                  const std::vector<int64_t>& strides, const std::vector<int64_t>& paddings,
                  bool ceil_mode) {
  return x.dtype() == DType::kFloat32 && x.initialized() && x.ndim() == 4 && x.numel() > 0 &&
         x.strides()[1] == 1 && x.dims()[1] >= 8 && kernel_size.size() == 2 &&
         WindowsFilled(x.dims(), kernel_size, strides, paddings, ceil_mode);
}

DenseTensor MaxPoolChannelsLast(const DenseTensor& x, const std::vector<int64_t>& kernel_size,
                                const std::vector<int64_t>& strides,
                                const std::vector<int64_t>& paddings, bool ceil_mode, bool plain) {
  const WindowGeometry g = Geometry(x.dims(), kernel_size, strides, paddings, ceil_mode);
  const int64_t N = x.dims()[0], C = x.dims()[1], OH = g.out[1], OW = g.out[2];
  DenseTensor y = ChannelsLast(N, C, OH, OW);
  float* py = y.data<float>();
  const float* px = x.data<float>();
  const int64_t sn = x.strides()[0], sh = x.strides()[2], sw = x.strides()[3];
  PoolRows<0>(g, N, 1, C, px, Plane{sn, 0, sh, sw}, py, Plane{OH * OW * C, 0, OW * C, C});
  return plain ? funcs::Contiguous(y) : y;
}

bool MaxPoolTakesBlocks(const DDim& x_dims, const std::vector<int64_t>& kernel_size,
                        const std::vector<int64_t>& strides, const std::vector<int64_t>& paddings,
                        bool ceil_mode) {
  return x_dims.size() == 4 && Product(x_dims) > 0 && x_dims[1] % kPoolChannelBlock == 0 &&
         kernel_size.size() == 2 &&
         WindowsFilled(x_dims, kernel_size, strides, paddings, ceil_mode);
}

DDim MaxPoolDims(const DDim& x_dims, const std::vector<int64_t>& kernel_size,
                 const std::vector<int64_t>& strides, const std::vector<int64_t>& paddings,
                 bool ceil_mode) {
  const WindowGeometry g = Geometry(x_dims, kernel_size, strides, paddings, ceil_mode);
  return DDim{x_dims[0], x_dims[1], g.out[1], g.out[2]};
}

DenseTensor MaxPoolChannelBlocks(const DenseTensor* x, const DenseTensor* x_blocks,
                                 const DDim& x_dims, const std::vector<int64_t>& kernel_size,
                                 const std::vector<int64_t>& strides,
                                 const std::vector<int64_t>& paddings, bool ceil_mode,
                                 bool blocks_out) {
  const WindowGeometry g = Geometry(x_dims, kernel_size, strides, paddings, ceil_mode);
  const int64_t N = x_dims[0], C = x_dims[1], H = x_dims[2], W = x_dims[3];
  const int64_t OH = g.out[1], OW = g.out[2], B = kPoolChannelBlock, K = C / B;
  DenseTensor y;
  float* py = nullptr;
  if (blocks_out) {
    y = DenseTensor(DType::kUInt8, DDim{N * C * OH * OW * static_cast<int64_t>(sizeof(float))});
    py = reinterpret_cast<float*>(y.mutable_data<uint8_t>());
  } else {
    y = ChannelsLast(N, C, OH, OW);
    py = y.data<float>();
  }
  const Plane out = blocks_out ? Plane{K * OH * OW * B, OH * OW * B, OW * B, B}
                               : Plane{OH * OW * C, B, OW * C, C};
  if (x_blocks != nullptr) {
    PoolRows<kPoolChannelBlock>(g, N, K, B,
                                reinterpret_cast<const float*>(x_blocks->data<uint8_t>()),
                                Plane{K * H * W * B, H * W * B, W * B, B}, py, out);
  } else {
    PoolRows<kPoolChannelBlock>(g, N, K, B, x->data<float>(),
                                Plane{x->strides()[0], B, x->strides()[2], x->strides()[3]}, py,
                                out);
  }
  return y;
}

}  // namespace oar::conv_engine
