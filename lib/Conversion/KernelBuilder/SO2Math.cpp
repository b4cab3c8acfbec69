//===- SO2Math.cpp - rotation and radial mixing in registers --------------===//

#include "SO2Math.h"

#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::sezm;
using namespace mlir::sezm::kernel;

double kernel::rotateBackRescale(int64_t packedRow) {
  int64_t l = SO2Layout::degreeOfPacked(packedRow);
  return l > 1 ? std::sqrt((2.0 * l + 1.0) / 3.0) : 1.0;
}

/// Sums terms in order; an empty sum is zero.
static Num sum(ArrayRef<Num> terms) {
  if (terms.empty())
    return Num(0.0);
  Num total = terms.front();
  for (Num term : terms.drop_front())
    total = total + term;
  return total;
}

EdgeRotation::EdgeRotation(SO2Layout layout, Value wigner, Idx e)
    : layout(layout) {
  for (int64_t j = 0; j < layout.reducedRows(); ++j) {
    int64_t l = layout.degreeOfReduced(j);
    Idx row(layout.packedRowOfReduced(j));
    std::vector<Num> block;
    for (int64_t d = l * l; d < (l + 1) * (l + 1); ++d)
      block.push_back(load(wigner, {e, row, Idx(d)}));
    entries.push_back(std::move(block));
  }
}

std::vector<Num> EdgeRotation::toEdgeFrame(ArrayRef<Num> packed) const {
  std::vector<Num> reduced;
  for (int64_t j = 0; j < layout.reducedRows(); ++j) {
    int64_t l = layout.degreeOfReduced(j);
    SmallVector<Num> terms;
    for (int64_t d = l * l; d < (l + 1) * (l + 1); ++d)
      terms.push_back(entries[j][d - l * l] * packed[d]);
    reduced.push_back(sum(terms));
  }
  return reduced;
}

std::vector<Num> EdgeRotation::fromEdgeFrame(ArrayRef<Num> reduced) const {
  std::vector<SmallVector<Num>> terms(layout.packedRows());
  for (int64_t j = 0; j < layout.reducedRows(); ++j) {
    int64_t l = layout.degreeOfReduced(j);
    for (int64_t d = l * l; d < (l + 1) * (l + 1); ++d)
      terms[d].push_back(entries[j][d - l * l] * reduced[j]);
  }
  std::vector<Num> packed;
  for (const SmallVector<Num> &rowTerms : terms)
    packed.push_back(sum(rowTerms));
  return packed;
}

void EdgeRotation::forEachEntry(
    llvm::function_ref<void(int64_t, int64_t)> f) const {
  for (int64_t j = 0; j < layout.reducedRows(); ++j) {
    int64_t l = layout.degreeOfReduced(j);
    for (int64_t d = l * l; d < (l + 1) * (l + 1); ++d)
      f(j, d);
  }
}

void EdgeRotation::appendGradientTerms(ArrayRef<Num> gl, ArrayRef<Num> packed,
                                       SmallVectorImpl<Num> &terms) const {
  forEachEntry(
      [&](int64_t j, int64_t d) { terms.push_back(gl[j] * packed[d]); });
}

void EdgeRotation::storeGradient(ArrayRef<Num> sums, Value wignerGrad,
                                 Idx e) const {
  int64_t index = 0;
  forEachEntry([&](int64_t j, int64_t d) {
    store(sums[index++], wignerGrad,
          {e, Idx(layout.packedRowOfReduced(j)), Idx(d)});
  });
}

int64_t EdgeRotation::numEntries() const {
  int64_t count = 0;
  forEachEntry([&](int64_t, int64_t) { ++count; });
  return count;
}

DegreeKernel::DegreeKernel(SO2Layout layout, int64_t rank, Value kc, Value cb,
                           Idx e)
    : layout(layout), rankValue(rank), cb(cb) {
  for (int64_t k = 0; k < layout.compactKernelSize() * rank; ++k)
    coefficients.push_back(load(kc, {e, Idx(k)}));
}

