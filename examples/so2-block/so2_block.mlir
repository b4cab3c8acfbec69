// One SO(2) message-passing block of a SeZM model (sezm-ops.md 3.0-3.6a):
// edge geometry, Wigner-D and radial basis from the edge vectors, the
// rotate+mix message in the edge frame, and the envelope-weighted,
// degree-normalized aggregation into the receiving atoms. Its inputs are
// written by make_inputs.py; `make demo` runs it with sezm-run.

func.func @message_block(
    %positions: tensor<?x3xf32> {sezm.name = "positions"},
    %src: tensor<?xi64> {sezm.name = "src"},
    %dst: tensor<?xi64> {sezm.name = "dst"},
    %dst_order: tensor<?xi64> {sezm.name = "dst_order"},
    %dst_rowptr: tensor<?xi64> {sezm.name = "dst_rowptr"},
    %features: tensor<?x16x64xf32> {sezm.name = "features"},
    %radial_to_kernel: tensor<16x25xf32> {sezm.name = "radial_to_kernel"},
    %channel_basis: tensor<1x64xf32> {sezm.name = "channel_basis"})
    -> (tensor<?x16x64xf32> {sezm.name = "aggregated"},
        tensor<?xf32> {sezm.name = "inv_sqrt_degree"}) {
  %v = sezm.edge_vectors %positions[%src, %dst]
      : (tensor<?x3xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x3xf32>
  %wigner = sezm.wigner %v lmax = 3 : (tensor<?x3xf32>) -> tensor<?x16x16xf32>
  %env = sezm.envelope %v rcut = 6.0 exponent = 5
      : (tensor<?x3xf32>) -> tensor<?xf32>
  %rbf = sezm.radial_basis %v rcut = 6.0 exponent = 7
      : (tensor<?x3xf32>) -> tensor<?x16xf32>

  // The compact degree kernel kc = rbf @ W (E, KSZ = 25), an upstream matmul.
  %c0 = arith.constant 0 : index
  %edges = tensor.dim %rbf, %c0 : tensor<?x16xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty(%edges) : tensor<?x25xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<?x25xf32>)
      -> tensor<?x25xf32>
  %kc = linalg.matmul ins(%rbf, %radial_to_kernel
                          : tensor<?x16xf32>, tensor<16x25xf32>)
                      outs(%init : tensor<?x25xf32>) -> tensor<?x25xf32>

  %u = sezm.rotate_mix %features[%src] by %wigner kernel %kc
      basis %channel_basis lmax = 3 rank = 1
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>,
         tensor<?x25xf32>, tensor<1x64xf32>) -> tensor<?x10x64xf32>

  // inv_sqrt_deg[n] = (sum_{dst = n} env^2 + 0.25)^(-1/2).
  %env2 = arith.mulf %env, %env : tensor<?xf32>
  %degree = sezm.segment_reduce %env2 over(%dst_order, %dst_rowptr)
      : (tensor<?xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?xf32>
  %nodes = tensor.dim %degree, %c0 : tensor<?xf32>
  %quarter = arith.constant 0.25 : f32
  %floor_empty = tensor.empty(%nodes) : tensor<?xf32>
  %floor = linalg.fill ins(%quarter : f32) outs(%floor_empty : tensor<?xf32>)
      -> tensor<?xf32>
  %floored = arith.addf %degree, %floor : tensor<?xf32>
  %isd = math.rsqrt %floored : tensor<?xf32>

  %aggregated = sezm.envelope_aggregate %u by %wigner env %env norm %isd
      over(%dst_order, %dst_rowptr) lmax = 3
      : (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?xf32>,
         tensor<?xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x16x64xf32>
  return %aggregated, %isd : tensor<?x16x64xf32>, tensor<?xf32>
}
