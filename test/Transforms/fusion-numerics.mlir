// Both fusions compute the same numbers as the ops they replace: on the
// CPU the fused kernels sum in the same order, so the results are the same
// bits.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %npytool random %t/g.npy f32 9,10,64 1
// RUN: %npytool random %t/x.npy f32 5,16,64 2
// RUN: %npytool write %t/src.npy i64 9 "4 0 2 1 3 4 0 0 2"
// RUN: %npytool random %t/w.npy f32 9,16,16 3
// RUN: %npytool random %t/kc.npy f32 9,25 4
// RUN: %npytool random %t/cb.npy f32 1,64 5
// RUN: %npytool write %t/order.npy i64 9 "1 6 7 3 2 8 4 0 5"
// RUN: %npytool write %t/rowptr.npy i64 6 "0 3 4 6 7 9"
// RUN: sezm-opt %s --sezm-fuse-rotate-mix --sezm-select-schedule --sezm-fuse-backward-reduce -o %t/fused.mlir 2>/dev/null
// RUN: FileCheck %s --check-prefix=FUSED < %t/fused.mlir
// FUSED: sezm.rotate_mix %
// FUSED: sezm.rotate_mix_grad_reduce
// FUSED-NOT: sezm.segment_reduce
// RUN: sezm-run %s --input g=%t/g.npy --input x=%t/x.npy --input src=%t/src.npy --input w=%t/w.npy --input kc=%t/kc.npy --input cb=%t/cb.npy --input order=%t/order.npy --input rowptr=%t/rowptr.npy --no-fusion --output-dir %t/unfused > /dev/null
// RUN: sezm-run %t/fused.mlir --input g=%t/g.npy --input x=%t/x.npy --input src=%t/src.npy --input w=%t/w.npy --input kc=%t/kc.npy --input cb=%t/cb.npy --input order=%t/order.npy --input rowptr=%t/rowptr.npy --output-dir %t/fused > /dev/null
// RUN: cmp %t/unfused/u.npy %t/fused/u.npy
// RUN: cmp %t/unfused/x_grad.npy %t/fused/x_grad.npy
// RUN: cmp %t/unfused/wigner_grad.npy %t/fused/wigner_grad.npy
// RUN: cmp %t/unfused/kc_grad.npy %t/fused/kc_grad.npy

func.func @main(%g: tensor<?x10x64xf32> {sezm.name = "g"},
                %x: tensor<?x16x64xf32> {sezm.name = "x"},
                %src: tensor<?xi64> {sezm.name = "src"},
                %w: tensor<?x16x16xf32> {sezm.name = "w"},
                %kc: tensor<?x25xf32> {sezm.name = "kc"},
                %cb: tensor<1x64xf32> {sezm.name = "cb"},
                %order: tensor<?xi64> {sezm.name = "order", sezm.csr_of = "src"},
                %rowptr: tensor<?xi64> {sezm.name = "rowptr", sezm.csr_of = "src"})
    -> (tensor<?x10x64xf32> {sezm.name = "u"},
        tensor<?x16x64xf32> {sezm.name = "x_grad"},
        tensor<?x16x16xf32> {sezm.name = "wigner_grad"},
        tensor<?x25xf32> {sezm.name = "kc_grad"}) {
  %xl = sezm.rotate %x[%src] by %w lmax = 3
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>) -> tensor<?x10x64xf32>
  %u = sezm.mix %xl kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x25xf32>, tensor<1x64xf32>) -> tensor<?x10x64xf32>
  %gxe, %gw, %gk = sezm.rotate_mix_grad %g, %x[%src] by %w kernel %kc basis %cb
      lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>,
         tensor<?x25xf32>, tensor<1x64xf32>)
      -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>)
  %gx = sezm.segment_reduce %gxe over(%order, %rowptr)
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x16x64xf32>
  return %u, %gx, %gw, %gk
      : tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>
}

// The CSR marked sezm.csr_of = "src" is checked on the data before anything
// runs: here node 0's segment lists edge 3, whose src is 1.
// RUN: %npytool write %t/bad_order.npy i64 9 "3 6 7 1 2 8 4 0 5"
// RUN: not sezm-run %t/fused.mlir --input g=%t/g.npy --input x=%t/x.npy --input src=%t/src.npy --input w=%t/w.npy --input kc=%t/kc.npy --input cb=%t/cb.npy --input order=%t/bad_order.npy --input rowptr=%t/rowptr.npy 2>&1 | FileCheck %s --check-prefix=CSR
// CSR: error: inputs 'order' and 'rowptr' (marked sezm.csr_of = "src"): edge 3 is in the segment of node 0, but its src is 1
// Each segment lists its edges in increasing order (sums over a range of
// the edges find the range's part by bisection): node 0's 6 before 1 is
// refused.
// RUN: %npytool write %t/unsorted_order.npy i64 9 "6 1 7 3 2 8 4 0 5"
// RUN: not sezm-run %t/fused.mlir --input g=%t/g.npy --input x=%t/x.npy --input src=%t/src.npy --input w=%t/w.npy --input kc=%t/kc.npy --input cb=%t/cb.npy --input order=%t/unsorted_order.npy --input rowptr=%t/rowptr.npy 2>&1 | FileCheck %s --check-prefix=SORTED
// SORTED: error: inputs 'order' and 'rowptr' (marked sezm.csr_of = "src"): the segment of node 0 lists edge 1 after edge 6; each segment must list its edges in increasing order