std::vector<Num> DegreeKernel::effective(Idx c) const {
  std::vector<Num> basis;
  for (int64_t r = 0; r < rankValue; ++r)
    basis.push_back(load(cb, {Idx(r), c}));
  std::vector<Num> keff;
  for (int64_t k = 0; k < layout.compactKernelSize(); ++k) {
    SmallVector<Num> terms;
    for (int64_t r = 0; r < rankValue; ++r)
      terms.push_back(coefficient(k, r) * basis[r]);
    keff.push_back(sum(terms));
  }
  return keff;
}

std::vector<Num> DegreeKernel::mix(ArrayRef<Num> keff, ArrayRef<Num> xl) const {
  int64_t lmax = layout.lmax, m0 = lmax + 1, m1Base = m0 * m0;
  std::vector<Num> y;
  for (int64_t o = 0; o <= lmax; ++o) {
    SmallVector<Num> terms;
    for (int64_t i = 0; i <= lmax; ++i)
      terms.push_back(keff[i * m0 + o] * xl[i]);
    y.push_back(sum(terms));
  }
  for (int64_t group : {lmax + 1, 2 * lmax + 1}) {
    for (int64_t o = 0; o < lmax; ++o) {
      SmallVector<Num> terms;
      for (int64_t i = 0; i < lmax; ++i)
        terms.push_back(keff[m1Base + i * lmax + o] * xl[group + i]);
      y.push_back(sum(terms));
    }
  }
  return y;
}

std::vector<Num> DegreeKernel::mixTransposed(ArrayRef<Num> keff,
                                             ArrayRef<Num> g) const {
  int64_t lmax = layout.lmax, m0 = lmax + 1, m1Base = m0 * m0;
  std::vector<Num> gl;
  for (int64_t i = 0; i <= lmax; ++i) {
    SmallVector<Num> terms;
    for (int64_t o = 0; o <= lmax; ++o)
      terms.push_back(keff[i * m0 + o] * g[o]);
    gl.push_back(sum(terms));
  }
  for (int64_t group : {lmax + 1, 2 * lmax + 1}) {
    for (int64_t i = 0; i < lmax; ++i) {
      SmallVector<Num> terms;
      for (int64_t o = 0; o < lmax; ++o)
        terms.push_back(keff[m1Base + i * lmax + o] * g[group + o]);
      gl.push_back(sum(terms));
    }
  }
  return gl;
}

std::vector<Num> DegreeKernel::kernelProducts(ArrayRef<Num> g,
                                              ArrayRef<Num> xl) const {
  int64_t lmax = layout.lmax, m0 = lmax + 1;
  std::vector<Num> products;
  for (int64_t i = 0; i <= lmax; ++i)
    for (int64_t o = 0; o <= lmax; ++o)
      products.push_back(g[o] * xl[i]);
  for (int64_t i = 0; i < lmax; ++i)
    for (int64_t o = 0; o < lmax; ++o)
      products.push_back(g[m0 + o] * xl[m0 + i] +
                         g[m0 + lmax + o] * xl[m0 + lmax + i]);
  return products;
}

std::vector<Num> kernel::mixFree(SO2Layout layout, ArrayRef<Num> radial,
                                 ArrayRef<Num> xl) {
  std::vector<Num> y;
  for (int64_t j = 0; j < layout.reducedRows(); ++j)
    y.push_back(xl[j] * radial[layout.degreeOfReduced(j)]);
  return y;
}

std::vector<Num> kernel::loadRows(Value buffer, Idx e, int64_t count, Idx c) {
  std::vector<Num> rows;
  for (int64_t r = 0; r < count; ++r)
    rows.push_back(load(buffer, {e, Idx(r), c}));
  return rows;
}

void kernel::storeRows(ArrayRef<Num> rows, Value buffer, Idx e, Idx c) {
  for (auto [r, value] : llvm::enumerate(rows))
    store(value, buffer, {e, Idx(static_cast<int64_t>(r)), c});
}
