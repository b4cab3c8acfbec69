//===- Reference.cpp - an fp64 reference of the sezm ops ------------------===//

#include "Reference.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

using namespace sezm::reference;

Array::Array(std::vector<int64_t> shapeIn) : shape(std::move(shapeIn)) {
  int64_t count = 1;
  for (int64_t extent : shape)
    count *= extent;
  data.assign(count, 0.0);
}

int64_t Array::offset(std::initializer_list<int64_t> index) const {
  assert(index.size() == shape.size());
  int64_t flat = 0;
  size_t axis = 0;
  for (int64_t i : index) {
    assert(i >= 0 && i < shape[axis]);
    flat = flat * shape[axis++] + i;
  }
  return flat;
}

double &Array::operator()(std::initializer_list<int64_t> index) {
  return data[offset(index)];
}

double Array::operator()(std::initializer_list<int64_t> index) const {
  return data[offset(index)];
}

Csr Csr::build(const std::vector<int64_t> &keys, int64_t nodes) {
  Csr csr;
  csr.rowptr.assign(nodes + 1, 0);
  for (int64_t key : keys)
    ++csr.rowptr[key + 1];
  for (int64_t n = 0; n < nodes; ++n)
    csr.rowptr[n + 1] += csr.rowptr[n];
  std::vector<int64_t> next(csr.rowptr.begin(), csr.rowptr.end() - 1);
  csr.order.assign(keys.size(), 0);
  for (int64_t e = 0; e < static_cast<int64_t>(keys.size()); ++e)
    csr.order[next[keys[e]]++] = e;
  return csr;
}

//===----------------------------------------------------------------------===//
// Layout (sezm-ops.md 1.2, 1.3)
//===----------------------------------------------------------------------===//

namespace {
int reducedRows(int lmax) { return 3 * lmax + 1; }
int packedRows(int lmax) { return (lmax + 1) * (lmax + 1); }

/// Degree and packed row of reduced row j (m-major: m = 0 for l = 0..L, then
/// m = -1 and m = +1 for l = 1..L).
int degreeOf(int lmax, int j) {
  if (j <= lmax)
    return j;
  if (j <= 2 * lmax)
    return j - lmax;
  return j - 2 * lmax;
}
int coeffOf(int lmax, int j) {
  int l = degreeOf(lmax, j);
  int m = j <= lmax ? 0 : (j <= 2 * lmax ? -1 : 1);
  return l * l + l + m;
}
int degreeOfPacked(int d) {
  int l = 0;
  while ((l + 1) * (l + 1) <= d)
    ++l;
  return l;
}
double rescale(int d) {
  int l = degreeOfPacked(d);
  return l > 1 ? std::sqrt((2.0 * l + 1.0) / 3.0) : 1.0;
}
} // namespace

//===----------------------------------------------------------------------===//
// Edge frame
//===----------------------------------------------------------------------===//

namespace {
constexpr double kEps = 1e-7;

Quaternion normalized(const Quaternion &q) {
  double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] +
                       kEps * kEps);
  return {q[0] / n, q[1] / n, q[2] / n, q[3] / n};
}

double smoothStep(double t) {
  if (t <= 0)
    return 0;
  if (t >= 1)
    return 1;
  double tiny = std::numeric_limits<double>::epsilon();
  double a = std::exp(-1.0 / std::max(t, tiny));
  double b = std::exp(-1.0 / std::max(1.0 - t, tiny));
  return a / (a + b);
}

double factorial(int n) {
  double f = 1;
  for (int i = 2; i <= n; ++i)
    f *= i;
  return f;
}

} // namespace

Quaternion sezm::reference::edgeQuaternion(const std::array<double, 3> &v) {
  double r = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + kEps * kEps);
  double scale = 1.0 / std::sqrt(r * r + kEps * kEps);
  double ux = v[0] * scale, uy = v[1] * scale, uz = v[2] * scale;
  Quaternion plus = normalized({1 + uz, uy, -ux, 0});
  Quaternion minus = normalized({-ux, 0, 1 - uz, uy});
  double dot = 0;
  for (int i = 0; i < 4; ++i)
    dot += minus[i] * plus[i];
  if (dot < 0)
    for (double &c : plus)
      c = -c;
  double beta = smoothStep((uz + 1) / 2);
  Quaternion blend;
  for (int i = 0; i < 4; ++i)
    blend[i] = (1 - beta) * minus[i] + beta * plus[i];
  return normalized(normalized(blend));
}

