// Every op of test/Dialect/SeZM/ops.mlir with all of its results live: the
// kernels that sezm-compile makes of them are PTX that ptxas accepts for
// sm_90.
// REQUIRES: ptxas
// RUN: rm -rf %t && sezm-compile %s --emit=ptx -o %t
// RUN: ls %t | wc -l | FileCheck %s --check-prefix=COUNT
// RUN: for f in %t/*.ptx; do %ptxas -arch=sm_90 $f -o %t.cubin || exit 1; done
// RUN: cat %t/*.ptx | FileCheck %s

// COUNT: 88
// CHECK: .version 8.0
// CHECK: .target sm_90
// CHECK: .entry

func.func @geometry(%pos: tensor<?x3xf32>, %src: tensor<?xi64>,
                    %dst: tensor<?xi64>, %shift: tensor<?x3xf32>,
                    %so: tensor<?xi64>, %sr: tensor<?xi64>,
                    %do: tensor<?xi64>, %dr: tensor<?xi64>)
    -> (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<?xf32>, tensor<?x3xf32>, tensor<?x16xf32>, tensor<?x3xf32>, tensor<?x16x16xf32>, tensor<?x3xf32>, tensor<?xf32>, tensor<?x3xf32>, tensor<?x16xf32>, tensor<?x3xf32>, tensor<?x16x16xf32>, tensor<?x3xf32>) {
  %v0 = sezm.edge_vectors %pos[%src, %dst]
      : (tensor<?x3xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x3xf32>
  %v = sezm.edge_vectors %pos[%src, %dst] shift %shift
      : (tensor<?x3xf32>, tensor<?xi64>, tensor<?xi64>, tensor<?x3xf32>)
      -> tensor<?x3xf32>
  %gpos = sezm.edge_vectors_grad %v src(%so, %sr) dst(%do, %dr)
      : (tensor<?x3xf32>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>,
         tensor<?xi64>) -> tensor<?x3xf32>
  %env = sezm.envelope %v rcut = 6.0 exponent = 5
      : (tensor<?x3xf32>) -> tensor<?xf32>
  %genv = sezm.envelope_grad %env, %v rcut = 6.0 exponent = 5
      : (tensor<?xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %rbf = sezm.radial_basis %v rcut = 6.0 exponent = 7
      : (tensor<?x3xf32>) -> tensor<?x16xf32>
  %grbf = sezm.radial_basis_grad %rbf, %v rcut = 6.0 exponent = 7
      : (tensor<?x16xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %wd = sezm.wigner %v lmax = 3 : (tensor<?x3xf32>) -> tensor<?x16x16xf32>
  %gwv = sezm.wigner_grad %wd, %v lmax = 3
      : (tensor<?x16x16xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %genv2:2 = sezm.envelope_grad_grad %v, %env, %v rcut = 6.0 exponent = 5
      : (tensor<?x3xf32>, tensor<?xf32>, tensor<?x3xf32>)
      -> (tensor<?xf32>, tensor<?x3xf32>)
  %grbf2:2 = sezm.radial_basis_grad_grad %v, %rbf, %v rcut = 6.0 exponent = 7
      : (tensor<?x3xf32>, tensor<?x16xf32>, tensor<?x3xf32>)
      -> (tensor<?x16xf32>, tensor<?x3xf32>)
  %gwv2:2 = sezm.wigner_grad_grad %v, %wd, %v lmax = 3
      : (tensor<?x3xf32>, tensor<?x16x16xf32>, tensor<?x3xf32>)
      -> (tensor<?x16x16xf32>, tensor<?x3xf32>)
  return %v0, %v, %gpos, %env, %genv, %rbf, %grbf, %wd, %gwv, %genv2#0, %genv2#1, %grbf2#0, %grbf2#1, %gwv2#0, %gwv2#1 : tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<?xf32>, tensor<?x3xf32>, tensor<?x16xf32>, tensor<?x3xf32>, tensor<?x16x16xf32>, tensor<?x3xf32>, tensor<?xf32>, tensor<?x3xf32>, tensor<?x16xf32>, tensor<?x3xf32>, tensor<?x16x16xf32>, tensor<?x3xf32>
}

func.func @rotate_and_mix(%x: tensor<?x16x64xf32>, %src: tensor<?xi64>,
                          %wd: tensor<?x16x16xf32>, %kc: tensor<?x25xf32>,
                          %cb: tensor<1x64xf32>, %rad: tensor<?x4x64xf32>,
                          %so: tensor<?xi64>, %sr: tensor<?xi64>)
    -> (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<?x25xf32>, tensor<1x64xf32>, tensor<?x10x64xf32>, tensor<?x4x64xf32>, tensor<?x10x64xf32>, tensor<2x?x320xf32>, tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>, tensor<1x64xf32>, tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>, tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x4x64xf32>, tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?x16x64xf32>, tensor<?x16x64xf32>) {
  %xl = sezm.rotate %x[%src] by %wd lmax = 3
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>)
      -> tensor<?x10x64xf32>
  %gxe, %gwd = sezm.rotate_grad %xl, %x[%src] by %wd lmax = 3
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>,
         tensor<?x16x16xf32>) -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>)
  %y = sezm.mix %xl kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x25xf32>, tensor<1x64xf32>)
      -> tensor<?x10x64xf32>
  %y0 = sezm.mix %xl kernel %rad lmax = 3 rank = 0
      : (tensor<?x10x64xf32>, tensor<?x4x64xf32>) -> tensor<?x10x64xf32>
  %gxl, %gkc, %gcb = sezm.mix_grad %y, %xl kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<?x25xf32>,
         tensor<1x64xf32>)
      -> (tensor<?x10x64xf32>, tensor<?x25xf32>, tensor<1x64xf32>)
  %gxl0, %grad0 = sezm.mix_grad %y0, %xl kernel %rad lmax = 3 rank = 0
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<?x4x64xf32>)
      -> (tensor<?x10x64xf32>, tensor<?x4x64xf32>)
  %u = sezm.rotate_mix %x[%src] by %wd kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>,
         tensor<?x25xf32>, tensor<1x64xf32>) -> tensor<?x10x64xf32>
  %u0 = sezm.rotate_mix %x[%src] by %wd kernel %kc basis %cb lmax = 3 rank = 1
      focus_major = 2
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>,
         tensor<?x25xf32>, tensor<1x64xf32>) -> tensor<2x?x320xf32>
  %a, %b, %c, %d = sezm.rotate_mix_grad %u, %x[%src] by %wd kernel %kc
      basis %cb lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>,
         tensor<?x16x16xf32>, tensor<?x25xf32>, tensor<1x64xf32>)
      -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>,
          tensor<1x64xf32>)
  %gx, %gw2, %gk2 = sezm.rotate_mix_grad_reduce %u, %x[%src] by %wd
      kernel %kc basis %cb over(%so, %sr) lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>,
         tensor<?x16x16xf32>, tensor<?x25xf32>, tensor<1x64xf32>,
         tensor<?xi64>, tensor<?xi64>)
      -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>)
  %gx0, %gw0, %gk0 = sezm.rotate_mix_grad_reduce %u, %x[%src] by %wd
      kernel %rad over(%so, %sr) lmax = 3 rank = 0
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>,
         tensor<?x16x16xf32>, tensor<?x4x64xf32>, tensor<?xi64>,
         tensor<?xi64>)
      -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x4x64xf32>)
  %m = sezm.rotate_back %u by %wd lmax = 3
      : (tensor<?x10x64xf32>, tensor<?x16x16xf32>) -> tensor<?x16x64xf32>
  %gxl2, %gwd2 = sezm.rotate_back_grad %m, %u by %wd lmax = 3
      : (tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x16x16xf32>)
      -> (tensor<?x10x64xf32>, tensor<?x16x16xf32>)
  %gxr = sezm.segment_reduce %gxe over(%so, %sr)
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?xi64>)
      -> tensor<?x16x64xf32>
  %ge = sezm.segment_reduce_grad %gxr over(%so, %sr)
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?xi64>)
      -> tensor<?x16x64xf32>
  return %xl, %gxe, %gwd, %y, %y0, %gxl, %gkc, %gcb, %gxl0, %grad0, %u, %u0, %a, %b, %c, %d, %gx, %gw2, %gk2, %gx0, %gw0, %gk0, %m, %gxl2, %gwd2, %gxr, %ge : tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<?x25xf32>, tensor<1x64xf32>, tensor<?x10x64xf32>, tensor<?x4x64xf32>, tensor<?x10x64xf32>, tensor<2x?x320xf32>, tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>, tensor<1x64xf32>, tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>, tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x4x64xf32>, tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?x16x64xf32>, tensor<?x16x64xf32>
}

