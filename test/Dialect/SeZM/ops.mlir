// Round trip of every sezm op: parse, print, parse again; and the same
// through the generic form.
// RUN: sezm-opt %s | sezm-opt | FileCheck %s
// RUN: sezm-opt %s --mlir-print-op-generic | sezm-opt | FileCheck %s

// CHECK-LABEL: func.func @geometry
func.func @geometry(%pos: tensor<?x3xf32>, %src: tensor<?xi64>,
                    %dst: tensor<?xi64>, %shift: tensor<?x3xf32>,
                    %so: tensor<?xi64>, %sr: tensor<?xi64>,
                    %do: tensor<?xi64>, %dr: tensor<?xi64>,
                    %freqs: tensor<16xf32>) {
  // CHECK: sezm.edge_vectors %{{.*}}[%{{.*}}, %{{.*}}] : (tensor<?x3xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x3xf32>
  %v0 = sezm.edge_vectors %pos[%src, %dst]
      : (tensor<?x3xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x3xf32>
  // CHECK: sezm.edge_vectors %{{.*}}[%{{.*}}, %{{.*}}] shift %{{.*}} : (tensor<?x3xf32>, tensor<?xi64>, tensor<?xi64>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %v = sezm.edge_vectors %pos[%src, %dst] shift %shift
      : (tensor<?x3xf32>, tensor<?xi64>, tensor<?xi64>, tensor<?x3xf32>)
      -> tensor<?x3xf32>
  // CHECK: sezm.edge_vectors_grad %{{.*}} src(%{{.*}}, %{{.*}}) dst(%{{.*}}, %{{.*}}) : {{.*}} -> tensor<?x3xf32>
  %gpos = sezm.edge_vectors_grad %v src(%so, %sr) dst(%do, %dr)
      : (tensor<?x3xf32>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>,
         tensor<?xi64>) -> tensor<?x3xf32>
  // CHECK: sezm.envelope %{{.*}} rcut = 6.000000e+00 exponent = 5 : (tensor<?x3xf32>) -> tensor<?xf32>
  %env = sezm.envelope %v rcut = 6.0 exponent = 5
      : (tensor<?x3xf32>) -> tensor<?xf32>
  // CHECK: sezm.envelope_grad %{{.*}}, %{{.*}} rcut = 6.000000e+00 exponent = 5 : (tensor<?xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %genv = sezm.envelope_grad %env, %v rcut = 6.0 exponent = 5
      : (tensor<?xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  // CHECK: sezm.radial_basis %{{.*}} rcut = 6.000000e+00 exponent = 7 : (tensor<?x3xf32>) -> tensor<?x16xf32>
  %rbf = sezm.radial_basis %v rcut = 6.0 exponent = 7
      : (tensor<?x3xf32>) -> tensor<?x16xf32>
  // CHECK: sezm.radial_basis_grad %{{.*}}, %{{.*}} rcut = 6.000000e+00 exponent = 7 : (tensor<?x16xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %grbf = sezm.radial_basis_grad %rbf, %v rcut = 6.0 exponent = 7
      : (tensor<?x16xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  // CHECK: sezm.radial_basis %{{.*}} freqs %{{.*}} rcut = 6.000000e+00 exponent = 7 : (tensor<?x3xf32>, tensor<16xf32>) -> tensor<?x16xf32>
  %rbfw = sezm.radial_basis %v freqs %freqs rcut = 6.0 exponent = 7
      : (tensor<?x3xf32>, tensor<16xf32>) -> tensor<?x16xf32>
  // CHECK: sezm.radial_basis_grad %{{.*}}, %{{.*}} freqs %{{.*}} rcut = 6.000000e+00 exponent = 7 : (tensor<?x16xf32>, tensor<?x3xf32>, tensor<16xf32>) -> tensor<?x3xf32>
  %grbfw = sezm.radial_basis_grad %rbfw, %v freqs %freqs rcut = 6.0 exponent = 7
      : (tensor<?x16xf32>, tensor<?x3xf32>, tensor<16xf32>) -> tensor<?x3xf32>
  // CHECK: sezm.wigner %{{.*}} lmax = 3 : (tensor<?x3xf32>) -> tensor<?x16x16xf32>
  %wd = sezm.wigner %v lmax = 3 : (tensor<?x3xf32>) -> tensor<?x16x16xf32>
  // CHECK: sezm.wigner_grad %{{.*}}, %{{.*}} lmax = 3 : (tensor<?x16x16xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %gwv = sezm.wigner_grad %wd, %v lmax = 3
      : (tensor<?x16x16xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  // CHECK: sezm.envelope_grad_grad %{{.*}}, %{{.*}}, %{{.*}} rcut = 6.000000e+00 exponent = 5 : (tensor<?x3xf32>, tensor<?xf32>, tensor<?x3xf32>) -> (tensor<?xf32>, tensor<?x3xf32>)
  %genv2:2 = sezm.envelope_grad_grad %v, %env, %v rcut = 6.0 exponent = 5
      : (tensor<?x3xf32>, tensor<?xf32>, tensor<?x3xf32>)
      -> (tensor<?xf32>, tensor<?x3xf32>)
  // CHECK: sezm.radial_basis_grad_grad %{{.*}}, %{{.*}}, %{{.*}} rcut = 6.000000e+00 exponent = 7 : (tensor<?x3xf32>, tensor<?x16xf32>, tensor<?x3xf32>) -> (tensor<?x16xf32>, tensor<?x3xf32>)
  %grbf2:2 = sezm.radial_basis_grad_grad %v, %rbf, %v rcut = 6.0 exponent = 7
      : (tensor<?x3xf32>, tensor<?x16xf32>, tensor<?x3xf32>)
      -> (tensor<?x16xf32>, tensor<?x3xf32>)
  // CHECK: sezm.wigner_grad_grad %{{.*}}, %{{.*}}, %{{.*}} lmax = 3 : (tensor<?x3xf32>, tensor<?x16x16xf32>, tensor<?x3xf32>) -> (tensor<?x16x16xf32>, tensor<?x3xf32>)
  %gwv2:2 = sezm.wigner_grad_grad %v, %wd, %v lmax = 3
      : (tensor<?x3xf32>, tensor<?x16x16xf32>, tensor<?x3xf32>)
      -> (tensor<?x16x16xf32>, tensor<?x3xf32>)
  return
}

// CHECK-LABEL: func.func @rotate_and_mix
func.func @rotate_and_mix(%x: tensor<?x16x64xf32>, %src: tensor<?xi64>,
                          %wd: tensor<?x16x16xf32>, %kc: tensor<?x25xf32>,
                          %cb: tensor<1x64xf32>, %rad: tensor<?x4x64xf32>,
                          %so: tensor<?xi64>, %sr: tensor<?xi64>,
                          %wk: tensor<?x46xf32>, %u4: tensor<4x10x64xf32>,
                          %x5: tensor<5x16x64xf32>, %src4: tensor<4xi64>,
                          %wd4: tensor<4x16x16xf32>, %kc4: tensor<4x25xf32>,
                          %so9: tensor<9xi64>, %sr6: tensor<6xi64>) {
  // CHECK: sezm.rotate %{{.*}}[%{{.*}}] by %{{.*}} lmax = 3 : {{.*}} -> tensor<?x10x64xf32>
  %xl = sezm.rotate %x[%src] by %wd lmax = 3
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>)
      -> tensor<?x10x64xf32>
  // CHECK: sezm.rotate_grad %{{.*}}, %{{.*}}[%{{.*}}] by %{{.*}} lmax = 3 : {{.*}} -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>)
  %gxe, %gwd = sezm.rotate_grad %xl, %x[%src] by %wd lmax = 3
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>,
         tensor<?x16x16xf32>) -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>)
  // CHECK: sezm.mix %{{.*}} kernel %{{.*}} basis %{{.*}} lmax = 3 rank = 1 : {{.*}} -> tensor<?x10x64xf32>
  %y = sezm.mix %xl kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x25xf32>, tensor<1x64xf32>)
      -> tensor<?x10x64xf32>
  // CHECK: sezm.mix %{{.*}} kernel %{{.*}} lmax = 3 rank = 0 : (tensor<?x10x64xf32>, tensor<?x4x64xf32>) -> tensor<?x10x64xf32>
  %y0 = sezm.mix %xl kernel %rad lmax = 3 rank = 0
      : (tensor<?x10x64xf32>, tensor<?x4x64xf32>) -> tensor<?x10x64xf32>
  // CHECK: sezm.mix_grad %{{.*}}, %{{.*}} kernel %{{.*}} basis %{{.*}} lmax = 3 rank = 1 : {{.*}} -> (tensor<?x10x64xf32>, tensor<?x25xf32>, tensor<1x64xf32>)
  %gxl, %gkc, %gcb = sezm.mix_grad %y, %xl kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<?x25xf32>,
         tensor<1x64xf32>)
      -> (tensor<?x10x64xf32>, tensor<?x25xf32>, tensor<1x64xf32>)
  // CHECK: sezm.mix_grad %{{.*}}, %{{.*}} kernel %{{.*}} lmax = 3 rank = 0 : {{.*}} -> (tensor<?x10x64xf32>, tensor<?x4x64xf32>)
  %gxl0, %grad0 = sezm.mix_grad %y0, %xl kernel %rad lmax = 3 rank = 0
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<?x4x64xf32>)
      -> (tensor<?x10x64xf32>, tensor<?x4x64xf32>)
  // CHECK: sezm.rotate_mix %{{.*}}[%{{.*}}] by %{{.*}} kernel %{{.*}} basis %{{.*}} lmax = 3 rank = 1 : {{.*}} -> tensor<?x10x64xf32>
  %u = sezm.rotate_mix %x[%src] by %wd kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>,
         tensor<?x25xf32>, tensor<1x64xf32>) -> tensor<?x10x64xf32>
  // CHECK: sezm.rotate_mix %{{.*}}[%{{.*}}] by %{{.*}} kernel %{{.*}} basis %{{.*}} lmax = 3 rank = 1 focus_major = 2 : {{.*}} -> tensor<2x?x320xf32>
  %u0 = sezm.rotate_mix %x[%src] by %wd kernel %kc basis %cb lmax = 3 rank = 1
      focus_major = 2
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>,
         tensor<?x25xf32>, tensor<1x64xf32>) -> tensor<2x?x320xf32>
  // The Wigner-D as the 46 entries a rotation keeps; its gradient alike.
  // CHECK: sezm.rotate_mix %{{.*}}[%{{.*}}] by %{{.*}} kernel %{{.*}} basis %{{.*}} lmax = 3 rank = 1 : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x46xf32>, {{.*}}) -> tensor<?x10x64xf32>
  %uk = sezm.rotate_mix %x[%src] by %wk kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x46xf32>,
         tensor<?x25xf32>, tensor<1x64xf32>) -> tensor<?x10x64xf32>
  // CHECK: sezm.rotate_mix_grad_reduce {{.*}} -> (tensor<?x16x64xf32>, tensor<?x46xf32>, tensor<?x25xf32>)
  %gxk, %gwk, %gkk = sezm.rotate_mix_grad_reduce %uk, %x[%src] by %wk
      kernel %kc basis %cb over(%so, %sr) lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>,
         tensor<?x46xf32>, tensor<?x25xf32>, tensor<1x64xf32>, tensor<?xi64>,
         tensor<?xi64>)
      -> (tensor<?x16x64xf32>, tensor<?x46xf32>, tensor<?x25xf32>)
  // CHECK: sezm.rotate_mix_grad %{{.*}}, %{{.*}}[%{{.*}}] by %{{.*}} kernel %{{.*}} basis %{{.*}} lmax = 3 rank = 1 : {{.*}} -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>, tensor<1x64xf32>)
  %a, %b, %c, %d = sezm.rotate_mix_grad %u, %x[%src] by %wd kernel %kc
      basis %cb lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>,
         tensor<?x16x16xf32>, tensor<?x25xf32>, tensor<1x64xf32>)
      -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>,
          tensor<1x64xf32>)
  // CHECK: sezm.rotate_mix_grad_reduce %{{.*}}, %{{.*}}[%{{.*}}] by %{{.*}} kernel %{{.*}} basis %{{.*}} over(%{{.*}}, %{{.*}}) lmax = 3 rank = 1 : {{.*}} -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>)
  %gx, %gw2, %gk2 = sezm.rotate_mix_grad_reduce %u, %x[%src] by %wd
      kernel %kc basis %cb over(%so, %sr) lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>,
         tensor<?x16x16xf32>, tensor<?x25xf32>, tensor<1x64xf32>,
         tensor<?xi64>, tensor<?xi64>)
      -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>)
  // CHECK: sezm.rotate_mix_grad_reduce %{{.*}}, %{{.*}}[%{{.*}}] by %{{.*}} kernel %{{.*}} over(%{{.*}}, %{{.*}}) lmax = 3 rank = 0
  %gx0, %gw0, %gk0 = sezm.rotate_mix_grad_reduce %u, %x[%src] by %wd
      kernel %rad over(%so, %sr) lmax = 3 rank = 0
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>,
         tensor<?x16x16xf32>, tensor<?x4x64xf32>, tensor<?xi64>,
         tensor<?xi64>)
      -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x4x64xf32>)
  // A range of 4 of the source CSR's 9 edges, from edge %first: x_grad
  // sums only their parts.
  // CHECK: sezm.rotate_mix_grad_reduce %{{.*}}, %{{.*}}[%{{.*}}] by %{{.*}} kernel %{{.*}} basis %{{.*}} over(%{{.*}}, %{{.*}}) from %{{.*}} lmax = 3 rank = 1 : {{.*}}, index) -> (tensor<5x16x64xf32>, tensor<4x16x16xf32>, tensor<4x25xf32>)
  %first = arith.constant 4 : index
  %gxp, %gwp, %gkp = sezm.rotate_mix_grad_reduce %u4, %x5[%src4] by %wd4
      kernel %kc4 basis %cb over(%so9, %sr6) from %first lmax = 3 rank = 1
      : (tensor<4x10x64xf32>, tensor<5x16x64xf32>, tensor<4xi64>,
         tensor<4x16x16xf32>, tensor<4x25xf32>, tensor<1x64xf32>,
         tensor<9xi64>, tensor<6xi64>, index)
      -> (tensor<5x16x64xf32>, tensor<4x16x16xf32>, tensor<4x25xf32>)
  // CHECK: sezm.rotate_back %{{.*}} by %{{.*}} lmax = 3 : (tensor<?x10x64xf32>, tensor<?x16x16xf32>) -> tensor<?x16x64xf32>
  %m = sezm.rotate_back %u by %wd lmax = 3
      : (tensor<?x10x64xf32>, tensor<?x16x16xf32>) -> tensor<?x16x64xf32>
  // CHECK: sezm.rotate_back_grad %{{.*}}, %{{.*}} by %{{.*}} lmax = 3 : {{.*}} -> (tensor<?x10x64xf32>, tensor<?x16x16xf32>)
  %gxl2, %gwd2 = sezm.rotate_back_grad %m, %u by %wd lmax = 3
      : (tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x16x16xf32>)
      -> (tensor<?x10x64xf32>, tensor<?x16x16xf32>)
  // CHECK: sezm.segment_reduce %{{.*}} over(%{{.*}}, %{{.*}}) : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x16x64xf32>
  %gxr = sezm.segment_reduce %gxe over(%so, %sr)
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?xi64>)
      -> tensor<?x16x64xf32>
  // CHECK: sezm.segment_reduce_grad %{{.*}} over(%{{.*}}, %{{.*}}) : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x16x64xf32>
  %ge = sezm.segment_reduce_grad %gxr over(%so, %sr)
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?xi64>)
      -> tensor<?x16x64xf32>
  return
}

