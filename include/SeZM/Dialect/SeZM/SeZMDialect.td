//===- SeZMDialect.td - the sezm dialect -------------------*- tablegen -*-===//
//
// The dialect of SeZM (DeePMD-kit DPA4) SO(2) message passing.
//
//===----------------------------------------------------------------------===//

#ifndef SEZM_DIALECT_SEZM_SEZMDIALECT_TD
#define SEZM_DIALECT_SEZM_SEZMDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "SeZM/Dialect/SeZM/SeZMInterfaces.td"

def SeZM_Dialect : Dialect {
  let name = "sezm";
  let cppNamespace = "::mlir::sezm";
  let summary = "SO(2) equivariant message passing of SeZM interatomic potentials";
  let description = [{
    The `sezm` dialect expresses the SO(2) message path of SeZM (DPA4)
    models: edge geometry (edge vectors, envelope, radial basis, Wigner-D),
    rotation of node features into the edge frame and back, edge-conditioned
    radial degree mixing, the gated SO(2) mixing stack, CSR segment
    reductions and aggregation into atoms. Every op has a gradient op with
    its own derivative rule, except the fused `rotate_mix_grad_reduce`.

    Values are tensors. The equivariant structure is carried by attributes
    (`lmax`, `rank`, `focus`) and checked against the tensor shapes: the
    packed SO(3) axis has `D = (lmax+1)^2` rows, the m-truncated edge-frame
    axis keeps |m| <= 1 and has `3*lmax+1` rows. Node and edge counts `N`
    and `E` are dynamic; channel widths are static.

    Entry functions name their arguments and results with the `sezm.name`
    string attribute; sezm-run binds inputs and writes outputs by these
    names.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
}

// Every op states its shape contract (verifyShapes), which is its verifier.
class SeZM_Op<string mnemonic, list<Trait> traits = []>
    : Op<SeZM_Dialect, mnemonic,
         !listconcat([Pure, DeclareOpInterfaceMethods<
                                SeZM_ShapeContractOpInterface>],
                     traits)>;

#endif // SEZM_DIALECT_SEZM_SEZMDIALECT_TD
