// A copy into a strided view (here a column of a matrix), which lowered CPU
// code makes with a call of memrefCopy: sezm-run provides that helper
// itself, so that the JIT needs no MLIR library at run time.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %npytool write %t/m.npy f32 3,3 "1 2 3 4 5 6 7 8 9"
// RUN: %npytool write %t/c.npy f32 3,1 "-1 -2 -3"
// RUN: sezm-run %s --input m=%t/m.npy --input c=%t/c.npy --output-dir %t/out | FileCheck %s --check-prefix=RAN
// RUN: %npytool print %t/out/out.npy | FileCheck %s
// RAN: @main ran on the CPU
// CHECK: <f4 (3, 3)
// CHECK-NEXT: 1 -1 3 4 -2 6 7 -3 9
func.func @main(%m: tensor<3x3xf32> {sezm.name = "m"},
                %c: tensor<3x1xf32> {sezm.name = "c"})
    -> (tensor<3x3xf32> {sezm.name = "out"}) {
  %r = tensor.insert_slice %c into %m[0, 1] [3, 1] [1, 1]
      : tensor<3x1xf32> into tensor<3x3xf32>
  return %r : tensor<3x3xf32>
}