std::array<std::array<double, 3>, 3>
sezm::reference::rotationMatrix(const Quaternion &q) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  return {
      {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
       {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
       {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}}};
}

std::vector<double>
sezm::reference::realHarmonics(const std::array<double, 3> &r, int l) {
  double norm = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
  double x = r[2] / norm;
  double phi = std::atan2(r[1], r[0]);
  double s = std::sqrt(std::max(0.0, 1 - x * x));
  std::vector<double> y(2 * l + 1);
  for (int m = 0; m <= l; ++m) {
    // Associated Legendre P_l^m(x) without the Condon-Shortley phase.
    double pmm = 1;
    for (int i = 1; i <= m; ++i)
      pmm *= (2 * i - 1) * s;
    double plm = pmm;
    if (l > m) {
      double prev = pmm, cur = x * (2 * m + 1) * pmm;
      for (int ll = m + 2; ll <= l; ++ll) {
        double next = ((2 * ll - 1) * x * cur - (ll + m - 1) * prev) / (ll - m);
        prev = cur;
        cur = next;
      }
      plm = cur;
    }
    double n = std::sqrt((2 * l + 1) / (4 * M_PI) * factorial(l - m) /
                         factorial(l + m));
    if (m == 0) {
      y[l] = n * plm;
      continue;
    }
    double pos = std::sqrt(2.0) * n * plm * std::cos(m * phi);
    double neg = std::sqrt(2.0) * n * plm * std::sin(m * phi);
    // SeZM signs: (-1)^m for m > 0, (-1)^(|m|+1) for m < 0.
    y[l + m] = ((m % 2) ? -1.0 : 1.0) * pos;
    y[l - m] = ((m % 2) ? 1.0 : -1.0) * neg;
  }
  return y;
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

Array sezm::reference::edgeVectors(const Array &positions,
                                   const std::vector<int64_t> &src,
                                   const std::vector<int64_t> &dst,
                                   const Array *shift) {
  int64_t edges = src.size();
  Array out({edges, 3});
  for (int64_t e = 0; e < edges; ++e)
    for (int k = 0; k < 3; ++k)
      out({e, k}) = positions({src[e], k}) - positions({dst[e], k}) +
                    (shift ? (*shift)({e, k}) : 0.0);
  return out;
}

namespace {
double edgeLength(const Array &edgeVec, int64_t e) {
  double sq = 0;
  for (int k = 0; k < 3; ++k)
    sq += edgeVec({e, k}) * edgeVec({e, k});
  return std::sqrt(sq + kEps * kEps);
}

/// DeePMD-kit's C^3 envelope, (1-x)^4 sum_{k<p} C(k+3, 3) x^k, written out
/// term by term (the compiler's kernel uses Horner's rule).
double polynomialEnvelope(double x, int p) {
  if (x >= 1)
    return 0;
  double series = 0;
  for (int k = 0; k < p; ++k)
    series += (k + 3.0) * (k + 2.0) * (k + 1.0) / 6 * std::pow(x, k);
  return std::pow(1 - x, 4) * series;
}
} // namespace

Array sezm::reference::envelope(const Array &edgeVec, double rcut,
                                int exponent) {
  int64_t edges = edgeVec.extent(0);
  Array out({edges});
  for (int64_t e = 0; e < edges; ++e)
    out({e}) = polynomialEnvelope(edgeLength(edgeVec, e) / rcut, exponent);
  return out;
}

Array sezm::reference::radialBasis(const Array &edgeVec, double rcut,
                                   int exponent, int count) {
  int64_t edges = edgeVec.extent(0);
  Array out({edges, count});
  for (int64_t e = 0; e < edges; ++e) {
    double r = edgeLength(edgeVec, e);
    double env = polynomialEnvelope(r / rcut, exponent);
    for (int k = 0; k < count; ++k) {
      double w = (k + 1) * M_PI / rcut;
      out({e, k}) = std::sin(w * r) / r * env;
    }
  }
  return out;
}

Array sezm::reference::wigner(const Array &edgeVec, int lmax) {
  int64_t edges = edgeVec.extent(0);
  int rows = packedRows(lmax);
  Array out({edges, rows, rows});
  for (int64_t e = 0; e < edges; ++e) {
    Quaternion q =
        edgeQuaternion({edgeVec({e, 0}), edgeVec({e, 1}), edgeVec({e, 2})});
    for (int l = 0; l <= lmax; ++l) {
      std::vector<double> block = wignerBlock(q, l);
      int w = 2 * l + 1;
      for (int a = 0; a < w; ++a)
        for (int b = 0; b < w; ++b)
          out({e, l * l + a, l * l + b}) = block[a * w + b];
    }
  }
  return out;
}

Array sezm::reference::rotate(const Array &x, const std::vector<int64_t> &src,
                              const Array &wigner, int lmax) {
  int64_t edges = src.size(), channels = x.extent(2);
  Array out({edges, reducedRows(lmax), channels});
  for (int64_t e = 0; e < edges; ++e)
    for (int j = 0; j < reducedRows(lmax); ++j) {
      int l = degreeOf(lmax, j);
      for (int64_t c = 0; c < channels; ++c) {
        double sum = 0;
        for (int d = l * l; d < (l + 1) * (l + 1); ++d)
          sum += wigner({e, coeffOf(lmax, j), d}) * x({src[e], d, c});
        out({e, j, c}) = sum;
      }
    }
  return out;
}

Array sezm::reference::mix(const Array &xl, const Array &kc, const Array *cb,
                           int lmax, int rank) {
  int64_t edges = xl.extent(0), channels = xl.extent(2);
  int rows = reducedRows(lmax), m0 = lmax + 1;
  Array out({edges, rows, channels});
  for (int64_t e = 0; e < edges; ++e) {
    for (int64_t c = 0; c < channels; ++c) {
      if (rank == 0) {
        for (int j = 0; j < rows; ++j)
          out({e, j, c}) = xl({e, j, c}) * kc({e, degreeOf(lmax, j), c});
        continue;
      }
      auto keff = [&](int k) {
        double sum = 0;
        for (int r = 0; r < rank; ++r)
          sum += kc({e, k * rank + r}) * (*cb)({r, c});
        return sum;
      };
      for (int o = 0; o <= lmax; ++o) {
        double sum = 0;
        for (int i = 0; i <= lmax; ++i)
          sum += keff(i * m0 + o) * xl({e, i, c});
        out({e, o, c}) = sum;
      }
      for (int base : {lmax + 1, 2 * lmax + 1})
        for (int o = 0; o < lmax; ++o) {
          double sum = 0;
          for (int i = 0; i < lmax; ++i)
            sum += keff(m0 * m0 + i * lmax + o) * xl({e, base + i, c});
          out({e, base + o, c}) = sum;
        }
    }
  }
  return out;
}

Array sezm::reference::rotateBack(const Array &xl, const Array &wigner,
                                  int lmax) {
  int64_t edges = xl.extent(0), channels = xl.extent(2);
  Array out({edges, packedRows(lmax), channels});
  for (int64_t e = 0; e < edges; ++e)
    for (int d = 0; d < packedRows(lmax); ++d)
      for (int64_t c = 0; c < channels; ++c) {
        double sum = 0;
        for (int j = 0; j < reducedRows(lmax); ++j)
          if (degreeOf(lmax, j) == degreeOfPacked(d))
            sum += wigner({e, coeffOf(lmax, j), d}) * xl({e, j, c});
        out({e, d, c}) = rescale(d) * sum;
      }
  return out;
}

Array sezm::reference::segmentReduce(const Array &values, const Csr &csr) {
  std::vector<int64_t> shape = values.shape;
  int64_t nodes = csr.rowptr.size() - 1;
  int64_t row = values.size() / std::max<int64_t>(values.extent(0), 1);
  shape[0] = nodes;
  Array out(shape);
  for (int64_t n = 0; n < nodes; ++n)
    for (int64_t t = csr.rowptr[n]; t < csr.rowptr[n + 1]; ++t)
      for (int64_t p = 0; p < row; ++p)
        out.data[n * row + p] += values.data[csr.order[t] * row + p];
  return out;
}

Array sezm::reference::so2Linear(const Array &u, const Array &w0,
                                 const Array &wu, const Array &wv, int lmax,
                                 int focus) {
  int64_t edges = u.extent(0), channels = u.extent(2);
  int64_t width = channels / focus;
  int64_t m0 = (lmax + 1) * width, m1 = lmax * width;
  Array out({edges, reducedRows(lmax), channels});
  for (int64_t e = 0; e < edges; ++e)
    for (int f = 0; f < focus; ++f) {
      auto at = [&](const Array &a, int base, int64_t i) {
        return a({e, base + i / width, f * width + i % width});
      };
      auto put = [&](int base, int64_t i, double v) {
        out({e, base + i / width, f * width + i % width}) = v;
      };
      for (int64_t o = 0; o < m0; ++o) {
        double sum = 0;
        for (int64_t i = 0; i < m0; ++i)
          sum += at(u, 0, i) * w0({f, i, o});
        put(0, o, sum);
      }
      for (int64_t o = 0; o < m1; ++o) {
        double neg = 0, pos = 0;
        for (int64_t i = 0; i < m1; ++i) {
          double xn = at(u, lmax + 1, i), xp = at(u, 2 * lmax + 1, i);
          neg += xn * wu({f, i, o}) - xp * wv({f, i, o});
          pos += xn * wv({f, i, o}) + xp * wu({f, i, o});
        }
        put(lmax + 1, o, neg);
        put(2 * lmax + 1, o, pos);
      }
    }
  return out;
}

Array sezm::reference::gate(const Array &z, const Array &gw, int lmax,
                            int focus) {
  int64_t edges = z.extent(0), channels = z.extent(2);
  int64_t width = channels / focus;
  Array out({edges, reducedRows(lmax), channels});
  auto sigmoid = [](double v) { return 1 / (1 + std::exp(-v)); };
  for (int64_t e = 0; e < edges; ++e)
    for (int f = 0; f < focus; ++f)
      for (int64_t cf = 0; cf < width; ++cf) {
        int64_t c = f * width + cf;
        double zs = z({e, 0, c});
        out({e, 0, c}) = zs * sigmoid(zs);
        for (int l = 1; l <= lmax; ++l) {
          double logit = 0;
          for (int64_t i = 0; i < width; ++i)
            logit +=
                z({e, 0, f * width + i}) * gw({f, i, (l - 1) * width + cf});
          double g = sigmoid(logit);
          for (int row : {l, lmax + l, 2 * lmax + l})
            out({e, row, c}) = z({e, row, c}) * g;
        }
      }
  return out;
}

Array sezm::reference::focusCompete(const Array &u, const Array &wfc,
                                    const Array *normScale, int focus) {
  int64_t edges = u.extent(0), width = u.extent(2) / focus;
  Array out({edges, focus});
  for (int64_t e = 0; e < edges; ++e) {
    if (focus == 1) {
      out({e, 0}) = 1;
      continue;
    }
    std::vector<double> logits(focus);
    for (int f = 0; f < focus; ++f) {
      std::vector<double> s(width);
      double meanSquare = 0;
      for (int64_t i = 0; i < width; ++i) {
        s[i] = u({e, 0, f * width + i});
        meanSquare += s[i] * s[i] / width;
      }
      double logit = 0;
      for (int64_t i = 0; i < width; ++i) {
        double n = normScale ? s[i] / std::sqrt(meanSquare + 1e-7) *
                                   (*normScale)({f, i})
                             : s[i];
        logit += n * wfc({i, f});
      }
      logits[f] = logit;
    }
    double top = *std::max_element(logits.begin(), logits.end()), total = 0;
    for (double l : logits)
      total += std::exp(l - top);
    for (int f = 0; f < focus; ++f)
      out({e, f}) = 0.98 * std::exp(logits[f] - top) / total + 0.02 / focus;
  }
  return out;
}

Array sezm::reference::focusScale(const Array &y, const Array &alpha) {
  Array out(y.shape);
  int64_t width = y.extent(2) / alpha.extent(1);
  for (int64_t e = 0; e < y.extent(0); ++e)
    for (int64_t j = 0; j < y.extent(1); ++j)
      for (int64_t c = 0; c < y.extent(2); ++c)
        out({e, j, c}) = alpha({e, c / width}) * y({e, j, c});
  return out;
}

Array sezm::reference::focusMajor(const Array &y, int focus) {
  int64_t rows = y.extent(1), width = y.extent(2) / focus;
  Array out({focus, y.extent(0), rows * width});
  for (int64_t e = 0; e < y.extent(0); ++e)
    for (int64_t j = 0; j < rows; ++j)
      for (int64_t f = 0; f < focus; ++f)
        for (int64_t cf = 0; cf < width; ++cf)
          out({f, e, j * width + cf}) = y({e, j, f * width + cf});
  return out;
}

Array sezm::reference::degreeLinear(const Array &x, const Array &w,
                                    bool transposed) {
  int64_t outChannels = transposed ? w.extent(1) : w.extent(2);
  Array out({x.extent(0), x.extent(1), outChannels});
  for (int64_t n = 0; n < x.extent(0); ++n)
    for (int64_t d = 0; d < x.extent(1); ++d) {
      int64_t l = static_cast<int64_t>(std::sqrt(static_cast<double>(d)));
      for (int64_t co = 0; co < outChannels; ++co) {
        double sum = 0;
        for (int64_t ci = 0; ci < x.extent(2); ++ci)
          sum += x({n, d, ci}) * (transposed ? w({l, co, ci}) : w({l, ci, co}));
        out({n, d, co}) = sum;
      }
    }
  return out;
}

Array sezm::reference::gridProduct(const Array &a, const Array &b,
                                   const Array &toGrid, const Array &fromGrid) {
  int64_t count = a.extent(1), channels = a.extent(2),
          points = toGrid.extent(1);
  Array out(a.shape);
  for (int64_t n = 0; n < a.extent(0); ++n)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t p = 0; p < points; ++p) {
        double onA = 0, onB = 0;
        for (int64_t i = 0; i < count; ++i) {
          onA += a({n, i, c}) * toGrid({i, p});
          onB += b({n, i, c}) * toGrid({i, p});
        }
        for (int64_t j = 0; j < count; ++j)
          out({n, j, c}) += fromGrid({p, j}) * onA * onB;
      }
  return out;
}