func.func @mixing_stack(%u: tensor<?x10x64xf32>, %w0: tensor<2x128x128xf32>,
                        %wu: tensor<2x96x96xf32>, %wv: tensor<2x96x96xf32>,
                        %gw: tensor<2x32x96xf32>, %wfc: tensor<32x2xf32>,
                        %ns: tensor<2x32xf32>)
    -> (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>, tensor<2x96x96xf32>, tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<2x32x96xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x10x64xf32>, tensor<32x2xf32>, tensor<?x10x64xf32>, tensor<32x2xf32>, tensor<2x32xf32>, tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<?x2xf32>) {
  %z = sezm.so2_linear %u weights(%w0, %wu, %wv) lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>) -> tensor<?x10x64xf32>
  %gu, %gw0, %gwu, %gwv = sezm.so2_linear_grad %z, %u weights(%w0, %wu, %wv)
      lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<2x128x128xf32>,
         tensor<2x96x96xf32>, tensor<2x96x96xf32>)
      -> (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
          tensor<2x96x96xf32>)
  %act = sezm.gate %z weight %gw lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x32x96xf32>) -> tensor<?x10x64xf32>
  %gz, %ggw = sezm.gate_grad %act, %z weight %gw lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<2x32x96xf32>)
      -> (tensor<?x10x64xf32>, tensor<2x32x96xf32>)
  %alpha = sezm.focus_compete %u weight %wfc lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<32x2xf32>) -> tensor<?x2xf32>
  %alpha2 = sezm.focus_compete %u weight %wfc norm %ns lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<32x2xf32>, tensor<2x32xf32>)
      -> tensor<?x2xf32>
  %gu2, %gwfc = sezm.focus_compete_grad %alpha, %u weight %wfc lmax = 3 focus = 2
      : (tensor<?x2xf32>, tensor<?x10x64xf32>, tensor<32x2xf32>)
      -> (tensor<?x10x64xf32>, tensor<32x2xf32>)
  %gu3, %gwfc3, %gns = sezm.focus_compete_grad %alpha2, %u weight %wfc norm %ns
      lmax = 3 focus = 2
      : (tensor<?x2xf32>, tensor<?x10x64xf32>, tensor<32x2xf32>,
         tensor<2x32xf32>)
      -> (tensor<?x10x64xf32>, tensor<32x2xf32>, tensor<2x32xf32>)
  %out = sezm.focus_scale %act by %alpha
      : (tensor<?x10x64xf32>, tensor<?x2xf32>) -> tensor<?x10x64xf32>
  %gy, %ga = sezm.focus_scale_grad %out, %act by %alpha
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<?x2xf32>)
      -> (tensor<?x10x64xf32>, tensor<?x2xf32>)
  return %z, %gu, %gw0, %gwu, %gwv, %act, %gz, %ggw, %alpha, %alpha2, %gu2, %gwfc, %gu3, %gwfc3, %gns, %out, %gy, %ga : tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>, tensor<2x96x96xf32>, tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<2x32x96xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x10x64xf32>, tensor<32x2xf32>, tensor<?x10x64xf32>, tensor<32x2xf32>, tensor<2x32xf32>, tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<?x2xf32>
}

