//===- PhysicsTest.cpp - symmetries of energy and forces ------------------===//
//
// Two energies, their forces by sezm-autodiff, on graphs that sezm's
// neighbour list builds from periodic structures, run on the CPU in f64: a
// small two-block SO(2) message-passing energy (Wigner-D from the edge
// vectors, radial kernels, envelope aggregation), and SeZM-min
// (examples/sezm-min/model.mlir, read as f64, with the weights the build
// makes from their seed). Checks the physics a potential must have:
//  - a rotation of the structure (and its cell) leaves the energy and
//    rotates the forces;
//  - translating the atoms, or permuting them, leaves the energy (the forces
//    permute along);
//  - the periodic image convention: a 2x1x1 supercell has twice the energy
//    and the same force on each copy of an atom;
//  - forces equal central finite differences of the energy, with the graph
//    rebuilt for every displaced structure.
//
//===----------------------------------------------------------------------===//

#include "ForcesProgram.h"
#include "SeZM/Support/Safetensors.h"
#include "SeZM/Support/Structure.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <sstream>

using namespace mlir;
using sezmrt::ElementType;
using sezmrt::HostTensor;
using sezmrt::NeighbourGraph;
using sezmrt::Structure;
using sezmrt::Vec3;

namespace {

/// E = sum |x2|^2 with x_{k+1} = envelope_aggregate(rotate_mix(x_k)): the
/// features start as scalars (row l = 0), so E is rotation invariant when
/// the Wigner-D, the rotation and the aggregation are equivariant.
const char *energyModule = R"mlir(
func.func @energy(%pos: tensor<?x3xf64> {sezm.name = "positions"},
    %shift: tensor<?x3xf64> {sezm.name = "shift"},
    %src: tensor<?xi64> {sezm.name = "src"},
    %dst: tensor<?xi64> {sezm.name = "dst"},
    %so: tensor<?xi64> {sezm.name = "src_order", sezm.csr_of = "src"},
    %sr: tensor<?xi64> {sezm.name = "src_rowptr", sezm.csr_of = "src"},
    %do: tensor<?xi64> {sezm.name = "dst_order", sezm.csr_of = "dst"},
    %dr: tensor<?xi64> {sezm.name = "dst_rowptr", sezm.csr_of = "dst"},
    %x: tensor<?x16x8xf64> {sezm.name = "features"},
    %wk: tensor<8x25xf64> {sezm.name = "radial_to_kernel"},
    %cb: tensor<1x8xf64> {sezm.name = "channel_basis"},
    %isd: tensor<?xf64> {sezm.name = "inv_sqrt_deg"})
    -> (tensor<f64> {sezm.name = "energy"}) {
  %v = sezm.edge_vectors %pos[%src, %dst] shift %shift
      : (tensor<?x3xf64>, tensor<?xi64>, tensor<?xi64>, tensor<?x3xf64>)
      -> tensor<?x3xf64>
  %w = sezm.wigner %v lmax = 3 : (tensor<?x3xf64>) -> tensor<?x16x16xf64>
  %rbf = sezm.radial_basis %v rcut = 4.0 exponent = 7
      : (tensor<?x3xf64>) -> tensor<?x8xf64>
  %env = sezm.envelope %v rcut = 4.0 exponent = 5
      : (tensor<?x3xf64>) -> tensor<?xf64>
  %c0 = arith.constant 0 : index
  %edges = tensor.dim %rbf, %c0 : tensor<?x8xf64>
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty(%edges) : tensor<?x25xf64>
  %init = linalg.fill ins(%zero : f64) outs(%empty : tensor<?x25xf64>)
      -> tensor<?x25xf64>
  %kc = linalg.matmul ins(%rbf, %wk : tensor<?x8xf64>, tensor<8x25xf64>)
      outs(%init : tensor<?x25xf64>) -> tensor<?x25xf64>
  %u1 = sezm.rotate_mix %x[%src] by %w kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x8xf64>, tensor<?xi64>, tensor<?x16x16xf64>,
         tensor<?x25xf64>, tensor<1x8xf64>) -> tensor<?x10x8xf64>
  %x1 = sezm.envelope_aggregate %u1 by %w env %env norm %isd over(%do, %dr)
      lmax = 3 : (tensor<?x10x8xf64>, tensor<?x16x16xf64>, tensor<?xf64>,
                  tensor<?xf64>, tensor<?xi64>, tensor<?xi64>)
      -> tensor<?x16x8xf64>
  %u2 = sezm.rotate_mix %x1[%src] by %w kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x8xf64>, tensor<?xi64>, tensor<?x16x16xf64>,
         tensor<?x25xf64>, tensor<1x8xf64>) -> tensor<?x10x8xf64>
  %x2 = sezm.envelope_aggregate %u2 by %w env %env norm %isd over(%do, %dr)
      lmax = 3 : (tensor<?x10x8xf64>, tensor<?x16x16xf64>, tensor<?xf64>,
                  tensor<?xf64>, tensor<?xi64>, tensor<?xi64>)
      -> tensor<?x16x8xf64>
  %sq = arith.mulf %x2, %x2 : tensor<?x16x8xf64>
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

