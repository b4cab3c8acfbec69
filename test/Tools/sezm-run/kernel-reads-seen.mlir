// A sezm kernel that reads another kernel's result after an elementwise op
// on it: bufferization must see that read, or the op is done in place and
// the kernel reads the op's result instead (here: the envelope overwritten
// by its square before the segment reduction copies it, as SeZM-min's
// degree norm did to its aggregation).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %npytool write %t/v.npy f32 2,3 "3 0 0 0 4.5 0"
// RUN: %npytool write %t/order.npy i64 2 "0 1"
// RUN: %npytool write %t/rowptr.npy i64 3 "0 1 2"
// RUN: sezm-run %s --input v=%t/v.npy --input order=%t/order.npy --input rowptr=%t/rowptr.npy --output-dir %t/out > /dev/null
// RUN: %npytool print %t/out/square.npy | FileCheck %s --check-prefix=SQUARE
// RUN: %npytool print %t/out/envelope.npy | FileCheck %s --check-prefix=ENVELOPE
// SQUARE: <f4 (2, 1)
// SQUARE-NEXT: 0.405410767 0.012953924
// ENVELOPE: <f4 (2,)
// ENVELOPE-NEXT: 0.63671875 0.113815308
func.func @main(%v: tensor<?x3xf32> {sezm.name = "v"},
                %order: tensor<?xi64> {sezm.name = "order"},
                %rowptr: tensor<?xi64> {sezm.name = "rowptr"})
    -> (tensor<?x1xf32> {sezm.name = "square"},
        tensor<?xf32> {sezm.name = "envelope"}) {
  %c0 = arith.constant 0 : index
  %env = sezm.envelope %v rcut = 6.0 exponent = 5
      : (tensor<?x3xf32>) -> tensor<?xf32>
  %e = tensor.dim %env, %c0 : tensor<?xf32>
  %e1 = tensor.expand_shape %env [[0, 1]] output_shape [%e, 1]
      : tensor<?xf32> into tensor<?x1xf32>
  %sq = arith.mulf %e1, %e1 : tensor<?x1xf32>
  %again = sezm.segment_reduce %env over(%order, %rowptr)
      : (tensor<?xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?xf32>
  return %sq, %again : tensor<?x1xf32>, tensor<?xf32>
}
