// RUN: sezm-opt %s --sezm-plan-memory --split-input-file --verify-diagnostics | FileCheck %s
// RUN: sezm-opt %s --sezm-plan-memory="free=false" --split-input-file 2>&1 | FileCheck %s --check-prefix=NOFREE
// RUN: sezm-opt %s --sezm-plan-memory="at=E=1000,N=10" --split-input-file 2>&1 | FileCheck %s --check-prefix=AT
// RUN: not sezm-opt %s --sezm-plan-memory="at=E:1000" --split-input-file 2>&1 | FileCheck %s --check-prefix=BADAT

// BADAT: error: sezm-plan-memory: 'at' takes NAME=INTEGER, got 'E:1000'

// Two buffers of one type and extent, one after the other: the second is
// the first, freed after the second's last use.
// CHECK-LABEL: func.func @reuse
// CHECK: %[[A:.*]] = memref.alloc(%{{.*}}) : memref<?x16x64xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[A]] :
// CHECK-NEXT: memref.copy %[[A]], %arg1
// CHECK-NOT: memref.alloc
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[A]] :
// CHECK-NEXT: memref.copy %[[A]], %arg2
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: return
// NOFREE-LABEL: func.func @reuse
// NOFREE-NOT: memref.dealloc
// NOFREE: return
// AT: remark: @reuse planned peak 4096*E bytes (unplanned 8192*E); 1 buffers, 1 reused, 1 freed after last use; at E=1000 N=10: planned 4096000 bytes, unplanned 8192000 bytes
// expected-remark @+1 {{@reuse planned peak 4096*E bytes (unplanned 8192*E); 1 buffers, 1 reused, 1 freed after last use}}
func.func @reuse(%src: memref<?xi64> {sezm.extents = ["E"]},
                 %out1: memref<?x16x64xf32>, %out2: memref<?x16x64xf32>) {
  %c0 = arith.constant 0 : index
  %e = memref.dim %src, %c0 : memref<?xi64>
  %one = arith.constant 1.0 : f32
  %a = memref.alloc(%e) : memref<?x16x64xf32>
  %b = memref.alloc(%e) : memref<?x16x64xf32>
  linalg.fill ins(%one : f32) outs(%a : memref<?x16x64xf32>)
  memref.copy %a, %out1 : memref<?x16x64xf32> to memref<?x16x64xf32>
  linalg.fill ins(%one : f32) outs(%b : memref<?x16x64xf32>)
  memref.copy %b, %out2 : memref<?x16x64xf32> to memref<?x16x64xf32>
  return
}

// -----

// Allocated together, used one after the other: the second allocation
// sinks to its first use, after the first buffer is freed, so the peak is
// the larger buffer (either may be), not both. A use through a view counts;
// rowptr's extent N+1 minus one is N.
// CHECK-LABEL: func.func @sink
// CHECK: %[[A:.*]] = memref.alloc(%{{.*}}) : memref<?x16xf32>
// CHECK: %[[VIEW:.*]] = memref.collapse_shape %[[A]]
// CHECK-NEXT: memref.copy %[[VIEW]], %arg2
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: %[[B:.*]] = memref.alloc(%{{.*}}) : memref<?x8xf32>
// CHECK: memref.dealloc %[[B]]
// expected-remark @+1 {{@sink planned peak max(64*E, 32*N) bytes (unplanned 64*E + 32*N); 2 buffers, 0 reused, 2 freed after last use}}
func.func @sink(%src: memref<?xi64> {sezm.extents = ["E"]},
                %rowptr: memref<?xi64> {sezm.extents = ["N+1"]},
                %out1: memref<?xf32>, %out2: memref<?x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = memref.dim %src, %c0 : memref<?xi64>
  %r = memref.dim %rowptr, %c0 : memref<?xi64>
  %n = arith.subi %r, %c1 : index
  %one = arith.constant 1.0 : f32
  %a = memref.alloc(%e) : memref<?x16xf32>
  %b = memref.alloc(%n) : memref<?x8xf32>
  linalg.fill ins(%one : f32) outs(%a : memref<?x16xf32>)
  %flat = memref.collapse_shape %a [[0, 1]] : memref<?x16xf32> into memref<?xf32>
  memref.copy %flat, %out1 : memref<?xf32> to memref<?xf32>
  linalg.fill ins(%one : f32) outs(%b : memref<?x8xf32>)
  memref.copy %b, %out2 : memref<?x8xf32> to memref<?x8xf32>
  return
}

// -----