// CHECK-LABEL: func.func @mixing_stack
func.func @mixing_stack(%u: tensor<?x10x64xf32>, %w0: tensor<2x128x128xf32>,
                        %wu: tensor<2x96x96xf32>, %wv: tensor<2x96x96xf32>,
                        %gw: tensor<2x32x96xf32>, %wfc: tensor<32x2xf32>,
                        %ns: tensor<2x32xf32>) {
  // CHECK: sezm.so2_linear %{{.*}} weights(%{{.*}}, %{{.*}}, %{{.*}}) lmax = 3 focus = 2 : {{.*}} -> tensor<?x10x64xf32>
  %z = sezm.so2_linear %u weights(%w0, %wu, %wv) lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>) -> tensor<?x10x64xf32>
  // CHECK: sezm.so2_linear_grad %{{.*}}, %{{.*}} weights(%{{.*}}, %{{.*}}, %{{.*}}) lmax = 3 focus = 2 : {{.*}} -> (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>, tensor<2x96x96xf32>)
  %gu, %gw0, %gwu, %gwv = sezm.so2_linear_grad %z, %u weights(%w0, %wu, %wv)
      lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<2x128x128xf32>,
         tensor<2x96x96xf32>, tensor<2x96x96xf32>)
      -> (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
          tensor<2x96x96xf32>)
  // CHECK: sezm.so2_linear %{{.*}} weights(%{{.*}}, %{{.*}}, %{{.*}}) plus %{{.*}} lmax = 3 focus = 2 : {{.*}}, tensor<?x10x64xf32>) -> tensor<?x10x64xf32>
  %zr = sezm.so2_linear %u weights(%w0, %wu, %wv) plus %u lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>, tensor<?x10x64xf32>) -> tensor<?x10x64xf32>
  // CHECK: sezm.so2_linear_grad %{{.*}}, %{{.*}} weights(%{{.*}}, %{{.*}}, %{{.*}}) plus %{{.*}} lmax = 3 focus = 2
  %gur, %gw0r, %gwur, %gwvr = sezm.so2_linear_grad %z, %u weights(%w0, %wu, %wv)
      plus %z lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<2x128x128xf32>,
         tensor<2x96x96xf32>, tensor<2x96x96xf32>, tensor<?x10x64xf32>)
      -> (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
          tensor<2x96x96xf32>)
  // CHECK: sezm.gate %{{.*}} weight %{{.*}} lmax = 3 focus = 2 : (tensor<?x10x64xf32>, tensor<2x32x96xf32>) -> tensor<?x10x64xf32>
  %act = sezm.gate %z weight %gw lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x32x96xf32>) -> tensor<?x10x64xf32>
  // CHECK: sezm.gate %{{.*}} weight %{{.*}} plus %{{.*}} lmax = 3 focus = 2 : (tensor<?x10x64xf32>, tensor<2x32x96xf32>, tensor<?x10x64xf32>) -> tensor<?x10x64xf32>
  %actr = sezm.gate %z weight %gw plus %u lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x32x96xf32>, tensor<?x10x64xf32>)
      -> tensor<?x10x64xf32>
  // CHECK: sezm.gate_grad %{{.*}}, %{{.*}} weight %{{.*}} lmax = 3 focus = 2 : {{.*}} -> (tensor<?x10x64xf32>, tensor<2x32x96xf32>)
  %gz, %ggw = sezm.gate_grad %act, %z weight %gw lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<2x32x96xf32>)
      -> (tensor<?x10x64xf32>, tensor<2x32x96xf32>)
  // CHECK: sezm.focus_compete %{{.*}} weight %{{.*}} lmax = 3 focus = 2 : (tensor<?x10x64xf32>, tensor<32x2xf32>) -> tensor<?x2xf32>
  %alpha = sezm.focus_compete %u weight %wfc lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<32x2xf32>) -> tensor<?x2xf32>
  // CHECK: sezm.focus_compete %{{.*}} weight %{{.*}} norm %{{.*}} lmax = 3 focus = 2
  %alpha2 = sezm.focus_compete %u weight %wfc norm %ns lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<32x2xf32>, tensor<2x32xf32>)
      -> tensor<?x2xf32>
  // CHECK: sezm.focus_compete_grad %{{.*}}, %{{.*}} weight %{{.*}} lmax = 3 focus = 2 : {{.*}} -> (tensor<?x10x64xf32>, tensor<32x2xf32>)
  %gu2, %gwfc = sezm.focus_compete_grad %alpha, %u weight %wfc lmax = 3 focus = 2
      : (tensor<?x2xf32>, tensor<?x10x64xf32>, tensor<32x2xf32>)
      -> (tensor<?x10x64xf32>, tensor<32x2xf32>)
  // CHECK: sezm.focus_compete_grad %{{.*}}, %{{.*}} weight %{{.*}} norm %{{.*}} lmax = 3 focus = 2 : {{.*}} -> (tensor<?x10x64xf32>, tensor<32x2xf32>, tensor<2x32xf32>)
  %gu3, %gwfc3, %gns = sezm.focus_compete_grad %alpha2, %u weight %wfc norm %ns
      lmax = 3 focus = 2
      : (tensor<?x2xf32>, tensor<?x10x64xf32>, tensor<32x2xf32>,
         tensor<2x32xf32>)
      -> (tensor<?x10x64xf32>, tensor<32x2xf32>, tensor<2x32xf32>)
  // CHECK: sezm.focus_compete_grad %{{.*}}, %{{.*}} weight %{{.*}} norm %{{.*}} plus %{{.*}} lmax = 3 focus = 2
  %gu4, %gwfc4, %gns4 = sezm.focus_compete_grad %alpha2, %u weight %wfc
      norm %ns plus %gu2 lmax = 3 focus = 2
      : (tensor<?x2xf32>, tensor<?x10x64xf32>, tensor<32x2xf32>,
         tensor<2x32xf32>, tensor<?x10x64xf32>)
      -> (tensor<?x10x64xf32>, tensor<32x2xf32>, tensor<2x32xf32>)
  // CHECK: sezm.focus_scale %{{.*}} by %{{.*}} : (tensor<?x10x64xf32>, tensor<?x2xf32>) -> tensor<?x10x64xf32>
  %out = sezm.focus_scale %act by %alpha
      : (tensor<?x10x64xf32>, tensor<?x2xf32>) -> tensor<?x10x64xf32>
  // CHECK: sezm.focus_scale_grad %{{.*}}, %{{.*}} by %{{.*}} : {{.*}} -> (tensor<?x10x64xf32>, tensor<?x2xf32>)
  %gy, %ga = sezm.focus_scale_grad %out, %act by %alpha
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<?x2xf32>)
      -> (tensor<?x10x64xf32>, tensor<?x2xf32>)
  return
}

