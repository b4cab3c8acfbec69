//===- KernelBuilder.cpp - scalar math, loops and memory for kernels ------===//

#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

#include <cassert>
#include <cmath>

using namespace mlir;
using namespace mlir::sezm;
using namespace mlir::sezm::kernel;

namespace {
/// The emitter of whichever of `a` and `c` has one.
template <typename T> Emitter &emitterOf(const T &a, const T &c) {
  if (a.emitter)
    return *a.emitter;
  if (!c.emitter)
    llvm::report_fatal_error("sezm kernel builder: an op on two constants "
                             "that cannot fold, with no emitter to emit it");
  return *c.emitter;
}

} // namespace

void kernel::reportConstantWithoutEmitter() {
  llvm::report_fatal_error("sezm kernel builder: a constant taken as a value "
                           "with no emitter to emit it");
}

//===----------------------------------------------------------------------===//
// Index arithmetic
//===----------------------------------------------------------------------===//

Value Idx::in(Emitter &em) const {
  if (emitter)
    return value;
  return arith::ConstantIndexOp::create(em.builder, em.loc, constant);
}

/// An index op on `a` and `c`, or `fold` of their constants.
template <typename OpTy, typename Fold>
static Idx indexOp(Idx a, Idx c, Fold fold) {
  if (a.isConstant() && c.isConstant())
    return Idx(fold(static_cast<uint64_t>(a.constant),
                    static_cast<uint64_t>(c.constant)));
  Emitter &em = emitterOf(a, c);
  return Idx(OpTy::create(em.builder, em.loc, a.in(em), c.in(em)), em);
}

Idx kernel::operator+(Idx a, Idx c) {
  return indexOp<arith::AddIOp>(
      a, c, [](uint64_t x, uint64_t y) { return static_cast<int64_t>(x + y); });
}
Idx kernel::operator-(Idx a, Idx c) {
  return indexOp<arith::SubIOp>(
      a, c, [](uint64_t x, uint64_t y) { return static_cast<int64_t>(x - y); });
}
Idx kernel::operator*(Idx a, Idx c) {
  return indexOp<arith::MulIOp>(
      a, c, [](uint64_t x, uint64_t y) { return static_cast<int64_t>(x * y); });
}
Idx kernel::operator/(Idx a, Idx c) {
  return indexOp<arith::DivUIOp>(
      a, c, [](uint64_t x, uint64_t y) { return static_cast<int64_t>(x / y); });
}
Idx kernel::operator%(Idx a, Idx c) {
  return indexOp<arith::RemUIOp>(
      a, c, [](uint64_t x, uint64_t y) { return static_cast<int64_t>(x % y); });
}
Idx kernel::min(Idx a, Idx c) {
  return indexOp<arith::MinUIOp>(a, c, [](uint64_t x, uint64_t y) {
    return static_cast<int64_t>(std::min(x, y));
  });
}
Idx kernel::ceilDiv(Idx a, int64_t c) {
  return indexOp<arith::CeilDivUIOp>(a, Idx(c), [](uint64_t x, uint64_t y) {
    return static_cast<int64_t>((x + y - 1) / y);
  });
}

static Cond compare(arith::CmpIPredicate predicate, Idx a, Idx c) {
  Emitter &em = emitterOf(a, c);
  return Cond(
      arith::CmpIOp::create(em.builder, em.loc, predicate, a.in(em), c.in(em)),
      em);
}

Cond kernel::operator<(Idx a, Idx c) {
  return compare(arith::CmpIPredicate::ult, a, c);
}
Cond kernel::equal(Idx a, Idx c) {
  return compare(arith::CmpIPredicate::eq, a, c);
}

Value Idx32::in(Emitter &em) const {
  if (emitter)
    return value;
  return arith::ConstantOp::create(
      em.builder, em.loc,
      em.builder.getIntegerAttr(em.builder.getI32Type(), constant));
}

Idx32 Idx32::narrow(Idx index) {
  if (index.isConstant())
    return Idx32(static_cast<int32_t>(index.constant));
  Emitter &em = *index.emitter;
  return Idx32(arith::IndexCastOp::create(em.builder, em.loc,
                                          em.builder.getI32Type(), index),
               em);
}

Idx Idx32::widen() const {
  if (isConstant())
    return Idx(static_cast<int64_t>(static_cast<uint32_t>(constant)));
  return Idx(arith::IndexCastUIOp::create(emitter->builder, emitter->loc,
                                          emitter->builder.getIndexType(),
                                          value),
             *emitter);
}

template <typename OpTy, typename Fold>
static Idx32 index32Op(Idx32 a, Idx32 c, Fold fold) {
  if (a.isConstant() && c.isConstant())
    return Idx32(fold(static_cast<uint32_t>(a.constant),
                      static_cast<uint32_t>(c.constant)));
  Emitter &em = emitterOf(a, c);
  return Idx32(OpTy::create(em.builder, em.loc, a.in(em), c.in(em)), em);
}

