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

Value kernel::equal(Idx a, Idx c) {
  return arith::CmpIOp::create(b(), loc(), arith::CmpIPredicate::eq, a, c);
}

Idx kernel::min(Idx a, Idx c) {
  return Idx(arith::MinUIOp::create(b(), loc(), a, c));
}

Idx32::Idx32(int32_t constant)
    : value(arith::ConstantOp::create(
          b(), loc(), b().getIntegerAttr(b().getI32Type(), constant))) {}

Idx32 Idx32::narrow(Idx index) {
  return Idx32(arith::IndexCastOp::create(b(), loc(), b().getI32Type(), index));
}

Idx Idx32::widen() const {
  return Idx(
      arith::IndexCastUIOp::create(b(), loc(), b().getIndexType(), value));
}

Idx32 kernel::operator+(Idx32 a, Idx32 c) {
  return Idx32(arith::AddIOp::create(b(), loc(), a, c));
}
Idx32 kernel::operator-(Idx32 a, Idx32 c) {
  return Idx32(arith::SubIOp::create(b(), loc(), a, c));
}
Value kernel::operator<(Idx32 a, Idx32 c) {
  return arith::CmpIOp::create(b(), loc(), arith::CmpIPredicate::ult, a, c);
}
Idx32 kernel::min(Idx32 a, Idx32 c) {
  return Idx32(arith::MinUIOp::create(b(), loc(), a, c));
}

//===----------------------------------------------------------------------===//
// Num
//===----------------------------------------------------------------------===//

Num::Num(double constant)
    : value(arith::ConstantOp::create(
          b(), loc(),
          b().getFloatAttr(EmitScope::current().floatType, constant))) {}

/// The fast-math flags of the scope's arithmetic.
static arith::FastMathFlags fastMath() {
  return EmitScope::current().contract ? arith::FastMathFlags::contract
                                       : arith::FastMathFlags::none;
}

