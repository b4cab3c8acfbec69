// RUN: sezm-opt %s --sezm-autodiff | FileCheck %s
// RUN: not sezm-opt %s --sezm-autodiff="energy=missing" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: sezm-opt %s --sezm-autodiff="per-atom=true" | FileCheck %s --check-prefix=ATOMIC
// The pipeline runs it first when asked, then lowers both functions.
// RUN: sezm-opt %s --sezm-pipeline="forces-of=energy" 2>&1 | FileCheck %s --check-prefix=PIPELINE

// The energy of one rotate+mix message, aggregated into its destination and
// summed: every position-dependent op gets its gradient op, in reverse.

// CHECK-LABEL: func.func @energy(
// CHECK-LABEL: func.func @energy_forces(
// CHECK-SAME: {sezm.name = "positions"}
// CHECK-SAME: -> (tensor<f64> {sezm.name = "energy"}, tensor<?x3xf64> {sezm.name = "forces"}, tensor<3x3xf64> {sezm.name = "virial"})
// CHECK: %[[V:.*]] = sezm.edge_vectors
// CHECK: %[[E:.*]] = linalg.reduce
// CHECK: %[[GU:.*]], %[[GW1:.*]], %[[GENV:.*]], %{{.*}} = sezm.envelope_aggregate_grad
// CHECK: %{{.*}}, %[[GW2:.*]], %[[GKC:.*]] = sezm.rotate_mix_grad %[[GU]]
// CHECK: %[[GW:.*]] = arith.addf %[[GW1]], %[[GW2]]
// The kernel's cotangent flows back through the matmul to the radial basis.
// CHECK: %[[WKT:.*]] = linalg.transpose ins(%arg8 : tensor<8x25xf64>) {{.*}} permutation = [1, 0]
// CHECK: %[[GRBF:.*]] = linalg.matmul ins(%[[GKC]], %[[WKT]]
// CHECK: %[[D1:.*]] = sezm.envelope_grad %[[GENV]], %[[V]]
// CHECK: %[[D2:.*]] = sezm.radial_basis_grad %[[GRBF]], %[[V]]
// CHECK: %[[D12:.*]] = arith.addf %[[D1]], %[[D2]]
// CHECK: %[[D3:.*]] = sezm.wigner_grad %[[GW]], %[[V]]
// CHECK: %[[GV:.*]] = arith.addf %[[D12]], %[[D3]]
// CHECK: %[[GPOS:.*]] = sezm.edge_vectors_grad %[[GV]] src(%arg3, %arg4) dst(%arg5, %arg6)
// CHECK: %[[F:.*]] = arith.negf %[[GPOS]]
// The virial, -(dE/dv)^T v, of ops that can be differentiated again.
// CHECK: %[[GVT:.*]] = linalg.transpose ins(%[[GV]] : tensor<?x3xf64>) {{.*}} permutation = [1, 0]
// CHECK: %[[VV:.*]] = linalg.matmul ins(%[[GVT]], %[[V]] : tensor<3x?xf64>, tensor<?x3xf64>) {{.*}} -> tensor<3x3xf64>
// CHECK: %[[W:.*]] = arith.negf %[[VV]]
// CHECK: return %[[E]], %[[F]], %[[W]]

// MISSING: error: sezm-autodiff: no function @missing

// Per atom: the energy's (N, 16, 8) summed per atom, and each edge's virial
// term, half to each end, summed over the source and destination CSRs.
// ATOMIC-LABEL: func.func @energy_forces(
// ATOMIC-SAME: tensor<3x3xf64> {sezm.name = "virial"}, tensor<?xf64> {sezm.name = "atom_energy"}, tensor<?x3x3xf64> {sezm.name = "atom_virial"})
// ATOMIC: %[[AE:.*]] = linalg.reduce ins(%{{.*}} : tensor<?x16x8xf64>) outs(%{{.*}} : tensor<?xf64>) dimensions = [1, 2]
// ATOMIC: %[[T:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<?x3x3xf64>)
// ATOMIC: %[[BYSRC:.*]] = sezm.segment_reduce %[[T]] over(%arg3, %arg4)
// ATOMIC: %[[BYDST:.*]] = sezm.segment_reduce %[[T]] over(%arg5, %arg6)
// ATOMIC: %[[AV:.*]] = arith.addf %[[BYSRC]], %[[BYDST]]
// ATOMIC: return %{{.*}}, %{{.*}}, %{{.*}}, %[[AE]], %[[AV]]

