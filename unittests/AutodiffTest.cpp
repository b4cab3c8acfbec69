//===- AutodiffTest.cpp - forces and virial by sezm-autodiff --------------===//
//
// Builds @energy_forces from a small SeZM energy with the sezm-autodiff pass,
// compiles it with the CPU pipeline in f64 and checks:
//  - its energy equals that of @energy;
//  - every force component against a central finite difference of @energy,
//    and the forces' sum against zero;
//  - the virial against the derivative of @energy under a random strain,
//    dE/dt E((I + tS) positions) = -sum_ab S_ab W_ab.
//
//===----------------------------------------------------------------------===//

#include "ForcesProgram.h"
#include "Reference/Reference.h"

#include "mlir/Support/FileUtilities.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

using namespace mlir;
using sezmrt::ElementType;
using sezmrt::HostTensor;
namespace ref = ::sezm::reference;

namespace {

/// E = sum envelope_aggregate(z + gate(z))^2, z = u + so2_linear(u),
/// u = rotate_mix(x, W(v), (silu(rbf(v)) + rbf(v)) Wk), over the edge
/// vectors v of the positions: residual layers as sezm-fuse-accumulate
/// folds them.
const char *energyModule = R"mlir(
func.func @energy(%pos: tensor<?x3xf64> {sezm.name = "positions"},
    %src: tensor<?xi64> {sezm.name = "src"},
    %dst: tensor<?xi64> {sezm.name = "dst"},
    %so: tensor<?xi64> {sezm.name = "src_order", sezm.csr_of = "src"},
    %sr: tensor<?xi64> {sezm.name = "src_rowptr", sezm.csr_of = "src"},
    %do: tensor<?xi64> {sezm.name = "dst_order", sezm.csr_of = "dst"},
    %dr: tensor<?xi64> {sezm.name = "dst_rowptr", sezm.csr_of = "dst"},
    %x: tensor<?x16x8xf64> {sezm.name = "features"},
    %wk: tensor<8x25xf64> {sezm.name = "radial_to_kernel"},
    %cb: tensor<1x8xf64> {sezm.name = "channel_basis"},
    %isd: tensor<?xf64> {sezm.name = "inv_sqrt_deg"},
    %w0: tensor<1x32x32xf64> {sezm.name = "w0"},
    %wu: tensor<1x24x24xf64> {sezm.name = "wu"},
    %wv: tensor<1x24x24xf64> {sezm.name = "wv"},
    %gw: tensor<1x8x24xf64> {sezm.name = "gate_weight"})
    -> (tensor<f64> {sezm.name = "energy"}) {
  %v = sezm.edge_vectors %pos[%src, %dst]
      : (tensor<?x3xf64>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x3xf64>
  %w = sezm.wigner %v lmax = 3 : (tensor<?x3xf64>) -> tensor<?x16x16xf64>
  %rbf = sezm.radial_basis %v rcut = 6.0 exponent = 7
      : (tensor<?x3xf64>) -> tensor<?x8xf64>
  %env = sezm.envelope %v rcut = 6.0 exponent = 5
      : (tensor<?x3xf64>) -> tensor<?xf64>
  %c0 = arith.constant 0 : index
  %edges = tensor.dim %rbf, %c0 : tensor<?x8xf64>
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty(%edges) : tensor<?x25xf64>
  %init = linalg.fill ins(%zero : f64) outs(%empty : tensor<?x25xf64>)
      -> tensor<?x25xf64>
  // silu(rbf) + rbf, spelled with negf, exp, addf, divf and subf.
  %one = arith.constant 1.0 : f64
  %ones = tensor.splat %one[%edges] : tensor<?x8xf64>
  %neg = arith.negf %rbf : tensor<?x8xf64>
  %ex = math.exp %neg : tensor<?x8xf64>
  %den = arith.addf %ones, %ex : tensor<?x8xf64>
  %silu = arith.divf %rbf, %den : tensor<?x8xf64>
  %act8 = arith.subf %silu, %neg : tensor<?x8xf64>
  %kc = linalg.matmul ins(%act8, %wk : tensor<?x8xf64>, tensor<8x25xf64>)
      outs(%init : tensor<?x25xf64>) -> tensor<?x25xf64>
  %u = sezm.rotate_mix %x[%src] by %w kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x8xf64>, tensor<?xi64>, tensor<?x16x16xf64>,
         tensor<?x25xf64>, tensor<1x8xf64>) -> tensor<?x10x8xf64>
  %z = sezm.so2_linear %u weights(%w0, %wu, %wv) plus %u lmax = 3 focus = 1
      : (tensor<?x10x8xf64>, tensor<1x32x32xf64>, tensor<1x24x24xf64>,
         tensor<1x24x24xf64>, tensor<?x10x8xf64>) -> tensor<?x10x8xf64>
  %act = sezm.gate %z weight %gw plus %z lmax = 3 focus = 1
      : (tensor<?x10x8xf64>, tensor<1x8x24xf64>, tensor<?x10x8xf64>)
      -> tensor<?x10x8xf64>
  %agg = sezm.envelope_aggregate %act by %w env %env norm %isd over(%do, %dr)
      lmax = 3 : (tensor<?x10x8xf64>, tensor<?x16x16xf64>, tensor<?xf64>,
                  tensor<?xf64>, tensor<?xi64>, tensor<?xi64>)
      -> tensor<?x16x8xf64>
  %sq = arith.mulf %agg, %agg : tensor<?x16x8xf64>
  %scalar = tensor.empty() : tensor<f64>
  %acc = linalg.fill ins(%zero : f64) outs(%scalar : tensor<f64>)
      -> tensor<f64>
  %e = linalg.reduce ins(%sq : tensor<?x16x8xf64>) outs(%acc : tensor<f64>)
      dimensions = [0, 1, 2]
    (%in: f64, %out: f64) {
      %s = arith.addf %in, %out : f64
      linalg.yield %s : f64
    }
  return %e : tensor<f64>
}
)mlir";

