// SeZM-min (sezm-ops.md section 7): 2 interaction blocks, lmax 3, C 32,
// F 2 focus streams of Cf 32, Cw 64, rank-1 degree mixer, 3 SO(2) mixing
// layers (2 gated), 16 radial functions, rcut 6 A, envelope aggregation.
// The entry computes the energy; `--forces-of energy` adds forces and the
// virial by sezm-autodiff. Weights: make_weights.py writes them, from a
// seed, as weights.safetensors (one tensor per argument, by name).
//
// Per block: x += post_mix(aggregate(stack(rotate_mix(pre_mix(x)))))), the
// stack being u1 = u0 + gate(so2_linear(u0)), u2 = u1 + gate(so2_linear(u1)),
// out = alpha * (u2 + so2_linear(u2)) with alpha from focus_compete(u0).
// Readout: e_n = silu(x[n, 0, :] W1) W2 + bias[type_n]; E = sum_n e_n.
#edge = affine_map<(e, k) -> (e)>
#edgeRow = affine_map<(e, k) -> (e, k)>
#node = affine_map<(n, d, c) -> (n)>
#nodeRow = affine_map<(n, d, c) -> (n, d, c)>
#matrix = affine_map<(i, j) -> (i, j)>
#perNode = affine_map<(n, k) -> (n)>
#perNodeRow = affine_map<(n, k) -> (n, k)>
// The species of type indices 0 and 1, and the cutoff: sezm-run and the
// runtime take them from here.
module attributes {sezm.type_map = ["H", "O"], sezm.rcut = 6.0 : f64} {
func.func @energy(
    %pos: tensor<?x3xf32> {sezm.name = "positions", sezm.extents = ["N", ""]},
    %shift: tensor<?x3xf32> {sezm.name = "shift", sezm.extents = ["E", ""]},
    %src: tensor<?xi64> {sezm.name = "src", sezm.extents = ["E"]},
    %dst: tensor<?xi64> {sezm.name = "dst", sezm.extents = ["E"]},
    %so: tensor<?xi64> {sezm.name = "src_order", sezm.csr_of = "src", sezm.extents = ["E"]},
    %sr: tensor<?xi64> {sezm.name = "src_rowptr", sezm.csr_of = "src", sezm.extents = ["N+1"]},
    %do: tensor<?xi64> {sezm.name = "dst_order", sezm.csr_of = "dst", sezm.extents = ["E"]},
    %dr: tensor<?xi64> {sezm.name = "dst_rowptr", sezm.csr_of = "dst", sezm.extents = ["N+1"]},
    %types: tensor<?xi64> {sezm.name = "types", sezm.extents = ["N"]},
    %temb: tensor<2x32xf32> {sezm.name = "type_embedding"},
    %rw1: tensor<16x32xf32> {sezm.name = "radial.w1"},
    %rw2: tensor<32x128xf32> {sezm.name = "radial.w2"},
    %b0pre: tensor<4x32x64xf32> {sezm.name = "block0.pre_mix"},
    %b0wrh: tensor<32x64xf32> {sezm.name = "block0.radial_to_hidden"},
    %b0wmix: tensor<256x25xf32> {sezm.name = "block0.radial_to_kernel"},
    %b0cb: tensor<1x64xf32> {sezm.name = "block0.channel_basis"},
    %b0wfc: tensor<32x2xf32> {sezm.name = "block0.focus_compete"},
    %b0l0w0: tensor<2x128x128xf32> {sezm.name = "block0.layer0.w0"},
    %b0l0wu: tensor<2x96x96xf32> {sezm.name = "block0.layer0.wu"},
    %b0l0wv: tensor<2x96x96xf32> {sezm.name = "block0.layer0.wv"},
    %b0l0g: tensor<2x32x96xf32> {sezm.name = "block0.layer0.gate"},
    %b0l1w0: tensor<2x128x128xf32> {sezm.name = "block0.layer1.w0"},
    %b0l1wu: tensor<2x96x96xf32> {sezm.name = "block0.layer1.wu"},
    %b0l1wv: tensor<2x96x96xf32> {sezm.name = "block0.layer1.wv"},
    %b0l1g: tensor<2x32x96xf32> {sezm.name = "block0.layer1.gate"},
    %b0l2w0: tensor<2x128x128xf32> {sezm.name = "block0.layer2.w0"},
    %b0l2wu: tensor<2x96x96xf32> {sezm.name = "block0.layer2.wu"},
    %b0l2wv: tensor<2x96x96xf32> {sezm.name = "block0.layer2.wv"},
    %b0post: tensor<4x64x32xf32> {sezm.name = "block0.post_mix"},
    %b1pre: tensor<4x32x64xf32> {sezm.name = "block1.pre_mix"},
    %b1wrh: tensor<32x64xf32> {sezm.name = "block1.radial_to_hidden"},
    %b1wmix: tensor<256x25xf32> {sezm.name = "block1.radial_to_kernel"},
    %b1cb: tensor<1x64xf32> {sezm.name = "block1.channel_basis"},
    %b1wfc: tensor<32x2xf32> {sezm.name = "block1.focus_compete"},
    %b1l0w0: tensor<2x128x128xf32> {sezm.name = "block1.layer0.w0"},
    %b1l0wu: tensor<2x96x96xf32> {sezm.name = "block1.layer0.wu"},
    %b1l0wv: tensor<2x96x96xf32> {sezm.name = "block1.layer0.wv"},
    %b1l0g: tensor<2x32x96xf32> {sezm.name = "block1.layer0.gate"},
    %b1l1w0: tensor<2x128x128xf32> {sezm.name = "block1.layer1.w0"},
    %b1l1wu: tensor<2x96x96xf32> {sezm.name = "block1.layer1.wu"},
    %b1l1wv: tensor<2x96x96xf32> {sezm.name = "block1.layer1.wv"},
    %b1l1g: tensor<2x32x96xf32> {sezm.name = "block1.layer1.gate"},
    %b1l2w0: tensor<2x128x128xf32> {sezm.name = "block1.layer2.w0"},
    %b1l2wu: tensor<2x96x96xf32> {sezm.name = "block1.layer2.wu"},
    %b1l2wv: tensor<2x96x96xf32> {sezm.name = "block1.layer2.wv"},
    %b1post: tensor<4x64x32xf32> {sezm.name = "block1.post_mix"},
    %ow1: tensor<32x64xf32> {sezm.name = "readout.w1"},
    %ow2: tensor<64x1xf32> {sezm.name = "readout.w2"},
    %obias: tensor<2xf32> {sezm.name = "readout.type_bias"})
    -> (tensor<f32> {sezm.name = "energy"}) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %quarter = arith.constant 0.25 : f32
  %n = tensor.dim %pos, %c0 : tensor<?x3xf32>