func.func @aggregation(%xl: tensor<?x10x64xf32>, %wd: tensor<?x16x16xf32>,
                       %env: tensor<?xf32>, %isd: tensor<?xf32>,
                       %lg: tensor<?x2x1xf32>, %zn: tensor<2x1xf32>,
                       %do: tensor<?xi32>, %dr: tensor<?xi32>, %dst: tensor<?xi32>)
    -> (tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?x2x1xf32>, tensor<?xf32>, tensor<2x1xf32>) {
  %agg = sezm.envelope_aggregate %xl by %wd env %env norm %isd
      over(%do, %dr) lmax = 3
      : (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?xf32>,
         tensor<?xf32>, tensor<?xi32>, tensor<?xi32>) -> tensor<?x16x64xf32>
  %g1, %g2, %g3, %g4 = sezm.envelope_aggregate_grad %agg, %xl by %wd
      env %env norm %isd at %dst lmax = 3
      : (tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x16x16xf32>,
         tensor<?xf32>, tensor<?xf32>, tensor<?xi32>)
      -> (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?xf32>,
          tensor<?xf32>)
  %pre = sezm.attention_aggregate %xl by %wd logit %lg env %env null %zn
      over(%do, %dr) lmax = 3
      : (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?x2x1xf32>,
         tensor<?xf32>, tensor<2x1xf32>, tensor<?xi32>, tensor<?xi32>)
      -> tensor<?x16x64xf32>
  %h1, %h2, %h3, %h4, %h5 = sezm.attention_aggregate_grad %pre, %xl by %wd
      logit %lg env %env null %zn over(%do, %dr) lmax = 3
      : (tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x16x16xf32>,
         tensor<?x2x1xf32>, tensor<?xf32>, tensor<2x1xf32>, tensor<?xi32>,
         tensor<?xi32>)
      -> (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?x2x1xf32>,
          tensor<?xf32>, tensor<2x1xf32>)
  return %agg, %g1, %g2, %g3, %g4, %pre, %h1, %h2, %h3, %h4, %h5 : tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?x2x1xf32>, tensor<?xf32>, tensor<2x1xf32>
}