HostTensor f64Tensor(std::vector<int64_t> shape, std::mt19937_64 &gen,
                     double lo, double hi) {
  HostTensor t(ElementType::F64, std::move(shape));
  std::uniform_real_distribution<double> dist(lo, hi);
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.data<double>()[i] = dist(gen);
  return t;
}

/// `atoms` atoms in a 3 A cube with every ordered pair as an edge (all
/// inside the 6 A cutoff, so every edge carries a gradient): the positions,
/// src, dst and both CSRs, the first seven inputs of the test energies.
std::vector<HostTensor> allPairsGraph(int64_t atoms, std::mt19937_64 &gen) {
  std::vector<int64_t> src, dst;
  for (int64_t i = 0; i < atoms; ++i)
    for (int64_t j = 0; j < atoms; ++j)
      if (i != j) {
        src.push_back(i);
        dst.push_back(j);
      }
  ref::Csr bySrc = ref::Csr::build(src, atoms);
  ref::Csr byDst = ref::Csr::build(dst, atoms);
  using ::sezm::testing::int64Tensor;
  return {f64Tensor({atoms, 3}, gen, 0, 3),
          int64Tensor(src),
          int64Tensor(dst),
          int64Tensor(bySrc.order),
          int64Tensor(bySrc.rowptr),
          int64Tensor(byDst.order),
          int64Tensor(byDst.rowptr)};
}

/// The scalar that `entry` returns first, at `positions` (input 0).
double scalarAt(mlir::sezm::CpuProgram &program, const char *entry,
                std::vector<HostTensor> inputs, const HostTensor &positions) {
  inputs[0] = positions;
  auto out = program.run(entry, inputs);
  if (!out) {
    ADD_FAILURE() << llvm::toString(out.takeError());
    return NAN;
  }
  return out->front().at(0);
}

/// Checks every force component against a central difference (h = 1e-5)
/// of the energy at the positions; returns the largest difference quotient.
double expectForcesMatchCentralDifferences(
    const HostTensor &forces, const HostTensor &positions,
    const std::function<double(const HostTensor &)> &energyAt) {
  const double h = 1e-5;
  double largest = 0;
  for (int64_t i = 0; i < forces.numElements(); ++i) {
    HostTensor plus = positions, minus = positions;
    plus.data<double>()[i] += h;
    minus.data<double>()[i] -= h;
    double numeric = -(energyAt(plus) - energyAt(minus)) / (2 * h);
    largest = std::max(largest, std::abs(numeric));
    EXPECT_NEAR(forces.at(i), numeric, 1e-6 * std::abs(numeric) + 1e-7)
        << "force component " << i;
  }
  return largest;
}

