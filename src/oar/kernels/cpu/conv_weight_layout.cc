// Note [oar writes a folded convolution's weight layouts] (conv_weight_layout.h).
#include "oar/kernels/cpu/conv_weight_layout.h"

#include <algorithm>

#include "oar/core/parallel.h"

namespace oar::onednn {
namespace {

constexpr int64_t kTaps = 3;       // the kernel's side
constexpr int64_t kMaxLanes = 16;  // the widest output-channel block handled

// oneDNN's transform matrices G, [alpha][3]: F(2x2, 3x3) and its scaled F(4x4, 3x3).
constexpr float kG4[4][3] = {
    {1.0f, 0.0f, 0.0f}, {0.5f, 0.5f, 0.5f}, {0.5f, -0.5f, 0.5f}, {0.0f, 0.0f, 1.0f}};
constexpr float kG6[6][3] = {{1.13777777777778f, 0.0f, 0.0f},
                             {-0.688403361344538f, -0.430252100840336f, -0.26890756302521f},
                             {-0.688403361344538f, 0.430252100840336f, -0.26890756302521f},
                             {0.119514472455649f, 0.179271708683473f, 0.26890756302521f},
                             {0.119514472455649f, -0.179271708683473f, 0.26890756302521f},
                             {0.0f, 0.0f, 1.0f}};

// Where the output channels of block `ob` for input channel `icp` and transform position
// (i, j) start in a Winograd layout (the indices oneDNN's reorder into it writes).
struct Layout {
  dnnl_wino_memory_format_t format;
  int64_t alpha, ocb, icb, oc2, ic2, nb_oc, nb_ic;

