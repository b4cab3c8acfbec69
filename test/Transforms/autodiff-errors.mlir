// RUN: sezm-opt %s --sezm-autodiff --split-input-file --verify-diagnostics

// expected-error @below {{sezm-autodiff: @energy has no argument named "positions"}}
func.func @energy(%x: tensor<?x3xf64>) -> tensor<f64> {
  %zero = arith.constant 0.0 : f64
  %scalar = tensor.empty() : tensor<f64>
  %acc = linalg.fill ins(%zero : f64) outs(%scalar : tensor<f64>) -> tensor<f64>
  return %acc : tensor<f64>
}

// -----

// expected-error @below {{sezm-autodiff: @energy must return one scalar energy (a rank-0 tensor)}}
func.func @energy(%pos: tensor<?x3xf64> {sezm.name = "positions"}) -> tensor<?x3xf64> {
  return %pos : tensor<?x3xf64>
}

// -----

func.func @energy(%pos: tensor<?x3xf64> {sezm.name = "positions"},
    %src: tensor<?xi64>, %dst: tensor<?xi64>) -> tensor<f64> {
  // expected-error @below {{sezm-autodiff: no CSR of 'arg1' among the arguments}}
  %v = sezm.edge_vectors %pos[%src, %dst]
      : (tensor<?x3xf64>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x3xf64>
  %zero = arith.constant 0.0 : f64
  %scalar = tensor.empty() : tensor<f64>
  %acc = linalg.fill ins(%zero : f64) outs(%scalar : tensor<f64>) -> tensor<f64>
  %e = linalg.reduce ins(%v : tensor<?x3xf64>) outs(%acc : tensor<f64>)
      dimensions = [0, 1]
    (%in: f64, %out: f64) {
      %s = arith.addf %in, %out : f64
      linalg.yield %s : f64
    }
  return %e : tensor<f64>
}

// -----

func.func @energy(%pos: tensor<?x3xf64> {sezm.name = "positions"}) -> tensor<f64> {
  // expected-error @below {{sezm-autodiff: no derivative rule for math.sin}}
  %s = math.sin %pos : tensor<?x3xf64>
  %zero = arith.constant 0.0 : f64
  %scalar = tensor.empty() : tensor<f64>
  %acc = linalg.fill ins(%zero : f64) outs(%scalar : tensor<f64>) -> tensor<f64>
  %e = linalg.reduce ins(%s : tensor<?x3xf64>) outs(%acc : tensor<f64>)
      dimensions = [0, 1]
    (%in: f64, %out: f64) {
      %t = arith.addf %in, %out : f64
      linalg.yield %t : f64
    }
  return %e : tensor<f64>
}

// -----

func.func @energy(%pos: tensor<?x3xf64> {sezm.name = "positions"}, %c: tensor<f64>) -> tensor<f64> {
  // expected-error @above {{sezm-autodiff: the energy of @energy does not depend on the positions}}
  return %c : tensor<f64>
}

// -----

// A value that depends on the positions, read inside a body instead of as
// an operand, would be invisible to every derivative rule.
func.func @energy(%pos: tensor<3x3xf64> {sezm.name = "positions"})
    -> tensor<f64> {
  %zero = arith.constant 0.0 : f64
  %scalar = tensor.empty() : tensor<f64>
  %acc = linalg.fill ins(%zero : f64) outs(%scalar : tensor<f64>) -> tensor<f64>
  %empty = tensor.empty() : tensor<3xf64>
  // expected-error @below {{sezm-autodiff: reads a value that depends on what is differentiated inside its body (pass it as an operand instead)}}
  %diag = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>],
                          iterator_types = ["parallel"]}
      outs(%empty : tensor<3xf64>) {
    ^bb0(%out: f64):
      %i = linalg.index 0 : index
      %value = tensor.extract %pos[%i, %i] : tensor<3x3xf64>
      linalg.yield %value : f64
  } -> tensor<3xf64>
  %e = linalg.reduce ins(%diag : tensor<3xf64>) outs(%acc : tensor<f64>)
      dimensions = [0]
    (%in: f64, %out: f64) {
      %s = arith.addf %in, %out : f64
      linalg.yield %s : f64
    }
  return %e : tensor<f64>
}

// -----

