// sezm-fuse-accumulate computes what the adds did, to rounding (each sum
// starts from the addend instead of the addend being added after): the
// forward residuals and the backward's input gradient, on the CPU. (The
// derivative rule through `plus` is checked by finite differences in
// AutodiffTest.)
// RUN: rm -rf %t && mkdir -p %t
// RUN: %npytool random %t/x.npy f32 7,10,64 1
// RUN: %npytool random %t/g.npy f32 7,10,64 2
// RUN: %npytool random %t/w0.npy f32 2,128,128 3 -0.1 0.1
// RUN: %npytool random %t/wu.npy f32 2,96,96 4 -0.1 0.1
// RUN: %npytool random %t/wv.npy f32 2,96,96 5 -0.1 0.1
// RUN: %npytool random %t/gw.npy f32 2,32,96 6
// RUN: %npytool random %t/ga.npy f32 7,2 7
// RUN: %npytool random %t/wfc.npy f32 32,2 8
// RUN: %npytool random %t/ns.npy f32 2,32 9
// RUN: sezm-opt %s --sezm-fuse-accumulate | FileCheck %s --check-prefix=FUSED
// FUSED-COUNT-6: plus
// FUSED-NOT: arith.addf
// RUN: sezm-run %s --entry step --input x=%t/x.npy --input g=%t/g.npy --input w0=%t/w0.npy --input wu=%t/wu.npy --input wv=%t/wv.npy --input gw=%t/gw.npy --input ga=%t/ga.npy --input wfc=%t/wfc.npy --input ns=%t/ns.npy --no-fusion --output-dir %t/unfused > /dev/null
// RUN: sezm-run %s --entry step --input x=%t/x.npy --input g=%t/g.npy --input w0=%t/w0.npy --input wu=%t/wu.npy --input wv=%t/wv.npy --input gw=%t/gw.npy --input ga=%t/ga.npy --input wfc=%t/wfc.npy --input ns=%t/ns.npy --output-dir %t/fused > /dev/null
// RUN: %npytool relerr %t/fused/y.npy %t/unfused/y.npy 1e-6
// RUN: %npytool relerr %t/fused/x_grad.npy %t/unfused/x_grad.npy 1e-6
// The gated layer and the competition's backward add as the add did: the
// same bits.
// RUN: cmp %t/fused/h.npy %t/unfused/h.npy
// RUN: cmp %t/fused/c_grad.npy %t/unfused/c_grad.npy

// Two residual layers, y = (x + L(x)) + L(x + L(x)), a gated one,
// h = x + gate(x), the backward's x_grad = g + L^T(g), and the message's
// gradient meeting both competitions' (plain and normalized), c_grad.
func.func @step(%x: tensor<?x10x64xf32> {sezm.name = "x"},
                %g: tensor<?x10x64xf32> {sezm.name = "g"},
                %w0: tensor<2x128x128xf32> {sezm.name = "w0"},
                %wu: tensor<2x96x96xf32> {sezm.name = "wu"},
                %wv: tensor<2x96x96xf32> {sezm.name = "wv"},
                %gw: tensor<2x32x96xf32> {sezm.name = "gw"},
                %ga: tensor<?x2xf32> {sezm.name = "ga"},
                %wfc: tensor<32x2xf32> {sezm.name = "wfc"},
                %ns: tensor<2x32xf32> {sezm.name = "ns"})
    -> (tensor<?x10x64xf32> {sezm.name = "y"},
        tensor<?x10x64xf32> {sezm.name = "x_grad"},
        tensor<?x10x64xf32> {sezm.name = "h"},
        tensor<?x10x64xf32> {sezm.name = "c_grad"}) {
  %z = sezm.so2_linear %x weights(%w0, %wu, %wv) lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>) -> tensor<?x10x64xf32>
  %r = arith.addf %x, %z : tensor<?x10x64xf32>
  %z2 = sezm.so2_linear %r weights(%w0, %wu, %wv) lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>) -> tensor<?x10x64xf32>
  %y = arith.addf %r, %z2 : tensor<?x10x64xf32>
  %gu, %gw0, %gwu, %gwv = sezm.so2_linear_grad %g, %x weights(%w0, %wu, %wv)
      lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<2x128x128xf32>,
         tensor<2x96x96xf32>, tensor<2x96x96xf32>)
      -> (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
          tensor<2x96x96xf32>)
  %s = arith.addf %g, %gu : tensor<?x10x64xf32>
  %act = sezm.gate %x weight %gw lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x32x96xf32>) -> tensor<?x10x64xf32>
  %h = arith.addf %x, %act : tensor<?x10x64xf32>
  %cu, %cw = sezm.focus_compete_grad %ga, %x weight %wfc lmax = 3 focus = 2
      : (tensor<?x2xf32>, tensor<?x10x64xf32>, tensor<32x2xf32>)
      -> (tensor<?x10x64xf32>, tensor<32x2xf32>)
  %c = arith.addf %g, %cu : tensor<?x10x64xf32>
  %nu, %nw, %nn = sezm.focus_compete_grad %ga, %x weight %wfc norm %ns
      lmax = 3 focus = 2
      : (tensor<?x2xf32>, tensor<?x10x64xf32>, tensor<32x2xf32>,
         tensor<2x32xf32>)
      -> (tensor<?x10x64xf32>, tensor<32x2xf32>, tensor<2x32xf32>)
  %c2 = arith.addf %c, %nu : tensor<?x10x64xf32>
  return %y, %s, %h, %c2 : tensor<?x10x64xf32>, tensor<?x10x64xf32>,
      tensor<?x10x64xf32>, tensor<?x10x64xf32>
}
