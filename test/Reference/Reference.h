//===- Reference.h - an fp64 reference of the sezm ops ----------*- C++ -*-===//
//
// Written from sezm-ops.md alone, apart from the compiler: plain loops in
// double precision, nothing shared with lib/. The execution tests hold the
// compiled ops against it.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_TEST_REFERENCE_REFERENCE_H
#define SEZM_TEST_REFERENCE_REFERENCE_H

#include "SeZM/Support/SphereGrid.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace sezm::reference {

/// A dense C-ordered fp64 array.
struct Array {
  std::vector<int64_t> shape;
  std::vector<double> data;

  Array() = default;
  explicit Array(std::vector<int64_t> shape);
  int64_t size() const { return static_cast<int64_t>(data.size()); }
  int64_t extent(std::size_t axis) const { return shape[axis]; }
  double &operator()(std::initializer_list<int64_t> index);
  double operator()(std::initializer_list<int64_t> index) const;

private:
  int64_t offset(std::initializer_list<int64_t> index) const;
};

/// A CSR segmentation: order (E) and rowptr (N+1).
struct Csr {
  std::vector<int64_t> order, rowptr;
  /// Builds the CSR of `keys` (one node id per edge) over n nodes, with edges
  /// in each segment in ascending edge id (a stable sort).
  static Csr build(const std::vector<int64_t> &keys, int64_t nodes);
};

//===----------------------------------------------------------------------===//
// Edge frame (sezm-ops.md 2)
//===----------------------------------------------------------------------===//

using Quaternion = std::array<double, 4>; // (w, x, y, z)

/// The edge quaternion of section 2.1 (no roll, normalized for the Wigner
/// evaluator).
Quaternion edgeQuaternion(const std::array<double, 3> &v);
/// The active rotation matrix R(q) of section 2.1.
std::array<std::array<double, 3>, 3> rotationMatrix(const Quaternion &q);
/// The real Wigner-D block D^l(q), (2l+1)^2 entries row-major (Definition
/// B): the support library's (which makes the SO(3) grid's constants), one
/// definition on the host; ReferenceTest checks it against Definition A.
using sezmrt::wignerBlock;
/// The real spherical harmonics Yt_l(r) of Definition A (SeZM signs), orders
/// m = -l..l.
std::vector<double> realHarmonics(const std::array<double, 3> &r, int l);

//===----------------------------------------------------------------------===//
// Ops (sezm-ops.md 1-3); N nodes, E edges, C channels
//===----------------------------------------------------------------------===//

Array edgeVectors(const Array &positions, const std::vector<int64_t> &src,
                  const std::vector<int64_t> &dst, const Array *shift);
Array envelope(const Array &edgeVec, double rcut, int exponent);
Array radialBasis(const Array &edgeVec, double rcut, int exponent, int count);
Array wigner(const Array &edgeVec, int lmax);
Array rotate(const Array &x, const std::vector<int64_t> &src,
             const Array &wigner, int lmax);
/// rank >= 1: kc (E, KSZ*rank), cb (rank, C); rank 0: kc (E, lmax+1, C).
Array mix(const Array &xl, const Array &kc, const Array *cb, int lmax,
          int rank);
Array rotateBack(const Array &xl, const Array &wigner, int lmax);
Array segmentReduce(const Array &values, const Csr &csr);
Array so2Linear(const Array &u, const Array &w0, const Array &wu,
                const Array &wv, int lmax, int focus);
Array gate(const Array &z, const Array &gw, int lmax, int focus);
Array focusCompete(const Array &u, const Array &wfc, const Array *normScale,
                   int focus);
Array focusScale(const Array &y, const Array &alpha);
/// The focus-major layout (sezm-ops.md 1.4): out[f, e, j*Cf + cf] =
/// y[e, j, f*Cf + cf].
Array focusMajor(const Array &y, int focus);
/// out[n, d, co] = sum_ci x[n, d, ci] w[l(d), ci, co] (w[l(d), co, ci] when
/// transposed).
Array degreeLinear(const Array &x, const Array &w, bool transposed);
/// sezm.grid_product: per node and channel, from_grid applied to the
/// product of both fields taken to the grid by to_grid.
Array gridProduct(const Array &a, const Array &b, const Array &toGrid,
                  const Array &fromGrid);
Array envelopeAggregate(const Array &xl, const Array &wigner, const Array &env,
                        const Array &invSqrtDeg, const Csr &dst, int lmax);
Array attentionAggregate(const Array &xl, const Array &wigner,
                         const Array &logit, const Array &env,
                         const Array &nullLogit, const Csr &dst, int lmax);

} // namespace sezm::reference

#endif // SEZM_TEST_REFERENCE_REFERENCE_H