Idx32 kernel::operator+(Idx32 a, Idx32 c) {
  return index32Op<arith::AddIOp>(
      a, c, [](uint32_t x, uint32_t y) { return static_cast<int32_t>(x + y); });
}
Idx32 kernel::operator-(Idx32 a, Idx32 c) {
  return index32Op<arith::SubIOp>(
      a, c, [](uint32_t x, uint32_t y) { return static_cast<int32_t>(x - y); });
}
Idx32 kernel::min(Idx32 a, Idx32 c) {
  return index32Op<arith::MinUIOp>(a, c, [](uint32_t x, uint32_t y) {
    return static_cast<int32_t>(std::min(x, y));
  });
}
Cond kernel::operator<(Idx32 a, Idx32 c) {
  Emitter &em = emitterOf(a, c);
  return Cond(arith::CmpIOp::create(em.builder, em.loc,
                                    arith::CmpIPredicate::ult, a.in(em),
                                    c.in(em)),
              em);
}

//===----------------------------------------------------------------------===//
// Num
//===----------------------------------------------------------------------===//

Value Num::in(Emitter &em) const {
  if (emitter)
    return value;
  return arith::ConstantOp::create(
      em.builder, em.loc, em.builder.getFloatAttr(em.floatType, constant));
}

/// The fast-math flags of the emitter's arithmetic.
static arith::FastMathFlags fastMath(const Emitter &em) {
  return em.contract ? arith::FastMathFlags::contract
                     : arith::FastMathFlags::none;
}

/// A binary float op on `a` and `c` (with the emitter's fast-math flags
/// where `contracts`), or `fold` of their constants.
template <typename OpTy, bool Contracts, typename Fold>
static Num floatOp(Num a, Num c, Fold fold) {
  if (a.isConstant() && c.isConstant())
    return Num(fold(a.constant, c.constant));
  Emitter &em = emitterOf(a, c);
  if constexpr (Contracts)
    return Num(
        OpTy::create(em.builder, em.loc, a.in(em), c.in(em), fastMath(em)), em);
  else
    return Num(OpTy::create(em.builder, em.loc, a.in(em), c.in(em)), em);
}

/// A unary float op on `a`, or `fold` of its constant.
template <typename OpTy, typename Fold> static Num floatOp(Num a, Fold fold) {
  if (a.isConstant())
    return Num(fold(a.constant));
  return Num(OpTy::create(a.emitter->builder, a.emitter->loc, a.value),
             *a.emitter);
}

Num kernel::operator+(Num a, Num c) {
  return floatOp<arith::AddFOp, true>(a, c,
                                      [](double x, double y) { return x + y; });
}
Num kernel::operator-(Num a, Num c) {
  return floatOp<arith::SubFOp, true>(a, c,
                                      [](double x, double y) { return x - y; });
}
Num kernel::operator*(Num a, Num c) {
  return floatOp<arith::MulFOp, true>(a, c,
                                      [](double x, double y) { return x * y; });
}
Num kernel::operator/(Num a, Num c) {
  return floatOp<arith::DivFOp, false>(
      a, c, [](double x, double y) { return x / y; });
}
Num kernel::max(Num a, Num c) {
  return floatOp<arith::MaxNumFOp, false>(
      a, c, [](double x, double y) { return std::fmax(x, y); });
}
Num kernel::operator-(Num a) {
  return floatOp<arith::NegFOp>(a, [](double x) { return -x; });
}
Num kernel::sqrt(Num a) {
  return floatOp<math::SqrtOp>(a, [](double x) { return std::sqrt(x); });
}
Num kernel::exp(Num a) {
  return floatOp<math::ExpOp>(a, [](double x) { return std::exp(x); });
}
Num kernel::log(Num a) {
  return floatOp<math::LogOp>(a, [](double x) { return std::log(x); });
}
Num kernel::sin(Num a) {
  return floatOp<math::SinOp>(a, [](double x) { return std::sin(x); });
}
Num kernel::cos(Num a) {
  return floatOp<math::CosOp>(a, [](double x) { return std::cos(x); });
}
Num kernel::sigmoid(Num a) { return Num(1.0) / (Num(1.0) + exp(-a)); }

Num kernel::select(Cond cond, Num a, Num c) {
  Emitter &em = *cond.emitter;
  return Num(
      arith::SelectOp::create(em.builder, em.loc, cond, a.in(em), c.in(em)),
      em);
}

static Cond compare(arith::CmpFPredicate predicate, Num a, Num c) {
  Emitter &em = emitterOf(a, c);
  return Cond(
      arith::CmpFOp::create(em.builder, em.loc, predicate, a.in(em), c.in(em)),
      em);
}

Cond kernel::operator<(Num a, Num c) {
  return compare(arith::CmpFPredicate::OLT, a, c);
}
Cond kernel::operator<=(Num a, Num c) {
  return compare(arith::CmpFPredicate::OLE, a, c);
}

Num kernel::machineEpsilon(Num like) {
  return like.getEmitter().machineEpsilon();
}

Num Emitter::machineEpsilon() {
  return Num(
      std::ldexp(1.0, -static_cast<int>(floatType.getFPMantissaWidth()) + 1));
}

