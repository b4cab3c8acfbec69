// A two-block SO(2) message-passing energy for water (H, O), in the shape of
// SeZM (lmax 3, C 8, rank 1): species embeddings as l = 0 features, edge
// geometry (Wigner-D, radial basis, envelope), per block a rotate+mix message
// with edge-conditioned kernels aggregated back into the atoms, and the
// energy as the sum of the squared features. `sezm-run --forces-of energy`
// adds forces and the virial by sezm-autodiff.
#edge = affine_map<(n, d, c) -> (n)>
#node = affine_map<(n, d, c) -> (n, d, c)>
#row = affine_map<(n) -> (n)>
// The species of type indices 0 and 1, and the cutoff: sezm-run and the
// runtime take them from here.
module attributes {sezm.type_map = ["H", "O"], sezm.rcut = 6.0 : f64} {
func.func @energy(%pos: tensor<?x3xf32> {sezm.name = "positions", sezm.extents = ["N", ""]},
    %shift: tensor<?x3xf32> {sezm.name = "shift", sezm.extents = ["E", ""]},
    %src: tensor<?xi64> {sezm.name = "src", sezm.extents = ["E"]},
    %dst: tensor<?xi64> {sezm.name = "dst", sezm.extents = ["E"]},
    %so: tensor<?xi64> {sezm.name = "src_order", sezm.csr_of = "src", sezm.extents = ["E"]},
    %sr: tensor<?xi64> {sezm.name = "src_rowptr", sezm.csr_of = "src", sezm.extents = ["N+1"]},
    %do: tensor<?xi64> {sezm.name = "dst_order", sezm.csr_of = "dst", sezm.extents = ["E"]},
    %dr: tensor<?xi64> {sezm.name = "dst_rowptr", sezm.csr_of = "dst", sezm.extents = ["N+1"]},
    %types: tensor<?xi64> {sezm.name = "types", sezm.extents = ["N"]},
    %emb: tensor<2x8xf32> {sezm.name = "embedding"},
    %wk: tensor<8x25xf32> {sezm.name = "radial_to_kernel"},
    %cb: tensor<1x8xf32> {sezm.name = "channel_basis"})
    -> (tensor<f32> {sezm.name = "energy"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %pos, %c0 : tensor<?x3xf32>

  // Features: each atom's species embedding in row l = 0, zero elsewhere.
  %x0e = tensor.empty(%n) : tensor<?x16x8xf32>
  %x0 = linalg.generic {indexing_maps = [#edge, #node],
                        iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%types : tensor<?xi64>) outs(%x0e : tensor<?x16x8xf32>) {
    ^bb0(%t: i64, %out: f32):
      %d = linalg.index 1 : index
      %c = linalg.index 2 : index
      %ti = arith.index_cast %t : i64 to index
      %v = tensor.extract %emb[%ti, %c] : tensor<2x8xf32>
      %first = arith.cmpi eq, %d, %c0 : index
      %r = arith.select %first, %v, %zero : f32
      linalg.yield %r : f32
  } -> tensor<?x16x8xf32>

  // Degree normalization 1/sqrt(1 + in-degree), from the destination CSR.
  %isde = tensor.empty(%n) : tensor<?xf32>
  %isd = linalg.generic {indexing_maps = [#row],
                         iterator_types = ["parallel"]}
      outs(%isde : tensor<?xf32>) {
    ^bb0(%out: f32):
      %i = linalg.index 0 : index
      %next = arith.addi %i, %c1 : index
      %lo = tensor.extract %dr[%i] : tensor<?xi64>
      %hi = tensor.extract %dr[%next] : tensor<?xi64>
      %deg = arith.subi %hi, %lo : i64
      %degf = arith.sitofp %deg : i64 to f32
      %one = arith.constant 1.0 : f32
      %s = arith.addf %degf, %one : f32
      %r = math.rsqrt %s : f32
      linalg.yield %r : f32
  } -> tensor<?xf32>

  // Edge geometry.
  %v = sezm.edge_vectors %pos[%src, %dst] shift %shift
      : (tensor<?x3xf32>, tensor<?xi64>, tensor<?xi64>, tensor<?x3xf32>)
      -> tensor<?x3xf32>
  %w = sezm.wigner %v lmax = 3 : (tensor<?x3xf32>) -> tensor<?x16x16xf32>
  %rbf = sezm.radial_basis %v rcut = 6.0 exponent = 7
      : (tensor<?x3xf32>) -> tensor<?x8xf32>
  %env = sezm.envelope %v rcut = 6.0 exponent = 5
      : (tensor<?x3xf32>) -> tensor<?xf32>
  %edges = tensor.dim %rbf, %c0 : tensor<?x8xf32>
  %kce = tensor.empty(%edges) : tensor<?x25xf32>
  %kci = linalg.fill ins(%zero : f32) outs(%kce : tensor<?x25xf32>)
      -> tensor<?x25xf32>
  %kc = linalg.matmul ins(%rbf, %wk : tensor<?x8xf32>, tensor<8x25xf32>)
      outs(%kci : tensor<?x25xf32>) -> tensor<?x25xf32>

  // Two message-passing blocks.
  %u1 = sezm.rotate_mix %x0[%src] by %w kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x8xf32>, tensor<?xi64>, tensor<?x16x16xf32>,
         tensor<?x25xf32>, tensor<1x8xf32>) -> tensor<?x10x8xf32>
  %x1 = sezm.envelope_aggregate %u1 by %w env %env norm %isd over(%do, %dr)
      lmax = 3 : (tensor<?x10x8xf32>, tensor<?x16x16xf32>, tensor<?xf32>,
                  tensor<?xf32>, tensor<?xi64>, tensor<?xi64>)
      -> tensor<?x16x8xf32>
  %u2 = sezm.rotate_mix %x1[%src] by %w kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x8xf32>, tensor<?xi64>, tensor<?x16x16xf32>,
         tensor<?x25xf32>, tensor<1x8xf32>) -> tensor<?x10x8xf32>
  %x2 = sezm.envelope_aggregate %u2 by %w env %env norm %isd over(%do, %dr)
      lmax = 3 : (tensor<?x10x8xf32>, tensor<?x16x16xf32>, tensor<?xf32>,
                  tensor<?xf32>, tensor<?xi64>, tensor<?xi64>)
      -> tensor<?x16x8xf32>

  %sq = arith.mulf %x2, %x2 : tensor<?x16x8xf32>
  %scalar = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%scalar : tensor<f32>)
      -> tensor<f32>
  %e = linalg.reduce ins(%sq : tensor<?x16x8xf32>) outs(%acc : tensor<f32>)
      dimensions = [0, 1, 2]
    (%in: f32, %out: f32) {
      %s = arith.addf %in, %out : f32
      linalg.yield %s : f32
    }
  return %e : tensor<f32>
}
} // module
