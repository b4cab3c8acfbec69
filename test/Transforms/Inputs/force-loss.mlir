// A force loss: @loss is the sum of the forces of @energy along a
// direction, so its gradient with respect to the positions is a second
// derivative of the energy (a Hessian-vector product). @energy has the
// edge geometry of a SeZM model (Wigner-D, radial basis and envelope of the
// edge vectors), a radial kernel by matmul, a destination segment reduction
// and a tanh. Built by
//   --sezm-autodiff="create-graph" --inline --sezm-autodiff="energy=loss"
// (@energy_forces is declared here so that @loss can call it; sezm-autodiff
// replaces the declaration). Used by test/Transforms/autodiff-create-graph.mlir
// and unittests/AutodiffTest.cpp.

func.func private @energy_forces(tensor<?x3xf64>, tensor<?xi64>,
    tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>,
    tensor<8x81xf64>, tensor<?x81xf64>)
    -> (tensor<f64>, tensor<?x3xf64>, tensor<3x3xf64>)

func.func @energy(%pos: tensor<?x3xf64> {sezm.name = "positions"},
    %src: tensor<?xi64> {sezm.name = "src"},
    %dst: tensor<?xi64> {sezm.name = "dst"},
    %so: tensor<?xi64> {sezm.name = "src_order", sezm.csr_of = "src"},
    %sr: tensor<?xi64> {sezm.name = "src_rowptr", sezm.csr_of = "src"},
    %do: tensor<?xi64> {sezm.name = "dst_order", sezm.csr_of = "dst"},
    %dr: tensor<?xi64> {sezm.name = "dst_rowptr", sezm.csr_of = "dst"},
    %wk: tensor<8x81xf64> {sezm.name = "radial_weight"},
    %wa: tensor<?x81xf64> {sezm.name = "wigner_weight"})
    -> (tensor<f64> {sezm.name = "energy"}) {
  %v = sezm.edge_vectors %pos[%src, %dst]
      : (tensor<?x3xf64>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x3xf64>
  %w = sezm.wigner %v lmax = 2 : (tensor<?x3xf64>) -> tensor<?x9x9xf64>
  %rbf = sezm.radial_basis %v rcut = 6.0 exponent = 7
      : (tensor<?x3xf64>) -> tensor<?x8xf64>
  %env = sezm.envelope %v rcut = 6.0 exponent = 5
      : (tensor<?x3xf64>) -> tensor<?xf64>
  %zero = arith.constant 0.0 : f64
  %c0 = arith.constant 0 : index
  %edges = tensor.dim %rbf, %c0 : tensor<?x8xf64>
  %empty = tensor.empty(%edges) : tensor<?x81xf64>
  %init = linalg.fill ins(%zero : f64) outs(%empty : tensor<?x81xf64>)
      -> tensor<?x81xf64>
  %h = linalg.matmul ins(%rbf, %wk : tensor<?x8xf64>, tensor<8x81xf64>)
      outs(%init : tensor<?x81xf64>) -> tensor<?x81xf64>
  %wf = tensor.collapse_shape %w [[0], [1, 2]]
      : tensor<?x9x9xf64> into tensor<?x81xf64>
  %a = arith.mulf %wf, %wa : tensor<?x81xf64>
  %m = arith.mulf %a, %h : tensor<?x81xf64>
  %q = arith.mulf %m, %wf : tensor<?x81xf64>
  %rho = sezm.segment_reduce %q over(%do, %dr)
      : (tensor<?x81xf64>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x81xf64>
  %t = math.tanh %rho : tensor<?x81xf64>
  %tt = arith.mulf %t, %t : tensor<?x81xf64>
  %scalar = tensor.empty() : tensor<f64>
  %acc = linalg.fill ins(%zero : f64) outs(%scalar : tensor<f64>)
      -> tensor<f64>
  %e1 = linalg.reduce ins(%tt : tensor<?x81xf64>) outs(%acc : tensor<f64>)
      dimensions = [0, 1]
    (%in: f64, %out: f64) {
      %s = arith.addf %in, %out : f64
      linalg.yield %s : f64
    }
  %env2 = arith.mulf %env, %env : tensor<?xf64>
  %e2 = linalg.reduce ins(%env2 : tensor<?xf64>) outs(%acc : tensor<f64>)
      dimensions = [0]
    (%in: f64, %out: f64) {
      %s = arith.addf %in, %out : f64
      linalg.yield %s : f64
    }
  %e = arith.addf %e1, %e2 : tensor<f64>
  return %e : tensor<f64>
}

func.func @loss(%pos: tensor<?x3xf64> {sezm.name = "positions"},
    %src: tensor<?xi64> {sezm.name = "src"},
    %dst: tensor<?xi64> {sezm.name = "dst"},
    %so: tensor<?xi64> {sezm.name = "src_order", sezm.csr_of = "src"},
    %sr: tensor<?xi64> {sezm.name = "src_rowptr", sezm.csr_of = "src"},
    %do: tensor<?xi64> {sezm.name = "dst_order", sezm.csr_of = "dst"},
    %dr: tensor<?xi64> {sezm.name = "dst_rowptr", sezm.csr_of = "dst"},
    %wk: tensor<8x81xf64> {sezm.name = "radial_weight"},
    %wa: tensor<?x81xf64> {sezm.name = "wigner_weight"},
    %dir: tensor<?x3xf64> {sezm.name = "direction"})
    -> (tensor<f64> {sezm.name = "loss"}) {
  %e, %f, %virial = func.call @energy_forces(%pos, %src, %dst, %so, %sr, %do,
      %dr, %wk, %wa)
      : (tensor<?x3xf64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>,
         tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<8x81xf64>,
         tensor<?x81xf64>) -> (tensor<f64>, tensor<?x3xf64>, tensor<3x3xf64>)
  %fd = arith.mulf %f, %dir : tensor<?x3xf64>
  %zero = arith.constant 0.0 : f64
  %scalar = tensor.empty() : tensor<f64>
  %acc = linalg.fill ins(%zero : f64) outs(%scalar : tensor<f64>)
      -> tensor<f64>
  %l = linalg.reduce ins(%fd : tensor<?x3xf64>) outs(%acc : tensor<f64>)
      dimensions = [0, 1]
    (%in: f64, %out: f64) {
      %s = arith.addf %in, %out : f64
      linalg.yield %s : f64
    }
  return %l : tensor<f64>
}