class Autodiff : public ::testing::Test {
protected:
  void SetUp() override {
    program = ::sezm::testing::compileWithForces(context, energyModule);
    ASSERT_TRUE(program);

    std::mt19937_64 gen(41);
    const int64_t atoms = 7;
    inputs = allPairsGraph(atoms, gen);
    inputs.insert(inputs.end(), {f64Tensor({atoms, 16, 8}, gen, -1, 1),
                                 f64Tensor({8, 25}, gen, -1, 1),
                                 f64Tensor({1, 8}, gen, -1, 1),
                                 f64Tensor({atoms}, gen, 0.2, 0.5),
                                 f64Tensor({1, 32, 32}, gen, -0.3, 0.3),
                                 f64Tensor({1, 24, 24}, gen, -0.3, 0.3),
                                 f64Tensor({1, 24, 24}, gen, -0.3, 0.3),
                                 f64Tensor({1, 8, 24}, gen, -0.5, 0.5)});
  }

  double energyAt(const HostTensor &positions) {
    return scalarAt(*program, "energy", inputs, positions);
  }

  MLIRContext context;
  std::unique_ptr<mlir::sezm::CpuProgram> program;
  std::vector<HostTensor> inputs;
};

TEST_F(Autodiff, ForcesAndVirialMatchFiniteDifferences) {
  auto out = program->run("energy_forces", inputs);
  ASSERT_TRUE(static_cast<bool>(out)) << llvm::toString(out.takeError());
  ASSERT_EQ(out->size(), 3u);
  const HostTensor &energy = (*out)[0], &forces = (*out)[1],
                   &virial = (*out)[2];
  ASSERT_EQ(forces.shape, inputs[0].shape);
  ASSERT_EQ(virial.shape, (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(energy.at(0), energyAt(inputs[0]));

  double largest = expectForcesMatchCentralDifferences(
      forces, inputs[0],
      [&](const HostTensor &positions) { return energyAt(positions); });
  // Forces of zero would match a flat energy and prove nothing.
  EXPECT_GT(largest, 1e-3);

  // The energy depends only on edge vectors, so it is translation invariant
  // and the forces sum to zero (Newton's third law).
  for (int k = 0; k < 3; ++k) {
    double total = 0;
    for (int64_t a = 0; a < forces.shape[0]; ++a)
      total += forces.at(a * 3 + k);
    EXPECT_NEAR(total, 0, 1e-10 * largest * forces.shape[0])
        << "sum of forces along " << k;
  }

  // The strain derivative: positions -> (I + tS) positions.
  std::mt19937_64 gen(42);
  std::uniform_real_distribution<double> dist(-1, 1);
  double strain[3][3];
  for (auto &row : strain)
    for (double &s : row)
      s = dist(gen);
  auto strained = [&](double t) {
    HostTensor moved = inputs[0];
    const double *p = inputs[0].data<double>();
    for (int64_t a = 0; a < moved.shape[0]; ++a)
      for (int k = 0; k < 3; ++k)
        for (int j = 0; j < 3; ++j)
          moved.data<double>()[a * 3 + k] += t * strain[k][j] * p[a * 3 + j];
    return energyAt(moved);
  };
  const double h = 1e-5;
  double numeric = (strained(h) - strained(-h)) / (2 * h);
  double analytic = 0;
  for (int k = 0; k < 3; ++k)
    for (int j = 0; j < 3; ++j)
      analytic -= strain[k][j] * virial.at(k * 3 + j);
  EXPECT_NEAR(analytic, numeric, 1e-6 * std::abs(numeric) + 1e-7);
  EXPECT_GT(std::abs(numeric), 1e-3);
}

TEST_F(Autodiff, RunsAreBitForBitRepeatable) {
  auto first = program->run("energy_forces", inputs);
  auto second = program->run("energy_forces", inputs);
  ASSERT_TRUE(static_cast<bool>(first)) << llvm::toString(first.takeError());
  ASSERT_TRUE(static_cast<bool>(second)) << llvm::toString(second.takeError());
  for (size_t i = 0; i < first->size(); ++i)
    EXPECT_TRUE((*first)[i].bytes == (*second)[i].bytes) << "result " << i;
}

} // namespace

namespace {

/// The unfused SO(2) path, on features that themselves depend on the
/// positions (a first rotate_mix block): rotate, mix, focus competition and
/// scaling, rotate_back, and a destination segment reduction; plus a term
/// weighting a focus-major rotate_mix, whose gradient arrives in its
/// (F, E, Dm*Cf) layout.
const char *unfusedModule = R"mlir(
func.func @energy(%pos: tensor<?x3xf64> {sezm.name = "positions"},
    %src: tensor<?xi64> {sezm.name = "src"},
    %dst: tensor<?xi64> {sezm.name = "dst"},
    %so: tensor<?xi64> {sezm.name = "src_order", sezm.csr_of = "src"},
    %sr: tensor<?xi64> {sezm.name = "src_rowptr", sezm.csr_of = "src"},
    %do: tensor<?xi64> {sezm.name = "dst_order", sezm.csr_of = "dst"},
    %dr: tensor<?xi64> {sezm.name = "dst_rowptr", sezm.csr_of = "dst"},
    %x: tensor<?x16x8xf64> {sezm.name = "features"},
    %wk: tensor<8x25xf64> {sezm.name = "radial_to_kernel"},
    %cb: tensor<1x8xf64> {sezm.name = "channel_basis"},
    %isd: tensor<?xf64> {sezm.name = "inv_sqrt_deg"},
    %wfc: tensor<4x2xf64> {sezm.name = "focus_weight"},
    %wfm: tensor<2x?x40xf64> {sezm.name = "focus_major_weight"})
    -> (tensor<f64> {sezm.name = "energy"}) {
  %v = sezm.edge_vectors %pos[%src, %dst]
      : (tensor<?x3xf64>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x3xf64>
  %w = sezm.wigner %v lmax = 3 : (tensor<?x3xf64>) -> tensor<?x16x16xf64>
  %rbf = sezm.radial_basis %v rcut = 6.0 exponent = 7
      : (tensor<?x3xf64>) -> tensor<?x8xf64>
  %env = sezm.envelope %v rcut = 6.0 exponent = 5
      : (tensor<?x3xf64>) -> tensor<?xf64>
  %c0 = arith.constant 0 : index
  %edges = tensor.dim %rbf, %c0 : tensor<?x8xf64>
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty(%edges) : tensor<?x25xf64>
  %init = linalg.fill ins(%zero : f64) outs(%empty : tensor<?x25xf64>)
      -> tensor<?x25xf64>
  %kc = linalg.matmul ins(%rbf, %wk : tensor<?x8xf64>, tensor<8x25xf64>)
      outs(%init : tensor<?x25xf64>) -> tensor<?x25xf64>
  %u = sezm.rotate_mix %x[%src] by %w kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x8xf64>, tensor<?xi64>, tensor<?x16x16xf64>,
         tensor<?x25xf64>, tensor<1x8xf64>) -> tensor<?x10x8xf64>
  %x1 = sezm.envelope_aggregate %u by %w env %env norm %isd over(%do, %dr)
      lmax = 3 : (tensor<?x10x8xf64>, tensor<?x16x16xf64>, tensor<?xf64>,
                  tensor<?xf64>, tensor<?xi64>, tensor<?xi64>)
      -> tensor<?x16x8xf64>
  %xl = sezm.rotate %x1[%src] by %w lmax = 3
      : (tensor<?x16x8xf64>, tensor<?xi64>, tensor<?x16x16xf64>)
      -> tensor<?x10x8xf64>
  %y = sezm.mix %xl kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x10x8xf64>, tensor<?x25xf64>, tensor<1x8xf64>)
      -> tensor<?x10x8xf64>
  %alpha = sezm.focus_compete %y weight %wfc lmax = 3 focus = 2
      : (tensor<?x10x8xf64>, tensor<4x2xf64>) -> tensor<?x2xf64>
  %ys = sezm.focus_scale %y by %alpha
      : (tensor<?x10x8xf64>, tensor<?x2xf64>) -> tensor<?x10x8xf64>
  %back = sezm.rotate_back %ys by %w lmax = 3
      : (tensor<?x10x8xf64>, tensor<?x16x16xf64>) -> tensor<?x16x8xf64>
  %agg = sezm.segment_reduce %back over(%do, %dr)
      : (tensor<?x16x8xf64>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x16x8xf64>
  %sq = arith.mulf %agg, %agg : tensor<?x16x8xf64>
  %scalar = tensor.empty() : tensor<f64>
  %acc = linalg.fill ins(%zero : f64) outs(%scalar : tensor<f64>)
      -> tensor<f64>
  %e1 = linalg.reduce ins(%sq : tensor<?x16x8xf64>) outs(%acc : tensor<f64>)
      dimensions = [0, 1, 2]
    (%in: f64, %out: f64) {
      %s = arith.addf %in, %out : f64
      linalg.yield %s : f64
    }
  %u0 = sezm.rotate_mix %x1[%src] by %w kernel %kc basis %cb lmax = 3 rank = 1
      focus_major = 2
      : (tensor<?x16x8xf64>, tensor<?xi64>, tensor<?x16x16xf64>,
         tensor<?x25xf64>, tensor<1x8xf64>) -> tensor<2x?x40xf64>
  %weighted = arith.mulf %u0, %wfm : tensor<2x?x40xf64>
  %acc2 = linalg.fill ins(%zero : f64) outs(%scalar : tensor<f64>)
      -> tensor<f64>
  %e2 = linalg.reduce ins(%weighted : tensor<2x?x40xf64>)
      outs(%acc2 : tensor<f64>) dimensions = [0, 1, 2]
    (%in: f64, %out: f64) {
      %s = arith.addf %in, %out : f64
      linalg.yield %s : f64
    }
  %e = arith.addf %e1, %e2 : tensor<f64>
  return %e : tensor<f64>
}
)mlir";

TEST(AutodiffUnfused, ForcesMatchFiniteDifferences) {
  MLIRContext context;
  auto program = ::sezm::testing::compileWithForces(context, unfusedModule);
  ASSERT_TRUE(program);
  std::mt19937_64 gen(43);
  const int64_t atoms = 6;
  std::vector<HostTensor> inputs = allPairsGraph(atoms, gen);
  int64_t edges = inputs[1].numElements();
  inputs.insert(
      inputs.end(),
      {f64Tensor({atoms, 16, 8}, gen, -1, 1), f64Tensor({8, 25}, gen, -1, 1),
       f64Tensor({1, 8}, gen, -1, 1), f64Tensor({atoms}, gen, 0.2, 0.5),
       f64Tensor({4, 2}, gen, -1, 1), f64Tensor({2, edges, 40}, gen, -1, 1)});
  auto energyAt = [&](const HostTensor &positions) {
    return scalarAt(*program, "energy", inputs, positions);
  };
  auto out = program->run("energy_forces", inputs);
  ASSERT_TRUE(static_cast<bool>(out)) << llvm::toString(out.takeError());
  const HostTensor &forces = (*out)[1];
  double largest =
      expectForcesMatchCentralDifferences(forces, inputs[0], energyAt);
  EXPECT_GT(largest, 1e-3);
}

/// Attention over the destination CSR (DeePMD-kit's attention aggregation):
/// messages from a rotate_mix, logits from the radial basis (one focus
/// stream, one head), the envelope as the mass weight and a trained null
/// logit; E = sum of the aggregate squared.
const char *attentionModule = R"mlir(
func.func @energy(%pos: tensor<?x3xf64> {sezm.name = "positions"},
    %src: tensor<?xi64> {sezm.name = "src"},
    %dst: tensor<?xi64> {sezm.name = "dst"},
    %so: tensor<?xi64> {sezm.name = "src_order", sezm.csr_of = "src"},
    %sr: tensor<?xi64> {sezm.name = "src_rowptr", sezm.csr_of = "src"},
    %do: tensor<?xi64> {sezm.name = "dst_order", sezm.csr_of = "dst"},
    %dr: tensor<?xi64> {sezm.name = "dst_rowptr", sezm.csr_of = "dst"},
    %x: tensor<?x16x8xf64> {sezm.name = "features"},
    %wk: tensor<8x25xf64> {sezm.name = "radial_to_kernel"},
    %cb: tensor<1x8xf64> {sezm.name = "channel_basis"},
    %wl: tensor<8x1xf64> {sezm.name = "logit_weight"},
    %null: tensor<1x1xf64> {sezm.name = "null_logit"})
    -> (tensor<f64> {sezm.name = "energy"}) {
  %v = sezm.edge_vectors %pos[%src, %dst]
      : (tensor<?x3xf64>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x3xf64>
  %w = sezm.wigner %v lmax = 3 : (tensor<?x3xf64>) -> tensor<?x16x16xf64>
  %rbf = sezm.radial_basis %v rcut = 6.0 exponent = 7
      : (tensor<?x3xf64>) -> tensor<?x8xf64>
  %env = sezm.envelope %v rcut = 6.0 exponent = 5
      : (tensor<?x3xf64>) -> tensor<?xf64>
  %c0 = arith.constant 0 : index
  %edges = tensor.dim %rbf, %c0 : tensor<?x8xf64>
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty(%edges) : tensor<?x25xf64>
  %init = linalg.fill ins(%zero : f64) outs(%empty : tensor<?x25xf64>)
      -> tensor<?x25xf64>
  %kc = linalg.matmul ins(%rbf, %wk : tensor<?x8xf64>, tensor<8x25xf64>)
      outs(%init : tensor<?x25xf64>) -> tensor<?x25xf64>
  %u = sezm.rotate_mix %x[%src] by %w kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x8xf64>, tensor<?xi64>, tensor<?x16x16xf64>,
         tensor<?x25xf64>, tensor<1x8xf64>) -> tensor<?x10x8xf64>
  %lempty = tensor.empty(%edges) : tensor<?x1xf64>
  %linit = linalg.fill ins(%zero : f64) outs(%lempty : tensor<?x1xf64>)
      -> tensor<?x1xf64>
  %l2 = linalg.matmul ins(%rbf, %wl : tensor<?x8xf64>, tensor<8x1xf64>)
      outs(%linit : tensor<?x1xf64>) -> tensor<?x1xf64>
  %logit = tensor.expand_shape %l2 [[0], [1, 2]] output_shape [%edges, 1, 1]
      : tensor<?x1xf64> into tensor<?x1x1xf64>
  %agg = sezm.attention_aggregate %u by %w logit %logit env %env null %null
      over(%do, %dr) lmax = 3
      : (tensor<?x10x8xf64>, tensor<?x16x16xf64>, tensor<?x1x1xf64>,
         tensor<?xf64>, tensor<1x1xf64>, tensor<?xi64>, tensor<?xi64>)
      -> tensor<?x16x8xf64>
  %sq = arith.mulf %agg, %agg : tensor<?x16x8xf64>
  %scalar = tensor.empty() : tensor<f64>
  %acc = linalg.fill ins(%zero : f64) outs(%scalar : tensor<f64>)
      -> tensor<f64>
  %e = linalg.reduce ins(%sq : tensor<?x16x8xf64>) outs(%acc : tensor<f64>)
      dimensions = [0, 1, 2]
    (%in: f64, %out: f64) {
      %s = arith.addf %in, %out : f64
      linalg.yield %s : f64
    }
  return %e : tensor<f64>
}
)mlir";

