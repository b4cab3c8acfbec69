// sezm-compile says when a fusion it was not told to skip did not happen:
// the numbers stay right, so only the time and the memory would show it
// (every artifact once ran its backward unfused for 30 measured runs with
// the reason kept in a remark nobody saw). Here the source CSR is marked as
// the CSR of "dst", so the backward keeps its per-edge node gradient.
// RUN: rm -rf %t && sezm-compile %s --target cpu --emit=llvm -o %t.ll 2>&1 | FileCheck %s
// CHECK: warning: CPU lowering: {{.*}}refused-fusion.mlir:{{[0-9]+}}:{{[0-9]+}}: not fused with the segment reduction: the reduction is not over the source CSR
// RUN: sezm-compile %s --emit=ptx -o %t 2>&1 | FileCheck %s --check-prefix=GPU
// GPU: warning: GPU lowering: {{.*}}not fused with the segment reduction
// With --no-fusion nothing was asked, and nothing is said.
// RUN: sezm-compile %s --no-fusion --target cpu --emit=llvm -o %t.ll 2>&1 | count 0
func.func @backward(%g: tensor<?x10x64xf32>, %x: tensor<?x16x64xf32>,
    %src: tensor<?xi64> {sezm.name = "src"}, %dst: tensor<?xi64> {sezm.name = "dst"},
    %wd: tensor<?x16x16xf32>, %kc: tensor<?x25xf32>, %cb: tensor<1x64xf32>,
    %so: tensor<?xi64> {sezm.csr_of = "dst"}, %sr: tensor<?xi64> {sezm.csr_of = "dst"})
    -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>) {
  %gxe, %gwd, %gkc = sezm.rotate_mix_grad %g, %x[%src] by %wd kernel %kc basis %cb
      lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>,
         tensor<?x25xf32>, tensor<1x64xf32>)
      -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>)
  %gx = sezm.segment_reduce %gxe over(%so, %sr)
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x16x64xf32>
  return %gx, %gwd, %gkc : tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>
}