Array sezm::reference::envelopeAggregate(const Array &xl, const Array &wigner,
                                         const Array &env,
                                         const Array &invSqrtDeg,
                                         const Csr &dst, int lmax) {
  Array message = rotateBack(xl, wigner, lmax);
  int64_t nodes = dst.rowptr.size() - 1, channels = xl.extent(2);
  Array out({nodes, packedRows(lmax), channels});
  for (int64_t n = 0; n < nodes; ++n)
    for (int64_t t = dst.rowptr[n]; t < dst.rowptr[n + 1]; ++t) {
      int64_t e = dst.order[t];
      for (int d = 0; d < packedRows(lmax); ++d)
        for (int64_t c = 0; c < channels; ++c)
          out({n, d, c}) += invSqrtDeg({n}) * env({e}) * message({e, d, c});
    }
  return out;
}

Array sezm::reference::attentionAggregate(const Array &xl, const Array &wigner,
                                          const Array &logit, const Array &env,
                                          const Array &nullLogit,
                                          const Csr &dst, int lmax) {
  Array message = rotateBack(xl, wigner, lmax);
  int64_t nodes = dst.rowptr.size() - 1, channels = xl.extent(2);
  int64_t focus = logit.extent(1), heads = logit.extent(2);
  int64_t width = channels / focus, headWidth = width / heads;
  Array out({nodes, packedRows(lmax), channels});
  for (int64_t n = 0; n < nodes; ++n)
    for (int64_t f = 0; f < focus; ++f)
      for (int64_t h = 0; h < heads; ++h) {
        double z = nullLogit({f, h});
        double total = std::log1p(std::exp(z)) + 1e-7;
        for (int64_t t = dst.rowptr[n]; t < dst.rowptr[n + 1]; ++t) {
          int64_t e = dst.order[t];
          total += env({e}) * env({e}) * std::exp(logit({e, f, h}));
        }
        for (int64_t t = dst.rowptr[n]; t < dst.rowptr[n + 1]; ++t) {
          int64_t e = dst.order[t];
          double att = env({e}) * env({e}) * std::exp(logit({e, f, h})) / total;
          for (int64_t ch = 0; ch < headWidth; ++ch) {
            int64_t c = f * width + h * headWidth + ch;
            for (int d = 0; d < packedRows(lmax); ++d)
              out({n, d, c}) += att * message({e, d, c});
          }
        }
      }
  return out;
}
