//===- SO2Math.cpp - rotation and radial mixing in registers --------------===//

#include "SO2Math.h"

#include "KernelIO.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

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

/// buffer[e, 0:count] of an (E, R) buffer, as the widest loads (up to 16
/// bytes) that its row length R keeps aligned: four times fewer load
/// instructions where R is a multiple of 4.
static SmallVector<Num> loadRowStart(Value buffer, Idx e, int64_t count) {
  Emitter &em = e.getEmitter();
  int64_t rowLength = cast<MemRefType>(buffer.getType()).getDimSize(1);
  int64_t width = rowLength % 4 == 0 ? 4 : rowLength % 2 == 0 ? 2 : 1;
  SmallVector<Num> values;
  for (int64_t k = 0; k < count; k += width) {
    while (k + width > count)
      width /= 2;
    llvm::append_range(values, em.loadVector(buffer, {e, Idx(k)}, width));
  }
  return values;
}

/// The kept entries of edge e in forEachKeptEntry order, from a whole or
/// kept-entries Wigner-D; with a `lane`, loaded by the warp's lanes
/// together.
static SmallVector<Num> loadKeptEntries(SO2Layout layout, Value wigner, Idx e,
                                        std::optional<Idx> lane) {
  Emitter &em = e.getEmitter();
  Value matrix = edgeView(wigner, e);
  bool kept = isKeptEntries(wigner);
  int64_t width = layout.packedRows();
  // Each kept entry by its place: k among the kept entries, or row * D +
  // column in the edge's whole matrix.
  SmallVector<int64_t> places;
  forEachKeptEntry(layout, [&](int64_t j, int64_t d) {
    places.push_back(kept ? static_cast<int64_t>(places.size())
                          : layout.wholeWignerPlace(j, d));
  });
  auto loadAt = [&](Idx place) {
    if (kept)
      return em.load(matrix, {place});
    return em.load(matrix, {place / Idx(width), place % Idx(width)});
  };
  if (lane)
    return em.warpSharedLoad(places, *lane, loadAt);
  if (kept)
    return loadRowStart(wigner, e, places.size());
  SmallVector<Num> loaded;
  for (int64_t place : places)
    loaded.push_back(loadAt(Idx(place)));
  return loaded;
}

EdgeRotation::EdgeRotation(SO2Layout layout, Value wigner, Idx e,
                           std::optional<Idx> lane)
    : EdgeRotation(layout, loadKeptEntries(layout, wigner, e, lane)) {}

