// RUN: sezm-opt %s --convert-sezm-to-loops | FileCheck %s

// The gradient ops of the mixing stack also return weight gradients, sums
// over every edge. Forces need none of them: an unused weight gradient is
// neither allocated nor computed: no loop over the weights' inputs (32, 96
// or 128 of them) is left, only the edge loops and the copies of the
// transposed weights (on the GPU the sums ran on one thread per weight).

// CHECK-LABEL: func.func @input_grads_only
// CHECK-NOT: to (%c{{(32|96|128)(_[0-9]+)?}}) step
// CHECK: return
func.func @input_grads_only(%g: tensor<?x10x64xf32>, %u: tensor<?x10x64xf32>,
                            %w0: tensor<2x128x128xf32>, %wu: tensor<2x96x96xf32>,
                            %wv: tensor<2x96x96xf32>, %gw: tensor<2x32x96xf32>)
    -> (tensor<?x10x64xf32>, tensor<?x10x64xf32>) {
  %gu, %gw0, %gwu, %gwv = sezm.so2_linear_grad %g, %u weights(%w0, %wu, %wv)
      lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<2x128x128xf32>,
         tensor<2x96x96xf32>, tensor<2x96x96xf32>)
      -> (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
          tensor<2x96x96xf32>)
  %gz, %ggw = sezm.gate_grad %g, %u weight %gw lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<2x32x96xf32>)
      -> (tensor<?x10x64xf32>, tensor<2x32x96xf32>)
  return %gu, %gz : tensor<?x10x64xf32>, tensor<?x10x64xf32>
}

// A used weight gradient is computed: its loops over the weights (one per
// focus stream) follow the edge loops.
// CHECK-LABEL: func.func @weight_grad_used
// CHECK-COUNT-2: to (%c32{{(_[0-9]+)?}}) step
// CHECK: return
func.func @weight_grad_used(%g: tensor<?x10x64xf32>, %u: tensor<?x10x64xf32>,
                            %gw: tensor<2x32x96xf32>)
    -> (tensor<?x10x64xf32>, tensor<2x32x96xf32>) {
  %gz, %ggw = sezm.gate_grad %g, %u weight %gw lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<2x32x96xf32>)
      -> (tensor<?x10x64xf32>, tensor<2x32x96xf32>)
  return %gz, %ggw : tensor<?x10x64xf32>, tensor<2x32x96xf32>
}
