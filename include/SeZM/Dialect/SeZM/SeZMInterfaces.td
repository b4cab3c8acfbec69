//===- SeZMInterfaces.td - what each sezm op states about itself -*- tablegen -*-===//
//
// The facts a pass needs of an op are stated by the op, through these
// interfaces, rather than listed by the pass: its shape contract (what the
// verifier checks and what tools check inputs against), its derivative rule
// (what sezm-autodiff builds) and its CPU loop kernel (what
// convert-sezm-to-loops emits). Adding an op is then one place to edit.
//
//===----------------------------------------------------------------------===//

#ifndef SEZM_DIALECT_SEZM_SEZMINTERFACES_TD
#define SEZM_DIALECT_SEZM_SEZMINTERFACES_TD

include "mlir/IR/OpBase.td"

def SeZM_ShapeContractOpInterface : OpInterface<"ShapeContractOpInterface"> {
  let description = [{
    The shape of every operand and result in terms of the graph sizes N and
    E, channel widths and the extents the op's attributes fix, stated once
    through a ShapeChecker. The verifier runs it with a checker that reports
    the first mismatch; `collectCheckedShapes` runs it with one that also
    records which axes are N and E, so that tools check run-time inputs
    against the op's own statement.
  }];
  let cppNamespace = "::mlir::sezm";
  let methods = [
    InterfaceMethod<
      "Checks the operands, results and attributes through `shapes`.",
      "::llvm::LogicalResult", "verifyShapes",
      (ins "::mlir::sezm::ShapeChecker &":$shapes)>,
  ];
  let verify = [{ return ::mlir::sezm::verifyShapeContract($_op); }];
}

def SeZM_DerivativeOpInterface : OpInterface<"DerivativeOpInterface"> {
  let description = [{
    The op's reverse-mode derivative rule: given the cotangents of its
    results, add the cotangents of its operands to the sweep. A gradient op
    that implements it states its second-order rule, which create-graph
    needs of every op of a backward. Upstream ops (arith, math, tensor,
    linalg) get theirs as external models (registerUpstreamDerivatives).
  }];
  let cppNamespace = "::mlir::sezm";
  let methods = [
    InterfaceMethod<
      [{Adds to `sweep` the cotangents of the operands that are active,
        given `cotangents`, one per result (null where a result has none).}],
      "::llvm::LogicalResult", "backpropagate",
      (ins "::mlir::sezm::ReverseMode &":$sweep,
           "::llvm::ArrayRef<::mlir::Value>":$cotangents)>,
  ];
}

def SeZM_LoopKernelOpInterface : OpInterface<"LoopKernelOpInterface"> {
  let description = [{
    The op's CPU kernel: a loop nest written with the KernelBuilder layer
    that reads its operands through KernelIO::in and writes the results it
    allocates. The kernels are external models attached by
    convert-sezm-to-loops (registerLoopKernels), which lowers every op that
    has one; the GPU runs them too where no other strategy is chosen.
  }];
  let cppNamespace = "::mlir::sezm";
  let methods = [
    InterfaceMethod<"Writes the kernel's loops into `io`.",
      "void", "emitLoopKernel", (ins "::mlir::sezm::KernelIO &":$io)>,
  ];
}

def SeZM_AccumulatingOpInterface : OpInterface<"AccumulatingOpInterface"> {
  let description = [{
    An op whose first result can start from an addend: with its optional
    `plus %acc` operand, each element of that result is acc's element plus
    what the op computes (a product's sums start from acc's value). A
    residual add of the op's result then costs its kernel one read of the
    addend, where a separate add reads two tensors and writes a third
    (sezm-fuse-accumulate makes the one of the other).
  }];
  let cppNamespace = "::mlir::sezm";
  let methods = [
    InterfaceMethod<"The addend of the first result, or null.",
      "::mlir::Value", "getAccumulator", (ins), [{
        return $_op.getAcc();
      }]>,
    InterfaceMethod<
      [{Builds, at `builder`'s insertion point, this op with `acc` as the
        addend of its first result.}],
      "::mlir::Operation *", "cloneWithAccumulator",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Value":$acc), [{
        ::mlir::Operation *copy = builder.clone(*$_op.getOperation());
        ::llvm::cast<ConcreteOp>(copy).getAccMutable().assign(acc);
        return copy;
      }]>,
  ];
}

def SeZM_EdgeRowwiseOpInterface : OpInterface<"EdgeRowwiseOpInterface"> {
  let description = [{
    An op that computes each edge on its own: row e of every result whose
    first axis is the edge count E (as the shape contract states it)
    depends only on row e of the operands whose first axis is E, and on
    whole operands of other shapes (weights; node tensors read at the
    edge's own index, as `x[src[e]]`). The op then runs on any range of
    the edges and gives the same bits there as on all of them, which is
    what `sezm-chunk-edges` needs to process edges in chunks. Results that
    are sums over the edges (weight gradients) are named by
    `getEdgeSumResults`: the op is row-wise only while they are unused.
  }];
  let cppNamespace = "::mlir::sezm";
  let methods = [
    InterfaceMethod<
      "The indices of the results that sum over every edge.",
      "::llvm::SmallVector<unsigned>", "getEdgeSumResults", (ins), [{}],
      [{ return {}; }]>,
  ];
  let extraClassDeclaration = [{
    /// Whether no result that sums over the edges is used.
    bool isRowwiseNow() {
      for (unsigned index : getEdgeSumResults())
        if (!(*this)->getResult(index).use_empty())
          return false;
      return true;
    }
  }];
}

def SeZM_EdgeRangeSumOpInterface : OpInterface<"EdgeRangeSumOpInterface"> {
  let description = [{
    An op whose first result sums per-edge terms into the nodes of a CSR
    (one row per node, each node's edges in CSR order) and whose other
    results, if any, hold one row per edge, each computed on its own. With
    its optional `from %first` operand, the op's per-edge operands hold the
    consecutive edges first, first + 1, ... of the CSR's edge list (the CSR
    itself is read whole), and its first result sums only those edges:
    zero at a node with none of them. Since each segment lists its edges in
    increasing order (`sezm.csr_of`'s contract, checked on the data), a
    range's edges are a contiguous part of each segment, and the sums of
    consecutive ranges, added in order, sum every edge: `sezm-chunk-edges`
    runs the op in its loops that way.
  }];
  let cppNamespace = "::mlir::sezm";
  let methods = [
    InterfaceMethod<"The CSR order the sums follow, read whole.",
      "::mlir::Value", "getSumOrder">,
    InterfaceMethod<"The CSR's row pointers (N + 1).",
      "::mlir::Value", "getSumRowptr">,
    InterfaceMethod<"The first edge of the operands' range, or null.",
      "::mlir::Value", "getRangeStart", (ins), [{
        return $_op.getFirstEdge();
      }]>,
    InterfaceMethod<"Makes the operands' edges the range from `first`.",
      "void", "setRangeStart", (ins "::mlir::Value":$first), [{
        $_op.getFirstEdgeMutable().assign(first);
      }]>,
  ];
}

// The ops that compute each edge on their own, with no result summed over
// the edges.
defvar SeZM_EdgeRowwise = DeclareOpInterfaceMethods<SeZM_EdgeRowwiseOpInterface>;

// The ops that state a derivative rule.
defvar SeZM_Differentiable =
    DeclareOpInterfaceMethods<SeZM_DerivativeOpInterface>;

#endif // SEZM_DIALECT_SEZM_SEZMINTERFACES_TD
