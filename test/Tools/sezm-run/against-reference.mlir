// What sezm-run computes on the CPU, held against the fp64 reference
// written apart from the compiler (test/Reference), op by op.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %npytool random %t/v.npy f32 40,3 1 -5 5
// RUN: %npytool random %t/x.npy f32 7,16,64 2
// RUN: %npytool random %t/src.npy i64 40 3 0 7
// RUN: %npytool random %t/kc.npy f32 40,25 4
// RUN: %npytool random %t/cb.npy f32 1,64 5
// RUN: %npytool random %t/env.npy f32 40 6 0 1
// RUN: %npytool random %t/isd.npy f32 7 7 0.2 1
// RUN: %npytool write %t/order.npy i64 40 "$(seq -s ' ' 0 39)"
// RUN: %npytool write %t/rowptr.npy i64 8 "0 5 11 17 23 29 35 40"
// RUN: sezm-run %s --input v=%t/v.npy --input x=%t/x.npy --input src=%t/src.npy --input kc=%t/kc.npy --input cb=%t/cb.npy --input env=%t/env.npy --input isd=%t/isd.npy --input order=%t/order.npy --input rowptr=%t/rowptr.npy --output-dir %t/out > /dev/null
// RUN: sezm-reference wigner %t/wigner.npy %t/v.npy --lmax 3
// RUN: %npytool compare %t/out/wigner.npy %t/wigner.npy 1e-5
// RUN: sezm-reference rotate_mix %t/u.npy %t/x.npy %t/src.npy %t/out/wigner.npy %t/kc.npy %t/cb.npy --lmax 3 --rank 1
// RUN: %npytool compare %t/out/u.npy %t/u.npy 2e-5
// RUN: sezm-reference segment_reduce %t/node.npy %t/out/u.npy %t/order.npy %t/rowptr.npy
// RUN: %npytool compare %t/out/per_node.npy %t/node.npy 2e-5
// RUN: sezm-reference envelope_aggregate %t/agg.npy %t/out/u.npy %t/out/wigner.npy %t/env.npy %t/isd.npy %t/order.npy %t/rowptr.npy --lmax 3
// RUN: %npytool compare %t/out/aggregated.npy %t/agg.npy 2e-5

// The comparison fails when the numbers differ.
// RUN: not %npytool compare %t/out/u.npy %t/out/wigner.npy 1e-5

func.func @main(%v: tensor<?x3xf32> {sezm.name = "v"},
                %x: tensor<?x16x64xf32> {sezm.name = "x"},
                %src: tensor<?xi64> {sezm.name = "src"},
                %kc: tensor<?x25xf32> {sezm.name = "kc"},
                %cb: tensor<1x64xf32> {sezm.name = "cb"},
                %env: tensor<?xf32> {sezm.name = "env"},
                %isd: tensor<?xf32> {sezm.name = "isd"},
                %order: tensor<?xi64> {sezm.name = "order"},
                %rowptr: tensor<?xi64> {sezm.name = "rowptr"})
    -> (tensor<?x16x16xf32> {sezm.name = "wigner"},
        tensor<?x10x64xf32> {sezm.name = "u"},
        tensor<?x10x64xf32> {sezm.name = "per_node"},
        tensor<?x16x64xf32> {sezm.name = "aggregated"}) {
  %w = sezm.wigner %v lmax = 3 : (tensor<?x3xf32>) -> tensor<?x16x16xf32>
  %u = sezm.rotate_mix %x[%src] by %w kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>,
         tensor<?x25xf32>, tensor<1x64xf32>) -> tensor<?x10x64xf32>
  %n = sezm.segment_reduce %u over(%order, %rowptr)
      : (tensor<?x10x64xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x10x64xf32>
  %a = sezm.envelope_aggregate %u by %w env %env norm %isd over(%order, %rowptr) lmax = 3
      : (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?xf32>, tensor<?xf32>,
         tensor<?xi64>, tensor<?xi64>) -> tensor<?x16x64xf32>
  return %w, %u, %n, %a
      : tensor<?x16x16xf32>, tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<?x16x64xf32>
}
