//===- KernelBuilder.cpp - scalar math, loops and memory for kernels ------===//

#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cassert>
#include <cmath>

using namespace mlir;
using namespace mlir::sezm;
using namespace mlir::sezm::kernel;

static thread_local EmitScope *currentScope = nullptr;

EmitScope::EmitScope(OpBuilder &builder, Location loc, FloatType floatType)
    : builder(builder), loc(loc), floatType(floatType),
      enclosing(currentScope) {
  currentScope = this;
}

EmitScope::~EmitScope() { currentScope = enclosing; }

EmitScope &EmitScope::current() {
  assert(currentScope && "kernel math emitted outside an EmitScope");
  return *currentScope;
}

static OpBuilder &b() { return EmitScope::current().builder; }
static Location loc() { return EmitScope::current().loc; }

//===----------------------------------------------------------------------===//
// Index arithmetic
//===----------------------------------------------------------------------===//

Idx::Idx(int64_t constant)
    : value(arith::ConstantIndexOp::create(b(), loc(), constant)) {}

Idx kernel::operator+(Idx a, Idx c) {
  return Idx(arith::AddIOp::create(b(), loc(), a, c));
}
Idx kernel::operator-(Idx a, Idx c) {
  return Idx(arith::SubIOp::create(b(), loc(), a, c));
}
Idx kernel::operator*(Idx a, Idx c) {
  return Idx(arith::MulIOp::create(b(), loc(), a, c));
}
Idx kernel::operator/(Idx a, Idx c) {
  return Idx(arith::DivUIOp::create(b(), loc(), a, c));
}
Idx kernel::operator%(Idx a, Idx c) {
  return Idx(arith::RemUIOp::create(b(), loc(), a, c));
}

Value kernel::operator<(Idx a, Idx c) {
  return arith::CmpIOp::create(b(), loc(), arith::CmpIPredicate::ult, a, c);
}

Idx kernel::ceilDiv(Idx a, int64_t c) {
  return Idx(arith::CeilDivUIOp::create(b(), loc(), a, Idx(c)));
}

//===----------------------------------------------------------------------===//
// Num
//===----------------------------------------------------------------------===//

Num::Num(double constant)
    : value(arith::ConstantOp::create(
          b(), loc(),
          b().getFloatAttr(EmitScope::current().floatType, constant))) {}