//===----------------------------------------------------------------------===//
// Jet
//===----------------------------------------------------------------------===//

Jet Jet::variable(Num value, int k) {
  std::array<Num, 3> grad = {Num(0.0), Num(0.0), Num(0.0)};
  grad[k] = Num(1.0);
  return Jet(value, grad);
}

Num Jet::derivative(int k) const { return grad ? (*grad)[k] : Num(0.0); }

/// Applies `f` to the derivatives present in `a` and `c` (a missing one is
/// passed as nullopt); constants in, constant out.
static std::optional<std::array<Num, 3>>
combine(const Jet &a, const Jet &c,
        llvm::function_ref<Num(std::optional<Num>, std::optional<Num>)> f) {
  if (!a.grad && !c.grad)
    return std::nullopt;
  std::array<Num, 3> grad = {Num(0.0), Num(0.0), Num(0.0)};
  for (int k = 0; k < 3; ++k) {
    std::optional<Num> da, dc;
    if (a.grad)
      da = (*a.grad)[k];
    if (c.grad)
      dc = (*c.grad)[k];
    grad[k] = f(da, dc);
  }
  return grad;
}

static Jet withGrad(Num value, std::optional<std::array<Num, 3>> grad) {
  Jet jet(value);
  jet.grad = grad;
  return jet;
}

/// The jet of f(a) given f(a.value) and f'(a.value).
static Jet chain(const Jet &a, Num value, llvm::function_ref<Num()> slope) {
  if (!a.grad)
    return Jet(value);
  Num s = slope();
  return Jet(value, {s * (*a.grad)[0], s * (*a.grad)[1], s * (*a.grad)[2]});
}

Jet kernel::operator+(Jet a, Jet c) {
  return withGrad(a.value + c.value,
                  combine(a, c, [](std::optional<Num> x, std::optional<Num> y) {
                    return x && y ? *x + *y : (x ? *x : *y);
                  }));
}
Jet kernel::operator-(Jet a, Jet c) {
  return withGrad(a.value - c.value,
                  combine(a, c, [](std::optional<Num> x, std::optional<Num> y) {
                    return x && y ? *x - *y : (x ? *x : -*y);
                  }));
}
Jet kernel::operator*(Jet a, Jet c) {
  return withGrad(
      a.value * c.value,
      combine(a, c, [&](std::optional<Num> x, std::optional<Num> y) {
        if (x && y)
          return *x * c.value + a.value * *y;
        return x ? *x * c.value : a.value * *y;
      }));
}
Jet kernel::operator/(Jet a, Jet c) {
  Num quotient = a.value / c.value;
  return withGrad(
      quotient, combine(a, c, [&](std::optional<Num> x, std::optional<Num> y) {
        if (x && y)
          return (*x - quotient * *y) / c.value;
        return x ? *x / c.value : -(quotient * *y) / c.value;
      }));
}
Jet kernel::operator-(Jet a) {
  return chain(a, -a.value, [] { return Num(-1.0); });
}
Jet kernel::sqrt(Jet a) {
  Num root = sqrt(a.value);
  return chain(a, root, [&] { return Num(0.5) / root; });
}
Jet kernel::exp(Jet a) {
  Num e = exp(a.value);
  return chain(a, e, [&] { return e; });
}
Jet kernel::log(Jet a) {
  return chain(a, log(a.value), [&] { return Num(1.0) / a.value; });
}
Jet kernel::sin(Jet a) {
  return chain(a, sin(a.value), [&] { return cos(a.value); });
}
Jet kernel::cos(Jet a) {
  return chain(a, cos(a.value), [&] { return -sin(a.value); });
}
Jet kernel::max(Jet a, Jet c) { return select(c.value < a.value, a, c); }
Jet kernel::select(Cond cond, Jet a, Jet c) {
  return withGrad(
      select(cond, a.value, c.value),
      combine(a, c, [&](std::optional<Num> x, std::optional<Num> y) {
        return select(cond, x ? *x : Num(0.0), y ? *y : Num(0.0));
      }));
}
Cond kernel::operator<(Jet a, Jet c) { return a.value < c.value; }
Cond kernel::operator<=(Jet a, Jet c) { return a.value <= c.value; }

//===----------------------------------------------------------------------===//
// Memory and loops
//===----------------------------------------------------------------------===//

SmallVector<Value> Emitter::indexValues(ArrayRef<Idx> indices) {
  return llvm::to_vector(
      llvm::map_range(indices, [&](Idx i) { return i.in(*this); }));
}

Num Emitter::load(Value memref, ArrayRef<Idx> indices) {
  return num(
      memref::LoadOp::create(builder, loc, memref, indexValues(indices)));
}

SmallVector<Num> Emitter::loadVector(Value memref, ArrayRef<Idx> at,
                                     int64_t width) {
  if (width == 1)
    return {load(memref, at)};
  Type element = cast<MemRefType>(memref.getType()).getElementType();
  auto type = VectorType::get({width}, element);
  llvm::MaybeAlign alignment(width * element.getIntOrFloatBitWidth() / 8);
  Value piece =
      vector::LoadOp::create(builder, loc, type, memref, indexValues(at),
                             /*nontemporal=*/false, alignment);
  SmallVector<Num> values;
  for (int64_t k = 0; k < width; ++k)
    values.push_back(num(vector::ExtractOp::create(builder, loc, piece, k)));
  return values;
}