// A returned buffer lives to the end and is neither freed nor reused; an
// extent with no sezm.extents is named by the argument; the peak may depend
// on which term wins.
// CHECK-LABEL: func.func @returned
// CHECK: %[[A:.*]] = memref.alloc
// CHECK: %[[B:.*]] = memref.alloc
// CHECK-NOT: memref.dealloc %[[A]]
// CHECK: memref.dealloc %[[B]]
// CHECK: return %[[A]]
// AT: remark: @returned planned peak 64*E + 4*x[0] bytes (unplanned 64*E + 4*x[0]); 2 buffers, 0 reused, 1 freed after last use; at E=1000 N=10: not every extent has a value
// expected-remark @+1 {{@returned planned peak 64*E + 4*x[0] bytes (unplanned 64*E + 4*x[0]); 2 buffers, 0 reused, 1 freed after last use}}
func.func @returned(%src: memref<?xi64> {sezm.extents = ["E"]},
                    %x: memref<?xf32> {sezm.name = "x"}, %out: memref<?xf32>)
    -> memref<?x16xf32> {
  %c0 = arith.constant 0 : index
  %e = memref.dim %src, %c0 : memref<?xi64>
  %m = memref.dim %x, %c0 : memref<?xf32>
  %one = arith.constant 1.0 : f32
  %a = memref.alloc(%e) : memref<?x16xf32>
  linalg.fill ins(%one : f32) outs(%a : memref<?x16xf32>)
  %b = memref.alloc(%m) : memref<?xf32>
  linalg.fill ins(%one : f32) outs(%b : memref<?xf32>)
  memref.copy %b, %out : memref<?xf32> to memref<?xf32>
  return %a : memref<?x16xf32>
}

// -----

// An extent read off a view is its source's: through expand_shape's output
// shape, collapse_shape's product, a cast and a subview's sizes, to the
// allocation's size and the argument's extent (no opaque ?k symbol).
// CHECK-LABEL: func.func @views
// expected-remark @+1 {{@views planned peak 64*E + 4*N bytes (unplanned 192*E + 8*N); 4 buffers, 1 reused, 4 freed after last use}}
func.func @views(%src: memref<?xi64> {sezm.extents = ["E"]},
                 %rowptr: memref<?xi64> {sezm.extents = ["N+1"]}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = memref.dim %src, %c0 : memref<?xi64>
  %r = memref.dim %rowptr, %c0 : memref<?xi64>
  %n = arith.subi %r, %c1 : index
  %one = arith.constant 1.0 : f32
  %a = memref.alloc(%e) : memref<?x16xf32>
  linalg.fill ins(%one : f32) outs(%a : memref<?x16xf32>)
  %flat = memref.collapse_shape %a [[0, 1]] : memref<?x16xf32> into memref<?xf32>
  %f = memref.dim %flat, %c0 : memref<?xf32>
  %b = memref.alloc(%f) : memref<?xf32>
  linalg.fill ins(%one : f32) outs(%b : memref<?xf32>)
  %nb = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%one : f32) outs(%nb : memref<?xf32>)
  %wide = memref.expand_shape %nb [[0, 1]] output_shape [%n, 1] : memref<?xf32> into memref<?x1xf32>
  %cast = memref.cast %wide : memref<?x1xf32> to memref<?x?xf32>
  %w = memref.dim %cast, %c0 : memref<?x?xf32>
  %c = memref.alloc(%w) : memref<?xf32>
  linalg.fill ins(%one : f32) outs(%c : memref<?xf32>)
  %part = memref.subview %b[0] [%e] [1] : memref<?xf32> to memref<?xf32, strided<[1]>>
  %p = memref.dim %part, %c0 : memref<?xf32, strided<[1]>>
  %d = memref.alloc(%p) : memref<?x16xf32>
  linalg.fill ins(%one : f32) outs(%d : memref<?x16xf32>)
  return
}

// -----

// A chunk loop (sezm-chunk-edges): its body's buffers are planned there,
// freed in the iteration that used them, and sized by the chunk (the min
// of the step and the rest is at most the step); the loop's peak counts on
// top of what is live around it, here the whole (E, 64) result.
// CHECK-LABEL: func.func @chunks
// CHECK: %[[OUT:.*]] = memref.alloc(%{{.*}}) : memref<?x64xf32>
// CHECK: scf.for
// CHECK: %[[T:.*]] = memref.alloc(%{{.*}}) : memref<?x64xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[T]] :
// CHECK-NEXT: memref.subview
// CHECK-NEXT: memref.copy %[[T]], %{{.*}}
// CHECK-NEXT: memref.dealloc %[[T]]
// CHECK-NEXT: }
// CHECK: memref.copy %[[OUT]], %arg1
// CHECK-NEXT: memref.dealloc %[[OUT]]
// expected-remark @+1 {{@chunks planned peak 256*E + 262144 bytes (unplanned 256*E + 262144); 2 buffers, 0 reused, 2 freed after last use}}
func.func @chunks(%src: memref<?xi64> {sezm.extents = ["E"]},
                  %result: memref<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %step = arith.constant 1024 : index
  %one = arith.constant 1.0 : f32
  %e = memref.dim %src, %c0 : memref<?xi64>
  %out = memref.alloc(%e) : memref<?x64xf32>
  scf.for %lo = %c0 to %e step %step {
    %rest = arith.subi %e, %lo : index
    %n = arith.minsi %step, %rest : index
    %t = memref.alloc(%n) : memref<?x64xf32>
    linalg.fill ins(%one : f32) outs(%t : memref<?x64xf32>)
    %view = memref.subview %out[%lo, 0] [%n, 64] [1, 1]
        : memref<?x64xf32> to memref<?x64xf32, strided<[64, 1], offset: ?>>
    memref.copy %t, %view : memref<?x64xf32>
        to memref<?x64xf32, strided<[64, 1], offset: ?>>
  }
  memref.copy %out, %result : memref<?x64xf32> to memref<?x64xf32>
  return
}
