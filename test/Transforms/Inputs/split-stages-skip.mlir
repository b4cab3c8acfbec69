// A skip connection past a block boundary: stage 1 would need the features
// before the first exchange as well as after it.
func.func @skip(%pos: tensor<?x3xf64> {sezm.name = "positions", sezm.extents = ["N", ""]},
                %x0: tensor<?x4xf64> {sezm.name = "seed", sezm.extents = ["N", ""]})
    -> (tensor<f64> {sezm.name = "energy"}) {
  %zero = arith.constant 0.0 : f64
  %x0s = sezm.exchange %x0 : tensor<?x4xf64>
  %x1 = arith.mulf %x0s, %x0s : tensor<?x4xf64>
  %x1s = sezm.exchange %x1 : tensor<?x4xf64>
  %x2 = arith.addf %x1s, %x0s : tensor<?x4xf64>
  // expected-error @-4 {{sezm-split-stages: stage 2 of @skip reads the features at this block boundary past its own input; only one tensor of node features may cross each boundary}}
  %scalar = tensor.empty() : tensor<f64>
  %acc = linalg.fill ins(%zero : f64) outs(%scalar : tensor<f64>) -> tensor<f64>
  %energy = linalg.reduce ins(%x2 : tensor<?x4xf64>) outs(%acc : tensor<f64>) dimensions = [0, 1]
    (%in: f64, %out: f64) {
      %s = arith.addf %in, %out : f64
      linalg.yield %s : f64
    }
  return %energy : tensor<f64>
}
