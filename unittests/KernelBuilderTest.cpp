//===- KernelBuilderTest.cpp - the kernel builder's values and emitter ----===//
//
// The kernel builder keeps no emission state of its own: every value knows
// the Emitter that made it, constants are emitted where they meet a value
// (in that value's emitter and float type), and constants combined with
// constants fold without emitting anything.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder/KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::sezm::kernel;

namespace {
/// A function @name(%buffer: memref<?xT>) to emit into, and a builder at
/// its end.
class KernelBuilderTest : public ::testing::Test {
protected:
  KernelBuilderTest() {
    context
        .loadDialect<arith::ArithDialect, func::FuncDialect, math::MathDialect,
                     memref::MemRefDialect, scf::SCFDialect>();
    module = ModuleOp::create(UnknownLoc::get(&context));
  }

  /// The body of a new function taking one memref<?xtype>.
  Block &function(StringRef name, FloatType type) {
    OpBuilder builder(module->getBodyRegion());
    auto memref = MemRefType::get({ShapedType::kDynamic}, type);
    auto fn = func::FuncOp::create(builder, UnknownLoc::get(&context), name,
                                   builder.getFunctionType({memref}, {}));
    return *fn.addEntryBlock();
  }

  /// The number of ops of kind OpTy in `block`.
  template <typename OpTy> static int64_t count(Block &block) {
    return llvm::range_size(block.getOps<OpTy>());
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(KernelBuilderTest, ConstantsFoldWithoutEmitting) {
  Block &body = function("f", Float32Type::get(&context));
  Idx index = (Idx(2) * Idx(3) + Idx(1)) % Idx(4);
  EXPECT_TRUE(index.isConstant());
  EXPECT_EQ(index.constant, 3);
  EXPECT_EQ(ceilDiv(Idx(10), 4).constant, 3);
  EXPECT_EQ(min(Idx(5), Idx(2)).constant, 2);
  Num x = sqrt(Num(2.25)) * Num(2.0) - Num(0.5);
  EXPECT_TRUE(x.isConstant());
  EXPECT_EQ(x.constant, 2.5);
  EXPECT_TRUE(body.empty());
}

TEST_F(KernelBuilderTest, ConstantsAreEmittedWhereTheyMeetAValue) {
  Block &body = function("f", Float32Type::get(&context));
  OpBuilder builder = OpBuilder::atBlockEnd(&body);
  Emitter em(builder, UnknownLoc::get(&context), builder.getF32Type());
  Value buffer = body.getArgument(0);
  Idx n = em.dim(buffer, 0);
  EXPECT_FALSE(n.isConstant());
  EXPECT_EQ(&n.getEmitter(), &em);
  // The constant 1 is emitted beside the subtraction.
  Idx last = n - Idx(1);
  EXPECT_EQ(count<arith::SubIOp>(body), 1);
  // 0.1 + 0.2 folds in double precision and is rounded once, to f32.
  Num sum = em.load(buffer, {last}) * (Num(0.1) + Num(0.2));
  auto constants = llvm::to_vector(body.getOps<arith::ConstantOp>());
  auto scale = cast<FloatAttr>(constants.back().getValue());
  EXPECT_TRUE(scale.getType().isF32());
  EXPECT_EQ(scale.getValueAsDouble(),
            static_cast<double>(static_cast<float>(0.1 + 0.2)));
  EXPECT_EQ(&sum.getEmitter(), &em);
  EXPECT_EQ(count<arith::MulFOp>(body), 1);
}

TEST_F(KernelBuilderTest, EmittersSideBySide) {
  // Two kernels emitted at once, in float32 and float64: each value's
  // constants take the type of the emitter that made the value.
  Block &single = function("single", Float32Type::get(&context));
  Block &dual = function("dual", Float64Type::get(&context));
  OpBuilder singleBuilder = OpBuilder::atBlockEnd(&single);
  OpBuilder dualBuilder = OpBuilder::atBlockEnd(&dual);
  Emitter f32(singleBuilder, UnknownLoc::get(&context),
              singleBuilder.getF32Type());
  Emitter f64(dualBuilder, UnknownLoc::get(&context), dualBuilder.getF64Type());
  Num a = f32.load(single.getArgument(0), {Idx(0)});
  Num b = f64.load(dual.getArgument(0), {Idx(0)});
  f32.store(a + Num(1.0), single.getArgument(0), {Idx(1)});
  f64.store(b + Num(1.0), dual.getArgument(0), {Idx(1)});
  EXPECT_EQ(count<arith::AddFOp>(single), 1);
  EXPECT_EQ(count<arith::AddFOp>(dual), 1);
  for (auto [block, type] : {std::pair<Block *, Type>{&single, f32.floatType},
                             {&dual, f64.floatType}})
    for (auto add : block->getOps<arith::AddFOp>())
      EXPECT_EQ(add.getType(), type);
  EXPECT_EQ(machineEpsilon(a).constant, 0x1p-23);
  EXPECT_EQ(machineEpsilon(b).constant, 0x1p-52);
}

TEST_F(KernelBuilderTest, LoopsCarryTheirEmitter) {
  Block &body = function("f", Float32Type::get(&context));
  OpBuilder builder = OpBuilder::atBlockEnd(&body);
  Emitter em(builder, UnknownLoc::get(&context), builder.getF32Type());
  Value buffer = body.getArgument(0);
  // A sum from the constant zero: the loop carries it as an emitted value.
  Num total = em.sumRange(Idx(0), em.dim(buffer, 0), [&](Idx i) {
    EXPECT_EQ(&i.getEmitter(), &em);
    return em.load(buffer, {i});
  });
  EXPECT_EQ(&total.getEmitter(), &em);
  EXPECT_EQ(count<scf::ForOp>(body), 1);
}

TEST_F(KernelBuilderTest, AConstantWithoutAnEmitterIsRefused) {
  // A constant can become a value only in an emitter: taking it as one
  // directly is a programming error, reported, not a null value.
  EXPECT_DEATH((void)static_cast<Value>(Num(1.0)),
               "a constant taken as a value with no emitter");
  EXPECT_DEATH((void)Idx(3).getEmitter(),
               "a constant taken as a value with no emitter");
}
} // namespace
