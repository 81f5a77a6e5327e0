#include "oar/kernels/cpu/max_pool_channels_last.h"

#include <utility>

#include "oar/core/parallel.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/infer_meta_conv.h"

namespace oar::conv_engine {

namespace {

WindowGeometry Geometry(const DenseTensor& x, const std::vector<int64_t>& kernel_size,
                        const std::vector<int64_t>& strides, const std::vector<int64_t>& paddings,
                        bool ceil_mode) {
  return PoolGeometry(x.dims(), kernel_size, strides, paddings, ceil_mode, false);
}

}  // namespace

bool MaxPoolTakes(const DenseTensor& x, const std::vector<int64_t>& kernel_size,
                  const std::vector<int64_t>& strides, const std::vector<int64_t>& paddings,
                  bool ceil_mode) {
  if (x.dtype() != DType::kFloat32 || !x.initialized() || x.ndim() != 4 || x.numel() == 0 ||
      x.strides()[1] != 1 || x.dims()[1] < 8 || kernel_size.size() != 2) {
    return false;
  }
  const WindowGeometry g = Geometry(x, kernel_size, strides, paddings, ceil_mode);
  for (int d = 1; d < 3; ++d) {
    for (int64_t o = 0; o < g.out[d]; ++o) {
      const Window w = PoolWindow(g, d, o, false);
      if (w.begin >= w.end) return false;  // an empty window: the ops' kernel decides
    }
  }
  return g.out[1] > 0 && g.out[2] > 0;
}

DenseTensor MaxPoolChannelsLast(const DenseTensor& x, const std::vector<int64_t>& kernel_size,
                                const std::vector<int64_t>& strides,
                                const std::vector<int64_t>& paddings, bool ceil_mode, bool plain) {
  const WindowGeometry g = Geometry(x, kernel_size, strides, paddings, ceil_mode);
  const int64_t N = x.dims()[0], C = x.dims()[1], OH = g.out[1], OW = g.out[2];
  std::vector<Window> rows, cols;
  for (int64_t o = 0; o < OH; ++o) rows.push_back(PoolWindow(g, 1, o, false));
  for (int64_t o = 0; o < OW; ++o) cols.push_back(PoolWindow(g, 2, o, false));
  DenseTensor y(DType::kFloat32, DDim{N, C, OH, OW});
  float* py = y.mutable_data<float>();
  DenseTensorMeta meta = y.meta();
  meta.strides = DDim{OH * OW * C, 1, OW * C, C};  // the same memory, channels last
  y.set_meta(std::move(meta));
  const float* px = x.data<float>();
  const int64_t sn = x.strides()[0], sh = x.strides()[2], sw = x.strides()[3];
  ParallelFor(0, N * OH, OW * C * 9, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t n = r / OH, oh = r % OH;
      const Window& wh = rows[static_cast<size_t>(oh)];
      for (int64_t ow = 0; ow < OW; ++ow) {
        const Window& ww = cols[static_cast<size_t>(ow)];
        float* out = py + (r * OW + ow) * C;
        const float* first = px + n * sn + wh.begin * sh + ww.begin * sw;
        for (int64_t c = 0; c < C; ++c) out[c] = first[c];
        // Row-major over the window, as the ops' kernel: a NaN wins.
        for (int64_t ih = wh.begin; ih < wh.end; ++ih) {
          for (int64_t iw = ww.begin; iw < ww.end; ++iw) {
            const float* v = px + n * sn + ih * sh + iw * sw;
            for (int64_t c = 0; c < C; ++c)
              out[c] = (v[c] > out[c]) | (v[c] != v[c]) ? v[c] : out[c];
          }
        }
      }
    }
  });
  return plain ? funcs::Contiguous(y) : y;
}

}  // namespace oar::conv_engine
