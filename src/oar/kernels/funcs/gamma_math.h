// Scalar pieces of the gamma function family shared by the special and numeric
// kernels (src/oar/kernels/cpu/{special,numeric}_kernels.cc), in double precision.
#pragma once

#include <cmath>

namespace oar::funcs {

// lgamma_r instead of std::lgamma: glibc's lgamma writes the global signgam, a data
// race once the elementwise loop runs on several threads.
inline double LogGamma(double x) {
  int sign = 0;
  return ::lgamma_r(x, &sign);
}

// The continued fraction of the upper incomplete gamma, CF with
// Gamma(a, x) = e^-x x^a CF(a, x), by the modified Lentz method; for x > a + 1, where it
// converges quickly.
inline double UpperGammaFraction(double a, double x) {
  constexpr double kTiny = 1e-300;
  double b = x + 1 - a;
  double c = 1 / kTiny;
  double d = 1 / b;
  double h = d;
  for (int i = 1; i < 100000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) < 1e-16) break;
  }
  return h;
}

}  // namespace oar::funcs
