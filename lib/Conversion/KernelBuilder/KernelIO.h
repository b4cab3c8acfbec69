//===- KernelIO.h - the buffers of a kernel and the op it replaces -*- C++
//-*-===//
//
// A sezm op is lowered where it stands on tensors: its operands are read
// through read-only buffers, its results are fresh buffers the kernel
// writes, handed back as tensors that one-shot bufferization joins with the
// rest of the program.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_LIB_CONVERSION_KERNELBUILDER_KERNELIO_H
#define SEZM_LIB_CONVERSION_KERNELBUILDER_KERNELIO_H

#include "KernelBuilder.h"

#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::sezm {

/// What a loop kernel's loops are shaped for. On the GPU each iteration of
/// a parallel loop is a thread, so a kernel has one iteration per output;
/// on the CPU each iteration runs on a thread of a few and can compute
/// whole rows, its innermost loop over contiguous channels for SIMD. Both
/// shapes sum every output's terms in the same order.
enum class LoopTarget { Cpu, Gpu };

/// The buffers a kernel reads and writes.
class KernelIO {
public:
  /// Creates the read-only buffers of every operand, and of every operand
  /// of a producer whose kernel configuration fuses it into this op's
  /// kernel, ahead of the kernel.
  KernelIO(Operation *op, OpBuilder &builder, LoopTarget target);

  /// What the kernel's loops are shaped for.
  LoopTarget target() const { return loopTarget; }

  /// What the kernel is emitted with: the builder at the op, the op's
  /// location and its float type (computeType).
  kernel::Emitter &emitter() { return kernelEmitter; }

  /// The read-only buffer of an operand tensor.
  Value in(Value operand);

  /// Where the `edges` rows of the per-edge operands of an
  /// EdgeRangeSumOpInterface op lie in its CSR (buffers `order`, `rowptr`):
  /// position t of the order holds the op's edge order[t] - first, and node
  /// n's positions among them are [begin, end). Without a range, first is 0
  /// and [begin, end) node n's whole segment.
  struct EdgeRange {
    kernel::Idx first, begin, end;
  };
  EdgeRange edgeRange(Value order, Value rowptr, kernel::Idx n,
                      kernel::Idx edges);

  /// Allocates the buffer of result `index`; `extents` gives the size of
  /// every dimension (only those of dynamic dimensions are used).
  Value allocate(unsigned index, ArrayRef<kernel::Idx> extents);

  /// Whether anything uses result `index`: a kernel leaves an unused result
  /// (a weight gradient that only training needs, reduced over all edges)
  /// unallocated and uncomputed.
  bool needed(unsigned index) const {
    return !op->getResult(index).use_empty();
  }
  /// A scratch buffer for the kernel alone; buffer deallocation frees it
  /// after its last use.
  Value scratch(ArrayRef<int64_t> shape, ArrayRef<kernel::Idx> extents);

  /// The tensors that replace the op's results (a null value for a result
  /// that was not allocated).
  SmallVector<Value> finish();

  /// The operand buffers the kernel did not read (a matmul's init that is a
  /// constant fill): erased, so that what computes the operand can go too.
  SmallVector<Operation *> unreadOperandBuffers() const;

private:
  Operation *op;
  OpBuilder &builder;
  LoopTarget loopTarget;
  kernel::Emitter kernelEmitter;
  /// The tensors read, in operand order (the fused producers' after the
  /// op's own), and their buffers.
  SmallVector<Value> operands;
  llvm::DenseMap<Value, Value> operandBuffers;
  SmallVector<Value> results;
};

/// Whether `op`'s kernel configuration fuses it into its user's kernel
/// (strategy = fused): it has no kernel of its own.
bool isFusedIntoUser(Operation *op);

/// The float type a sezm op computes in: that of its first float operand.
FloatType computeType(Operation *op);

/// Replaces `op` by what `emit` writes into a KernelIO for `target`.
LogicalResult lowerWithKernel(Operation *op, PatternRewriter &rewriter,
                              LoopTarget target,
                              llvm::function_ref<void(KernelIO &)> emit);

} // namespace mlir::sezm

#endif // SEZM_LIB_CONVERSION_KERNELBUILDER_KERNELIO_H
