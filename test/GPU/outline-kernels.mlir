// sezm-outline-kernels: each launch becomes a kernel in a module of its own,
// named after the launch's function (modules made unique), keeping the
// launch's nvvm.* attributes (a microkernel's blocks per multiprocessor) and
// no others. Then the hand-scheduled SO(2) kernels: their PTX asks for the
// blocks, and ptxas fits them without spilling.
// RUN: sezm-opt %s --split-input-file --sezm-outline-kernels | FileCheck %s
// RUN: rm -rf %t && sezm-compile %S/../../bench/so2_kernels.mlir --emit=ptx -o %t
// The kernels of @rotate_mix and @rotate_mix_focus_major in that order, then
// the fused backward (whole and kept Wigner-D), which keeps its node sums in
// registers at 2 blocks:
// RUN: cat %t/rotate_mix_0.ptx %t/rotate_mix_1.ptx %t/rotate_mix_grad_reduce.ptx | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ for f in 0 1; do %ptxas -arch=sm_90 -v %t/rotate_mix_$f.ptx -o %t/$f.cubin 2>&1; done | FileCheck %s --check-prefix=REGS %}
// RUN: %if ptxas %{ for f in rotate_mix_grad_reduce rotate_mix_grad_reduce_3; do %ptxas -arch=sm_90 -v %t/$f.ptx -o %t/$f.cubin 2>&1; done | FileCheck %s --check-prefix=FUSED-REGS %}

// CHECK-LABEL: func.func @step
// CHECK: gpu.launch_func @rotate_mix::@rotate_mix blocks in (%{{.*}}) threads in (%{{.*}}) args(%arg0 : memref<4xf32>)
// CHECK: gpu.launch_func @rotate_mix_0::@rotate_mix
// CHECK: gpu.launch_func @addf::@addf
// CHECK: gpu.launch_func @step_kernel::@step_kernel
// CHECK: gpu.module @rotate_mix {
// CHECK-NEXT: gpu.func @rotate_mix(%{{.*}}: memref<4xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 1, 1, 1>, nvvm.minctasm = 8 : i32}
// CHECK: gpu.module @rotate_mix_0 {
// CHECK-NEXT: gpu.func @rotate_mix() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 1, 1, 1>, nvvm.minctasm = 2 : i32}
// CHECK: gpu.module @addf {
// CHECK-NEXT: gpu.func @addf() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
// CHECK: gpu.module @step_kernel {
// CHECK-NEXT: gpu.func @step_kernel() kernel attributes
// CHECK-LABEL: func.func @after
func.func @step(%m: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
      threads(%tx, %ty, %tz) in (%a = %c32, %b = %c1, %c = %c1)
      function(@rotate_mix) {
    %v = arith.constant 1.0 : f32
    memref.store %v, %m[%tx] : memref<4xf32>
    gpu.terminator
  } {nvvm.minctasm = 8 : i32}
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
      threads(%tx, %ty, %tz) in (%a = %c32, %b = %c1, %c = %c1)
      function(@rotate_mix) {
    gpu.terminator
  } {nvvm.minctasm = 2 : i32}
  // Only the NVVM attributes travel.
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
      threads(%tx, %ty, %tz) in (%a = %c32, %b = %c1, %c = %c1)
      function(@addf) {
    gpu.terminator
  } {other.hint = 3 : i64}
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
      threads(%tx, %ty, %tz) in (%a = %c32, %b = %c1, %c = %c1) {
    gpu.terminator
  }
  return
}
func.func @after() {
  return
}

// -----

// The module of a kernel named like a function is renamed; the kernel keeps
// its name.
// CHECK-LABEL: func.func @gate
// CHECK: gpu.launch_func @gate_0::@gate
// CHECK: gpu.module @gate_0 {
// CHECK-NEXT: gpu.func @gate() kernel
func.func @gate() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
      threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1)
      function(@gate) {
    gpu.terminator
  }
  return
}

// -----

// A launch whose kernel equals one outlined before (in this function or
// another; locations aside) launches that one: one module per distinct
// kernel. A kernel that differs (here in one constant) keeps its own.
// CHECK-LABEL: func.func @first
// CHECK: gpu.launch_func @gate::@gate
// CHECK: gpu.launch_func @gate::@gate
// CHECK: gpu.launch_func @gate_0::@gate
// CHECK-COUNT-2: gpu.module
// CHECK-LABEL: func.func @second
// CHECK: gpu.launch_func @gate::@gate
// CHECK-NOT: gpu.module
func.func @first(%m: memref<4xf32>, %n: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
      threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1)
      function(@gate) {
    %v = arith.constant 1.0 : f32
    memref.store %v, %m[%tx] : memref<4xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
      threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1)
      function(@gate) {
    %v = arith.constant 1.0 : f32
    memref.store %v, %n[%tx] : memref<4xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
      threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1)
      function(@gate) {
    %v = arith.constant 2.0 : f32
    memref.store %v, %n[%tx] : memref<4xf32>
    gpu.terminator
  }
  return
}
func.func @second(%m: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
      threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1)
      function(@gate) {
    %v = arith.constant 1.0 : f32 loc("block1.mlir":7:3)
    memref.store %v, %m[%tx] : memref<4xf32> loc("block1.mlir":8:3)
    gpu.terminator
  }
  return
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
