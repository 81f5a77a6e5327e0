#include "oar/kernels/cpu/max_pool_channels_last.h"

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

// The pooling of every output row: `in(n, ih, iw, k)` and `out(n, oh, ow, k)` point at
// chunk k's `chunk` channels of an input or output pixel.
template <typename In, typename Out>
void PoolRows(const WindowGeometry& g, int64_t n, int64_t chunks, int64_t chunk, In in, Out out) {
  const int64_t OH = g.out[1], OW = g.out[2];
  std::vector<Window> rows, cols;
  for (int64_t o = 0; o < OH; ++o) rows.push_back(PoolWindow(g, 1, o, false));
  for (int64_t o = 0; o < OW; ++o) cols.push_back(PoolWindow(g, 2, o, false));
  ParallelFor(0, n * OH, OW * chunks * chunk * 9, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t i = r / OH, oh = r % OH;
      const Window& wh = rows[static_cast<size_t>(oh)];
      for (int64_t ow = 0; ow < OW; ++ow) {
        const Window& ww = cols[static_cast<size_t>(ow)];
        for (int64_t k = 0; k < chunks; ++k) {
          float* o = out(i, oh, ow, k);
          const float* first = in(i, wh.begin, ww.begin, k);
          for (int64_t c = 0; c < chunk; ++c) o[c] = first[c];
          // Row-major over the window, as the ops' kernel: a NaN wins.
          for (int64_t ih = wh.begin; ih < wh.end; ++ih) {
            for (int64_t iw = ww.begin; iw < ww.end; ++iw) {
              const float* v = in(i, ih, iw, k);
              for (int64_t c = 0; c < chunk; ++c)
                o[c] = (v[c] > o[c]) | (v[c] != v[c]) ? v[c] : o[c];
            }
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
  PoolRows(
      g, N, 1, C,
      [&](int64_t n, int64_t ih, int64_t iw, int64_t) { return px + n * sn + ih * sh + iw * sw; },
      [&](int64_t n, int64_t oh, int64_t ow, int64_t) {
        return py + ((n * OH + oh) * OW + ow) * C;
      });
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
  auto out = [&](int64_t n, int64_t oh, int64_t ow, int64_t k) {
    return blocks_out ? py + (((n * K + k) * OH + oh) * OW + ow) * B
                      : py + ((n * OH + oh) * OW + ow) * C + k * B;
  };
  if (x_blocks != nullptr) {
    const auto* px = reinterpret_cast<const float*>(x_blocks->data<uint8_t>());
    PoolRows(
        g, N, K, B,
        [&](int64_t n, int64_t ih, int64_t iw, int64_t k) {
          return px + (((n * K + k) * H + ih) * W + iw) * B;
        },
        out);
  } else {
    const float* px = x->data<float>();
    const int64_t sn = x->strides()[0], sh = x->strides()[2], sw = x->strides()[3];
    PoolRows(
        g, N, K, B,
        [&](int64_t n, int64_t ih, int64_t iw, int64_t k) {
          return px + n * sn + ih * sh + iw * sw + k * B;
        },
        out);
  }
  return y;
}

}  // namespace oar::conv_engine