Num kernel::operator+(Num a, Num c) {
  return Num(arith::AddFOp::create(b(), loc(), a, c, fastMath()));
}
Num kernel::operator-(Num a, Num c) {
  return Num(arith::SubFOp::create(b(), loc(), a, c, fastMath()));
}
Num kernel::operator*(Num a, Num c) {
  return Num(arith::MulFOp::create(b(), loc(), a, c, fastMath()));
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
Num kernel::sigmoid(Num a) { return Num(1.0) / (Num(1.0) + exp(-a)); }

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

SmallVector<Value> kernel::indexValues(ArrayRef<Idx> indices) {
  return llvm::to_vector(
      llvm::map_range(indices, [](Idx i) -> Value { return i; }));
}

Num kernel::load(Value memref, ArrayRef<Idx> indices) {
  return Num(memref::LoadOp::create(b(), loc(), memref, indexValues(indices)));
}

SmallVector<Num> kernel::loadVector(Value memref, ArrayRef<Idx> at,
                                    int64_t width) {
  if (width == 1)
    return {load(memref, at)};
  Type element = cast<MemRefType>(memref.getType()).getElementType();
  auto type = VectorType::get({width}, element);
  llvm::MaybeAlign alignment(width * element.getIntOrFloatBitWidth() / 8);
  Value piece =
      vector::LoadOp::create(b(), loc(), type, memref, indexValues(at),
                             /*nontemporal=*/false, alignment);
  SmallVector<Num> values;
  for (int64_t k = 0; k < width; ++k)
    values.push_back(Num(vector::ExtractOp::create(b(), loc(), piece, k)));
  return values;
}

Idx kernel::loadIndex(Value memref, ArrayRef<Idx> indices) {
  Value element =
      memref::LoadOp::create(b(), loc(), memref, indexValues(indices));
  return Idx(
      arith::IndexCastOp::create(b(), loc(), b().getIndexType(), element));
}

void kernel::store(Num value, Value memref, ArrayRef<Idx> indices) {
  memref::StoreOp::create(b(), loc(), value, memref, indexValues(indices));
}

void kernel::storeVector(ArrayRef<Num> values, Value memref, ArrayRef<Idx> at) {
  if (values.size() == 1) {
    store(values.front(), memref, at);
    return;
  }
  Type element = cast<MemRefType>(memref.getType()).getElementType();
  auto type = VectorType::get({static_cast<int64_t>(values.size())}, element);
  llvm::MaybeAlign alignment(values.size() * element.getIntOrFloatBitWidth() /
                             8);
  SmallVector<Value> elements = llvm::to_vector(
      llvm::map_range(values, [](Num n) -> Value { return n; }));
  Value piece = vector::FromElementsOp::create(b(), loc(), type, elements);
  vector::StoreOp::create(b(), loc(), piece, memref, indexValues(at),
                          /*nontemporal=*/false, alignment);
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
  forRangeStep(lb, ub, Idx(1), body);
}

void kernel::forRangeStep(Idx lb, Idx ub, Idx step,
                          llvm::function_ref<void(Idx)> body) {
  scf::ForOp::create(b(), loc(), lb, ub, step, ValueRange{},
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

Idx kernel::segmentOf(Value rowptr, Idx nodes, Idx t) {
  // rowptr[lo] <= t < rowptr[hi] throughout; 64 halvings reach hi = lo + 1
  // for any index range, and further ones keep it.
  auto loop = scf::ForOp::create(
      b(), loc(), Idx(0).value, Idx(64).value, Idx(1).value,
      ValueRange{Idx(0).value, nodes.value},
      [&](OpBuilder &nested, Location, Value, ValueRange bounds) {
        OpBuilder::InsertionGuard guard(b());
        b().setInsertionPointToEnd(nested.getInsertionBlock());
        Idx lo(bounds[0]), hi(bounds[1]);
        Idx mid = (lo + hi) / Idx(2);
        Value below = t < loadIndex(rowptr, {mid});
        Value nextLo = arith::SelectOp::create(b(), loc(), below, lo, mid);
        Value nextHi = arith::SelectOp::create(b(), loc(), below, mid, hi);
        scf::YieldOp::create(b(), loc(), ValueRange{nextLo, nextHi});
      });
  return Idx(loop.getResult(0));
}

SmallVector<Num>
kernel::sumRange(Idx lb, Idx ub, ArrayRef<Num> init,
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

/// foldRangeStep over positions of type P (Idx or Idx32).
template <typename P, typename T>
static SmallVector<T>
foldPositions(P lb, P ub, P step, ArrayRef<T> init,
              llvm::function_ref<SmallVector<T>(P, ArrayRef<T>)> body) {
  SmallVector<Value> initValues =
      llvm::to_vector(llvm::map_range(init, [](T n) -> Value { return n; }));
  auto loop = scf::ForOp::create(
      b(), loc(), lb, ub, step, initValues,
      [&](OpBuilder &nested, Location, Value iv, ValueRange carried) {
        OpBuilder::InsertionGuard guard(b());
        b().setInsertionPointToEnd(nested.getInsertionBlock());
        SmallVector<T> current = llvm::to_vector(
            llvm::map_range(carried, [](Value v) { return T(v); }));
        SmallVector<T> next = body(P(iv), current);
        assert(next.size() == carried.size() && "one value per carried one");
        scf::YieldOp::create(b(), loc(),
                             llvm::to_vector(llvm::map_range(
                                 next, [](T n) -> Value { return n; })));
      });
  return llvm::to_vector(
      llvm::map_range(loop.getResults(), [](Value v) { return T(v); }));
}

SmallVector<Num> kernel::foldRangeStep(
    Idx lb, Idx ub, Idx step, ArrayRef<Num> init,
    llvm::function_ref<SmallVector<Num>(Idx, ArrayRef<Num>)> body) {
  return foldPositions<Idx, Num>(lb, ub, step, init, body);
}

SmallVector<Value> kernel::foldRangeStep(
    Idx32 lb, Idx32 ub, Idx32 step, ArrayRef<Value> init,
    llvm::function_ref<SmallVector<Value>(Idx32, ArrayRef<Value>)> body) {
  return foldPositions<Idx32, Value>(lb, ub, step, init, body);
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

void kernel::ifThenElse(Value cond, llvm::function_ref<void()> then,
                        llvm::function_ref<void()> otherwise) {
  auto branch = scf::IfOp::create(b(), loc(), cond, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b());
  b().setInsertionPoint(branch.thenBlock()->getTerminator());
  then();
  b().setInsertionPoint(branch.elseBlock()->getTerminator());
  otherwise();
}

SmallVector<Value>
kernel::ifThenElseValues(Value cond,
                         llvm::function_ref<SmallVector<Value>()> then,
                         llvm::function_ref<SmallVector<Value>()> otherwise) {
  auto yieldOf = [&](llvm::function_ref<SmallVector<Value>()> body) {
    return [&, body](OpBuilder &nested, Location) {
      OpBuilder::InsertionGuard guard(b());
      b().setInsertionPointToEnd(nested.getInsertionBlock());
      scf::YieldOp::create(b(), loc(), body());
    };
  };
  auto branch =
      scf::IfOp::create(b(), loc(), cond, yieldOf(then), yieldOf(otherwise));
  return SmallVector<Value>(branch.getResults());
}

void kernel::launchKernel(StringRef name, std::array<Idx, 3> grid,
                          std::array<Idx, 3> block,
                          ArrayRef<SmallVector<int64_t>> workgroupShapes,
                          llvm::function_ref<void(const LaunchIds &)> body,
                          int64_t blocksPerSm) {
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
  // Outlining names the kernel (and its module) after this, so that
  // profiles say which op a kernel is.
  launch.setFunctionAttr(FlatSymbolRefAttr::get(b().getContext(), name));
  // sezm-outline-kernels puts this on the kernel.
  if (blocksPerSm > 0)
    launch->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                    b().getI32IntegerAttr(blocksPerSm));
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

void kernel::warpSync() {
  Value allLanes = arith::ConstantOp::create(
      b(), loc(), b().getIntegerAttr(b().getI32Type(), -1));
  NVVM::SyncWarpOp::create(b(), loc(), allLanes);
}

void kernel::copyAsync(Value from, ArrayRef<Idx> at, Value to,
                       ArrayRef<Idx> toAt, int64_t width) {
  nvgpu::DeviceAsyncCopyOp::create(b(), loc(), to, indexValues(toAt), from,
                                   indexValues(at), b().getIndexAttr(width),
                                   /*srcElements=*/Value(),
                                   /*bypassL1=*/UnitAttr());
}

void kernel::commitAsyncCopies() {
  NVVM::CpAsyncCommitGroupOp::create(b(), loc());
}

void kernel::waitAsyncCopies(int64_t pending) {
  NVVM::CpAsyncWaitGroupOp::create(b(), loc(), static_cast<uint32_t>(pending));
}

/// A whole-warp shuffle of `value` with a constant lane operand.
static Num shuffle(Num value, int64_t operand, gpu::ShuffleMode mode) {
  Type i32 = b().getI32Type();
  Value width = arith::ConstantOp::create(
      b(), loc(), b().getIntegerAttr(i32, kernel::kWarpSize));
  Value lane =
      arith::ConstantOp::create(b(), loc(), b().getIntegerAttr(i32, operand));
  return Num(gpu::ShuffleOp::create(b(), loc(), value, lane, width, mode)
                 .getShuffleResult());
}

/// The value of the lane `offset` lanes away in the xor butterfly.
static Num shuffleXor(Num value, int64_t offset) {
  return shuffle(value, offset, gpu::ShuffleMode::XOR);
}

std::array<Num, 2> kernel::splitTF32(Num x) {
  // Rounds to TF32, to nearest with ties away from zero, as cvt.rna.tf32.f32
  // does for finite values: half of TF32's last place added to the
  // magnitude's bits, the 13 bits below it cleared. Two integer ops at the
  // full rate, where the conversion runs at a quarter of it.
  auto toTF32 = [](Value value) {
    Type i32 = b().getI32Type();
    Value bits = arith::BitcastOp::create(b(), loc(), i32, value);
    auto constant = [&](int64_t v) {
      return arith::ConstantOp::create(b(), loc(), b().getIntegerAttr(i32, v));
    };
    Value rounded = arith::AddIOp::create(b(), loc(), bits, constant(0x1000));
    Value kept = arith::AndIOp::create(
        b(), loc(), rounded, constant(static_cast<int32_t>(0xffffe000)));
    return Num(arith::BitcastOp::create(b(), loc(), b().getF32Type(), kept)
                   .getResult());
  };
  Num high = toTF32(x);
  return {high, toTF32(x - high)};
}

SmallVector<Num> kernel::mmaTF32(ArrayRef<Num> a, ArrayRef<Num> bFragment,
                                 ArrayRef<Num> c) {
  assert(a.size() == 4 && bFragment.size() == 2 && c.size() == 4 &&
         "the fragments of an m16n8k8 TF32 product");
  auto bits = [](ArrayRef<Num> values) {
    return llvm::to_vector(llvm::map_range(values, [](Num value) -> Value {
      return arith::BitcastOp::create(b(), loc(), b().getI32Type(), value);
    }));
  };
  Type f32 = b().getF32Type();
  auto resultType =
      LLVM::LLVMStructType::getLiteral(b().getContext(), {f32, f32, f32, f32});
  SmallVector<Value> accumulators(c.begin(), c.end());
  auto product = NVVM::MmaOp::create(
      b(), loc(), resultType, bits(a), bits(bFragment), accumulators,
      /*shape=*/{16, 8, 8}, /*b1Op=*/std::nullopt,
      /*intOverflow=*/std::nullopt,
      std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::tf32, NVVM::MMATypes::tf32},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Num> d;
  for (int64_t i = 0; i < 4; ++i)
    d.push_back(Num(
        LLVM::ExtractValueOp::create(b(), loc(), product, ArrayRef<int64_t>{i})
            .getResult()));
  return d;
}

Num kernel::warpSum(Num value) {
  for (int64_t offset = kWarpSize / 2; offset > 0; offset /= 2)
    value = value + shuffleXor(value, offset);
  return value;
}

/// Whether bit `mask` of the lane is set.
static Value laneBit(Idx lane, int64_t mask) {
  Value bits = arith::AndIOp::create(b(), loc(), lane, Idx(mask));
  return arith::CmpIOp::create(b(), loc(), arith::CmpIPredicate::ne, bits,
                               Idx(0));
}

/// Lanes per value in a group of `size` values (padded to a power of two)
/// once the halvings have spread it: the log2 of it.
static int64_t groupShift(int64_t size) {
  return llvm::Log2_64(kernel::kWarpSize / llvm::PowerOf2Ceil(size));
}

void kernel::storeWarpSums(ArrayRef<Num> values, Idx lane,
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
    Idx index = slots.index[r];
    ifThen(slots.owner[r], [&] { store(index, total); });
  }
}

SpreadSlots kernel::spreadSlots(int64_t count, Idx lane) {
  SpreadSlots slots;
  for (int64_t base = 0; base < count; base += kWarpSize) {
    int64_t shift = groupShift(std::min<int64_t>(kWarpSize, count - base));
    Idx slot = shift ? Idx(arith::ShRUIOp::create(b(), loc(), lane, Idx(shift)))
                     : lane;
    Idx index = slot + Idx(base);
    Value first = arith::CmpIOp::create(
        b(), loc(), arith::CmpIPredicate::eq,
        arith::AndIOp::create(b(), loc(), lane, Idx((1 << shift) - 1)), Idx(0));
    slots.index.push_back(index);
    slots.owner.push_back(
        arith::AndIOp::create(b(), loc(), first, index < Idx(count)));
  }
  return slots;
}

SmallVector<Num> kernel::warpSumSpread(
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
      Value upper = laneBit(lane, offset);
      for (int64_t i = 0; i < half; ++i) {
        if (laneOrdered && half + i < size && laneOrdered(base + i)) {
          current.push_back(
              value(base + i,
                    shuffleXor(value(base + half + i, std::nullopt), offset)));
          continue;
        }
        Num low = at(i), high = at(half + i);
        Num send = select(upper, low, high);
        Num keep = select(upper, high, low);
        current.push_back(keep + shuffleXor(send, offset));
      }
      offset /= 2;
    }
    for (; current.size() > 1; offset /= 2) {
      int64_t half = current.size() / 2;
      Value upper = laneBit(lane, offset);
      SmallVector<Num> next;
      for (int64_t i = 0; i < half; ++i) {
        Num send = select(upper, current[i], current[half + i]);
        Num keep = select(upper, current[half + i], current[i]);
        next.push_back(keep + shuffleXor(send, offset));
      }
      current = std::move(next);
    }
    // The lanes that share the top bits finish the sum by a butterfly.
    Num total = current.front();
    for (int64_t rest = offset; rest > 0; rest /= 2)
      total = total + shuffleXor(total, rest);
    sums.push_back(total);
  }
  return sums;
}

Num kernel::shuffleFrom(Num value, int64_t from) {
  return shuffle(value, from, gpu::ShuffleMode::IDX);
}

SmallVector<Num> kernel::warpSharedLoad(ArrayRef<int64_t> places, Idx lane,
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

Idx kernel::lookup(Idx i, ArrayRef<int64_t> table) {
  int64_t size = table.size();
  // Within a run from k on, table[i] = i + (table[k] - k).
  Idx result = i + Idx(table.front());
  for (int64_t k = 1; k < size; ++k) {
    if (table[k] == table[k - 1] + 1)
      continue;
    Value inRun =
        arith::CmpIOp::create(b(), loc(), arith::CmpIPredicate::sge, i, Idx(k));
    result = Idx(arith::SelectOp::create(b(), loc(), inRun,
                                         i + Idx(table[k] - k), result));
  }
  return Idx(arith::SelectOp::create(b(), loc(), i < Idx(size), result,
                                     Idx(table.front())));
}
