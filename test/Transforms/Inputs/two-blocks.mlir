// Two SO(2) message blocks (lmax 3, C 64, rank 1) whose second block's
// features depend on the positions through the first.
func.func @energy(%pos: tensor<?x3xf32> {sezm.name = "positions", sezm.extents = ["N", ""]},
    %src: tensor<?xi64> {sezm.name = "src", sezm.extents = ["E"]},
    %dst: tensor<?xi64> {sezm.name = "dst", sezm.extents = ["E"]},
    %so: tensor<?xi64> {sezm.name = "src_order", sezm.csr_of = "src", sezm.extents = ["E"]},
    %sr: tensor<?xi64> {sezm.name = "src_rowptr", sezm.csr_of = "src", sezm.extents = ["N+1"]},
    %do: tensor<?xi64> {sezm.name = "dst_order", sezm.csr_of = "dst", sezm.extents = ["E"]},
    %dr: tensor<?xi64> {sezm.name = "dst_rowptr", sezm.csr_of = "dst", sezm.extents = ["N+1"]},
    %x: tensor<?x16x64xf32> {sezm.name = "features", sezm.extents = ["N", "", ""]},
    %wk: tensor<8x25xf32> {sezm.name = "radial_to_kernel"},
    %cb: tensor<1x64xf32> {sezm.name = "channel_basis"},
    %isd: tensor<?xf32> {sezm.name = "inv_sqrt_deg", sezm.extents = ["N"]})
    -> (tensor<f32> {sezm.name = "energy"}) {
  %v = sezm.edge_vectors %pos[%src, %dst]
      : (tensor<?x3xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x3xf32>
  %w = sezm.wigner %v lmax = 3 : (tensor<?x3xf32>) -> tensor<?x16x16xf32>
  %rbf = sezm.radial_basis %v rcut = 6.0 exponent = 7 : (tensor<?x3xf32>) -> tensor<?x8xf32>
  %env = sezm.envelope %v rcut = 6.0 exponent = 5 : (tensor<?x3xf32>) -> tensor<?xf32>
  %c0 = arith.constant 0 : index
  %edges = tensor.dim %rbf, %c0 : tensor<?x8xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty(%edges) : tensor<?x25xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<?x25xf32>) -> tensor<?x25xf32>
  %kc = linalg.matmul ins(%rbf, %wk : tensor<?x8xf32>, tensor<8x25xf32>)
                      outs(%init : tensor<?x25xf32>) -> tensor<?x25xf32>
  %u1 = sezm.rotate_mix %x[%src] by %w kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>, tensor<?x25xf32>,
         tensor<1x64xf32>) -> tensor<?x10x64xf32>
  %x2 = sezm.envelope_aggregate %u1 by %w env %env norm %isd over(%do, %dr) lmax = 3
      : (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?xf32>, tensor<?xf32>,
         tensor<?xi64>, tensor<?xi64>) -> tensor<?x16x64xf32>
  %u2 = sezm.rotate_mix %x2[%src] by %w kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>, tensor<?x25xf32>,
         tensor<1x64xf32>) -> tensor<?x10x64xf32>
  %x3 = sezm.envelope_aggregate %u2 by %w env %env norm %isd over(%do, %dr) lmax = 3
      : (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?xf32>, tensor<?xf32>,
         tensor<?xi64>, tensor<?xi64>) -> tensor<?x16x64xf32>
  %sq = arith.mulf %x3, %x3 : tensor<?x16x64xf32>
  %scalar = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%scalar : tensor<f32>) -> tensor<f32>
  %e = linalg.reduce ins(%sq : tensor<?x16x64xf32>) outs(%acc : tensor<f32>) dimensions = [0, 1, 2]
    (%in: f32, %out: f32) {
      %s = arith.addf %in, %out : f32
      linalg.yield %s : f32
    }
  return %e : tensor<f32>
}