Num kernel::operator+(Num a, Num c) {
  return Num(arith::AddFOp::create(b(), loc(), a, c));
}
Num kernel::operator-(Num a, Num c) {
  return Num(arith::SubFOp::create(b(), loc(), a, c));
}
Num kernel::operator*(Num a, Num c) {
  return Num(arith::MulFOp::create(b(), loc(), a, c));
}
Num kernel::operator/(Num a, Num c) {
  return Num(arith::DivFOp::create(b(), loc(), a, c));
}
Num kernel::operator-(Num a) {
  return Num(arith::NegFOp::create(b(), loc(), a));
}
Num kernel::sqrt(Num a) { return Num(math::SqrtOp::create(b(), loc(), a)); }
Num kernel::exp(Num a) { return Num(math::ExpOp::create(b(), loc(), a)); }
Num kernel::log(Num a) { return Num(math::LogOp::create(b(), loc(), a)); }
Num kernel::sin(Num a) { return Num(math::SinOp::create(b(), loc(), a)); }
Num kernel::cos(Num a) { return Num(math::CosOp::create(b(), loc(), a)); }
Num kernel::max(Num a, Num c) {
  return Num(arith::MaxNumFOp::create(b(), loc(), a, c));
}
Num kernel::select(Value cond, Num a, Num c) {
  return Num(arith::SelectOp::create(b(), loc(), cond, a, c));
}
Value kernel::operator<(Num a, Num c) {
  return arith::CmpFOp::create(b(), loc(), arith::CmpFPredicate::OLT, a, c);
}
Value kernel::operator<=(Num a, Num c) {
  return arith::CmpFOp::create(b(), loc(), arith::CmpFPredicate::OLE, a, c);
}
Num kernel::machineEpsilon() {
  FloatType type = EmitScope::current().floatType;
  return Num(std::ldexp(1.0, -static_cast<int>(type.getFPMantissaWidth()) + 1));
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
  std::array<Num, 3> grad = {Num(Value()), Num(Value()), Num(Value())};
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
Jet kernel::select(Value cond, Jet a, Jet c) {
  return withGrad(
      select(cond, a.value, c.value),
      combine(a, c, [&](std::optional<Num> x, std::optional<Num> y) {
        return select(cond, x ? *x : Num(0.0), y ? *y : Num(0.0));
      }));
}
Value kernel::operator<(Jet a, Jet c) { return a.value < c.value; }
Value kernel::operator<=(Jet a, Jet c) { return a.value <= c.value; }

//===----------------------------------------------------------------------===//
// Memory and loops
//===----------------------------------------------------------------------===//

static SmallVector<Value> values(ArrayRef<Idx> indices) {
  return llvm::to_vector(
      llvm::map_range(indices, [](Idx i) -> Value { return i; }));
}

Num kernel::load(Value memref, ArrayRef<Idx> indices) {
  return Num(memref::LoadOp::create(b(), loc(), memref, values(indices)));
}

Idx kernel::loadIndex(Value memref, ArrayRef<Idx> indices) {
  Value element = memref::LoadOp::create(b(), loc(), memref, values(indices));
  return Idx(
      arith::IndexCastOp::create(b(), loc(), b().getIndexType(), element));
}

void kernel::store(Num value, Value memref, ArrayRef<Idx> indices) {
  memref::StoreOp::create(b(), loc(), value, memref, values(indices));
}

void kernel::addTo(Num value, Value memref, ArrayRef<Idx> indices) {
  store(load(memref, indices) + value, memref, indices);
}

Idx kernel::dim(Value memref, int64_t axis) {
  return Idx(memref::DimOp::create(b(), loc(), memref, axis));
}

void kernel::fillZero(Value memref) {
  linalg::FillOp::create(b(), loc(), ValueRange{Num(0.0).value},
                         ValueRange{memref});
}

void kernel::forRange(Idx lb, Idx ub, llvm::function_ref<void(Idx)> body) {
  scf::ForOp::create(b(), loc(), lb, ub, Idx(1), ValueRange{},
                     [&](OpBuilder &nested, Location, Value iv, ValueRange) {
                       OpBuilder::InsertionGuard guard(b());
                       b().setInsertionPointToEnd(nested.getInsertionBlock());
                       body(Idx(iv));
                       scf::YieldOp::create(b(), loc());
                     });
}

void kernel::parallelRange(Idx lb, Idx ub, llvm::function_ref<void(Idx)> body) {
  scf::ParallelOp::create(
      b(), loc(), ValueRange{lb}, ValueRange{ub}, ValueRange{Idx(1)},
      [&](OpBuilder &nested, Location, ValueRange ivs) {
        OpBuilder::InsertionGuard guard(b());
        b().setInsertionPointToEnd(nested.getInsertionBlock());
        body(Idx(ivs[0]));
      });
}

SmallVector<Num>
kernel::sumRange(Idx lb, Idx ub, ArrayRef<Num> init,
                 llvm::function_ref<SmallVector<Num>(Idx)> body) {
  return sumRangeStep(lb, ub, Idx(1), init, body);
}

SmallVector<Num>
kernel::sumRangeStep(Idx lb, Idx ub, Idx step, ArrayRef<Num> init,
                     llvm::function_ref<SmallVector<Num>(Idx)> body) {
  SmallVector<Value> initValues =
      llvm::to_vector(llvm::map_range(init, [](Num n) -> Value { return n; }));
  auto loop = scf::ForOp::create(
      b(), loc(), lb, ub, step, initValues,
      [&](OpBuilder &nested, Location, Value iv, ValueRange sums) {
        OpBuilder::InsertionGuard guard(b());
        b().setInsertionPointToEnd(nested.getInsertionBlock());
        SmallVector<Num> terms = body(Idx(iv));
        assert(terms.size() == sums.size() && "one term per sum");
        SmallVector<Value> next;
        for (auto [sum, term] : llvm::zip(sums, terms))
          next.push_back(Num(sum) + term);
        scf::YieldOp::create(b(), loc(), next);
      });
  return llvm::to_vector(
      llvm::map_range(loop.getResults(), [](Value v) { return Num(v); }));
}

Num kernel::sumRange(Idx lb, Idx ub, llvm::function_ref<Num(Idx)> body) {
  return sumRange(lb, ub, {Num(0.0)},
                  [&](Idx i) { return SmallVector<Num>{body(i)}; })[0];
}

Num kernel::maxRange(Idx lb, Idx ub, Num init,
                     llvm::function_ref<Num(Idx)> body) {
  auto loop = scf::ForOp::create(
      b(), loc(), lb, ub, Idx(1), ValueRange{init.value},
      [&](OpBuilder &nested, Location, Value iv, ValueRange best) {
        OpBuilder::InsertionGuard guard(b());
        b().setInsertionPointToEnd(nested.getInsertionBlock());
        Value next = max(Num(best[0]), body(Idx(iv)));
        scf::YieldOp::create(b(), loc(), next);
      });
  return Num(loop.getResult(0));
}

Value kernel::allocateScratch(ArrayRef<int64_t> shape, ArrayRef<Idx> extents) {
  SmallVector<Value> dynamicSizes;
  for (auto [size, extent] : llvm::zip_equal(shape, extents))
    if (ShapedType::isDynamic(size))
      dynamicSizes.push_back(extent);
  auto type = MemRefType::get(shape, EmitScope::current().floatType);
  return memref::AllocOp::create(b(), loc(), type, dynamicSizes);
}

void kernel::ifThen(Value cond, llvm::function_ref<void()> body) {
  auto branch = scf::IfOp::create(b(), loc(), cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b());
  b().setInsertionPoint(branch.thenBlock()->getTerminator());
  body();
}

void kernel::launchKernel(std::array<Idx, 3> grid, std::array<Idx, 3> block,
                          ArrayRef<SmallVector<int64_t>> workgroupShapes,
                          llvm::function_ref<void(const LaunchIds &)> body) {
  auto workgroupSpace = gpu::AddressSpaceAttr::get(
      b().getContext(), gpu::GPUDialect::getWorkgroupAddressSpace());
  SmallVector<Type> workgroupTypes;
  for (const SmallVector<int64_t> &shape : workgroupShapes)
    workgroupTypes.push_back(
        MemRefType::get(shape, EmitScope::current().floatType,
                        MemRefLayoutAttrInterface(), workgroupSpace));
  auto launch = gpu::LaunchOp::create(
      b(), loc(), grid[0], grid[1], grid[2], block[0], block[1], block[2],
      /*dynamicSharedMemorySize=*/Value(), /*asyncTokenType=*/Type(),
      /*asyncDependencies=*/ValueRange(), workgroupTypes);
  OpBuilder::InsertionGuard guard(b());
  Block &entry = launch.getBody().front();
  b().setInsertionPointToEnd(&entry);
  LaunchIds ids{{Idx(launch.getBlockIds().x), Idx(launch.getBlockIds().y),
                 Idx(launch.getBlockIds().z)},
                {Idx(launch.getThreadIds().x), Idx(launch.getThreadIds().y),
                 Idx(launch.getThreadIds().z)},
                {}};
  for (BlockArgument buffer : launch.getWorkgroupAttributions())
    ids.workgroup.push_back(buffer);
  body(ids);
  gpu::TerminatorOp::create(b(), loc());
}

void kernel::barrier() { gpu::BarrierOp::create(b(), loc()); }

Num kernel::warpSum(Num value) {
  Type i32 = b().getI32Type();
  Value width =
      arith::ConstantOp::create(b(), loc(), b().getIntegerAttr(i32, kWarpSize));
  for (int64_t offset = kWarpSize / 2; offset > 0; offset /= 2) {
    Value distance =
        arith::ConstantOp::create(b(), loc(), b().getIntegerAttr(i32, offset));
    auto shuffle = gpu::ShuffleOp::create(b(), loc(), value, distance, width,
                                          gpu::ShuffleMode::XOR);
    value = value + Num(shuffle.getShuffleResult());
  }
  return value;
}