// PIPELINE: remark: inference schedule: nothing differentiates @energy_forces again
// PIPELINE-DAG: llvm.func @energy(
// PIPELINE-DAG: llvm.func @energy_forces(

func.func @energy(%pos: tensor<?x3xf64> {sezm.name = "positions"},
    %src: tensor<?xi64> {sezm.name = "src"}, %dst: tensor<?xi64> {sezm.name = "dst"},
    %so: tensor<?xi64> {sezm.name = "src_order", sezm.csr_of = "src"},
    %sr: tensor<?xi64> {sezm.name = "src_rowptr", sezm.csr_of = "src"},
    %do: tensor<?xi64> {sezm.name = "dst_order", sezm.csr_of = "dst"},
    %dr: tensor<?xi64> {sezm.name = "dst_rowptr", sezm.csr_of = "dst"},
    %x: tensor<?x16x8xf64> {sezm.name = "features"},
    %wk: tensor<8x25xf64> {sezm.name = "radial_to_kernel"},
    %cb: tensor<1x8xf64> {sezm.name = "channel_basis"},
    %isd: tensor<?xf64> {sezm.name = "inv_sqrt_deg"})
    -> (tensor<f64> {sezm.name = "energy"}) {
  %v = sezm.edge_vectors %pos[%src, %dst]
      : (tensor<?x3xf64>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x3xf64>
  %w = sezm.wigner %v lmax = 3 : (tensor<?x3xf64>) -> tensor<?x16x16xf64>
  %rbf = sezm.radial_basis %v rcut = 6.0 exponent = 7 : (tensor<?x3xf64>) -> tensor<?x8xf64>
  %env = sezm.envelope %v rcut = 6.0 exponent = 5 : (tensor<?x3xf64>) -> tensor<?xf64>
  %c0 = arith.constant 0 : index
  %edges = tensor.dim %rbf, %c0 : tensor<?x8xf64>
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty(%edges) : tensor<?x25xf64>
  %init = linalg.fill ins(%zero : f64) outs(%empty : tensor<?x25xf64>) -> tensor<?x25xf64>
  %kc = linalg.matmul ins(%rbf, %wk : tensor<?x8xf64>, tensor<8x25xf64>)
                      outs(%init : tensor<?x25xf64>) -> tensor<?x25xf64>
  %u = sezm.rotate_mix %x[%src] by %w kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x8xf64>, tensor<?xi64>, tensor<?x16x16xf64>, tensor<?x25xf64>,
         tensor<1x8xf64>) -> tensor<?x10x8xf64>
  %agg = sezm.envelope_aggregate %u by %w env %env norm %isd over(%do, %dr) lmax = 3
      : (tensor<?x10x8xf64>, tensor<?x16x16xf64>, tensor<?xf64>, tensor<?xf64>,
         tensor<?xi64>, tensor<?xi64>) -> tensor<?x16x8xf64>
  %sq = arith.mulf %agg, %agg : tensor<?x16x8xf64>
  %scalar = tensor.empty() : tensor<f64>
  %acc = linalg.fill ins(%zero : f64) outs(%scalar : tensor<f64>) -> tensor<f64>
  %e = linalg.reduce ins(%sq : tensor<?x16x8xf64>) outs(%acc : tensor<f64>) dimensions = [0, 1, 2]
    (%in: f64, %out: f64) {
      %s = arith.addf %in, %out : f64
      linalg.yield %s : f64
    }
  return %e : tensor<f64>
}