// CHECK-LABEL: func.func @rms_norm
func.func @rms_norm(%h: tensor<?x32xf32>, %s: tensor<32xf32>) {
  // CHECK: sezm.rms_norm %{{.*}} scale %{{.*}} eps = 9.9999999999999995E-8 : (tensor<?x32xf32>, tensor<32xf32>) -> tensor<?x32xf32>
  %y = sezm.rms_norm %h scale %s eps = 1.0e-7
      : (tensor<?x32xf32>, tensor<32xf32>) -> tensor<?x32xf32>
  // CHECK: sezm.rms_norm_grad %{{.*}}, %{{.*}} scale %{{.*}} eps = 9.9999999999999995E-8 : (tensor<?x32xf32>, tensor<?x32xf32>, tensor<32xf32>) -> tensor<?x32xf32>
  %g = sezm.rms_norm_grad %y, %h scale %s eps = 1.0e-7
      : (tensor<?x32xf32>, tensor<?x32xf32>, tensor<32xf32>) -> tensor<?x32xf32>
  return
}

// CHECK-LABEL: func.func @equivariant_rms_norm
func.func @equivariant_rms_norm(%x: tensor<?x16x32xf32>, %s: tensor<4x32xf32>,
                                %b: tensor<32xf32>) {
  // CHECK: sezm.equivariant_rms_norm %{{.*}} scale %{{.*}} bias %{{.*}} lmax = 3 eps = 1.000000e-05 : (tensor<?x16x32xf32>, tensor<4x32xf32>, tensor<32xf32>) -> tensor<?x16x32xf32>
  %y = sezm.equivariant_rms_norm %x scale %s bias %b lmax = 3 eps = 1.0e-5
      : (tensor<?x16x32xf32>, tensor<4x32xf32>, tensor<32xf32>)
      -> tensor<?x16x32xf32>
  // CHECK: sezm.equivariant_rms_norm %{{.*}} lmax = 3 eps = 1.000000e+00 {degree_weights = [7.812500e-03, 2.600000e-03, 1.560000e-03, 1.100000e-03]}
  %z = sezm.equivariant_rms_norm %x scale %s bias %b lmax = 3 eps = 1.0
      {degree_weights = [0.0078125, 0.0026, 0.00156, 0.0011]}
      : (tensor<?x16x32xf32>, tensor<4x32xf32>, tensor<32xf32>)
      -> tensor<?x16x32xf32>
  // CHECK: sezm.equivariant_rms_norm_grad %{{.*}}, %{{.*}} scale %{{.*}} lmax = 3 eps = 1.000000e-05 : (tensor<?x16x32xf32>, tensor<?x16x32xf32>, tensor<4x32xf32>) -> tensor<?x16x32xf32>
  %g = sezm.equivariant_rms_norm_grad %y, %x scale %s lmax = 3 eps = 1.0e-5
      : (tensor<?x16x32xf32>, tensor<?x16x32xf32>, tensor<4x32xf32>)
      -> tensor<?x16x32xf32>
  return
}

