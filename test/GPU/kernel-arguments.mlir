// The hand-scheduled kernels take buffers only: every constant (row offset,
// shuffle distance, table entry) is sunk into the kernel before outlining,
// where it folds into addresses and instructions. (As arguments, they made
// the fused backward spill: 255 registers and 1.6 KB of local memory.)
// RUN: sezm-opt %S/../Transforms/fusion-numerics.mlir --sezm-pipeline="target=gpu" --mlir-print-ir-after=sezm-outline-kernels -o /dev/null 2>&1 | grep "gpu.launch_func.*@rotate_mix" | FileCheck %s
// CHECK: @rotate_mix::@rotate_mix
// CHECK-SAME: args(%{{[a-z0-9_]+}} : memref<{{[^>]*}}>{{(, %[a-z0-9_]+ : memref<[^>]*>)*}})
// CHECK: @rotate_mix_grad_reduce::@rotate_mix_grad_reduce
// CHECK-SAME: args(%{{[a-z0-9_]+}} : memref<{{[^>]*}}>{{(, %[a-z0-9_]+ : memref<[^>]*>)*}})