// The range form of a sum into atoms exists only in sezm-chunk-edges' loops,
// after autodiff: it has no derivative rule.
func.func @energy(%pos: tensor<?x3xf64> {sezm.name = "positions"},
    %src: tensor<?xi64> {sezm.name = "src"}, %dst: tensor<?xi64> {sezm.name = "dst"},
    %so: tensor<?xi64> {sezm.name = "src_order", sezm.csr_of = "src"},
    %sr: tensor<?xi64> {sezm.name = "src_rowptr", sezm.csr_of = "src"},
    %do: tensor<?xi64> {sezm.name = "dst_order", sezm.csr_of = "dst"},
    %dr: tensor<?xi64> {sezm.name = "dst_rowptr", sezm.csr_of = "dst"},
    %u: tensor<?x10x8xf64>, %isd: tensor<?xf64>, %first: index)
    -> tensor<f64> {
  %v = sezm.edge_vectors %pos[%src, %dst]
      : (tensor<?x3xf64>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x3xf64>
  %w = sezm.wigner %v lmax = 3 : (tensor<?x3xf64>) -> tensor<?x16x16xf64>
  %env = sezm.envelope %v rcut = 6.0 exponent = 5 : (tensor<?x3xf64>) -> tensor<?xf64>
  // expected-error @below {{sums a range of the edges (`from`), which only sezm-chunk-edges' loops do, after autodiff; it has no derivative rule}}
  %agg = sezm.envelope_aggregate %u by %w env %env norm %isd over(%do, %dr)
      from %first lmax = 3
      : (tensor<?x10x8xf64>, tensor<?x16x16xf64>, tensor<?xf64>, tensor<?xf64>,
         tensor<?xi64>, tensor<?xi64>, index) -> tensor<?x16x8xf64>
  %zero = arith.constant 0.0 : f64
  %scalar = tensor.empty() : tensor<f64>
  %acc = linalg.fill ins(%zero : f64) outs(%scalar : tensor<f64>) -> tensor<f64>
  %e = linalg.reduce ins(%agg : tensor<?x16x8xf64>) outs(%acc : tensor<f64>) dimensions = [0, 1, 2]
    (%in: f64, %out: f64) {
      %s = arith.addf %in, %out : f64
      linalg.yield %s : f64
    }
  return %e : tensor<f64>
}

// -----

// Nor does the aggregation of scaled messages, which only
// sezm-fuse-focus-scale makes, after autodiff.
func.func @energy(%pos: tensor<?x3xf64> {sezm.name = "positions"},
    %src: tensor<?xi64> {sezm.name = "src"}, %dst: tensor<?xi64> {sezm.name = "dst"},
    %so: tensor<?xi64> {sezm.name = "src_order", sezm.csr_of = "src"},
    %sr: tensor<?xi64> {sezm.name = "src_rowptr", sezm.csr_of = "src"},
    %do: tensor<?xi64> {sezm.name = "dst_order", sezm.csr_of = "dst"},
    %dr: tensor<?xi64> {sezm.name = "dst_rowptr", sezm.csr_of = "dst"},
    %u: tensor<?x10x8xf64>, %alpha: tensor<?x2xf64>, %isd: tensor<?xf64>)
    -> tensor<f64> {
  %v = sezm.edge_vectors %pos[%src, %dst]
      : (tensor<?x3xf64>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x3xf64>
  %w = sezm.wigner %v lmax = 3 : (tensor<?x3xf64>) -> tensor<?x16x16xf64>
  %env = sezm.envelope %v rcut = 6.0 exponent = 5 : (tensor<?x3xf64>) -> tensor<?xf64>
  // expected-error @below {{scales its messages (`scaled`), which only sezm-fuse-focus-scale does, after autodiff; it has no derivative rule}}
  %agg = sezm.envelope_aggregate %u scaled %alpha by %w env %env norm %isd
      over(%do, %dr) lmax = 3
      : (tensor<?x10x8xf64>, tensor<?x2xf64>, tensor<?x16x16xf64>,
         tensor<?xf64>, tensor<?xf64>, tensor<?xi64>, tensor<?xi64>)
      -> tensor<?x16x8xf64>
  %zero = arith.constant 0.0 : f64
  %scalar = tensor.empty() : tensor<f64>
  %acc = linalg.fill ins(%zero : f64) outs(%scalar : tensor<f64>) -> tensor<f64>
  %e = linalg.reduce ins(%agg : tensor<?x16x8xf64>) outs(%acc : tensor<f64>) dimensions = [0, 1, 2]
    (%in: f64, %out: f64) {
      %s = arith.addf %in, %out : f64
      linalg.yield %s : f64
    }
  return %e : tensor<f64>
}