/// Forces through attention_aggregate's derivative rule (the logits, the
/// envelope's mass weight, the messages and the Wigner-D all depend on the
/// positions) against central differences of the energy.
TEST(AutodiffAttention, ForcesMatchFiniteDifferences) {
  MLIRContext context;
  auto program = ::sezm::testing::compileWithForces(context, attentionModule);
  ASSERT_TRUE(program);
  std::mt19937_64 gen(44);
  const int64_t atoms = 6;
  std::vector<HostTensor> inputs = allPairsGraph(atoms, gen);
  inputs.insert(inputs.end(),
                {f64Tensor({atoms, 16, 8}, gen, -1, 1),
                 f64Tensor({8, 25}, gen, -1, 1), f64Tensor({1, 8}, gen, -1, 1),
                 f64Tensor({8, 1}, gen, -2, 2), f64Tensor({1, 1}, gen, -1, 1)});
  auto energyAt = [&](const HostTensor &positions) {
    return scalarAt(*program, "energy", inputs, positions);
  };
  auto out = program->run("energy_forces", inputs);
  ASSERT_TRUE(static_cast<bool>(out)) << llvm::toString(out.takeError());
  const HostTensor &forces = (*out)[1];
  double largest =
      expectForcesMatchCentralDifferences(forces, inputs[0], energyAt);
  EXPECT_GT(largest, 1e-3);
}