/// SeZM-min as f64: every f32 of the model's text (types, constants,
/// block arguments) becomes f64.
std::string sezmMinAsF64() {
  std::ifstream in(SEZM_MIN_MODEL);
  std::stringstream text;
  text << in.rdbuf();
  return std::regex_replace(text.str(), std::regex("f32"), "f64");
}

/// What each model reads besides the positions and the graph.
struct Model {
  std::string name;
  double cutoff;
  std::unique_ptr<mlir::sezm::CpuProgram> program;
  /// Inputs by argument name that do not depend on the structure.
  std::map<std::string, HostTensor> weights;
  /// The weights whose gradients @energy_forces returns after the virial
  /// (one of each kind of op that has a weight).
  std::vector<std::string> trained;
  double embedding[2][8];
};

HostTensor vectors(const std::vector<Vec3> &rows) {
  return sezmrt::tensorFrom(ElementType::F64,
                            {static_cast<int64_t>(rows.size()), 3},
                            sezmrt::flatten(rows));
}

using Matrix = std::array<Vec3, 3>;

Vec3 times(const Matrix &m, const Vec3 &v) {
  Vec3 out{0, 0, 0};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      out[i] += m[i][j] * v[j];
  return out;
}

/// A rotation from a random unit quaternion.
Matrix randomRotation(std::mt19937_64 &gen) {
  std::normal_distribution<double> normal;
  double w = normal(gen), x = normal(gen), y = normal(gen), z = normal(gen);
  double n = std::sqrt(w * w + x * x + y * y + z * z);
  w /= n, x /= n, y /= n, z /= n;
  return {
      Vec3{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
      Vec3{2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
      Vec3{2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
}

/// Both models, compiled once for all tests (a JIT compile of SeZM-min
/// with its forces takes seconds).
Model &model(const std::string &name) {
  // Never destroyed: the JIT's code and LLVM's own statics go away at exit
  // in an order that destructors here cannot rely on.
  static auto *contextOwner = new mlir::MLIRContext();
  static auto *models = new std::map<std::string, Model>();
  mlir::MLIRContext &context = *contextOwner;
  auto [it, inserted] = models->try_emplace(name);
  Model &m = it->second;
  if (!inserted)
    return m;
  m.name = name;
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<double> weight(-1, 1);
  if (name == "toy") {
    m.cutoff = 4.0;
    m.trained = {"radial_to_kernel", "channel_basis"};
    m.program =
        ::sezm::testing::compileWithForces(context, energyModule, m.trained);
    HostTensor radialToKernel(ElementType::F64, {8, 25});
    for (int64_t i = 0; i < radialToKernel.numElements(); ++i)
      radialToKernel.data<double>()[i] = weight(gen);
    HostTensor channelBasis(ElementType::F64, {1, 8});
    for (int64_t i = 0; i < 8; ++i)
      channelBasis.data<double>()[i] = weight(gen);
    m.weights["radial_to_kernel"] = radialToKernel;
    m.weights["channel_basis"] = channelBasis;
    for (auto &row : m.embedding)
      for (double &value : row)
        value = weight(gen);
    return m;
  }
  m.cutoff = 6.0;
  // degree_linear, the radial matmul, rotate_mix's channel basis,
  // so2_linear, gate, the readout.
  m.trained = {
      "block0.pre_mix",   "block0.radial_to_kernel", "block0.channel_basis",
      "block1.layer0.w0", "block1.layer1.gate",      "block1.post_mix",
      "readout.w2"};
  std::string source = sezmMinAsF64();
  m.program =
      ::sezm::testing::compileWithForces(context, source.c_str(), m.trained);
  std::map<std::string, HostTensor> stored;
  std::string error;
  EXPECT_TRUE(sezmrt::readSafetensors(SEZM_MIN_WEIGHTS, stored, error))
      << error;
  for (auto &[key, tensor] : stored) {
    HostTensor wide(ElementType::F64, tensor.shape);
    for (int64_t i = 0; i < tensor.numElements(); ++i)
      wide.data<double>()[i] = tensor.at(i);
    m.weights[key] = wide;
  }
  return m;
}

class Physics : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    Model &m = model(GetParam());
    ASSERT_TRUE(m.program);
    std::mt19937_64 gen(5);
    // Six atoms of two species in a triclinic cell smaller than twice the
    // cutoff: atoms see several images of each other.
    structure.hasCell = true;
    structure.pbc = {true, true, true};
    structure.cell = {Vec3{4.6, 0.0, 0.0}, Vec3{0.9, 4.3, 0.0},
                      Vec3{-0.5, 0.7, 4.9}};
    std::uniform_real_distribution<double> unit(0, 1);
    for (int a = 0; a < 6; ++a) {
      Vec3 r{0, 0, 0};
      for (int k = 0; k < 3; ++k) {
        double f = unit(gen);
        for (int d = 0; d < 3; ++d)
          r[d] += f * structure.cell[k][d];
      }
      structure.positions.push_back(r);
      structure.species.push_back(a % 2 ? "O" : "H");
    }
  }

  /// The outputs of `entry` on a structure, the graph built by sezm's
  /// neighbour list; the inputs bound by argument name, the weights from
  /// `weights`.
  std::vector<HostTensor>
  outputs(const Structure &s, const std::string &entry,
          const std::map<std::string, HostTensor> &weights) {
    Model &m = model(GetParam());
    NeighbourGraph graph;
    std::string error;
    EXPECT_TRUE(sezmrt::buildNeighbourGraph(s, m.cutoff, graph, error))
        << error;
    int64_t atoms = s.positions.size();
    std::map<std::string, HostTensor> named;
    named["positions"] = vectors(s.positions);
    named["shift"] = vectors(graph.shift);
    named["src"] = ::sezm::testing::int64Tensor(graph.src);
    named["dst"] = ::sezm::testing::int64Tensor(graph.dst);
    named["src_order"] = ::sezm::testing::int64Tensor(graph.srcOrder);
    named["src_rowptr"] = ::sezm::testing::int64Tensor(graph.srcRowptr);
    named["dst_order"] = ::sezm::testing::int64Tensor(graph.dstOrder);
    named["dst_rowptr"] = ::sezm::testing::int64Tensor(graph.dstRowptr);
    std::vector<int64_t> types;
    for (const std::string &species : s.species)
      types.push_back(species == "O");
    named["types"] = ::sezm::testing::int64Tensor(types);
    if (m.name == "toy") {
      // Its features: each species' embedding in row l = 0; a fixed norm.
      HostTensor features(ElementType::F64, {atoms, 16, 8});
      std::fill(features.bytes.begin(), features.bytes.end(), 0);
      for (int64_t a = 0; a < atoms; ++a)
        for (int c = 0; c < 8; ++c)
          features.data<double>()[a * 128 + c] = m.embedding[types[a]][c];
      named["features"] = features;
      named["inv_sqrt_deg"] = sezmrt::tensorFrom(
          ElementType::F64, {atoms}, std::vector<double>(atoms, 0.2));
    }

    std::vector<HostTensor> inputs;
    for (const auto &port : m.program->signature(entry)->arguments) {
      const std::map<std::string, HostTensor> &from =
          named.count(port.name) ? named : weights;
      auto given = from.find(port.name);
      if (given == from.end()) {
        ADD_FAILURE() << "no input for argument '" << port.name << "'";
        return {};
      }
      inputs.push_back(given->second);
    }
    auto out = m.program->run(entry, inputs);
    if (!out) {
      ADD_FAILURE() << llvm::toString(out.takeError());
      return {};
    }
    return std::move(*out);
  }

  /// Energy and forces of a structure.
  std::pair<double, std::vector<Vec3>> run(const Structure &s,
                                           bool forces = true) {
    Model &m = model(GetParam());
    std::vector<HostTensor> out =
        outputs(s, forces ? "energy_forces" : "energy", m.weights);
    if (out.empty())
      return {NAN, {}};
    std::vector<Vec3> f;
    if (forces)
      for (size_t a = 0; a < s.positions.size(); ++a)
        f.push_back(
            {out[1].at(3 * a), out[1].at(3 * a + 1), out[1].at(3 * a + 2)});
    return {out[0].at(0), f};
  }

  static double largest(const std::vector<Vec3> &forces) {
    double m = 0;
    for (const Vec3 &f : forces)
      for (double v : f)
        m = std::max(m, std::abs(v));
    return m;
  }

  Structure structure;
};

TEST_P(Physics, RotationLeavesEnergyAndRotatesForces) {
  auto [energy, forces] = run(structure);
  ASSERT_GT(largest(forces), 1e-3) << "a flat energy would prove nothing";
  std::mt19937_64 gen(17);
  for (int trial = 0; trial < 3; ++trial) {
    Matrix rotation = randomRotation(gen);
    Structure turned = structure;
    for (Vec3 &r : turned.positions)
      r = times(rotation, r);
    for (Vec3 &a : turned.cell)
      a = times(rotation, a);
    auto [turnedEnergy, turnedForces] = run(turned);
    EXPECT_NEAR(turnedEnergy, energy, 1e-11 * std::abs(energy));
    for (size_t a = 0; a < forces.size(); ++a) {
      Vec3 expected = times(rotation, forces[a]);
      for (int d = 0; d < 3; ++d)
        EXPECT_NEAR(turnedForces[a][d], expected[d], 1e-10 * largest(forces))
            << "atom " << a << ", component " << d;
    }
  }
}

TEST_P(Physics, TranslationAndPermutationLeaveEnergy) {
  auto [energy, forces] = run(structure);
  Structure moved = structure;
  for (Vec3 &r : moved.positions)
    for (int d = 0; d < 3; ++d)
      r[d] += 7.3 - 2.1 * d; // beyond the cell: images relabel, nothing else
  auto [movedEnergy, movedForces] = run(moved);
  EXPECT_NEAR(movedEnergy, energy, 1e-11 * std::abs(energy));
  for (size_t a = 0; a < forces.size(); ++a)
    for (int d = 0; d < 3; ++d)
      EXPECT_NEAR(movedForces[a][d], forces[a][d], 1e-10 * largest(forces));

  std::vector<size_t> order = {3, 0, 5, 1, 4, 2};
  Structure permuted = structure;
  for (size_t a = 0; a < order.size(); ++a) {
    permuted.positions[a] = structure.positions[order[a]];
    permuted.species[a] = structure.species[order[a]];
  }
  auto [permutedEnergy, permutedForces] = run(permuted);
  EXPECT_NEAR(permutedEnergy, energy, 1e-11 * std::abs(energy));
  for (size_t a = 0; a < order.size(); ++a)
    for (int d = 0; d < 3; ++d)
      EXPECT_NEAR(permutedForces[a][d], forces[order[a]][d],
                  1e-10 * largest(forces));
}

TEST_P(Physics, SupercellDoublesEnergyAndRepeatsForces) {
  auto [energy, forces] = run(structure);
  Structure doubled = structure;
  doubled.cell[0] = {2 * structure.cell[0][0], 2 * structure.cell[0][1],
                     2 * structure.cell[0][2]};
  for (size_t a = 0; a < structure.positions.size(); ++a) {
    Vec3 copy = structure.positions[a];
    for (int d = 0; d < 3; ++d)
      copy[d] += structure.cell[0][d];
    doubled.positions.push_back(copy);
    doubled.species.push_back(structure.species[a]);
  }
  auto [doubledEnergy, doubledForces] = run(doubled);
  EXPECT_NEAR(doubledEnergy, 2 * energy, 1e-11 * std::abs(energy));
  size_t atoms = structure.positions.size();
  for (size_t a = 0; a < atoms; ++a)
    for (int d = 0; d < 3; ++d) {
      EXPECT_NEAR(doubledForces[a][d], forces[a][d], 1e-10 * largest(forces));
      EXPECT_NEAR(doubledForces[atoms + a][d], forces[a][d],
                  1e-10 * largest(forces));
    }
}

TEST_P(Physics, ForcesMatchFiniteDifferencesWithTheGraphRebuilt) {
  auto [energy, forces] = run(structure);
  const double h = 1e-5;
  for (size_t a = 0; a < structure.positions.size(); ++a)
    for (int d = 0; d < 3; ++d) {
      Structure plus = structure, minus = structure;
      plus.positions[a][d] += h;
      minus.positions[a][d] -= h;
      double numeric =
          -(run(plus, false).first - run(minus, false).first) / (2 * h);
      EXPECT_NEAR(forces[a][d], numeric, 1e-6 * std::abs(numeric) + 1e-7)
          << "atom " << a << ", component " << d;
    }
}

TEST_P(Physics, WeightGradientsMatchFiniteDifferences) {
  Model &m = model(GetParam());
  std::vector<HostTensor> out = outputs(structure, "energy_forces", m.weights);
  ASSERT_EQ(out.size(), 3 + m.trained.size());
  const double h = 1e-5;
  for (auto [k, name] : llvm::enumerate(m.trained)) {
    const HostTensor &grad = out[3 + k];
    ASSERT_EQ(grad.shape, m.weights[name].shape) << name;
    // Five entries spread over the weight.
    int64_t count = grad.numElements(),
            stride = std::max<int64_t>(1, count / 5);
    double largestGrad = 0;
    for (int64_t i = stride / 2; i < count; i += stride) {
      std::map<std::string, HostTensor> plus = m.weights, minus = m.weights;
      plus[name].data<double>()[i] += h;
      minus[name].data<double>()[i] -= h;
      double numeric = (outputs(structure, "energy", plus)[0].at(0) -
                        outputs(structure, "energy", minus)[0].at(0)) /
                       (2 * h);
      largestGrad = std::max(largestGrad, std::abs(numeric));
      EXPECT_NEAR(grad.at(i), numeric, 1e-6 * std::abs(numeric) + 1e-7)
          << name << " entry " << i;
    }
    EXPECT_GT(largestGrad, 1e-6) << name << ": a flat weight proves nothing";
  }
}

INSTANTIATE_TEST_SUITE_P(Models, Physics, ::testing::Values("toy", "sezm_min"),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                           return info.param;
                         });

} // namespace