EdgeRotation::EdgeRotation(SO2Layout layout, ArrayRef<Num> kept)
    : layout(layout) {
  assert(static_cast<int64_t>(kept.size()) == layout.keptWignerEntries() &&
         "one value per kept entry");
  const Num *next = kept.begin();
  for (int64_t j = 0; j < layout.reducedRows(); ++j) {
    int64_t l = layout.degreeOfReduced(j);
    entries.emplace_back(next, next + 2 * l + 1);
    next += 2 * l + 1;
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

void EdgeRotation::addFromEdgeFrame(ArrayRef<Num> reduced,
                                    MutableArrayRef<Num> packed) const {
  for (int64_t j = 0; j < layout.reducedRows(); ++j) {
    int64_t l = layout.degreeOfReduced(j);
    for (int64_t d = l * l; d < (l + 1) * (l + 1); ++d)
      packed[d] = packed[d] + entries[j][d - l * l] * reduced[j];
  }
}

void kernel::forEachKeptEntry(SO2Layout layout,
                              llvm::function_ref<void(int64_t, int64_t)> f) {
  for (int64_t j = 0; j < layout.reducedRows(); ++j) {
    int64_t l = layout.degreeOfReduced(j);
    for (int64_t d = l * l; d < (l + 1) * (l + 1); ++d)
      f(j, d);
  }
}

void EdgeRotation::forEachEntry(
    llvm::function_ref<void(int64_t, int64_t)> f) const {
  forEachKeptEntry(layout, f);
}

void EdgeRotation::appendGradientTerms(ArrayRef<Num> gl, ArrayRef<Num> packed,
                                       SmallVectorImpl<Num> &terms) const {
  forEachEntry(
      [&](int64_t j, int64_t d) { terms.push_back(gl[j] * packed[d]); });
}

void EdgeRotation::storeGradient(ArrayRef<Num> sums, Value wignerGrad,
                                 Idx e) const {
  const Num *sum = sums.begin();
  forEachEntry([&](int64_t j, int64_t d) {
    storeWignerEntry(layout, *sum++, wignerGrad, e,
                     layout.packedRowOfReduced(j), d);
  });
}

void EdgeRotation::addGradient(ArrayRef<Num> sums, Value wignerGrad,
                               Idx e) const {
  const Num *sum = sums.begin();
  forEachEntry([&](int64_t j, int64_t d) {
    int64_t row = layout.packedRowOfReduced(j);
    // Every kept entry has a place in either form.
    Num held = *loadWignerEntry(layout, wignerGrad, e, row, d);
    storeWignerEntry(layout, held + *sum++, wignerGrad, e, row, d);
  });
}

bool kernel::isKeptEntries(Value wigner) {
  return cast<ShapedType>(wigner.getType()).getRank() == 2;
}

void kernel::storeWignerEntry(SO2Layout layout, Num value, Value wigner, Idx e,
                              int64_t row, int64_t column) {
  Emitter &em = e.getEmitter();
  if (!isKeptEntries(wigner)) {
    em.store(value, wigner, {e, Idx(row), Idx(column)});
    return;
  }
  int64_t place = layout.keptWignerIndex(row, column);
  if (place >= 0)
    em.store(value, wigner, {e, Idx(place)});
}

std::optional<Num> kernel::loadWignerEntry(SO2Layout layout, Value wigner,
                                           Idx e, int64_t row, int64_t column) {
  Emitter &em = e.getEmitter();
  if (!isKeptEntries(wigner))
    return em.load(wigner, {e, Idx(row), Idx(column)});
  int64_t place = layout.keptWignerIndex(row, column);
  if (place < 0)
    return std::nullopt;
  return em.load(wigner, {e, Idx(place)});
}

int64_t EdgeRotation::numEntries() const { return layout.keptWignerEntries(); }

DegreeKernel::DegreeKernel(SO2Layout layout, int64_t rank, Value kc, Value cb,
                           Idx e, std::optional<Idx> lane)
    : layout(layout), rankValue(rank), cb(cb) {
  Emitter &em = e.getEmitter();
  int64_t count = layout.compactKernelSize() * rank;
  if (!lane) {
    llvm::append_range(coefficients, loadRowStart(kc, e, count));
    return;
  }
  SmallVector<int64_t> places = llvm::to_vector(llvm::seq<int64_t>(0, count));
  for (Num coefficient : em.warpSharedLoad(places, *lane, [&](Idx k) {
         return em.load(kc, {e, k});
       }))
    coefficients.push_back(coefficient);
}

std::vector<Num> DegreeKernel::basis(Idx c) const {
  Emitter &em = c.getEmitter();
  std::vector<Num> weights;
  for (int64_t r = 0; r < rankValue; ++r)
    weights.push_back(em.load(cb, {Idx(r), c}));
  return weights;
}

std::vector<Num> DegreeKernel::apply(ArrayRef<Num> basis, ArrayRef<Num> in,
                                     bool transposed) const {
  int64_t lmax = layout.lmax, m0 = lmax + 1, m1Base = m0 * m0;
  // One m group: `size` rows from `offset`, kernel block from `base`.
  auto group = [&](int64_t offset, int64_t size, int64_t base,
                   std::vector<Num> &out) {
    for (int64_t o = 0; o < size; ++o) {
      std::optional<Num> total;
      for (int64_t r = 0; r < rankValue; ++r) {
        SmallVector<Num> terms;
        for (int64_t i = 0; i < size; ++i) {
          int64_t k = transposed ? base + o * size + i : base + i * size + o;
          terms.push_back(coefficient(k, r) * in[offset + i]);
        }
        Num weighted = basis[r] * sum(terms);
        total = total ? *total + weighted : weighted;
      }
      out.push_back(*total);
    }
  };
  std::vector<Num> out;
  group(0, m0, 0, out);
  group(m0, lmax, m1Base, out);
  group(m0 + lmax, lmax, m1Base, out);
  return out;
}

std::vector<Num> DegreeKernel::mix(ArrayRef<Num> basis,
                                   ArrayRef<Num> xl) const {
  return apply(basis, xl, /*transposed=*/false);
}

std::vector<Num> DegreeKernel::mixTransposed(ArrayRef<Num> basis,
                                             ArrayRef<Num> g) const {
  return apply(basis, g, /*transposed=*/true);
}

Num DegreeKernel::kernelProduct(int64_t k, ArrayRef<Num> g,
                                ArrayRef<Num> xl) const {
  int64_t lmax = layout.lmax, m0 = lmax + 1;
  if (k < m0 * m0)
    return g[k % m0] * xl[k / m0];
  k -= m0 * m0;
  int64_t i = k / lmax, o = k % lmax;
  return g[m0 + o] * xl[m0 + i] + g[m0 + lmax + o] * xl[m0 + lmax + i];
}

std::vector<Num> DegreeKernel::kernelProducts(ArrayRef<Num> g,
                                              ArrayRef<Num> xl) const {
  std::vector<Num> products;
  for (int64_t k = 0; k < layout.compactKernelSize(); ++k)
    products.push_back(kernelProduct(k, g, xl));
  return products;
}

std::vector<Num> kernel::mixFree(SO2Layout layout, ArrayRef<Num> radial,
                                 ArrayRef<Num> xl) {
  std::vector<Num> y;
  for (int64_t j = 0; j < layout.reducedRows(); ++j)
    y.push_back(xl[j] * radial[layout.degreeOfReduced(j)]);
  return y;
}

/// The offsets and sizes of buffer[e, :count, c:c+width]: an edge-frame
/// buffer (E, Dm, C) or the focus-major view (F, E, Dm, Cf) of
/// focusMajorRows, where channel c is stream c / Cf, position c % Cf.
static std::pair<SmallVector<OpFoldResult>, SmallVector<OpFoldResult>>
rowWindow(Value buffer, Idx e, int64_t count, Idx c, int64_t width) {
  OpBuilder &b = e.getEmitter().builder;
  auto offset = [&](Idx i) -> OpFoldResult {
    if (i.isConstant())
      return b.getIndexAttr(i.constant);
    return i.value;
  };
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getRank() == 4) {
    Idx streamWidth(type.getDimSize(3));
    return {{offset(c / streamWidth), offset(e), b.getIndexAttr(0),
             offset(c % streamWidth)},
            {b.getIndexAttr(1), b.getIndexAttr(1), b.getIndexAttr(count),
             b.getIndexAttr(width)}};
  }
  return {{offset(e), b.getIndexAttr(0), offset(c)},
          {b.getIndexAttr(1), b.getIndexAttr(count), b.getIndexAttr(width)}};
}

/// buffer[e, :count, c:c+width] as a strided view of shape `shape`: its rows
/// are then addressed from one per-(e, c) pointer with constant offsets,
/// which keeps GPU kernels from holding a 64-bit address per row.
static Value rowWindowView(Value buffer, Idx e, int64_t count, Idx c,
                           int64_t width, ArrayRef<int64_t> shape) {
  OpBuilder &b = e.getEmitter().builder;
  Location loc = e.getEmitter().loc;
  auto type = cast<MemRefType>(buffer.getType());
  auto [offsets, sizes] = rowWindow(buffer, e, count, c, width);
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  auto viewType = memref::SubViewOp::inferRankReducedResultType(
      shape, type, offsets, sizes, strides);
  return memref::SubViewOp::create(b, loc, cast<MemRefType>(viewType), buffer,
                                   offsets, sizes, strides);
}

Value kernel::allocateEdgeRows(KernelIO &io, unsigned index, Idx edges,
                               int64_t rows, int64_t channels,
                               std::optional<int64_t> focusMajor) {
  if (!focusMajor)
    return io.allocate(index, {edges, rows, channels});
  return focusMajorRows(
      io.emitter(),
      io.allocate(
          index, {Idx(*focusMajor), edges, Idx(rows * channels / *focusMajor)}),
      rows);
}

Value kernel::allocateEdgesLike(KernelIO &io, unsigned index, Value like,
                                Idx edges) {
  SmallVector<Idx> extents{edges};
  for (int64_t size :
       cast<RankedTensorType>(like.getType()).getShape().drop_front())
    extents.push_back(Idx(size));
  return io.allocate(index, extents);
}

Value kernel::allocateWignerLike(KernelIO &io, unsigned index, Value like,
                                 Idx edges) {
  Emitter &em = io.emitter();
  Value buffer = allocateEdgesLike(io, index, like, edges);
  if (!isKeptEntries(like))
    em.fillZero(buffer);
  return buffer;
}

/// buffer[e, :, c] as a 1-D strided view.
static Value rowView(Value buffer, Idx e, int64_t count, Idx c) {
  return rowWindowView(buffer, e, count, c, 1, {count});
}

Value kernel::focusMajorRows(Emitter &em, Value buffer, int64_t rows) {
  OpBuilder &b = em.builder;
  Location loc = em.loc;
  auto type = cast<MemRefType>(buffer.getType());
  int64_t streamWidth = type.getDimSize(2) / rows;
  auto viewType = MemRefType::get(
      {type.getDimSize(0), type.getDimSize(1), rows, streamWidth},
      type.getElementType());
  return memref::ExpandShapeOp::create(
      b, loc, viewType, buffer,
      SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}},
      SmallVector<OpFoldResult>{b.getIndexAttr(type.getDimSize(0)),
                                em.dim(buffer, 1).value, b.getIndexAttr(rows),
                                b.getIndexAttr(streamWidth)});
}