Idx Emitter::loadIndex(Value memref, ArrayRef<Idx> indices) {
  Value element =
      memref::LoadOp::create(builder, loc, memref, indexValues(indices));
  return index(arith::IndexCastOp::create(builder, loc, builder.getIndexType(),
                                          element));
}

void Emitter::store(Num value, Value memref, ArrayRef<Idx> indices) {
  memref::StoreOp::create(builder, loc, value.in(*this), memref,
                          indexValues(indices));
}

void Emitter::storeVector(ArrayRef<Num> values, Value memref,
                          ArrayRef<Idx> at) {
  if (values.size() == 1) {
    store(values.front(), memref, at);
    return;
  }
  Type element = cast<MemRefType>(memref.getType()).getElementType();
  auto type = VectorType::get({static_cast<int64_t>(values.size())}, element);
  llvm::MaybeAlign alignment(values.size() * element.getIntOrFloatBitWidth() /
                             8);
  SmallVector<Value> elements = llvm::to_vector(
      llvm::map_range(values, [&](Num n) { return n.in(*this); }));
  Value piece = vector::FromElementsOp::create(builder, loc, type, elements);
  vector::StoreOp::create(builder, loc, piece, memref, indexValues(at),
                          /*nontemporal=*/false, alignment);
}

void Emitter::addTo(Num value, Value memref, ArrayRef<Idx> indices) {
  store(load(memref, indices) + value, memref, indices);
}

void Emitter::storeAdded(Num value, Value acc, Value memref,
                         ArrayRef<Idx> indices) {
  store(acc ? load(acc, indices) + value : value, memref, indices);
}

Idx Emitter::dim(Value memref, int64_t axis) {
  return index(memref::DimOp::create(builder, loc, memref, axis));
}

void Emitter::fillZero(Value memref) {
  markAsKernel(linalg::FillOp::create(
      builder, loc, ValueRange{Num(0.0).in(*this)}, ValueRange{memref}));
}

void Emitter::copy(Value from, Value to) {
  markAsKernel(linalg::CopyOp::create(builder, loc, from, to));
}

void Emitter::markAsKernel(Operation *op) {
  if (loopAttr)
    op->setAttr(loopAttr->getName(), loopAttr->getValue());
}

void Emitter::forRange(Idx lb, Idx ub, llvm::function_ref<void(Idx)> body) {
  forRangeStep(lb, ub, Idx(1), body);
}

void Emitter::forRangeStep(Idx lb, Idx ub, Idx step,
                           llvm::function_ref<void(Idx)> body) {
  scf::ForOp::create(
      builder, loc, lb.in(*this), ub.in(*this), step.in(*this), ValueRange{},
      [&](OpBuilder &nested, Location, Value iv, ValueRange) {
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointToEnd(nested.getInsertionBlock());
        body(index(iv));
        scf::YieldOp::create(builder, loc);
      });
}

void Emitter::parallelRange(Idx lb, Idx ub,
                            llvm::function_ref<void(Idx)> body) {
  auto loop = scf::ParallelOp::create(
      builder, loc, ValueRange{lb.in(*this)}, ValueRange{ub.in(*this)},
      ValueRange{Idx(1).in(*this)},
      [&](OpBuilder &nested, Location, ValueRange ivs) {
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointToEnd(nested.getInsertionBlock());
        body(index(ivs[0]));
      });
  markAsKernel(loop);
}

Idx Emitter::segmentOf(Value rowptr, Idx nodes, Idx t) {
  // The first n >= 1 with rowptr[n] > t, less one; rowptr[0] = 0 <= t and
  // rowptr[nodes] > t, so it lies in [1, nodes]. t + 1 is made here, once,
  // not in each bisection step.
  Idx next = t + Idx(1);
  return partitionPoint(rowptr, Idx(1), nodes + Idx(1),
                        [&](Idx entry) { return entry < next; }) -
         Idx(1);
}

Idx Emitter::lowerBound(Value sorted, Idx lb, Idx ub, Idx value) {
  return partitionPoint(sorted, lb, ub,
                        [&](Idx entry) { return entry < value; });
}

