//===- EdgeFrameMath.h - edge geometry math over Num and Jet ----*- C++ -*-===//
//
// The per-edge math of sezm-ops.md sections 2.1, 2.2 and 3.0, written once
// over a scalar type T (Num for values, Jet for values and derivatives with
// respect to the edge vector).
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_LIB_CONVERSION_KERNELBUILDER_EDGEFRAMEMATH_H
#define SEZM_LIB_CONVERSION_KERNELBUILDER_EDGEFRAMEMATH_H

#include "KernelBuilder.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cmath>
#include <vector>

namespace mlir::sezm::kernel {

/// The regularization of norms in the edge frame.
constexpr double kFrameEpsilon = 1e-7;

/// sqrt(|v|^2 + eps^2).
template <typename T> T regularizedNorm(const T &x, const T &y, const T &z) {
  return sqrt(x * x + y * y + z * z + T(kFrameEpsilon * kFrameEpsilon));
}

/// DeePMD-kit's C^3 cutoff envelope (DPA4's C3CutoffEnvelope):
/// E_p(x) = (1-x)^4 sum_{k<p} C(k+3, 3) x^k for x < 1 and 0 from x = 1 on,
/// whose value and first three derivatives vanish at x = 1. The series is
/// summed by Horner's rule, as DeePMD-kit sums it.
template <typename T> T envelope(const T &x, int64_t p) {
  auto binomial3 = [](int64_t k) {
    return static_cast<double>((k + 3) * (k + 2) * (k + 1) / 6);
  };
  T series = T(binomial3(p - 1));
  for (int64_t k = p - 2; k >= 0; --k)
    series = T(binomial3(k)) + x * series;
  T u = T(1.0) - x;
  T u2 = u * u;
  return select(x < T(1.0), u2 * u2 * series, T(0.0));
}

/// The initial Bessel frequency w_k = (k+1) pi / rcut (DeePMD-kit trains
/// them from there).
inline double initialBesselFrequency(int64_t k, double rcut) {
  return static_cast<double>(k + 1) * M_PI / rcut;
}

/// sin(w r) / r * E_p(r / rcut), for frequency w.
template <typename T>
T besselRadial(const T &r, const T &frequency, const T &envelopeValue) {
  return sin(frequency * r) / r * envelopeValue;
}

template <typename T> struct Quaternion { T w, x, y, z; };

template <typename T> Quaternion<T> normalize(const Quaternion<T> &q) {
  T inv = T(1.0) / sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z +
                        T(kFrameEpsilon * kFrameEpsilon));
  return {q.w * inv, q.x * inv, q.y * inv, q.z * inv};
}

/// The C-infinity step S(t): 0 for t <= 0, 1 for t >= 1, a / (a + b) between
/// with a = exp(-1/t), b = exp(-1/(1-t)) and the denominators floored at the
/// machine epsilon.
template <typename T> T smoothStep(const T &t) {
  T floor = machineEpsilon(t);
  T a = exp(-(T(1.0) / max(t, floor)));
  T b = exp(-(T(1.0) / max(T(1.0) - t, floor)));
  T inside = a / (a + b);
  return select(t <= T(0.0), T(0.0), select(T(1.0) <= t, T(1.0), inside));
}

/// The edge quaternion that rotates the edge direction onto +Z: two charts
/// blended by a smooth step of the polar coordinate (sezm-ops.md 2.1, no
/// roll), normalized once more as the Wigner evaluator does.
template <typename T>
Quaternion<T> edgeQuaternion(const T &vx, const T &vy, const T &vz) {
  T r = regularizedNorm(vx, vy, vz);
  T inv = T(1.0) / sqrt(r * r + T(kFrameEpsilon * kFrameEpsilon));
  T ux = vx * inv, uy = vy * inv, uz = vz * inv;
  Quaternion<T> plus = normalize<T>({T(1.0) + uz, uy, -ux, T(0.0)});
  Quaternion<T> minus = normalize<T>({-ux, T(0.0), T(1.0) - uz, uy});
  T dot =
      minus.w * plus.w + minus.x * plus.x + minus.y * plus.y + minus.z * plus.z;
  T sign = select(dot < T(0.0), T(-1.0), T(1.0));
  T beta = smoothStep((uz + T(1.0)) * T(0.5));
  T alpha = T(1.0) - beta;
  Quaternion<T> blend = {alpha * minus.w + beta * sign * plus.w,
                         alpha * minus.x + beta * sign * plus.x,
                         alpha * minus.y + beta * sign * plus.y,
                         alpha * minus.z + beta * sign * plus.z};
  return normalize(normalize(blend));
}