Value kernel::edgeView(Value buffer, Idx e) {
  OpBuilder &b = e.getEmitter().builder;
  Location loc = e.getEmitter().loc;
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<OpFoldResult> offsets = {Value(e)}, sizes = {b.getIndexAttr(1)},
                            strides(type.getRank(), b.getIndexAttr(1));
  SmallVector<int64_t> shape;
  for (int64_t axis = 1; axis < type.getRank(); ++axis) {
    offsets.push_back(b.getIndexAttr(0));
    sizes.push_back(b.getIndexAttr(type.getDimSize(axis)));
    shape.push_back(type.getDimSize(axis));
  }
  auto viewType = memref::SubViewOp::inferRankReducedResultType(
      shape, type, offsets, sizes, strides);
  return memref::SubViewOp::create(b, loc, cast<MemRefType>(viewType), buffer,
                                   offsets, sizes, strides);
}

std::vector<Num> kernel::loadRows(Value buffer, Idx e, int64_t count, Idx c) {
  Emitter &em = e.getEmitter();
  Value view = rowView(buffer, e, count, c);
  std::vector<Num> rows;
  for (int64_t r = 0; r < count; ++r)
    rows.push_back(em.load(view, {Idx(r)}));
  return rows;
}

void kernel::storeRows(ArrayRef<Num> rows, Value buffer, Idx e, Idx c) {
  Emitter &em = e.getEmitter();
  Value view = rowView(buffer, e, rows.size(), c);
  for (auto [r, value] : llvm::enumerate(rows))
    em.store(value, view, {Idx(static_cast<int64_t>(r))});
}