Idx Emitter::partitionPoint(Value sorted, Idx lb, Idx ub,
                            llvm::function_ref<Value(Idx)> before) {
  // before(sorted[t]) holds for t < lo and fails for t >= hi; each halving
  // step leaves hi - lo at most half of it, so the bit length of ub - lb
  // steps close the range (a CSR segment: 8 for 157 edges; 13 for the
  // segments of 4096 atoms; none for an empty range).
  Value length = arith::IndexCastOp::create(builder, loc, builder.getI64Type(),
                                            (ub - lb).in(*this));
  Value steps = arith::SubIOp::create(
      builder, loc, arith::ConstantIntOp::create(builder, loc, 64, 64),
      math::CountLeadingZerosOp::create(builder, loc, length));
  auto loop = scf::ForOp::create(
      builder, loc, Idx(0).in(*this),
      arith::IndexCastOp::create(builder, loc, builder.getIndexType(), steps),
      Idx(1).in(*this), ValueRange{lb.in(*this), ub.in(*this)},
      [&](OpBuilder &nested, Location, Value, ValueRange bounds) {
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointToEnd(nested.getInsertionBlock());
        Idx lo = index(bounds[0]), hi = index(bounds[1]);
        // Once lo == hi the step reads position lb (inside the caller's
        // range, which is not empty where a step runs) and changes nothing.
        Value open = lo < hi;
        Idx mid = index(arith::SelectOp::create(
            builder, loc, open, ((lo + hi) / Idx(2)).in(*this), lb.in(*this)));
        Value below = before(loadIndex(sorted, {mid}));
        Value raise = arith::AndIOp::create(builder, loc, open, below);
        Value lower = arith::AndIOp::create(
            builder, loc, open,
            arith::XOrIOp::create(
                builder, loc, below,
                arith::ConstantIntOp::create(builder, loc, 1, 1)));
        Value nextLo = arith::SelectOp::create(builder, loc, raise,
                                               (mid + Idx(1)).in(*this), lo);
        Value nextHi = arith::SelectOp::create(builder, loc, lower, mid, hi);
        scf::YieldOp::create(builder, loc, ValueRange{nextLo, nextHi});
      });
  return index(loop.getResult(0));
}

SmallVector<Num>
Emitter::sumRange(Idx lb, Idx ub, ArrayRef<Num> init,
                  llvm::function_ref<SmallVector<Num>(Idx)> body) {
  return foldRangeStep(lb, ub, Idx(1), init, [&](Idx i, ArrayRef<Num> sums) {
    SmallVector<Num> terms = body(i);
    assert(terms.size() == sums.size() && "one term per sum");
    SmallVector<Num> next;
    for (auto [sum, term] : llvm::zip(sums, terms))
      next.push_back(sum + term);
    return next;
  });
}

/// A carried value as the loop takes it, and back.
static Value carriedValue(Emitter &em, Num n) { return n.in(em); }
static Value carriedValue(Emitter &, Value v) { return v; }
template <typename T> static T fromCarried(Emitter &em, Value v) {
  return T(v, em);
}
template <> Value fromCarried<Value>(Emitter &, Value v) { return v; }

/// foldRangeStep over positions of type P (Idx or Idx32).
template <typename P, typename T>
static SmallVector<T>
foldPositions(Emitter &em, P lb, P ub, P step, ArrayRef<T> init,
              llvm::function_ref<SmallVector<T>(P, ArrayRef<T>)> body) {
  auto toValues = [&](ArrayRef<T> values) {
    return llvm::to_vector(
        llvm::map_range(values, [&](T v) { return carriedValue(em, v); }));
  };
  auto fromValues = [&](ValueRange values) {
    return llvm::to_vector(llvm::map_range(
        values, [&](Value v) { return fromCarried<T>(em, v); }));
  };
  OpBuilder &builder = em.builder;
  auto loop = scf::ForOp::create(
      builder, em.loc, lb.in(em), ub.in(em), step.in(em), toValues(init),
      [&](OpBuilder &nested, Location, Value iv, ValueRange carried) {
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointToEnd(nested.getInsertionBlock());
        SmallVector<T> next = body(P(iv, em), fromValues(carried));
        assert(next.size() == carried.size() && "one value per carried one");
        scf::YieldOp::create(builder, em.loc, toValues(next));
      });
  return fromValues(loop.getResults());
}

SmallVector<Num> Emitter::foldRangeStep(
    Idx lb, Idx ub, Idx step, ArrayRef<Num> init,
    llvm::function_ref<SmallVector<Num>(Idx, ArrayRef<Num>)> body) {
  return foldPositions<Idx, Num>(*this, lb, ub, step, init, body);
}

SmallVector<Value> Emitter::foldRangeStep(
    Idx32 lb, Idx32 ub, Idx32 step, ArrayRef<Value> init,
    llvm::function_ref<SmallVector<Value>(Idx32, ArrayRef<Value>)> body) {
  return foldPositions<Idx32, Value>(*this, lb, ub, step, init, body);
}

Num Emitter::sumRange(Idx lb, Idx ub, llvm::function_ref<Num(Idx)> body) {
  return sumRange(lb, ub, {Num(0.0)},
                  [&](Idx i) { return SmallVector<Num>{body(i)}; })[0];
}

Num Emitter::maxRange(Idx lb, Idx ub, Num init,
                      llvm::function_ref<Num(Idx)> body) {
  auto loop = scf::ForOp::create(
      builder, loc, lb.in(*this), ub.in(*this), Idx(1).in(*this),
      ValueRange{init.in(*this)},
      [&](OpBuilder &nested, Location, Value iv, ValueRange best) {
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointToEnd(nested.getInsertionBlock());
        Num next = max(num(best[0]), body(index(iv)));
        scf::YieldOp::create(builder, loc, next.in(*this));
      });
  return num(loop.getResult(0));
}