// CHECK-LABEL: func.func @glu
func.func @glu(%x: tensor<?x16x192xf32>, %gw: tensor<96x288xf32>,
               %y: tensor<?x1x192xf32>) {
  // CHECK: sezm.glu %{{.*}} weight %{{.*}} lmax = 3 : (tensor<?x16x192xf32>, tensor<96x288xf32>) -> tensor<?x16x96xf32>
  %h = sezm.glu %x weight %gw lmax = 3
      : (tensor<?x16x192xf32>, tensor<96x288xf32>) -> tensor<?x16x96xf32>
  // CHECK: sezm.glu_grad %{{.*}}, %{{.*}} weight %{{.*}} lmax = 3 : (tensor<?x16x96xf32>, tensor<?x16x192xf32>, tensor<96x288xf32>) -> tensor<?x16x192xf32>
  %gx = sezm.glu_grad %h, %x weight %gw lmax = 3
      : (tensor<?x16x96xf32>, tensor<?x16x192xf32>, tensor<96x288xf32>)
      -> tensor<?x16x192xf32>
  // CHECK: sezm.glu %{{.*}} lmax = 0 : (tensor<?x1x192xf32>) -> tensor<?x1x96xf32>
  %s = sezm.glu %y lmax = 0 : (tensor<?x1x192xf32>) -> tensor<?x1x96xf32>
  // CHECK: sezm.glu_grad %{{.*}}, %{{.*}} lmax = 0 : (tensor<?x1x96xf32>, tensor<?x1x192xf32>) -> tensor<?x1x192xf32>
  %gy = sezm.glu_grad %s, %y lmax = 0
      : (tensor<?x1x96xf32>, tensor<?x1x192xf32>) -> tensor<?x1x192xf32>
  return
}