  // Node features: the species embedding in the l = 0 row, zero elsewhere.
  %x0e = tensor.empty(%n) : tensor<?x16x32xf32>
  %x0 = linalg.generic {indexing_maps = [#node, #nodeRow],
                        iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%types : tensor<?xi64>) outs(%x0e : tensor<?x16x32xf32>) {
    ^bb0(%t: i64, %out: f32):
      %d = linalg.index 1 : index
      %c = linalg.index 2 : index
      %ti = arith.index_cast %t : i64 to index
      %h = tensor.extract %temb[%ti, %c] : tensor<2x32xf32>
      %first = arith.cmpi eq, %d, %c0 : index
      %r = arith.select %first, %h, %zero : f32
      linalg.yield %r : f32
  } -> tensor<?x16x32xf32>

  // Edge geometry, shared by the blocks.
  %v = sezm.edge_vectors %pos[%src, %dst] shift %shift
      : (tensor<?x3xf32>, tensor<?xi64>, tensor<?xi64>, tensor<?x3xf32>)
      -> tensor<?x3xf32>
  %w = sezm.wigner %v lmax = 3 : (tensor<?x3xf32>) -> tensor<?x16x16xf32>
  %rbf = sezm.radial_basis %v rcut = 6.0 exponent = 7
      : (tensor<?x3xf32>) -> tensor<?x16xf32>
  %env = sezm.envelope %v rcut = 6.0 exponent = 5
      : (tensor<?x3xf32>) -> tensor<?xf32>
  %edges = tensor.dim %rbf, %c0 : tensor<?x16xf32>

  // Radial features: (silu(rbf W1) W2) * env + T[t_src] + T[t_dst], as
  // (E, 4 degrees x 32 channels).
  %h0e = tensor.empty(%edges) : tensor<?x32xf32>
  %h0i = linalg.fill ins(%zero : f32) outs(%h0e : tensor<?x32xf32>)
      -> tensor<?x32xf32>
  %h0 = linalg.matmul ins(%rbf, %rw1 : tensor<?x16xf32>, tensor<16x32xf32>)
      outs(%h0i : tensor<?x32xf32>) -> tensor<?x32xf32>
  // silu(h) = h sigmoid(h), sigmoid(h) = (1 + tanh(h / 2)) / 2: finite
  // derivatives for any h, where 1 / (1 + exp(-h)) overflows.
  %halves32 = linalg.fill ins(%half : f32) outs(%h0e : tensor<?x32xf32>)
      -> tensor<?x32xf32>
  %h0h = arith.mulf %h0, %halves32 : tensor<?x32xf32>
  %h0t = math.tanh %h0h : tensor<?x32xf32>
  %h0th = arith.mulf %h0t, %halves32 : tensor<?x32xf32>
  %h0sig = arith.addf %h0th, %halves32 : tensor<?x32xf32>
  %h0act = arith.mulf %h0, %h0sig : tensor<?x32xf32>
  %r0e = tensor.empty(%edges) : tensor<?x128xf32>
  %r0i = linalg.fill ins(%zero : f32) outs(%r0e : tensor<?x128xf32>)
      -> tensor<?x128xf32>
  %r0 = linalg.matmul ins(%h0act, %rw2 : tensor<?x32xf32>, tensor<32x128xf32>)
      outs(%r0i : tensor<?x128xf32>) -> tensor<?x128xf32>
  %env1 = tensor.expand_shape %env [[0, 1]] output_shape [%edges, 1]
      : tensor<?xf32> into tensor<?x1xf32>
  %ones128 = arith.constant dense<1.0> : tensor<1x128xf32>
  %envb = linalg.matmul ins(%env1, %ones128 : tensor<?x1xf32>, tensor<1x128xf32>)
      outs(%r0i : tensor<?x128xf32>) -> tensor<?x128xf32>
  %r1 = arith.mulf %r0, %envb : tensor<?x128xf32>
  %pair = linalg.generic {indexing_maps = [#edge, #edge, #edgeRow],
                          iterator_types = ["parallel", "parallel"]}
      ins(%src, %dst : tensor<?xi64>, tensor<?xi64>)
      outs(%r0e : tensor<?x128xf32>) {
    ^bb0(%s: i64, %t: i64, %out: f32):
      %k = linalg.index 1 : index
      %c = arith.remui %k, %c32 : index
      %si = arith.index_cast %s : i64 to index
      %ti = arith.index_cast %t : i64 to index
      %ts = tensor.extract %types[%si] : tensor<?xi64>
      %tt = tensor.extract %types[%ti] : tensor<?xi64>
      %tsi = arith.index_cast %ts : i64 to index
      %tti = arith.index_cast %tt : i64 to index
      %a = tensor.extract %temb[%tsi, %c] : tensor<2x32xf32>
      %b = tensor.extract %temb[%tti, %c] : tensor<2x32xf32>
      %r = arith.addf %a, %b : f32
      linalg.yield %r : f32
  } -> tensor<?x128xf32>
  %rad = arith.addf %r1, %pair : tensor<?x128xf32>

  // Degree normalization (sum over incoming edges of env^2 + 0.25)^(-1/2).
  %env2 = arith.mulf %env1, %env1 : tensor<?x1xf32>
  %deg = sezm.segment_reduce %env2 over(%do, %dr)
      : (tensor<?x1xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x1xf32>
  %q0 = tensor.empty(%n) : tensor<?x1xf32>
  %q = linalg.fill ins(%quarter : f32) outs(%q0 : tensor<?x1xf32>)
      -> tensor<?x1xf32>
  %degq = arith.addf %deg, %q : tensor<?x1xf32>
  %isd1 = math.rsqrt %degq : tensor<?x1xf32>
  %isd = tensor.collapse_shape %isd1 [[0, 1]] : tensor<?x1xf32> into tensor<?xf32>

  // Block 0.
  %b0xw = sezm.degree_linear %x0 weight %b0pre lmax = 3
      : (tensor<?x16x32xf32>, tensor<4x32x64xf32>) -> tensor<?x16x64xf32>
  // rad_w = rad Wrh per degree, as one matrix product with blockdiag(Wrh).
  %b0wbe = tensor.empty() : tensor<128x256xf32>
  %b0wb = linalg.generic {indexing_maps = [#matrix],
                          iterator_types = ["parallel", "parallel"]}
      outs(%b0wbe : tensor<128x256xf32>) {
    ^bb0(%out: f32):
      %i = linalg.index 0 : index
      %j = linalg.index 1 : index
      %li = arith.divui %i, %c32 : index
      %lj = arith.divui %j, %c64 : index
      %ci = arith.remui %i, %c32 : index
      %cj = arith.remui %j, %c64 : index
      %same = arith.cmpi eq, %li, %lj : index
      %value = tensor.extract %b0wrh[%ci, %cj] : tensor<32x64xf32>
      %r = arith.select %same, %value, %zero : f32
      linalg.yield %r : f32
  } -> tensor<128x256xf32>
  %b0rwe = tensor.empty(%edges) : tensor<?x256xf32>
  %b0rwi = linalg.fill ins(%zero : f32) outs(%b0rwe : tensor<?x256xf32>)
      -> tensor<?x256xf32>
  %b0radw = linalg.matmul ins(%rad, %b0wb : tensor<?x128xf32>, tensor<128x256xf32>)
      outs(%b0rwi : tensor<?x256xf32>) -> tensor<?x256xf32>
  %b0kce = tensor.empty(%edges) : tensor<?x25xf32>
  %b0kci = linalg.fill ins(%zero : f32) outs(%b0kce : tensor<?x25xf32>)
      -> tensor<?x25xf32>
  %b0kc = linalg.matmul ins(%b0radw, %b0wmix : tensor<?x256xf32>, tensor<256x25xf32>)
      outs(%b0kci : tensor<?x25xf32>) -> tensor<?x25xf32>
  %b0u0 = sezm.rotate_mix %b0xw[%src] by %w kernel %b0kc basis %b0cb lmax = 3 rank = 1
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>,
         tensor<?x25xf32>, tensor<1x64xf32>) -> tensor<?x10x64xf32>
  %b0alpha = sezm.focus_compete %b0u0 weight %b0wfc lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<32x2xf32>) -> tensor<?x2xf32>
  %b0z0 = sezm.so2_linear %b0u0 weights(%b0l0w0, %b0l0wu, %b0l0wv) lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>) -> tensor<?x10x64xf32>
  %b0a0 = sezm.gate %b0z0 weight %b0l0g lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x32x96xf32>) -> tensor<?x10x64xf32>
  %b0u1 = arith.addf %b0u0, %b0a0 : tensor<?x10x64xf32>
  %b0z1 = sezm.so2_linear %b0u1 weights(%b0l1w0, %b0l1wu, %b0l1wv) lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>) -> tensor<?x10x64xf32>
  %b0a1 = sezm.gate %b0z1 weight %b0l1g lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x32x96xf32>) -> tensor<?x10x64xf32>
  %b0u2 = arith.addf %b0u1, %b0a1 : tensor<?x10x64xf32>
  %b0z2 = sezm.so2_linear %b0u2 weights(%b0l2w0, %b0l2wu, %b0l2wv) lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>) -> tensor<?x10x64xf32>
  %b0y = arith.addf %b0u2, %b0z2 : tensor<?x10x64xf32>
  %b0out = sezm.focus_scale %b0y by %b0alpha
      : (tensor<?x10x64xf32>, tensor<?x2xf32>) -> tensor<?x10x64xf32>
  %b0agg = sezm.envelope_aggregate %b0out by %w env %env norm %isd over(%do, %dr)
      lmax = 3 : (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?xf32>,
                  tensor<?xf32>, tensor<?xi64>, tensor<?xi64>)
      -> tensor<?x16x64xf32>
  %b0mixed = sezm.degree_linear %b0agg weight %b0post lmax = 3
      : (tensor<?x16x64xf32>, tensor<4x64x32xf32>) -> tensor<?x16x32xf32>
  %x1 = arith.addf %x0, %b0mixed : tensor<?x16x32xf32>

  // Block 1.
  %b1xw = sezm.degree_linear %x1 weight %b1pre lmax = 3
      : (tensor<?x16x32xf32>, tensor<4x32x64xf32>) -> tensor<?x16x64xf32>
  // rad_w = rad Wrh per degree, as one matrix product with blockdiag(Wrh).
  %b1wbe = tensor.empty() : tensor<128x256xf32>
  %b1wb = linalg.generic {indexing_maps = [#matrix],
                          iterator_types = ["parallel", "parallel"]}
      outs(%b1wbe : tensor<128x256xf32>) {
    ^bb0(%out: f32):
      %i = linalg.index 0 : index
      %j = linalg.index 1 : index
      %li = arith.divui %i, %c32 : index
      %lj = arith.divui %j, %c64 : index
      %ci = arith.remui %i, %c32 : index
      %cj = arith.remui %j, %c64 : index
      %same = arith.cmpi eq, %li, %lj : index
      %value = tensor.extract %b1wrh[%ci, %cj] : tensor<32x64xf32>
      %r = arith.select %same, %value, %zero : f32
      linalg.yield %r : f32
  } -> tensor<128x256xf32>
  %b1rwe = tensor.empty(%edges) : tensor<?x256xf32>
  %b1rwi = linalg.fill ins(%zero : f32) outs(%b1rwe : tensor<?x256xf32>)
      -> tensor<?x256xf32>
  %b1radw = linalg.matmul ins(%rad, %b1wb : tensor<?x128xf32>, tensor<128x256xf32>)
      outs(%b1rwi : tensor<?x256xf32>) -> tensor<?x256xf32>
  %b1kce = tensor.empty(%edges) : tensor<?x25xf32>
  %b1kci = linalg.fill ins(%zero : f32) outs(%b1kce : tensor<?x25xf32>)
      -> tensor<?x25xf32>
  %b1kc = linalg.matmul ins(%b1radw, %b1wmix : tensor<?x256xf32>, tensor<256x25xf32>)
      outs(%b1kci : tensor<?x25xf32>) -> tensor<?x25xf32>
  %b1u0 = sezm.rotate_mix %b1xw[%src] by %w kernel %b1kc basis %b1cb lmax = 3 rank = 1
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>,
         tensor<?x25xf32>, tensor<1x64xf32>) -> tensor<?x10x64xf32>
  %b1alpha = sezm.focus_compete %b1u0 weight %b1wfc lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<32x2xf32>) -> tensor<?x2xf32>
  %b1z0 = sezm.so2_linear %b1u0 weights(%b1l0w0, %b1l0wu, %b1l0wv) lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>) -> tensor<?x10x64xf32>
  %b1a0 = sezm.gate %b1z0 weight %b1l0g lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x32x96xf32>) -> tensor<?x10x64xf32>
  %b1u1 = arith.addf %b1u0, %b1a0 : tensor<?x10x64xf32>
  %b1z1 = sezm.so2_linear %b1u1 weights(%b1l1w0, %b1l1wu, %b1l1wv) lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>) -> tensor<?x10x64xf32>
  %b1a1 = sezm.gate %b1z1 weight %b1l1g lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x32x96xf32>) -> tensor<?x10x64xf32>
  %b1u2 = arith.addf %b1u1, %b1a1 : tensor<?x10x64xf32>
  %b1z2 = sezm.so2_linear %b1u2 weights(%b1l2w0, %b1l2wu, %b1l2wv) lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>) -> tensor<?x10x64xf32>
  %b1y = arith.addf %b1u2, %b1z2 : tensor<?x10x64xf32>
  %b1out = sezm.focus_scale %b1y by %b1alpha
      : (tensor<?x10x64xf32>, tensor<?x2xf32>) -> tensor<?x10x64xf32>
  %b1agg = sezm.envelope_aggregate %b1out by %w env %env norm %isd over(%do, %dr)
      lmax = 3 : (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?xf32>,
                  tensor<?xf32>, tensor<?xi64>, tensor<?xi64>)
      -> tensor<?x16x64xf32>
  %b1mixed = sezm.degree_linear %b1agg weight %b1post lmax = 3
      : (tensor<?x16x64xf32>, tensor<4x64x32xf32>) -> tensor<?x16x32xf32>
  %x2 = arith.addf %x1, %b1mixed : tensor<?x16x32xf32>

  // Readout from the l = 0 row: x[n, 0, :] W1 as a product of the
  // flattened features with W1 placed in the rows of row 0.
  %xf = tensor.collapse_shape %x2 [[0], [1, 2]]
      : tensor<?x16x32xf32> into tensor<?x512xf32>
  %pade = tensor.empty() : tensor<512x64xf32>
  %pad = linalg.generic {indexing_maps = [#matrix],
                         iterator_types = ["parallel", "parallel"]}
      outs(%pade : tensor<512x64xf32>) {
    ^bb0(%out: f32):
      %i = linalg.index 0 : index
      %j = linalg.index 1 : index
      %inRow0 = arith.cmpi ult, %i, %c32 : index
      %last = arith.constant 31 : index
      %is = arith.minui %i, %last : index
      %value = tensor.extract %ow1[%is, %j] : tensor<32x64xf32>
      %r = arith.select %inRow0, %value, %zero : f32
      linalg.yield %r : f32
  } -> tensor<512x64xf32>
  %he = tensor.empty(%n) : tensor<?x64xf32>
  %hi = linalg.fill ins(%zero : f32) outs(%he : tensor<?x64xf32>)
      -> tensor<?x64xf32>
  %hn = linalg.matmul ins(%xf, %pad : tensor<?x512xf32>, tensor<512x64xf32>)
      outs(%hi : tensor<?x64xf32>) -> tensor<?x64xf32>
  %halves64 = linalg.fill ins(%half : f32) outs(%he : tensor<?x64xf32>)
      -> tensor<?x64xf32>
  %hh = arith.mulf %hn, %halves64 : tensor<?x64xf32>
  %ht = math.tanh %hh : tensor<?x64xf32>
  %hth = arith.mulf %ht, %halves64 : tensor<?x64xf32>
  %hsig = arith.addf %hth, %halves64 : tensor<?x64xf32>
  %hact = arith.mulf %hn, %hsig : tensor<?x64xf32>
  %ee = tensor.empty(%n) : tensor<?x1xf32>
  %ei = linalg.fill ins(%zero : f32) outs(%ee : tensor<?x1xf32>)
      -> tensor<?x1xf32>
  %en = linalg.matmul ins(%hact, %ow2 : tensor<?x64xf32>, tensor<64x1xf32>)
      outs(%ei : tensor<?x1xf32>) -> tensor<?x1xf32>
  %bias = linalg.generic {indexing_maps = [#perNode, #perNodeRow],
                          iterator_types = ["parallel", "parallel"]}
      ins(%types : tensor<?xi64>) outs(%ee : tensor<?x1xf32>) {
    ^bb0(%t: i64, %out: f32):
      %ti = arith.index_cast %t : i64 to index
      %r = tensor.extract %obias[%ti] : tensor<2xf32>
      linalg.yield %r : f32
  } -> tensor<?x1xf32>
  %atom = arith.addf %en, %bias : tensor<?x1xf32>
  %scalar = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%scalar : tensor<f32>)
      -> tensor<f32>
  %e = linalg.reduce ins(%atom : tensor<?x1xf32>) outs(%acc : tensor<f32>)
      dimensions = [0, 1]
    (%in: f32, %out: f32) {
      %s = arith.addf %in, %out : f32
      linalg.yield %s : f32
    }
  return %e : tensor<f32>
}
} // module