Value Emitter::allocateScratch(ArrayRef<int64_t> shape, ArrayRef<Idx> extents) {
  SmallVector<Value> dynamicSizes;
  for (auto [size, extent] : llvm::zip_equal(shape, extents))
    if (ShapedType::isDynamic(size))
      dynamicSizes.push_back(extent.in(*this));
  auto type = MemRefType::get(shape, floatType);
  return memref::AllocOp::create(builder, loc, type, dynamicSizes);
}

void Emitter::ifThen(Value cond, llvm::function_ref<void()> body) {
  auto branch = scf::IfOp::create(builder, loc, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(branch.thenBlock()->getTerminator());
  body();
}

void Emitter::ifThenElse(Value cond, llvm::function_ref<void()> then,
                         llvm::function_ref<void()> otherwise) {
  auto branch = scf::IfOp::create(builder, loc, cond, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(branch.thenBlock()->getTerminator());
  then();
  builder.setInsertionPoint(branch.elseBlock()->getTerminator());
  otherwise();
}

SmallVector<Value>
Emitter::ifThenElseValues(Value cond,
                          llvm::function_ref<SmallVector<Value>()> then,
                          llvm::function_ref<SmallVector<Value>()> otherwise) {
  auto yieldOf = [&](llvm::function_ref<SmallVector<Value>()> body) {
    return [&, body](OpBuilder &nested, Location) {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToEnd(nested.getInsertionBlock());
      scf::YieldOp::create(builder, loc, body());
    };
  };
  auto branch =
      scf::IfOp::create(builder, loc, cond, yieldOf(then), yieldOf(otherwise));
  return SmallVector<Value>(branch.getResults());
}

void Emitter::launchKernel(StringRef name, std::array<Idx, 3> grid,
                           std::array<Idx, 3> block,
                           ArrayRef<SmallVector<int64_t>> workgroupShapes,
                           llvm::function_ref<void(const LaunchIds &)> body,
                           int64_t blocksPerSm) {
  auto workgroupSpace = gpu::AddressSpaceAttr::get(
      builder.getContext(), gpu::GPUDialect::getWorkgroupAddressSpace());
  SmallVector<Type> workgroupTypes;
  for (const SmallVector<int64_t> &shape : workgroupShapes)
    workgroupTypes.push_back(MemRefType::get(
        shape, floatType, MemRefLayoutAttrInterface(), workgroupSpace));
  auto launch = gpu::LaunchOp::create(
      builder, loc, grid[0].in(*this), grid[1].in(*this), grid[2].in(*this),
      block[0].in(*this), block[1].in(*this), block[2].in(*this),
      /*dynamicSharedMemorySize=*/Value(), /*asyncTokenType=*/Type(),
      /*asyncDependencies=*/ValueRange(), workgroupTypes);
  // Outlining names the kernel (and its module) after this, so that
  // profiles say which op a kernel is.
  launch.setFunctionAttr(FlatSymbolRefAttr::get(builder.getContext(), name));
  // sezm-outline-kernels puts this on the kernel.
  if (blocksPerSm > 0)
    launch->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                    builder.getI32IntegerAttr(blocksPerSm));
  OpBuilder::InsertionGuard guard(builder);
  Block &entry = launch.getBody().front();
  builder.setInsertionPointToEnd(&entry);
  LaunchIds ids{{index(launch.getBlockIds().x), index(launch.getBlockIds().y),
                 index(launch.getBlockIds().z)},
                {index(launch.getThreadIds().x), index(launch.getThreadIds().y),
                 index(launch.getThreadIds().z)},
                {}};
  for (BlockArgument buffer : launch.getWorkgroupAttributions())
    ids.workgroup.push_back(buffer);
  body(ids);
  gpu::TerminatorOp::create(builder, loc);
}

void Emitter::barrier() { gpu::BarrierOp::create(builder, loc); }

void Emitter::warpSync() {
  Value allLanes = arith::ConstantOp::create(
      builder, loc, builder.getIntegerAttr(builder.getI32Type(), -1));
  NVVM::SyncWarpOp::create(builder, loc, allLanes);
}

void Emitter::copyAsync(Value from, ArrayRef<Idx> at, Value to,
                        ArrayRef<Idx> toAt, int64_t width,
                        std::optional<Cond> present) {
  Value elements;
  if (present)
    elements = arith::SelectOp::create(builder, loc, *present,
                                       Idx(width).in(*this), Idx(0).in(*this));
  nvgpu::DeviceAsyncCopyOp::create(builder, loc, to, indexValues(toAt), from,
                                   indexValues(at), builder.getIndexAttr(width),
                                   elements, /*bypassL1=*/UnitAttr());
}

void Emitter::commitAsyncCopies() {
  NVVM::CpAsyncCommitGroupOp::create(builder, loc);
}

void Emitter::waitAsyncCopies(int64_t pending) {
  NVVM::CpAsyncWaitGroupOp::create(builder, loc,
                                   static_cast<uint32_t>(pending));
}

/// A whole-warp shuffle of `value` with a constant lane operand.
static Num shuffle(Emitter &em, Num value, int64_t operand,
                   gpu::ShuffleMode mode) {
  OpBuilder &builder = em.builder;
  Type i32 = builder.getI32Type();
  Value width = arith::ConstantOp::create(
      builder, em.loc, builder.getIntegerAttr(i32, kernel::kWarpSize));
  Value lane = arith::ConstantOp::create(builder, em.loc,
                                         builder.getIntegerAttr(i32, operand));
  return em.num(
      gpu::ShuffleOp::create(builder, em.loc, value.in(em), lane, width, mode)
          .getShuffleResult());
}

/// The value of the lane `offset` lanes away in the xor butterfly.
static Num shuffleXor(Emitter &em, Num value, int64_t offset) {
  return shuffle(em, value, offset, gpu::ShuffleMode::XOR);
}

std::array<Num, 2> Emitter::splitTF32(Num x) {
  // Rounds to TF32, to nearest with ties away from zero, as cvt.rna.tf32.f32
  // does for finite values: half of TF32's last place added to the
  // magnitude's bits, the 13 bits below it cleared. Two integer ops at the
  // full rate, where the conversion runs at a quarter of it.
  auto toTF32 = [&](Value value) {
    Type i32 = builder.getI32Type();
    Value bits = arith::BitcastOp::create(builder, loc, i32, value);
    auto constant = [&](int64_t v) {
      return arith::ConstantOp::create(builder, loc,
                                       builder.getIntegerAttr(i32, v));
    };
    Value rounded = arith::AddIOp::create(builder, loc, bits, constant(0x1000));
    Value kept = arith::AndIOp::create(
        builder, loc, rounded, constant(static_cast<int32_t>(0xffffe000)));
    return num(
        arith::BitcastOp::create(builder, loc, builder.getF32Type(), kept));
  };
  Num high = toTF32(x.in(*this));
  return {high, toTF32((x - high).in(*this))};
}

SmallVector<Num> Emitter::mmaTF32(ArrayRef<Num> a, ArrayRef<Num> bFragment,
                                  ArrayRef<Num> c) {
  assert(a.size() == 4 && bFragment.size() == 2 && c.size() == 4 &&
         "the fragments of an m16n8k8 TF32 product");
  auto bits = [&](ArrayRef<Num> values) {
    return llvm::to_vector(llvm::map_range(values, [&](Num value) -> Value {
      return arith::BitcastOp::create(builder, loc, builder.getI32Type(),
                                      value.in(*this));
    }));
  };
  Type f32 = builder.getF32Type();
  auto resultType = LLVM::LLVMStructType::getLiteral(builder.getContext(),
                                                     {f32, f32, f32, f32});
  SmallVector<Value> accumulators = llvm::to_vector(
      llvm::map_range(c, [&](Num value) { return value.in(*this); }));
  auto product = NVVM::MmaOp::create(
      builder, loc, resultType, bits(a), bits(bFragment), accumulators,
      /*shape=*/{16, 8, 8}, /*b1Op=*/std::nullopt,
      /*intOverflow=*/std::nullopt,
      std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::tf32, NVVM::MMATypes::tf32},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Num> d;
  for (int64_t i = 0; i < 4; ++i)
    d.push_back(num(LLVM::ExtractValueOp::create(builder, loc, product,
                                                 ArrayRef<int64_t>{i})));
  return d;
}

Num Emitter::warpSum(Num value) { return groupSum({value}, kWarpSize)[0]; }

SmallVector<Num> Emitter::groupSum(ArrayRef<Num> values, int64_t lanes) {
  assert(llvm::isPowerOf2_64(lanes) && lanes <= kWarpSize &&
         "a power-of-two group of a warp's lanes");
  SmallVector<Num> sums(values);
  for (int64_t offset = lanes / 2; offset > 0; offset /= 2) {
    SmallVector<Num> partners;
    for (Num sum : sums)
      partners.push_back(shuffleXor(*this, sum, offset));
    for (size_t i = 0; i < sums.size(); ++i)
      sums[i] = sums[i] + partners[i];
  }
  return sums;
}

/// Whether bit `mask` of the lane is set.
static Cond laneBit(Emitter &em, Idx lane, int64_t mask) {
  Value bits =
      arith::AndIOp::create(em.builder, em.loc, lane.in(em), Idx(mask).in(em));
  return Cond(arith::CmpIOp::create(em.builder, em.loc,
                                    arith::CmpIPredicate::ne, bits,
                                    Idx(0).in(em)),
              em);
}

/// Lanes per value in a group of `size` values (padded to a power of two)
/// once the halvings have spread it: the log2 of it.
static int64_t groupShift(int64_t size) {
  return llvm::Log2_64(kernel::kWarpSize / llvm::PowerOf2Ceil(size));
}

void Emitter::storeWarpSums(ArrayRef<Num> values, Idx lane,
                            const SpreadSlots &slots,
                            llvm::function_ref<void(Idx, Num)> store) {
  SmallVector<Num> spread = warpSumSpread(
      values.size(),
      [&](int64_t k, std::optional<Num> addend) {
        return addend ? values[k] + *addend : values[k];
      },
      lane);
  for (auto [r, sum] : llvm::enumerate(spread)) {
    Num total = sum;
    Idx place = slots.index[r];
    ifThen(slots.owner[r], [&] { store(place, total); });
  }
}

SpreadSlots Emitter::spreadSlots(int64_t count, Idx lane) {
  SpreadSlots slots;
  for (int64_t base = 0; base < count; base += kWarpSize) {
    int64_t shift = groupShift(std::min<int64_t>(kWarpSize, count - base));
    Idx slot = shift ? index(arith::ShRUIOp::create(
                           builder, loc, lane.in(*this), Idx(shift).in(*this)))
                     : lane;
    Idx place = slot + Idx(base);
    Value first = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::eq,
        arith::AndIOp::create(builder, loc, lane.in(*this),
                              Idx((1 << shift) - 1).in(*this)),
        Idx(0).in(*this));
    slots.index.push_back(place);
    slots.owner.push_back(
        arith::AndIOp::create(builder, loc, first, place < Idx(count)));
  }
  return slots;
}