// CHECK-LABEL: func.func @grid_product
func.func @grid_product(%a: tensor<?x27x32xf32>, %b: tensor<?x27x32xf32>,
                        %to: tensor<27x104xf32>, %from: tensor<104x27xf32>) {
  // CHECK: sezm.grid_product %{{.*}}, %{{.*}} grid(%{{.*}}, %{{.*}}) : (tensor<?x27x32xf32>, tensor<?x27x32xf32>, tensor<27x104xf32>, tensor<104x27xf32>) -> tensor<?x27x32xf32>
  %p = sezm.grid_product %a, %b grid(%to, %from)
      : (tensor<?x27x32xf32>, tensor<?x27x32xf32>, tensor<27x104xf32>,
         tensor<104x27xf32>) -> tensor<?x27x32xf32>
  // CHECK: sezm.grid_product_grad %{{.*}}, %{{.*}}, %{{.*}} grid(%{{.*}}, %{{.*}}) : (tensor<?x27x32xf32>, tensor<?x27x32xf32>, tensor<?x27x32xf32>, tensor<27x104xf32>, tensor<104x27xf32>) -> (tensor<?x27x32xf32>, tensor<?x27x32xf32>)
  %ga, %gb = sezm.grid_product_grad %p, %a, %b grid(%to, %from)
      : (tensor<?x27x32xf32>, tensor<?x27x32xf32>, tensor<?x27x32xf32>,
         tensor<27x104xf32>, tensor<104x27xf32>)
      -> (tensor<?x27x32xf32>, tensor<?x27x32xf32>)
  return
}