/// buffer[e, :count, c:c+width] as a 2-D view with unit inner stride.
static Value rowGroupView(Value buffer, Idx e, int64_t count, Idx c,
                          int64_t width) {
  return rowWindowView(buffer, e, count, c, width, {count, width});
}

std::vector<std::vector<Num>> kernel::loadRowGroups(Value buffer, Idx e,
                                                    int64_t count, Idx c,
                                                    int64_t width) {
  Emitter &em = e.getEmitter();
  Value view = rowGroupView(buffer, e, count, c, width);
  // The group starts at a multiple of its width in a row whose length is one
  // too: the access is aligned to its full size.
  std::vector<std::vector<Num>> groups(width);
  for (int64_t r = 0; r < count; ++r) {
    SmallVector<Num> row = em.loadVector(view, {Idx(r), Idx(0)}, width);
    for (int64_t k = 0; k < width; ++k)
      groups[k].push_back(row[k]);
  }
  return groups;
}

void kernel::copyRowGroupsAsync(Value buffer, Idx e, int64_t count, Idx c,
                                int64_t width, Value stage, Idx slot) {
  Emitter &em = e.getEmitter();
  Value view = rowGroupView(buffer, e, count, c, width);
  for (int64_t r = 0; r < count; ++r)
    em.copyAsync(view, {Idx(r), Idx(0)}, stage, {slot, Idx(r), c}, width);
}

void kernel::storeRowGroups(ArrayRef<std::vector<Num>> rows, Value buffer,
                            Idx e, Idx c) {
  Emitter &em = e.getEmitter();
  int64_t width = rows.size(), count = rows.front().size();
  Value view = rowGroupView(buffer, e, count, c, width);
  // Aligned to the full width as in loadRowGroups.
  for (int64_t r = 0; r < count; ++r) {
    SmallVector<Num> row;
    for (int64_t k = 0; k < width; ++k)
      row.push_back(rows[k][r]);
    em.storeVector(row, view, {Idx(r), Idx(0)});
  }
}
