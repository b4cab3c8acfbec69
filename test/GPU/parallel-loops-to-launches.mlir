// RUN: sezm-opt %s --split-input-file --sezm-parallel-loops-to-launches --verify-diagnostics | FileCheck %s
// RUN: not sezm-opt %s --split-input-file --sezm-parallel-loops-to-launches="threads-per-block=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: not sezm-opt %s --split-input-file --sezm-parallel-loops-to-launches="max-blocks=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: sezm-opt %s --split-input-file --sezm-parallel-loops-to-launches="max-blocks=4" --verify-diagnostics | FileCheck %s --check-prefix=CAP

// A loop kernel becomes a launch of 128-thread blocks, as many as its
// iterations need up to max-blocks (8448 by default; 4 asked here), thread
// t of block k running iteration lb + (k * 128 + t) * step and every
// blocks * 128 * step after it below the bound; the launch is named by the
// loop's configuration, which may also ask for blocks per multiprocessor.
// CHECK-LABEL: func.func @fill
// CHECK: %[[C128:.*]] = arith.constant 128 : index
// CHECK: %[[BLOCK:.*]] = arith.muli %[[STEP:.*]], %[[C128]] : index
// CHECK: %[[NEEDED:.*]] = affine.apply #{{.*}}(%[[N:.*]])[%[[LB:.*]], %[[BLOCK]]]
// CHECK: %[[LIMIT:.*]] = arith.constant 8448 : index
// CAP: %[[LIMIT:.*]] = arith.constant 4 : index
// CHECK: %[[BLOCKS:.*]] = arith.minui %[[NEEDED]], %[[LIMIT]] : index
// CHECK: %[[STRIDE:.*]] = arith.muli %[[BLOCKS]], %[[BLOCK]] : index
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[BLOCKS]], %{{.*}} = %[[ONE:.*]], %{{.*}} = %[[ONE]]) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C128]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]]) function(@fill) {
// CHECK: %[[BASE:.*]] = arith.muli %[[BX]], %[[BLOCK]] : index
// CHECK: %[[FIRST:.*]] = arith.addi %[[BASE]], %[[LB]] : index
// CHECK: %[[OFFSET:.*]] = arith.muli %[[TX]], %[[STEP]] : index
// CHECK: %[[START:.*]] = arith.addi %[[OFFSET]], %[[FIRST]] : index
// CHECK: scf.for %[[I:.*]] = %[[START]] to %[[N]] step %[[STRIDE]] {
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[I]]]
// CHECK: gpu.terminator
// CHECK: gpu.launch {{.*}} function(@scale) {
// CHECK: } {nvvm.minctasm = 2 : i32}
// CHECK-NOT: scf.parallel
func.func @fill(%m: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %zero, %m[%i] : memref<?xf32>
    scf.reduce
  } {sezm.kernel_config = #sezm.kernel_config<strategy = loops, kernel = "fill">}
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %x = memref.load %m[%i] : memref<?xf32>
    %y = arith.mulf %x, %x : f32
    memref.store %y, %m[%i] : memref<?xf32>
    scf.reduce
  } {sezm.kernel_config = #sezm.kernel_config<strategy = loops, kernel = "scale", blocks_per_sm = 2>}
  return
}

// -----

// A loop without a configuration gets an unnamed launch (outlining's
// default name); a loop inside a host loop becomes a launch there; a
// launch's own loops are left alone.
// CHECK-LABEL: func.func @unnamed
// CHECK: scf.for
// CHECK: gpu.launch
// CHECK-NOT: function(
// CHECK: gpu.terminator
// CHECK: gpu.launch
// CHECK: scf.parallel
func.func @unnamed(%m: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.for %k = %c0 to %n step %c1 {
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      memref.store %zero, %m[%i] : memref<?xf32>
      scf.reduce
    }
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      memref.store %zero, %m[%i] : memref<?xf32>
      scf.reduce
    }
    gpu.terminator
  }
  return
}

// -----

func.func @two_dimensions(%m: memref<?x4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{a loop kernel is one dimension without reductions (sezm-flatten-parallel-loops), this one has 2 and 0}}
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c4) step (%c1, %c1) {
    memref.store %zero, %m[%i, %j] : memref<?x4xf32>
    scf.reduce
  }
  return
}

// -----

func.func @nested(%m: memref<?x4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{a parallel loop inside a loop kernel, whose threads are the outer loop's iterations}}
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.parallel (%j) = (%c0) to (%c4) step (%c1) {
      memref.store %zero, %m[%i, %j] : memref<?x4xf32>
      scf.reduce
    }
    scf.reduce
  }
  return
}

// THREADS: error: sezm-parallel-loops-to-launches: threads-per-block and max-blocks must be at least 1