// CHECK-LABEL: func.func @degree_linear
func.func @degree_linear(%x: tensor<?x16x32xf32>, %w: tensor<4x32x64xf32>) {
  // CHECK: sezm.degree_linear %{{.*}} weight %{{.*}} lmax = 3 : (tensor<?x16x32xf32>, tensor<4x32x64xf32>) -> tensor<?x16x64xf32>
  %xw = sezm.degree_linear %x weight %w lmax = 3
      : (tensor<?x16x32xf32>, tensor<4x32x64xf32>) -> tensor<?x16x64xf32>
  // CHECK: sezm.degree_linear %{{.*}} weight %{{.*}} lmax = 3 transposed : (tensor<?x16x64xf32>, tensor<4x32x64xf32>) -> tensor<?x16x32xf32>
  %back = sezm.degree_linear %xw weight %w lmax = 3 transposed
      : (tensor<?x16x64xf32>, tensor<4x32x64xf32>) -> tensor<?x16x32xf32>
  // CHECK: sezm.degree_linear_weight_grad %{{.*}}, %{{.*}} lmax = 3 : (tensor<?x16x64xf32>, tensor<?x16x32xf32>) -> tensor<4x32x64xf32>
  %gw = sezm.degree_linear_weight_grad %xw, %x lmax = 3
      : (tensor<?x16x64xf32>, tensor<?x16x32xf32>) -> tensor<4x32x64xf32>
  // CHECK: sezm.degree_linear_weight_grad %{{.*}}, %{{.*}} lmax = 3 transposed : (tensor<?x16x64xf32>, tensor<?x16x32xf32>) -> tensor<4x64x32xf32>
  %gwt = sezm.degree_linear_weight_grad %xw, %x lmax = 3 transposed
      : (tensor<?x16x64xf32>, tensor<?x16x32xf32>) -> tensor<4x64x32xf32>
  return
}