/// Calls sink(l, mp, m, D^l[mp][m]) for every entry of every diagonal block
/// l = 0..lmax of the real-basis Wigner-D of q (sezm-ops.md 2.2,
/// Definition B): D^l = Re(U_l Dc^l U_l^H) with the Cayley-Klein pair
/// Ra = w - i z, Rb = y - i x.
template <typename T>
void wignerBlocks(const Quaternion<T> &q, int64_t lmax,
                  llvm::function_ref<void(int64_t, int64_t, int64_t, T)> sink) {
  Complex<T> ra{q.w, -q.z}, rb{q.y, -q.x};
  T raNorm2 = ra.re * ra.re + ra.im * ra.im;
  T rbNorm2 = rb.re * rb.re + rb.im * rb.im;

  // Powers up to 2*lmax: Ra^k, Rb^k, |Ra|^(2k), |Rb|^(2k).
  int64_t maxPower = 2 * lmax;
  std::vector<Complex<T>> raPow{{T(1.0), T(0.0)}}, rbPow{{T(1.0), T(0.0)}};
  std::vector<T> raNormPow{T(1.0)}, rbNormPow{T(1.0)};
  for (int64_t k = 1; k <= maxPower; ++k) {
    raPow.push_back(raPow.back() * ra);
    rbPow.push_back(rbPow.back() * rb);
    raNormPow.push_back(raNormPow.back() * raNorm2);
    rbNormPow.push_back(rbNormPow.back() * rbNorm2);
  }
  // z^a conj(z)^b = |z|^(2 min(a, b)) * (z^(a-b) or conj(z)^(b-a)).
  auto mixedPower = [](const std::vector<Complex<T>> &pow,
                       const std::vector<T> &normPow, int64_t a,
                       int64_t b) -> Complex<T> {
    int64_t common = std::min(a, b);
    Complex<T> rest = a >= b ? pow[a - b] : conj(pow[b - a]);
    if (common == 0)
      return rest;
    return scale(normPow[common], rest);
  };
  auto factorial = [](int64_t n) {
    double f = 1;
    for (int64_t i = 2; i <= n; ++i)
      f *= static_cast<double>(i);
    return f;
  };
  auto binomial = [&](int64_t n, int64_t k) {
    return factorial(n) / (factorial(k) * factorial(n - k));
  };

  for (int64_t l = 0; l <= lmax; ++l) {
    // Dc[mu][nu], complex orders mu, nu = -l..l.
    int64_t width = 2 * l + 1;
    std::vector<Complex<T>> dc;
    dc.reserve(width * width);
    for (int64_t mu = -l; mu <= l; ++mu) {
      for (int64_t nu = -l; nu <= l; ++nu) {
        double prefactor = std::sqrt(factorial(l + nu) * factorial(l - nu) /
                                     (factorial(l + mu) * factorial(l - mu)));
        std::optional<Complex<T>> sum;
        for (int64_t rho = std::max<int64_t>(0, mu - nu);
             rho <= std::min(l + mu, l - nu); ++rho) {
          double coefficient = prefactor * (rho % 2 ? -1.0 : 1.0) *
                               binomial(l + mu, rho) *
                               binomial(l - mu, l - nu - rho);
          Complex<T> term =
              mixedPower(raPow, raNormPow, l + mu - rho, l - nu - rho) *
              mixedPower(rbPow, rbNormPow, rho - mu + nu, rho);
          term = scale(T(coefficient), term);
          sum = sum ? *sum + term : term;
        }
        dc.push_back(*sum);
      }
    }
    // Row m of U_l: the complex orders it touches and their coefficients.
    auto uRow = [&](int64_t m) {
      SmallVector<std::pair<int64_t, std::pair<double, double>>, 2> row;
      double h = 1.0 / std::sqrt(2.0);
      double parity = (std::abs(m) % 2) ? -1.0 : 1.0;
      if (m == 0)
        row.push_back({0, {1.0, 0.0}});
      else if (m > 0)
        row.append({{m, {h, 0.0}}, {-m, {parity * h, 0.0}}});
      else
        row.append({{-m, {0.0, -h}}, {m, {0.0, parity * h}}});
      return row;
    };
    for (int64_t mp = -l; mp <= l; ++mp) {
      for (int64_t m = -l; m <= l; ++m) {
        // Re(sum_{mu, nu} U[mp, mu] Dc[mu, nu] conj(U[m, nu])).
        std::optional<T> entry;
        for (auto [mu, u] : uRow(mp)) {
          for (auto [nu, v] : uRow(m)) {
            // c = u * conj(v), a constant complex coefficient.
            double cRe = u.first * v.first + u.second * v.second;
            double cIm = u.second * v.first - u.first * v.second;
            const Complex<T> &d = dc[(mu + l) * width + (nu + l)];
            std::optional<T> part;
            if (cRe != 0.0)
              part = T(cRe) * d.re;
            if (cIm != 0.0)
              part = part ? *part - T(cIm) * d.im : -(T(cIm) * d.im);
            if (part)
              entry = entry ? *entry + *part : *part;
          }
        }
        sink(l, mp, m, entry ? *entry : T(0.0));
      }
    }
  }
}

} // namespace mlir::sezm::kernel

#endif // SEZM_LIB_CONVERSION_KERNELBUILDER_EDGEFRAMEMATH_H
