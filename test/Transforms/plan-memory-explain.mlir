// RUN: sezm-opt %s --allow-unregistered-dialect --sezm-plan-memory="explain=true" 2>&1 | FileCheck %s
// explain: at each peak candidate, the buffers live there, the most bytes
// per edge first, each with where it is allocated.

// CHECK: plan-memory-explain.mlir:[[#@LINE+16]]:{{.*}}: remark: peak 40*N + 192*E reached here; live:
// CHECK-NEXT: 128*E at loc("{{.*}}plan-memory-explain.mlir":[[#@LINE+15]]
// CHECK-NEXT: 64*E at loc("{{.*}}plan-memory-explain.mlir":[[#@LINE+12]]
// CHECK-NEXT: 40*N at loc("{{.*}}plan-memory-explain.mlir":[[#@LINE+9]]
// CHECK: remark: @f planned peak 40*N + 192*E bytes
func.func @f(%src: memref<?xi64> {sezm.extents = ["E"]},
             %types: memref<?xi64> {sezm.extents = ["N"]},
             %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %e = memref.dim %src, %c0 : memref<?xi64>
  %n = memref.dim %types, %c0 : memref<?xi64>
  %one = arith.constant 1.0 : f32
  %node = memref.alloc(%n) : memref<?x10xf32>
  linalg.fill ins(%one : f32) outs(%node : memref<?x10xf32>)
  %a = memref.alloc(%e) : memref<?x16xf32>
  linalg.fill ins(%one : f32) outs(%a : memref<?x16xf32>)
  %b = memref.alloc(%e) : memref<?x32xf32>
  linalg.fill ins(%one : f32) outs(%b : memref<?x32xf32>)
  "test.use"(%node, %a, %b) : (memref<?x10xf32>, memref<?x16xf32>, memref<?x32xf32>) -> ()
  return
}
