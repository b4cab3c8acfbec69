//===- SeZMAttrs.td - sezm attributes ----------------------*- tablegen -*-===//
//
// The kernel configuration sezm-select-lowering-strategy records on each op
// and linalg root that becomes a GPU kernel, and which the lowering reads.
//
//===----------------------------------------------------------------------===//

#ifndef SEZM_DIALECT_SEZM_SEZMATTRS_TD
#define SEZM_DIALECT_SEZM_SEZMATTRS_TD

include "SeZM/Dialect/SeZM/SeZMDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def SeZM_Strategy : I32EnumAttr<"Strategy", "how an op becomes a GPU kernel", [
  // A hand-scheduled kernel of lib/Conversion/SeZMToGPU, named by `kernel`.
  I32EnumAttrCase<"Microkernel", 0, "microkernel">,
  // The op's CPU loop kernel, its parallel loops mapped to threads.
  I32EnumAttrCase<"Loops", 1, "loops">,
  // No kernel of its own: the kernel of its one user, named by `kernel`,
  // computes it (a GEMM finished by its elementwise consumer's epilogue).
  I32EnumAttrCase<"Fused", 2, "fused">,
]> {
  let cppNamespace = "::mlir::sezm";
  let genSpecializedAttr = 0;
}

def SeZM_GemmPrecision : I32EnumAttr<"GemmPrecision",
    "how a GEMM-shaped kernel multiplies fp32", [
  // IEEE fp32 fused multiply-adds on the CUDA cores.
  I32EnumAttrCase<"IEEE", 0, "ieee">,
  // Split precision on the tensor cores: each fp32 operand the sum of a
  // high and a low TF32 part, three TF32 products (low*high, high*low,
  // high*high; low*low dropped) summed per staged slice, the slices' sums
  // added in IEEE fp32: fp32-grade accuracy.
  I32EnumAttrCase<"TF32x3", 1, "tf32x3">,
]> {
  let cppNamespace = "::mlir::sezm";
  let genSpecializedAttr = 0;
}

// The precision of each product a GEMM launches, written `tf32x3` (one for
// them all) or `[ieee, tf32x3]` (one each, in launch order); none: ieee.
def SeZM_GemmPrecisionsParameter
    : OptionalArrayRefParameter<"::mlir::sezm::GemmPrecision"> {
  let printer = [{
    if ($_self.size() == 1) {
      $_printer << ::mlir::sezm::stringifyGemmPrecision($_self.front());
    } else {
      $_printer << '[';
      ::llvm::interleaveComma($_self, $_printer, [&](auto precision) {
        $_printer << ::mlir::sezm::stringifyGemmPrecision(precision);
      });
      $_printer << ']';
    }
  }];
  let parser = [{
    [&]() -> ::mlir::FailureOr<::llvm::SmallVector<::mlir::sezm::GemmPrecision>> {
      ::llvm::SmallVector<::mlir::sezm::GemmPrecision> precisions;
      auto parseOne = [&]() -> ::mlir::ParseResult {
        ::llvm::SMLoc loc = $_parser.getCurrentLocation();
        ::llvm::StringRef keyword;
        if ($_parser.parseKeyword(&keyword))
          return ::mlir::failure();
        std::optional<::mlir::sezm::GemmPrecision> precision =
            ::mlir::sezm::symbolizeGemmPrecision(keyword);
        if (!precision)
          return $_parser.emitError(loc)
                 << "expected a GEMM precision (ieee or tf32x3), got '"
                 << keyword << "'";
        precisions.push_back(*precision);
        return ::mlir::success();
      };
      if (::mlir::succeeded($_parser.parseOptionalLSquare())) {
        if ($_parser.parseCommaSeparatedList(parseOne) ||
            $_parser.parseRSquare())
          return ::mlir::failure();
      } else if (parseOne()) {
        return ::mlir::failure();
      }
      // One precision for them all is written once, IEEE not at all.
      if (::llvm::all_equal(precisions))
        precisions.resize(
            precisions.empty() ||
                    precisions.front() == ::mlir::sezm::GemmPrecision::IEEE
                ? 0
                : 1);
      return precisions;
    }()
  }];
}

// A list of tile sizes, written `[128, 64, 16]`.
def SeZM_TileSizesParameter : OptionalArrayRefParameter<"int64_t"> {
  let printer = [{
    $_printer << '[';
    ::llvm::interleaveComma($_self, $_printer);
    $_printer << ']';
  }];
  let parser = [{
    [&]() -> ::mlir::FailureOr<::llvm::SmallVector<int64_t>> {
      ::llvm::SmallVector<int64_t> sizes;
      if (::mlir::failed($_parser.parseCommaSeparatedList(
              ::mlir::AsmParser::Delimiter::Square, [&] {
                int64_t size;
                if ($_parser.parseInteger(size))
                  return ::mlir::failure();
                sizes.push_back(size);
                return ::mlir::success();
              })))
        return ::mlir::failure();
      return sizes;
    }()
  }];
}

