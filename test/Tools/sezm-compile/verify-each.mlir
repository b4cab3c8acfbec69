// By default sezm-compile verifies the IR once, after the lowering;
// --verify-each verifies it after every pass, to find a pass that breaks
// it. Either way the same code comes out: the GPU's kernels and host code,
// the CPU's LLVM IR.
// RUN: rm -rf %t && mkdir -p %t
// RUN: sezm-compile %s --emit=ptx -o %t/once
// RUN: sezm-compile %s --emit=ptx --verify-each -o %t/each
// RUN: diff -r %t/once %t/each
// RUN: ls %t/once | FileCheck %s
// CHECK: gate.ptx
// RUN: sezm-compile %s --target cpu --emit=llvm -o %t/once.ll
// RUN: sezm-compile %s --target cpu --emit=llvm --verify-each -o %t/each.ll
// RUN: diff %t/once.ll %t/each.ll
func.func @step(%x: tensor<?x10x64xf32> {sezm.name = "x"},
                %gw: tensor<2x32x96xf32> {sezm.name = "gw"})
    -> (tensor<?x10x64xf32> {sezm.name = "h"}) {
  %act = sezm.gate %x weight %gw lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x32x96xf32>) -> tensor<?x10x64xf32>
  %h = arith.addf %x, %act : tensor<?x10x64xf32>
  return %h : tensor<?x10x64xf32>
}
