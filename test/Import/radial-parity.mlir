// sezm's envelope and radial basis equal DeePMD-kit's C3CutoffEnvelope
// (exponent 5) and Bessel RadialBasis (16 functions, exponent 7, rcut 6) in
// float64, at 60 edges from 0.4 to 6.3 A (past the cutoff): the values that
// test/Import/make_fixtures.py took from deepmd-kit 3.2.0 itself.
// RUN: rm -rf %t && mkdir -p %t
// RUN: sezm-run %s --input v=%S/fixtures/radial-v.npy --output-dir %t > /dev/null
// RUN: %npytool compare %t/env.npy %S/fixtures/radial-env.npy 1e-12 | FileCheck %s
// RUN: %npytool compare %t/rbf.npy %S/fixtures/radial-rbf.npy 1e-12 | FileCheck %s
// CHECK: max abs difference
func.func @main(%v: tensor<?x3xf64> {sezm.name = "v"})
    -> (tensor<?xf64> {sezm.name = "env"}, tensor<?x16xf64> {sezm.name = "rbf"}) {
  %env = sezm.envelope %v rcut = 6.0 exponent = 5
      : (tensor<?x3xf64>) -> tensor<?xf64>
  %rbf = sezm.radial_basis %v rcut = 6.0 exponent = 7
      : (tensor<?x3xf64>) -> tensor<?x16xf64>
  return %env, %rbf : tensor<?xf64>, tensor<?x16xf64>
}