def SeZM_KernelConfigAttr : AttrDef<SeZM_Dialect, "KernelConfig"> {
  let mnemonic = "kernel_config";
  let summary = "how an op is lowered on the GPU";
  let description = [{
    Recorded by `sezm-select-lowering-strategy` as the `sezm.kernel_config`
    attribute of an op; the GPU lowering reads only this. `strategy` says
    which lowering runs, `kernel` names the microkernel, or the loop kernel
    (after the op, for a linalg.generic after the op its payload yields),
    and so the kernel in profiles, and
    `strategy = fused` marks an op that its one user's kernel computes
    (`kernel` names that kernel), so it has none of its own;
    `blocks_per_sm` > 0 asks the register allocator to fit that many blocks
    on a multiprocessor (PTX `.minnctapersm`). A tiled microkernel (a GEMM)
    also records its tiles: `workgroup_tile` = [rows, columns, depth step] of
    the output tile a block computes and the depth it stages per step,
    `thread_tile` = [rows, columns] of the sums each thread keeps in
    registers; a microkernel that launches products of several shapes (an
    SO(2) linear's m = 0 and m = +-1 products) records each shape's tiles,
    one after another, in launch order. `precision` says how a GEMM's
    products multiply: `ieee` (the default, not printed) on the CUDA cores,
    or `tf32x3` on the tensor cores, one for them all or a list, one per
    product in launch order. A `tf32x3` product's tiles are
    `warp_tile` = [rows, columns] of the output each warp computes with
    m16n8k8 products instead of a `thread_tile`: `thread_tile` lists the
    IEEE products' tiles and `warp_tile` the others', each in launch order.

    Examples:
    ```mlir
    #sezm.kernel_config<strategy = microkernel, kernel = "rotate_mix",
                        blocks_per_sm = 8>
    #sezm.kernel_config<strategy = microkernel, kernel = "tiled_matmul",
                        blocks_per_sm = 2, workgroup_tile = [128, 128, 16],
                        thread_tile = [8, 8]>
    #sezm.kernel_config<strategy = microkernel, kernel = "so2_linear",
                        blocks_per_sm = 2,
                        workgroup_tile = [128, 64, 16, 128, 96, 16],
                        thread_tile = [8, 4, 8, 6]>
    #sezm.kernel_config<strategy = microkernel, kernel = "tiled_matmul",
                        blocks_per_sm = 2, workgroup_tile = [128, 128, 8],
                        precision = tf32x3, warp_tile = [32, 64]>
    #sezm.kernel_config<strategy = microkernel, kernel = "so2_linear",
                        blocks_per_sm = 2,
                        workgroup_tile = [128, 96, 16, 128, 128, 8],
                        thread_tile = [8, 6], precision = [ieee, tf32x3],
                        warp_tile = [32, 64]>
    #sezm.kernel_config<strategy = loops, kernel = "mulf">
    #sezm.kernel_config<strategy = fused, kernel = "tiled_matmul_epilogue">
    ```
  }];
  let parameters = (ins
    EnumParameter<SeZM_Strategy>:$strategy,
    OptionalParameter<"::mlir::StringAttr">:$kernel,
    DefaultValuedParameter<"int64_t", "0">:$blocks_per_sm,
    SeZM_TileSizesParameter:$workgroup_tile,
    SeZM_TileSizesParameter:$thread_tile,
    SeZM_GemmPrecisionsParameter:$precision,
    SeZM_TileSizesParameter:$warp_tile
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let extraClassDeclaration = [{
    /// How product `product` (in launch order) multiplies.
    ::mlir::sezm::GemmPrecision getProductPrecision(unsigned product) const;
    /// Whether any product multiplies on the tensor cores.
    bool usesTensorCores() const;
    /// The tiles of product `product`: its workgroup tile, and its thread
    /// tile (IEEE) or warp tile (tf32x3); empty where the lists are short.
    ::llvm::ArrayRef<int64_t> getProductWorkgroupTile(unsigned product) const;
    ::llvm::ArrayRef<int64_t> getProductInnerTile(unsigned product) const;
  }];
}

#endif // SEZM_DIALECT_SEZM_SEZMATTRS_TD