// CHECK-LABEL: func.func @aggregation
func.func @aggregation(%xl: tensor<?x10x64xf32>, %wd: tensor<?x16x16xf32>,
                       %env: tensor<?xf32>, %isd: tensor<?xf32>,
                       %lg: tensor<?x2x1xf32>, %zn: tensor<2x1xf32>,
                       %do: tensor<?xi32>, %dr: tensor<?xi32>,
                       %dst: tensor<?xi32>, %xl4: tensor<4x10x64xf32>,
                       %wd4: tensor<4x16x16xf32>, %env4: tensor<4xf32>,
                       %isd5: tensor<5xf32>, %do9: tensor<9xi64>,
                       %dr6: tensor<6xi64>, %alpha: tensor<?x2xf32>) {
  // CHECK: sezm.envelope_aggregate %{{.*}} by %{{.*}} env %{{.*}} norm %{{.*}} over(%{{.*}}, %{{.*}}) lmax = 3 : {{.*}} -> tensor<?x16x64xf32>
  %agg = sezm.envelope_aggregate %xl by %wd env %env norm %isd
      over(%do, %dr) lmax = 3
      : (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?xf32>,
         tensor<?xf32>, tensor<?xi32>, tensor<?xi32>) -> tensor<?x16x64xf32>
  // Its messages scaled per focus stream first.
  // CHECK: sezm.envelope_aggregate %{{.*}} scaled %{{.*}} by %{{.*}} env %{{.*}} norm %{{.*}} over(%{{.*}}, %{{.*}}) lmax = 3 : {{.*}} -> tensor<?x16x64xf32>
  %sagg = sezm.envelope_aggregate %xl scaled %alpha by %wd env %env
      norm %isd over(%do, %dr) lmax = 3
      : (tensor<?x10x64xf32>, tensor<?x2xf32>, tensor<?x16x16xf32>,
         tensor<?xf32>, tensor<?xf32>, tensor<?xi32>, tensor<?xi32>)
      -> tensor<?x16x64xf32>
  // A range of 4 of the CSR's 9 edges, from edge %first.
  // CHECK: sezm.envelope_aggregate %{{.*}} by %{{.*}} env %{{.*}} norm %{{.*}} over(%{{.*}}, %{{.*}}) from %{{.*}} lmax = 3 : {{.*}}, index) -> tensor<5x16x64xf32>
  %first = arith.constant 4 : index
  %part = sezm.envelope_aggregate %xl4 by %wd4 env %env4 norm %isd5
      over(%do9, %dr6) from %first lmax = 3
      : (tensor<4x10x64xf32>, tensor<4x16x16xf32>, tensor<4xf32>,
         tensor<5xf32>, tensor<9xi64>, tensor<6xi64>, index) -> tensor<5x16x64xf32>
  // CHECK: sezm.envelope_aggregate_grad %{{.*}}, %{{.*}} by %{{.*}} env %{{.*}} norm %{{.*}} at %{{.*}} lmax = 3 : {{.*}} -> (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?xf32>, tensor<?xf32>)
  %g1, %g2, %g3, %g4 = sezm.envelope_aggregate_grad %agg, %xl by %wd
      env %env norm %isd at %dst lmax = 3
      : (tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x16x16xf32>,
         tensor<?xf32>, tensor<?xf32>, tensor<?xi32>)
      -> (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?xf32>,
          tensor<?xf32>)
  // With the focus scale's backward: alpha's gradient too.
  // CHECK: sezm.envelope_aggregate_grad %{{.*}}, %{{.*}} scaled %{{.*}} by %{{.*}} env %{{.*}} norm %{{.*}} at %{{.*}} lmax = 3 : {{.*}} -> (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?x2xf32>)
  %s1, %s2, %s3, %s4, %s5 = sezm.envelope_aggregate_grad %sagg, %xl
      scaled %alpha by %wd env %env norm %isd at %dst lmax = 3
      : (tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x2xf32>,
         tensor<?x16x16xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xi32>)
      -> (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?xf32>,
          tensor<?xf32>, tensor<?x2xf32>)
  // CHECK: sezm.attention_aggregate %{{.*}} by %{{.*}} logit %{{.*}} env %{{.*}} null %{{.*}} over(%{{.*}}, %{{.*}}) lmax = 3 : {{.*}} -> tensor<?x16x64xf32>
  %pre = sezm.attention_aggregate %xl by %wd logit %lg env %env null %zn
      over(%do, %dr) lmax = 3
      : (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?x2x1xf32>,
         tensor<?xf32>, tensor<2x1xf32>, tensor<?xi32>, tensor<?xi32>)
      -> tensor<?x16x64xf32>
  // CHECK: sezm.attention_aggregate_grad %{{.*}}, %{{.*}} by %{{.*}} logit %{{.*}} env %{{.*}} null %{{.*}} over(%{{.*}}, %{{.*}}) lmax = 3 : {{.*}} -> (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?x2x1xf32>, tensor<?xf32>, tensor<2x1xf32>)
  %h1, %h2, %h3, %h4, %h5 = sezm.attention_aggregate_grad %pre, %xl by %wd
      logit %lg env %env null %zn over(%do, %dr) lmax = 3
      : (tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x16x16xf32>,
         tensor<?x2x1xf32>, tensor<?xf32>, tensor<2x1xf32>, tensor<?xi32>,
         tensor<?xi32>)
      -> (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?x2x1xf32>,
          tensor<?xf32>, tensor<2x1xf32>)
  return
}

// Every lmax from 0 to 6 gives D = (lmax+1)^2 and Dm = 3*lmax+1 rows; f64
// and static graph sizes are accepted.
// CHECK-LABEL: func.func @sizes
func.func @sizes(%x0: tensor<5x1x8xf64>, %x6: tensor<?x49x8xf32>,
                 %src: tensor<7xi32>, %w0: tensor<7x1x1xf64>,
                 %src6: tensor<?xi64>, %w6: tensor<?x49x49xf32>) {
  // CHECK: sezm.rotate {{.*}} lmax = 0 : (tensor<5x1x8xf64>, tensor<7xi32>, tensor<7x1x1xf64>) -> tensor<7x1x8xf64>
  %a = sezm.rotate %x0[%src] by %w0 lmax = 0
      : (tensor<5x1x8xf64>, tensor<7xi32>, tensor<7x1x1xf64>) -> tensor<7x1x8xf64>
  // CHECK: sezm.rotate {{.*}} lmax = 6 : {{.*}} -> tensor<?x19x8xf32>
  %b = sezm.rotate %x6[%src6] by %w6 lmax = 6
      : (tensor<?x49x8xf32>, tensor<?xi64>, tensor<?x49x49xf32>)
      -> tensor<?x19x8xf32>
  return
}
