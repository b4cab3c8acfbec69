//===- Segments.cpp - CPU kernels of the CSR segment reductions -----------===//
//
// One loop over nodes, each walking its segment in CSR order: sums run in
// the same order on every run and no two nodes write the same element.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

using namespace mlir;
using namespace mlir::sezm;
using namespace mlir::sezm::kernel;

namespace {
/// Calls body(indices) for every index tuple of the trailing dimensions of
/// `buffer` (all but the first).
void forEachTrailingIndex(Emitter &em, Value buffer,
                          llvm::function_ref<void(ArrayRef<Idx>)> body) {
  int64_t rank = cast<MemRefType>(buffer.getType()).getRank();
  SmallVector<Idx> indices;
  std::function<void(int64_t)> nest = [&](int64_t axis) {
    if (axis == rank) {
      body(indices);
      return;
    }
    em.forRange(0, em.dim(buffer, axis), [&](Idx i) {
      indices.push_back(i);
      nest(axis + 1);
      indices.pop_back();
    });
  };
  nest(1);
}

SmallVector<Idx> extentsWithLeading(Value like, Idx leading) {
  Emitter &em = leading.getEmitter();
  SmallVector<Idx> extents{leading};
  int64_t rank = cast<MemRefType>(like.getType()).getRank();
  for (int64_t axis = 1; axis < rank; ++axis)
    extents.push_back(em.dim(like, axis));
  return extents;
}

SmallVector<Idx> prepend(Idx first, ArrayRef<Idx> rest) {
  SmallVector<Idx> all{first};
  all.append(rest.begin(), rest.end());
  return all;
}
} // namespace

void sezm::emitKernel(SegmentReduceOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  Value values = io.in(op.getValues());
  Value order = io.in(op.getOrder()), rowptr = io.in(op.getRowptr());
  Idx nodes = em.dim(rowptr, 0) - 1;
  Value out = io.allocate(0, extentsWithLeading(values, nodes));
  em.fillZero(out);
  em.parallelRange(0, nodes, [&](Idx n) {
    em.forRange(
        em.loadIndex(rowptr, {n}), em.loadIndex(rowptr, {n + 1}), [&](Idx t) {
          Idx e = em.loadIndex(order, {t});
          forEachTrailingIndex(em, values, [&](ArrayRef<Idx> rest) {
            em.addTo(em.load(values, prepend(e, rest)), out, prepend(n, rest));
          });
        });
  });
}

void sezm::emitKernel(SegmentReduceGradOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  Value grad = io.in(op.getGrad());
  Value order = io.in(op.getOrder()), rowptr = io.in(op.getRowptr());
  Idx nodes = em.dim(rowptr, 0) - 1;
  Idx edges = em.dim(order, 0);
  Value out = io.allocate(0, extentsWithLeading(grad, edges));
  // Edges in no segment receive no gradient.
  em.fillZero(out);
  em.parallelRange(0, nodes, [&](Idx n) {
    em.forRange(
        em.loadIndex(rowptr, {n}), em.loadIndex(rowptr, {n + 1}), [&](Idx t) {
          Idx e = em.loadIndex(order, {t});
          forEachTrailingIndex(em, grad, [&](ArrayRef<Idx> rest) {
            em.store(em.load(grad, prepend(n, rest)), out, prepend(e, rest));
          });
        });
  });
}

// Folds away before lowering in the pipelines; a copy where it is lowered
// all the same (convert-sezm-to-loops alone).
void sezm::emitKernel(ExchangeOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  Value features = io.in(op.getFeatures());
  Idx nodes = em.dim(features, 0);
  Value out = io.allocate(0, extentsWithLeading(features, nodes));
  em.parallelRange(0, nodes, [&](Idx n) {
    forEachTrailingIndex(em, features, [&](ArrayRef<Idx> rest) {
      em.store(em.load(features, prepend(n, rest)), out, prepend(n, rest));
    });
  });
}
