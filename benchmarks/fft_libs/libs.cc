// The FFT libraries oar could use, on the shapes of benchmarks/fft.py (docs/fft.md):
// pocketfft (vendored), FFTW 3 (GPL; Debian libfftw3-dev) and MKL DFTI (the mkl-devel
// wheel). Process CPU time, min of 15 calls, ms; run with one thread (argv[1]) on a
// loaded machine. Not built by CMake: see README.md here for the command.
#include <fftw3.h>
#include <mkl_dfti.h>
#include <mkl_service.h>

#include <chrono>
#include <complex>
#include <cstdio>
#include <ctime>
#include <functional>
#include <random>
#include <vector>

#include <pocketfft_hdronly.h>

#include "min_ms.h"

using C = std::complex<float>;
using Z = std::complex<double>;

template <typename T>
static std::vector<std::complex<T>> Rand(size_t n) {
  std::mt19937 g(1);
  std::normal_distribution<T> d;
  std::vector<std::complex<T>> v(n);
  for (auto& x : v) x = {d(g), d(g)};
  return v;
}

int main(int argc, char** argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 2;
  mkl_set_num_threads(threads);
  fftwf_init_threads();
  fftw_init_threads();
  fftwf_plan_with_nthreads(threads);
  fftw_plan_with_nthreads(threads);
  struct Shape {
    const char* name;
    std::vector<size_t> dims;
  };
  for (Shape s : {Shape{"1-D 2^20", {1u << 20}}, Shape{"2-D 1024^2", {1024, 1024}}}) {
    size_t n = 1;
    for (auto d : s.dims) n *= d;
    // complex64 c2c
    {
      auto in = Rand<float>(n);
      std::vector<C> out(n);
      pocketfft::shape_t shape(s.dims.begin(), s.dims.end());
      pocketfft::stride_t st(shape.size());
      ptrdiff_t acc = sizeof(C);
      for (int i = int(shape.size()) - 1; i >= 0; --i) {
        st[i] = acc;
        acc *= shape[i];
      }
      pocketfft::shape_t axes;
      for (size_t i = 0; i < shape.size(); ++i) axes.push_back(i);
      double tp = MinMs(
          [&] { pocketfft::c2c(shape, st, st, axes, true, in.data(), out.data(), 1.0f, threads); });
      std::vector<int> nd(s.dims.begin(), s.dims.end());
      fftwf_plan pe = fftwf_plan_dft(int(nd.size()), nd.data(), (fftwf_complex*)in.data(),
                                     (fftwf_complex*)out.data(), FFTW_FORWARD, FFTW_ESTIMATE);
      double tfe = MinMs([&] { fftwf_execute(pe); });
      auto tm0 = std::chrono::steady_clock::now();
      fftwf_plan pm = fftwf_plan_dft(int(nd.size()), nd.data(), (fftwf_complex*)in.data(),
                                     (fftwf_complex*)out.data(), FFTW_FORWARD, FFTW_MEASURE);
      double plan_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - tm0).count();
      {
        auto r = Rand<float>(n);
        std::copy(r.begin(), r.end(), in.begin());
      }
      double tfm = MinMs([&] { fftwf_execute(pm); });
      DFTI_DESCRIPTOR_HANDLE h;
      std::vector<MKL_LONG> ml(s.dims.begin(), s.dims.end());
      if (ml.size() == 1)
        DftiCreateDescriptor(&h, DFTI_SINGLE, DFTI_COMPLEX, 1, ml[0]);
      else
        DftiCreateDescriptor(&h, DFTI_SINGLE, DFTI_COMPLEX, ml.size(), ml.data());
      DftiSetValue(h, DFTI_PLACEMENT, DFTI_NOT_INPLACE);
      DftiCommitDescriptor(h);
      double tk = MinMs([&] { DftiComputeForward(h, in.data(), out.data()); });
      // MKL with the descriptor created per call (what a framework without a plan cache pays)
      double tk2 = MinMs([&] {
        DFTI_DESCRIPTOR_HANDLE h2;
        if (ml.size() == 1)
          DftiCreateDescriptor(&h2, DFTI_SINGLE, DFTI_COMPLEX, 1, ml[0]);
        else
          DftiCreateDescriptor(&h2, DFTI_SINGLE, DFTI_COMPLEX, ml.size(), ml.data());
        DftiSetValue(h2, DFTI_PLACEMENT, DFTI_NOT_INPLACE);
        DftiCommitDescriptor(h2);
        DftiComputeForward(h2, in.data(), out.data());
        DftiFreeDescriptor(&h2);
      });
      printf(
          "%-11s c64 c2c: pocketfft %.2f  fftw-estimate %.2f  fftw-measure %.2f (plan %.0f)  mkl "
          "%.2f  mkl+plan %.2f\n",
          s.name, tp, tfe, tfm, plan_ms, tk, tk2);
    }
    // float32 r2c
    {
      std::vector<float> in(n);
      std::mt19937 g(2);
      std::normal_distribution<float> d;
      for (auto& x : in) x = d(g);
      std::vector<size_t> odims = s.dims;
      odims.back() = odims.back() / 2 + 1;
      size_t on = 1;
      for (auto x : odims) on *= x;
      std::vector<C> out(on);
      pocketfft::shape_t shape(s.dims.begin(), s.dims.end());
      pocketfft::stride_t si(shape.size()), so(shape.size());
      ptrdiff_t ai = sizeof(float), ao = sizeof(C);
      for (int i = int(shape.size()) - 1; i >= 0; --i) {
        si[i] = ai;
        so[i] = ao;
        ai *= shape[i];
        ao *= odims[i];
      }
      pocketfft::shape_t axes;
      for (size_t i = 0; i < shape.size(); ++i) axes.push_back(i);
      double tp = MinMs(
          [&] { pocketfft::r2c(shape, si, so, axes, true, in.data(), out.data(), 1.0f, threads); });
      std::vector<int> nd(s.dims.begin(), s.dims.end());
      fftwf_plan pe = fftwf_plan_dft_r2c(int(nd.size()), nd.data(), in.data(),
                                         (fftwf_complex*)out.data(), FFTW_ESTIMATE);
      double tfe = MinMs([&] { fftwf_execute(pe); });
      DFTI_DESCRIPTOR_HANDLE h;
      std::vector<MKL_LONG> ml(s.dims.begin(), s.dims.end());
      if (ml.size() == 1)
        DftiCreateDescriptor(&h, DFTI_SINGLE, DFTI_REAL, 1, ml[0]);
      else
        DftiCreateDescriptor(&h, DFTI_SINGLE, DFTI_REAL, ml.size(), ml.data());
      DftiSetValue(h, DFTI_PLACEMENT, DFTI_NOT_INPLACE);
      DftiSetValue(h, DFTI_CONJUGATE_EVEN_STORAGE, DFTI_COMPLEX_COMPLEX);
      if (ml.size() == 2) {
        MKL_LONG is[3] = {0, (MKL_LONG)s.dims[1], 1}, os[3] = {0, (MKL_LONG)odims[1], 1};
        DftiSetValue(h, DFTI_INPUT_STRIDES, is);
        DftiSetValue(h, DFTI_OUTPUT_STRIDES, os);
      }
      DftiCommitDescriptor(h);
      double tk = MinMs([&] { DftiComputeForward(h, in.data(), out.data()); });
      printf("%-11s f32 r2c: pocketfft %.2f  fftw-estimate %.2f  mkl %.2f\n", s.name, tp, tfe, tk);
    }
    // complex128 c2c
    {
      auto in = Rand<double>(n);
      std::vector<Z> out(n);
      pocketfft::shape_t shape(s.dims.begin(), s.dims.end());
      pocketfft::stride_t st(shape.size());
      ptrdiff_t acc = sizeof(Z);
      for (int i = int(shape.size()) - 1; i >= 0; --i) {
        st[i] = acc;
        acc *= shape[i];
      }
      pocketfft::shape_t axes;
      for (size_t i = 0; i < shape.size(); ++i) axes.push_back(i);
      double tp = MinMs(
          [&] { pocketfft::c2c(shape, st, st, axes, true, in.data(), out.data(), 1.0, threads); });
      std::vector<int> nd(s.dims.begin(), s.dims.end());
      fftw_plan pe = fftw_plan_dft(int(nd.size()), nd.data(), (fftw_complex*)in.data(),
                                   (fftw_complex*)out.data(), FFTW_FORWARD, FFTW_ESTIMATE);
      double tfe = MinMs([&] { fftw_execute(pe); });
      DFTI_DESCRIPTOR_HANDLE h;
      std::vector<MKL_LONG> ml(s.dims.begin(), s.dims.end());
      if (ml.size() == 1)
        DftiCreateDescriptor(&h, DFTI_DOUBLE, DFTI_COMPLEX, 1, ml[0]);
      else
        DftiCreateDescriptor(&h, DFTI_DOUBLE, DFTI_COMPLEX, ml.size(), ml.data());
      DftiSetValue(h, DFTI_PLACEMENT, DFTI_NOT_INPLACE);
      DftiCommitDescriptor(h);
      double tk = MinMs([&] { DftiComputeForward(h, in.data(), out.data()); });
      printf("%-11s c128 c2c: pocketfft %.2f  fftw-estimate %.2f  mkl %.2f\n", s.name, tp, tfe, tk);
    }
  }
}
