// Linalg ops outside launches become scf.parallel nests (reductions as
// scf.for inside, each output element carried through them in a register,
// loaded before and stored after: not read and written every step), their
// static extents folded to constants; a launch's
// body is not visited (its foldable add stays, where upstream's
// convert-linalg-to-parallel-loops folds, and would here erase, the whole
// side-effect-free launch).
// RUN: sezm-opt %s --sezm-linalg-to-parallel-loops | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @lower
// CHECK-NOT: linalg.
// CHECK: %[[N:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?x8xf32>
// CHECK: scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%[[N]])
// CHECK: %[[INIT:.*]] = memref.load %{{.*}}[%[[I]]] : memref<?xf32>
// CHECK: %[[SUM:.*]] = scf.for %[[K:.*]] = %{{.*}} to %[[C8:.*]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32)
// CHECK-NEXT: %[[X:.*]] = memref.load %{{.*}}[%[[I]], %[[K]]] : memref<?x8xf32>
// CHECK-NEXT: %[[NEXT:.*]] = arith.addf %[[X]], %[[ACC]]
// CHECK-NEXT: scf.yield %[[NEXT]]
// CHECK: memref.store %[[SUM]], %{{.*}}[%[[I]]] : memref<?xf32>
// CHECK: gpu.launch
// CHECK: %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT: arith.addi %[[Z]], %[[Z]] : index
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[C4]])
// CHECK-NOT: linalg.
func.func @lower(%a: memref<?x8xf32>, %b: memref<?xf32>, %s: memref<4xf32>,
                 %t: memref<4xf32>) {
  linalg.generic {indexing_maps = [#id, #row],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<?x8xf32>) outs(%b : memref<?xf32>) {
    ^bb0(%x: f32, %acc: f32):
      %sum = arith.addf %x, %acc : f32
      linalg.yield %sum : f32
  }
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %two = arith.addi %c0, %c0 : index
    gpu.terminator
  }
  linalg.copy ins(%s : memref<4xf32>) outs(%t : memref<4xf32>)
  return
}

// A fill that only gives a sum its initial value is no kernel of its own:
// its value starts each output element's register.
// CHECK-LABEL: func.func @fill_folded
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT: memref.store %[[ZERO]]
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK-NOT: memref.load %{{.*}}[%[[I]]] : memref<?xf32>
// CHECK: %[[SUM:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (f32)
// CHECK: memref.store %[[SUM]], %{{.*}}[%[[I]]] : memref<?xf32>
func.func @fill_folded(%a: memref<?x8xf32>, %b: memref<?xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%b : memref<?xf32>)
  %c8 = arith.constant 8 : index
  linalg.generic {indexing_maps = [#id, #row],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<?x8xf32>) outs(%b : memref<?xf32>) {
    ^bb0(%x: f32, %acc: f32):
      %sum = arith.addf %x, %acc : f32
      linalg.yield %sum : f32
  }
  return
}

// The fill stays where the sum reads its output through an input, where
// something that writes memory lies between them, and where the output is
// not indexed by every parallel dimension (its elements are read again).
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mid = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @fills_kept
// CHECK-COUNT-3: kernel = "fill"
// CHECK-NOT: kernel = "fill"
func.func @fills_kept(%a: memref<8x8xf32>, %b: memref<8xf32>,
                      %c: memref<8xf32>, %d: memref<8x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %view = memref.expand_shape %b [[0, 1]] output_shape [8, 1]
      : memref<8xf32> into memref<8x1xf32>
  linalg.fill ins(%zero : f32) outs(%b : memref<8xf32>)
  linalg.generic {indexing_maps = [#id, #row],
                  iterator_types = ["parallel", "reduction"]}
      ins(%view : memref<8x1xf32>) outs(%b : memref<8xf32>) {
    ^bb0(%x: f32, %acc: f32):
      %sum = arith.addf %x, %acc : f32
      linalg.yield %sum : f32
  }
  linalg.fill ins(%zero : f32) outs(%c : memref<8xf32>)
  memref.copy %b, %b : memref<8xf32> to memref<8xf32>
  linalg.generic {indexing_maps = [#id, #row],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<8x8xf32>) outs(%c : memref<8xf32>) {
    ^bb0(%x: f32, %acc: f32):
      %sum = arith.addf %x, %acc : f32
      linalg.yield %sum : f32
  }
  linalg.fill ins(%zero : f32) outs(%b : memref<8xf32>)
  linalg.generic {indexing_maps = [#id3, #mid],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%d : memref<8x8x8xf32>) outs(%b : memref<8xf32>) {
    ^bb0(%x: f32, %acc: f32):
      %sum = arith.addf %x, %acc : f32
      linalg.yield %sum : f32
  }
  return
}
