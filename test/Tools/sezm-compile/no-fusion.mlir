// sezm-compile --no-fusion compiles without the graph fusions, to measure or
// check a model against them: here a gated residual layer, whose add folds
// into the gate's kernel by default and is a kernel of its own without.
// RUN: rm -rf %t && sezm-compile %s --emit=ptx -o %t/fused
// RUN: ls %t/fused | FileCheck %s --check-prefix=FUSED
// FUSED-NOT: addf
// FUSED: gate.ptx
// FUSED-NOT: addf
// RUN: sezm-compile %s --no-fusion --emit=ptx -o %t/unfused
// RUN: ls %t/unfused | FileCheck %s --check-prefix=UNFUSED
// UNFUSED: addf.ptx
// UNFUSED: gate.ptx
func.func @step(%x: tensor<?x10x64xf32> {sezm.name = "x"},
                %gw: tensor<2x32x96xf32> {sezm.name = "gw"})
    -> (tensor<?x10x64xf32> {sezm.name = "h"}) {
  %act = sezm.gate %x weight %gw lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x32x96xf32>) -> tensor<?x10x64xf32>
  %h = arith.addf %x, %act : tensor<?x10x64xf32>
  return %h : tensor<?x10x64xf32>
}