/// The shapes the imported env seed and attention use around the sezm ops:
/// linalg.broadcast of a non-scalar along new axes (the edge vectors over
/// a coefficient axis, a constant over the edges), linalg.reduce over some
/// axes, a node-to-edge gather (sezm.segment_reduce_grad over the
/// destination CSR); E = sum of the squares of the per-node sums.
const char *broadcastReduceModule = R"mlir(
func.func @energy(%pos: tensor<?x3xf64> {sezm.name = "positions"},
    %src: tensor<?xi64> {sezm.name = "src"},
    %dst: tensor<?xi64> {sezm.name = "dst"},
    %so: tensor<?xi64> {sezm.name = "src_order", sezm.csr_of = "src"},
    %sr: tensor<?xi64> {sezm.name = "src_rowptr", sezm.csr_of = "src"},
    %do: tensor<?xi64> {sezm.name = "dst_order", sezm.csr_of = "dst"},
    %dr: tensor<?xi64> {sezm.name = "dst_rowptr", sezm.csr_of = "dst"},
    %k: tensor<4x3xf64> {sezm.name = "coefficients"})
    -> (tensor<f64> {sezm.name = "energy"}) {
  %v = sezm.edge_vectors %pos[%src, %dst]
      : (tensor<?x3xf64>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x3xf64>
  %c0 = arith.constant 0 : index
  %edges = tensor.dim %v, %c0 : tensor<?x3xf64>
  %zero = arith.constant 0.0 : f64
  %vbE = tensor.empty(%edges) : tensor<?x4x3xf64>
  %vb = linalg.broadcast ins(%v : tensor<?x3xf64>)
      outs(%vbE : tensor<?x4x3xf64>) dimensions = [1]
  %kbE = tensor.empty(%edges) : tensor<?x4x3xf64>
  %kb = linalg.broadcast ins(%k : tensor<4x3xf64>)
      outs(%kbE : tensor<?x4x3xf64>) dimensions = [0]
  %p = arith.mulf %vb, %kb : tensor<?x4x3xf64>
  %sE = tensor.empty(%edges) : tensor<?x4xf64>
  %sZ = linalg.fill ins(%zero : f64) outs(%sE : tensor<?x4xf64>)
      -> tensor<?x4xf64>
  %s = linalg.reduce ins(%p : tensor<?x4x3xf64>)
      outs(%sZ : tensor<?x4xf64>) dimensions = [2]
    (%in: f64, %acc: f64) {
      %a = arith.addf %in, %acc : f64
      linalg.yield %a : f64
    }
  %t = math.tanh %s : tensor<?x4xf64>
  %node = sezm.segment_reduce %t over(%do, %dr)
      : (tensor<?x4xf64>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf64>
  %back = sezm.segment_reduce_grad %node over(%do, %dr)
      : (tensor<?x4xf64>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf64>
  %q = arith.mulf %back, %t : tensor<?x4xf64>
  %scalar = tensor.empty() : tensor<f64>
  %acc = linalg.fill ins(%zero : f64) outs(%scalar : tensor<f64>)
      -> tensor<f64>
  %e = linalg.reduce ins(%q : tensor<?x4xf64>) outs(%acc : tensor<f64>)
      dimensions = [0, 1]
    (%in: f64, %out: f64) {
      %a = arith.addf %in, %out : f64
      linalg.yield %a : f64
    }
  return %e : tensor<f64>
}
)mlir";

/// Forces through the broadcast, partial-sum and gather rules against
/// central differences of the energy.
TEST(AutodiffBroadcastReduce, ForcesMatchFiniteDifferences) {
  MLIRContext context;
  auto program =
      ::sezm::testing::compileWithForces(context, broadcastReduceModule);
  ASSERT_TRUE(program);
  std::mt19937_64 gen(45);
  const int64_t atoms = 5;
  std::vector<HostTensor> inputs = allPairsGraph(atoms, gen);
  inputs.push_back(f64Tensor({4, 3}, gen, -0.5, 0.5));
  auto energyAt = [&](const HostTensor &positions) {
    return scalarAt(*program, "energy", inputs, positions);
  };
  auto out = program->run("energy_forces", inputs);
  ASSERT_TRUE(static_cast<bool>(out)) << llvm::toString(out.takeError());
  double largest =
      expectForcesMatchCentralDifferences((*out)[1], inputs[0], energyAt);
  EXPECT_GT(largest, 1e-3);
}

/// create-graph: the gradient of a force loss, sum_i F_i . d_i, with respect
/// to the positions (a second derivative of the energy) against central
/// differences of the forces along d, and with respect to the weights (what
/// training on forces needs) against central differences of the loss.
/// test/Transforms/Inputs/force-loss.mlir has the energy (Wigner-D, radial
/// basis and envelope of the edge vectors, a radial matmul, a destination
/// reduction, tanh) and the loss.
TEST(AutodiffCreateGraph, SecondDerivativeMatchesFiniteDifferencesOfForces) {
  MLIRContext context;
  DialectRegistry registry;
  mlir::sezm::registerToolDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
  std::string error;
  auto file = mlir::openInputFile(SEZM_FORCE_LOSS_MODEL, &error);
  ASSERT_TRUE(file) << error;
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sources, &context);
  ASSERT_TRUE(module);
  PassManager pm(&context);
  mlir::sezm::AutodiffOptions first;
  first.createGraph = true;
  pm.addPass(mlir::sezm::createAutodiff(first));
  pm.addPass(mlir::createInlinerPass());
  mlir::sezm::AutodiffOptions second;
  second.energy = "loss";
  // The gradient a training step on this loss needs, too.
  second.weights = {"radial_weight", "wigner_weight"};
  pm.addPass(mlir::sezm::createAutodiff(second));
  ASSERT_TRUE(succeeded(pm.run(*module)));
  auto compiled = mlir::sezm::CpuProgram::compile(std::move(module));
  ASSERT_TRUE(static_cast<bool>(compiled))
      << llvm::toString(compiled.takeError());
  std::unique_ptr<mlir::sezm::CpuProgram> program = std::move(*compiled);

  std::mt19937_64 gen(47);
  const int64_t atoms = 6;
  std::vector<HostTensor> inputs = allPairsGraph(atoms, gen);
  int64_t edges = inputs[1].numElements();
  inputs.insert(inputs.end(), {f64Tensor({8, 81}, gen, -0.5, 0.5),
                               f64Tensor({edges, 81}, gen, -0.5, 0.5),
                               f64Tensor({atoms, 3}, gen, -1, 1)});
  // The loss is the forces along the direction: its finite differences
  // are those of the forces.
  auto lossAt = [&](const HostTensor &positions) {
    return scalarAt(*program, "loss", inputs, positions);
  };
  auto out = program->run("loss_forces", inputs);
  ASSERT_TRUE(static_cast<bool>(out)) << llvm::toString(out.takeError());
  double largest =
      expectForcesMatchCentralDifferences((*out)[1], inputs[0], lossAt);
  EXPECT_GT(largest, 1e-3);

  // d loss / d weight, a mixed second derivative of the energy, against
  // central differences of the loss in every 7th entry of each weight.
  ASSERT_EQ(out->size(), 5u);
  for (int w = 0; w < 2; ++w) {
    const HostTensor &grad = (*out)[3 + w];
    size_t input = 7 + w;
    ASSERT_EQ(grad.shape, inputs[input].shape);
    double largestWeightGrad = 0;
    for (int64_t i = 0; i < grad.numElements(); i += 7) {
      const double h = 1e-5;
      std::vector<HostTensor> plus = inputs, minus = inputs;
      plus[input].data<double>()[i] += h;
      minus[input].data<double>()[i] -= h;
      double numeric = (scalarAt(*program, "loss", plus, inputs[0]) -
                        scalarAt(*program, "loss", minus, inputs[0])) /
                       (2 * h);
      largestWeightGrad = std::max(largestWeightGrad, std::abs(numeric));
      EXPECT_NEAR(grad.at(i), numeric, 1e-6 * std::abs(numeric) + 1e-7)
          << "weight " << w << " entry " << i;
    }
    EXPECT_GT(largestWeightGrad, 1e-3) << "weight " << w;
  }
}

} // namespace