func.func @sizes(%x0: tensor<5x1x8xf64>, %x6: tensor<?x49x8xf32>,
                 %src: tensor<7xi32>, %w0: tensor<7x1x1xf64>,
                 %src6: tensor<?xi64>, %w6: tensor<?x49x49xf32>)
    -> (tensor<7x1x8xf64>, tensor<?x19x8xf32>) {
  %a = sezm.rotate %x0[%src] by %w0 lmax = 0
      : (tensor<5x1x8xf64>, tensor<7xi32>, tensor<7x1x1xf64>) -> tensor<7x1x8xf64>
  %b = sezm.rotate %x6[%src6] by %w6 lmax = 6
      : (tensor<?x49x8xf32>, tensor<?xi64>, tensor<?x49x49xf32>)
      -> tensor<?x19x8xf32>
  return %a, %b : tensor<7x1x8xf64>, tensor<?x19x8xf32>
}

func.func @grid_product(%a: tensor<?x27x32xf32>, %b: tensor<?x27x32xf32>,
                        %to: tensor<27x104xf32>, %from: tensor<104x27xf32>)
    -> (tensor<?x27x32xf32>, tensor<?x27x32xf32>, tensor<?x27x32xf32>) {
  %p = sezm.grid_product %a, %b grid(%to, %from)
      : (tensor<?x27x32xf32>, tensor<?x27x32xf32>, tensor<27x104xf32>,
         tensor<104x27xf32>) -> tensor<?x27x32xf32>
  %ga, %gb = sezm.grid_product_grad %p, %a, %b grid(%to, %from)
      : (tensor<?x27x32xf32>, tensor<?x27x32xf32>, tensor<?x27x32xf32>,
         tensor<27x104xf32>, tensor<104x27xf32>)
      -> (tensor<?x27x32xf32>, tensor<?x27x32xf32>)
  return %p, %ga, %gb
      : tensor<?x27x32xf32>, tensor<?x27x32xf32>, tensor<?x27x32xf32>
}

func.func @degree_linear(%x: tensor<?x16x32xf32>, %w: tensor<4x32x64xf32>)
    -> (tensor<?x16x64xf32>, tensor<?x16x32xf32>, tensor<4x32x64xf32>,
        tensor<4x64x32xf32>) {
  %xw = sezm.degree_linear %x weight %w lmax = 3
      : (tensor<?x16x32xf32>, tensor<4x32x64xf32>) -> tensor<?x16x64xf32>
  %back = sezm.degree_linear %xw weight %w lmax = 3 transposed
      : (tensor<?x16x64xf32>, tensor<4x32x64xf32>) -> tensor<?x16x32xf32>
  %gw = sezm.degree_linear_weight_grad %xw, %x lmax = 3
      : (tensor<?x16x64xf32>, tensor<?x16x32xf32>) -> tensor<4x32x64xf32>
  %gwt = sezm.degree_linear_weight_grad %xw, %x lmax = 3 transposed
      : (tensor<?x16x64xf32>, tensor<?x16x32xf32>) -> tensor<4x64x32xf32>
  return %xw, %back, %gw, %gwt : tensor<?x16x64xf32>, tensor<?x16x32xf32>,
      tensor<4x32x64xf32>, tensor<4x64x32xf32>
}
