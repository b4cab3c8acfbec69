// A result computed elementwise from an input is written to a buffer of its
// own, never over the caller's input (which sezm-run reuses across --bench
// and --verify runs); and the function lowers (it once failed on the
// bufferization.clone of a returned input).
// RUN: sezm-opt %s --sezm-inputs-read-only | FileCheck %s --check-prefix=ATTR
// ATTR: func.func @square(%{{.*}}: tensor<?xf32> {bufferization.writable = false, sezm.name = "t"})
// RUN: sezm-opt %s --sezm-pipeline --mlir-print-ir-after=one-shot-bufferize -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUFFER
// BUFFER-LABEL: func.func @square(
// BUFFER: %[[OUT:.*]] = memref.alloc
// BUFFER: return %[[OUT]]
// RUN: rm -rf %t && mkdir %t && %npytool write %t/t.npy f32 3 "1 2 3"
// RUN: sezm-run %s --input t=%t/t.npy --bench 2 --output-dir %t/out | FileCheck %s --check-prefix=SUMMARY
// RUN: %npytool print %t/t.npy | FileCheck %s --check-prefix=UNCHANGED
// RUN: %npytool print %t/out/s.npy | FileCheck %s --check-prefix=SQUARES
// SUMMARY: s: float32 (3,)  min 1  max 9
// UNCHANGED: 1 2 3
// SQUARES: 1 4 9

func.func @square(%t: tensor<?xf32> {sezm.name = "t"}) -> (tensor<?xf32> {sezm.name = "s"}) {
  %sq = arith.mulf %t, %t : tensor<?xf32>
  return %sq : tensor<?xf32>
}