SmallVector<Num> Emitter::warpSumSpread(
    int64_t count, llvm::function_ref<Num(int64_t, std::optional<Num>)> value,
    Idx lane, llvm::function_ref<bool(int64_t)> laneOrdered) {
  SmallVector<Num> sums;
  for (int64_t base = 0; base < count; base += kWarpSize) {
    int64_t size = std::min<int64_t>(kWarpSize, count - base);
    int64_t padded = llvm::PowerOf2Ceil(size);
    auto at = [&](int64_t i) {
      return i < size ? value(base + i, std::nullopt) : Num(0.0);
    };
    // Halving: the lanes whose bit `offset` differs trade halves, each
    // keeping the half its bit selects, so the index of the value a lane
    // holds is its own top bits. The first halving asks for the values in
    // pairs, so that few of them are live at once.
    int64_t offset = kWarpSize / 2;
    SmallVector<Num> current;
    if (padded == 1) {
      current.push_back(at(0));
    } else {
      int64_t half = padded / 2;
      Cond upper = laneBit(*this, lane, offset);
      for (int64_t i = 0; i < half; ++i) {
        if (laneOrdered && half + i < size && laneOrdered(base + i)) {
          current.push_back(value(
              base + i,
              shuffleXor(*this, value(base + half + i, std::nullopt), offset)));
          continue;
        }
        Num low = at(i), high = at(half + i);
        Num send = select(upper, low, high);
        Num keep = select(upper, high, low);
        current.push_back(keep + shuffleXor(*this, send, offset));
      }
      offset /= 2;
    }
    for (; current.size() > 1; offset /= 2) {
      int64_t half = current.size() / 2;
      Cond upper = laneBit(*this, lane, offset);
      SmallVector<Num> next;
      for (int64_t i = 0; i < half; ++i) {
        Num send = select(upper, current[i], current[half + i]);
        Num keep = select(upper, current[half + i], current[i]);
        next.push_back(keep + shuffleXor(*this, send, offset));
      }
      current = std::move(next);
    }
    // The lanes that share the top bits finish the sum by a butterfly.
    Num total = current.front();
    for (int64_t rest = offset; rest > 0; rest /= 2)
      total = total + shuffleXor(*this, total, rest);
    sums.push_back(total);
  }
  return sums;
}