  int64_t At(int64_t i, int64_t j, int64_t ob, int64_t icp) const {
    const int64_t ib = icp / icb, ii = icp % icb;
    switch (format) {
      case dnnl_wino_wei_aaOio:
        return ((((i * alpha + j) * nb_oc + ob) * nb_ic + ib) * icb + ii) * ocb;
      case dnnl_wino_wei_aaOBiOo: {
        const int64_t chunks = nb_oc / oc2, occ = ob / oc2, ob2 = ob % oc2;
        return ((((i * alpha + j) * chunks + occ) * nb_ic + ib) * icb * oc2 + ii * oc2 + ob2) * ocb;
      }
      default: {  // OBaaIBOIio
        const int64_t occ = ob / oc2, ob2 = ob % oc2;
        const int64_t icc = icp / (ic2 * icb), ib2 = (icp / icb) % ic2;
        const int64_t ic_chunks = nb_ic / ic2;
        return ((((((occ * alpha + i) * alpha + j) * ic_chunks + icc) * oc2 + ob2) * ic2 + ib2) *
                    icb +
                ii) *
               ocb;
      }
    }
  }
};

// U = G k G^T for `lanes` output channels at once: k[tap][lane] holds each channel's 3x3
// taps, row-major. The sums run as oneDNN's reorder runs them: first over each row's taps,
// then over the rows, each from zero, left to right.
template <int64_t Alpha>
void Transform(const float (&g)[Alpha][3], const float (&k)[9][kMaxLanes], int64_t lanes,
               const Layout& at, int64_t ob, int64_t icp, float* out) {
  float t[kTaps][Alpha][kMaxLanes];
  for (int64_t r = 0; r < kTaps; ++r) {
    for (int64_t j = 0; j < Alpha; ++j) {
      for (int64_t o = 0; o < kMaxLanes; ++o) {
        float s = 0.0f;
        for (int64_t c = 0; c < kTaps; ++c) s += k[r * kTaps + c][o] * g[j][c];
        t[r][j][o] = s;
      }
    }
  }
  for (int64_t i = 0; i < Alpha; ++i) {
    for (int64_t j = 0; j < Alpha; ++j) {
      float u[kMaxLanes];
      for (int64_t o = 0; o < kMaxLanes; ++o) {
        float s = 0.0f;
        for (int64_t r = 0; r < kTaps; ++r) s += g[i][r] * t[r][j][o];
        u[o] = s;
      }
      std::copy(u, u + lanes, out + at.At(i, j, ob, icp));
    }
  }
}

// Writes w ([c_out, c_in, 3, 3]) transformed into `to`, a Winograd layout, at `out`, or
// returns false for a layout it does not know.
bool WriteWinograd(const float* w, int64_t c_out, int64_t c_in, const dnnl::memory::desc& to,
                   float* out) {
  if (to.data.format_kind != dnnl_format_kind_wino || to.data.data_type != dnnl_f32) return false;
  const dnnl_wino_desc_t& wd = to.data.format_desc.wino_desc;
  const bool two = wd.alpha == 4 && (wd.wino_format == dnnl_wino_wei_aaOio ||
                                     wd.wino_format == dnnl_wino_wei_aaOBiOo);
  const bool four = wd.alpha == 6 && wd.wino_format == dnnl_wino_wei_OBaaIBOIio;
  if ((!two && !four) || wd.r != kTaps || wd.oc_block <= 0 || wd.oc_block > kMaxLanes ||
      wd.ic_block <= 0 || wd.oc < c_out || wd.ic < c_in || wd.oc % wd.oc_block != 0 ||
      wd.ic % wd.ic_block != 0) {
    return false;
  }
  const Layout at{wd.wino_format,
                  wd.alpha,
                  wd.oc_block,
                  wd.ic_block,
                  wd.wino_format == dnnl_wino_wei_aaOio ? 1 : std::max(wd.oc2_block, 1),
                  wd.wino_format == dnnl_wino_wei_OBaaIBOIio ? std::max(wd.ic2_block, 1) : 1,
                  wd.oc / wd.oc_block,
                  wd.ic / wd.ic_block};
  if (at.nb_oc % at.oc2 != 0 || at.nb_ic % at.ic2 != 0 ||
      static_cast<size_t>(at.alpha * at.alpha * wd.oc * wd.ic) * sizeof(float) != to.get_size()) {
    return false;
  }
  const int64_t icp_count = wd.ic, units = at.nb_oc * icp_count;
  ParallelFor(0, units, at.ocb * 9 * (at.alpha + 3) * at.alpha, [&](int64_t u0, int64_t u1) {
    float k[9][kMaxLanes];
    for (int64_t unit = u0; unit < u1; ++unit) {
      const int64_t ob = unit / icp_count, icp = unit % icp_count;
      for (int64_t o = 0; o < kMaxLanes; ++o) {
        const int64_t oc = ob * at.ocb + o;
        const bool real = o < at.ocb && oc < c_out && icp < c_in;
        const float* taps = real ? w + (oc * c_in + icp) * 9 : nullptr;
        for (int64_t tap = 0; tap < 9; ++tap) k[tap][o] = real ? taps[tap] : 0.0f;
      }
      if (at.alpha == 4) {
        Transform<4>(kG4, k, at.ocb, at, ob, icp, out);
      } else {
        Transform<6>(kG6, k, at.ocb, at, ob, icp, out);
      }
    }
  });
  return true;
}

// Copies w ([c_out, c_in, kh, kw]) into OIhw16i16o at `out`: for each block of 16 output
// and 16 input channels and each tap, 16 rows of 16 output channels, zeros past the
// channels.
void WriteBlocked(const float* w, int64_t c_out, int64_t c_in, int64_t taps, float* out) {
  constexpr int64_t B = 16;
  const int64_t nb_oc = (c_out + B - 1) / B, nb_ic = (c_in + B - 1) / B;
  ParallelFor(0, nb_oc * nb_ic, B * B * taps, [&](int64_t b0, int64_t b1) {
    for (int64_t blk = b0; blk < b1; ++blk) {
      const int64_t ob = blk / nb_ic, ib = blk % nb_ic;
      float* o = out + blk * taps * B * B;
      for (int64_t tap = 0; tap < taps; ++tap) {
        for (int64_t i = 0; i < B; ++i) {
          const int64_t ic = ib * B + i;
          for (int64_t oo = 0; oo < B; ++oo) {
            const int64_t oc = ob * B + oo;
            o[(tap * B + i) * B + oo] =
                oc < c_out && ic < c_in ? w[(oc * c_in + ic) * taps + tap] : 0.0f;
          }
        }
      }
    }
  });
}

}  // namespace

bool WriteConvWeight(const dnnl::memory& from, const dnnl::memory& to) {
  const dnnl::memory::desc f = from.get_desc();
  if (f.data.format_kind != dnnl_blocked || f.data.data_type != dnnl_f32 || f.data.ndims != 4 ||
      f.data.offset0 != 0 || f.data.format_desc.blocking.inner_nblks != 0) {
    return false;
  }
  const auto& d = f.data.dims;
  const auto& s = f.data.format_desc.blocking.strides;
  if (s[3] != 1 || s[2] != d[3] || s[1] != d[2] * d[3] || s[0] != d[1] * d[2] * d[3]) {
    return false;
  }
  const auto* w = static_cast<const float*>(from.get_data_handle());
  auto* out = static_cast<float*>(to.get_data_handle());
  const dnnl::memory::desc t = to.get_desc();
  if (t.data.format_kind == dnnl_format_kind_wino) {
    return d[2] == kTaps && d[3] == kTaps && WriteWinograd(w, d[0], d[1], t, out);
  }
  const dnnl::memory::desc blocked({d[0], d[1], d[2], d[3]}, dnnl::memory::data_type::f32,
                                   dnnl::memory::format_tag::OIhw16i16o);
  if (t != blocked) return false;
  WriteBlocked(w, d[0], d[1], d[2] * d[3], out);
  return true;
}

}  // namespace oar::onednn
