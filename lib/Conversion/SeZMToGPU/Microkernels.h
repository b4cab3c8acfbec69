//===- Microkernels.h - the hand-scheduled GPU kernels ----------*- C++ -*-===//
//
// The microkernel strategy: each entry is a GPU kernel designed for one op
// kind, with the test of which ops of that kind it lowers.
// sezm-select-lowering-strategy picks from this table; convert-sezm-to-gpu-
// kernels emits what the op's kernel configuration names.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_LIB_CONVERSION_SEZMTOGPU_MICROKERNELS_H
#define SEZM_LIB_CONVERSION_SEZMTOGPU_MICROKERNELS_H

#include "SeZM/Dialect/SeZM/SeZMAttrs.h"
#include "mlir/IR/Operation.h"

namespace mlir::sezm {

class KernelIO;

struct Microkernel {
  /// The kernel configuration's `kernel`, and the kernel's name in profiles.
  StringLiteral name;
  /// The blocks per multiprocessor it is tuned for (0: as ptxas likes).
  int64_t blocksPerSm;
  /// Whether it lowers `op`.
  bool (*applies)(Operation *op);
  /// Writes the kernel of `op`, as `config` says.
  void (*emit)(Operation *op, KernelIO &io, KernelConfigAttr config);
};

/// Every microkernel, in the order the strategy tries them.
ArrayRef<Microkernel> getMicrokernels();
/// The microkernel named `name`, or null.
const Microkernel *lookupMicrokernel(StringRef name);

} // namespace mlir::sezm

#endif // SEZM_LIB_CONVERSION_SEZMTOGPU_MICROKERNELS_H