Num Emitter::shuffleFrom(Num value, int64_t from) {
  return shuffle(*this, value, from, gpu::ShuffleMode::IDX);
}

SmallVector<Num> Emitter::warpSharedLoad(ArrayRef<int64_t> places, Idx lane,
                                         llvm::function_ref<Num(Idx)> loadAt) {
  int64_t count = places.size();
  SmallVector<Num> rounds;
  for (int64_t first = 0; first < count; first += kWarpSize) {
    // Lanes past the table's end take its first place (lookup's default).
    ArrayRef<int64_t> table =
        places.slice(first, std::min<int64_t>(kWarpSize, count - first));
    rounds.push_back(loadAt(lookup(lane, table)));
  }
  SmallVector<Num> values;
  for (int64_t k = 0; k < count; ++k)
    values.push_back(shuffleFrom(rounds[k / kWarpSize], k % kWarpSize));
  return values;
}

Idx Emitter::lookup(Idx i, ArrayRef<int64_t> table) {
  int64_t size = table.size();
  // Within a run from k on, table[i] = i + (table[k] - k).
  Idx result = i + Idx(table.front());
  for (int64_t k = 1; k < size; ++k) {
    if (table[k] == table[k - 1] + 1)
      continue;
    Value inRun = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sge,
                                        i.in(*this), Idx(k).in(*this));
    result = index(arith::SelectOp::create(builder, loc, inRun,
                                           (i + Idx(table[k] - k)).in(*this),
                                           result.in(*this)));
  }
  return index(arith::SelectOp::create(builder, loc, i < Idx(size),
                                       result.in(*this),
                                       Idx(table.front()).in(*this)));
}
