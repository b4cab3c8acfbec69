// A kernel whose launch asks for blocks per multiprocessor (the metadata of
// its fused location, which outlining keeps) gets nvvm.minctasm; others are
// left alone. Then the hand-scheduled SO(2) kernels: their PTX asks for the
// blocks, and ptxas fits them without spilling.
// RUN: sezm-opt %s --split-input-file --sezm-apply-occupancy-hints | FileCheck %s
// RUN: rm -rf %t && sezm-compile %S/../../bench/so2_kernels.mlir --emit=ptx -o %t
// The kernels of @rotate_mix and @rotate_mix_focus_major in that order, then
// the fused backward (whole and kept Wigner-D), which keeps its node sums in
// registers at 2 blocks:
// RUN: cat %t/rotate_mix_0.ptx %t/rotate_mix_1.ptx %t/rotate_mix_grad_reduce.ptx | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ for f in 0 1; do %ptxas -arch=sm_90 -v %t/rotate_mix_$f.ptx -o %t/$f.cubin 2>&1; done | FileCheck %s --check-prefix=REGS %}
// RUN: %if ptxas %{ for f in rotate_mix_grad_reduce rotate_mix_grad_reduce_3; do %ptxas -arch=sm_90 -v %t/$f.ptx -o %t/$f.cubin 2>&1; done | FileCheck %s --check-prefix=FUSED-REGS %}

// CHECK-LABEL: gpu.module @hinted
// CHECK: gpu.func @rotate_mix() kernel attributes {nvvm.minctasm = 12 : i32}
module attributes {gpu.container_module} {
  gpu.module @hinted {
    gpu.func @rotate_mix() kernel {
      gpu.return
    } loc(fused<{sezm.blocks_per_sm = 12 : i64}>["rotate_mix"])
  }
}

// -----

// CHECK-LABEL: gpu.module @plain
// CHECK: gpu.func @addf() kernel {
module attributes {gpu.container_module} {
  gpu.module @plain {
    gpu.func @addf() kernel {
      gpu.return
    } loc(fused["addf"])
  }
}

// PTX: .entry rotate_mix(
// PTX: .minnctapersm 8
// PTX: .entry rotate_mix(
// PTX: .minnctapersm 8
// PTX: .entry rotate_mix_grad_reduce(
// PTX: .minnctapersm 2

// FUSED-REGS: 0 bytes spill stores, 0 bytes spill loads
// FUSED-REGS: 0 bytes spill stores, 0 bytes spill loads

// REGS: 0 bytes spill stores, 0 bytes spill loads
// REGS-NEXT: Used 56 registers
// REGS: 0 bytes spill stores, 0 bytes spill loads
// REGS-NEXT: Used 56 registers
