//===- make_so2_workload.cpp - the N-atom SO(2) kernel workload -----------===//
//
// make-so2-workload N OUT_DIR [SEED] [--structure-only]
//
// Writes the inputs of bench/so2_kernels.mlir for the workload of
// performance.md: N atoms at seeded random positions (no two closer than
// 1 A) in a periodic cube of the density that gives about 158 neighbours
// within 6 A, atoms ordered by
// cell, every ordered pair within the cutoff (minimum image) an edge, edges
// sorted by destination; (lmax, Cf, F, rank) = (3, 32, 2, 1), so C = 64.
// Features, Wigner-D blocks, kernels and gradients are seeded Gaussians; the
// graph is sezm's neighbour list (SeZM/Support/Structure.h). The atoms are
// also written as structure.xyz (species O, H, H, O, ... in turn), the input
// of the whole-model benchmark.
// Plain C++: it runs on the GPU machine, where the inputs are too large to
// carry.
//
//===----------------------------------------------------------------------===//

#include "SeZM/Dialect/SeZM/SO2Layout.h"
#include "SeZM/Support/Npy.h"
#include "SeZM/Support/Structure.h"
#include "SeZM/Support/Tooling.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace sezmrt;

namespace {
constexpr double kCutoff = 6.0;
constexpr double kNeighbours = 158.0;
/// Closer atoms make forces ill-conditioned in fp32 (uniform points at this
/// density come within 0.1 A), which no structure of an MD run has.
constexpr double kMinDistance = 1.0;
constexpr int kLmax = 3, kRows = 16, kReduced = 10, kChannels = 64,
              kKernel = 25;

void write(const std::string &dir, const std::string &name,
           const HostTensor &t) {
  std::string error;
  if (!writeNpy(dir + "/" + name + ".npy", t, error)) {
    std::fprintf(stderr, "make-so2-workload: %s\n", error.c_str());
    std::exit(1);
  }
}

/// The entries of an (E, D, D) Wigner-D that a rotation keeps, (E, K), in
/// the order the rotation ops take them (SO2Layout::keptWignerEntries).
HostTensor keptEntries(const HostTensor &wigner) {
  mlir::sezm::SO2Layout layout{kLmax};
  int64_t edges = wigner.shape[0], count = layout.keptWignerEntries();
  // Each kept entry's place in the whole matrix, found once.
  std::vector<int64_t> places(count);
  for (int64_t row = 0; row < kRows; ++row)
    for (int64_t column = 0; column < kRows; ++column)
      if (int64_t k = layout.keptWignerIndex(row, column); k >= 0)
        places[k] = row * kRows + column;
  HostTensor kept(ElementType::F32, {edges, count});
  for (int64_t e = 0; e < edges; ++e)
    for (int64_t k = 0; k < count; ++k)
      kept.data<float>()[e * count + k] =
          wigner.data<float>()[e * kRows * kRows + places[k]];
  return kept;
}

/// Gaussian values, drawn in blocks of 2^20 by all cores: each block's
/// generator is seeded by (seed, tensor, block), so the values do not depend
/// on the number of threads. (One thread took minutes at N = 16384.)
HostTensor gaussian(uint64_t seed, uint64_t tensor, std::vector<int64_t> shape,
                    double scale) {
  HostTensor t(ElementType::F32, std::move(shape));
  constexpr int64_t kBlock = int64_t(1) << 20;
  int64_t blocks = (t.numElements() + kBlock - 1) / kBlock;
  std::atomic<int64_t> next{0};
  auto work = [&] {
    for (int64_t b = next++; b < blocks; b = next++) {
      std::seed_seq sequence{seed, tensor, static_cast<uint64_t>(b)};
      std::mt19937_64 rng(sequence);
      std::normal_distribution<float> normal(0.0f, static_cast<float>(scale));
      int64_t end = std::min(t.numElements(), (b + 1) * kBlock);
      for (int64_t i = b * kBlock; i < end; ++i)
        t.data<float>()[i] = normal(rng);
    }
  };
  std::vector<std::thread> threads(
      std::max(1u, std::thread::hardware_concurrency()) - 1);
  for (std::thread &thread : threads)
    thread = std::thread(work);
  work();
  for (std::thread &thread : threads)
    thread.join();
  return t;
}

HostTensor indices(const std::vector<int64_t> &v) {
  return tensorFrom(ElementType::I64, {static_cast<int64_t>(v.size())}, v);
}
/// Seeded uniform positions in a periodic cube, each candidate closer than
/// kMinDistance to a placed atom drawn again (a grid of cells at least
/// kMinDistance wide finds the near ones).
std::vector<std::array<double, 3>> placeAtoms(int64_t atoms, double box,
                                              std::mt19937_64 &rng) {
  std::uniform_real_distribution<double> uniform(0, box);
  int grid = std::max(1, static_cast<int>(box / kMinDistance));
  double width = box / grid;
  std::vector<std::vector<int64_t>> cells(static_cast<size_t>(grid) * grid *
                                          grid);
  auto cellOf = [&](double x) {
    return std::min(grid - 1, static_cast<int>(x / width));
  };
  std::vector<std::array<double, 3>> positions;
  while (static_cast<int64_t>(positions.size()) < atoms) {
    std::array<double, 3> p = {uniform(rng), uniform(rng), uniform(rng)};
    std::array<int, 3> c = {cellOf(p[0]), cellOf(p[1]), cellOf(p[2])};
    bool near = false;
    for (int dx = -1; dx <= 1 && !near; ++dx)
      for (int dy = -1; dy <= 1 && !near; ++dy)
        for (int dz = -1; dz <= 1 && !near; ++dz) {
          int x = (c[0] + dx + grid) % grid, y = (c[1] + dy + grid) % grid,
              z = (c[2] + dz + grid) % grid;
          for (int64_t other :
               cells[(static_cast<size_t>(x) * grid + y) * grid + z]) {
            double r2 = 0;
            for (int k = 0; k < 3; ++k) {
              double d = p[k] - positions[other][k];
              d -= box * std::round(d / box);
              r2 += d * d;
            }
            near |= r2 < kMinDistance * kMinDistance;
          }
        }
    if (near)
      continue;
    cells[(static_cast<size_t>(c[0]) * grid + c[1]) * grid + c[2]].push_back(
        positions.size());
    positions.push_back(p);
  }
  return positions;
}

void writeStructure(const std::string &path, const Structure &structure,
                    double box) {
  FILE *file = std::fopen(path.c_str(), "w");
  if (!file) {
    std::fprintf(stderr, "make-so2-workload: cannot write %s\n", path.c_str());
    std::exit(1);
  }
  std::fprintf(file,
               "%zu\nLattice=\"%.17g 0 0 0 %.17g 0 0 0 %.17g\" "
               "Properties=species:S:1:pos:R:3 pbc=\"T T T\"\n",
               structure.positions.size(), box, box, box);
  for (size_t i = 0; i < structure.positions.size(); ++i) {
    const auto &p = structure.positions[i];
    std::fprintf(file, "%s %.17g %.17g %.17g\n", structure.species[i].c_str(),
                 p[0], p[1], p[2]);
  }
  std::fclose(file);
}
} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (std::find(args.begin(), args.end(), "--help") != args.end()) {
    std::printf("usage: make-so2-workload N OUT_DIR [SEED] [--structure-only]"
                "\n\nWrites the seeded N-atom SO(2) workload of bench/ (a "
                "water-density box, its\nneighbour graph and the kernels' "
                "inputs) as .npy files into OUT_DIR.\n");
    return 0;
  }
  auto flag = std::find(args.begin(), args.end(), "--structure-only");
  bool structureOnly = flag != args.end();
  if (structureOnly)
    args.erase(flag);
  if (args.size() < 2 || args.size() > 3) {
    std::fprintf(
        stderr,
        "usage: make-so2-workload N OUT_DIR [SEED] [--structure-only]\n");
    return 1;
  }
  int64_t atoms = std::atoll(args[0].c_str());
  if (atoms < 1) {
    std::fprintf(stderr, "make-so2-workload: N must be a positive count\n");
    return 1;
  }
  std::string out = args[1];
  std::filesystem::create_directories(out);
  uint64_t seed = args.size() > 2 ? std::atoll(args[2].c_str()) : 4096;
  std::mt19937_64 rng(seed);
  double density = kNeighbours / (4.0 / 3.0 * M_PI * std::pow(kCutoff, 3));
  double box = std::cbrt(atoms / density);
  int cells = std::max(1, static_cast<int>(box / kCutoff));
  double cellSize = box / cells;

  // Positions, no two atoms closer than kMinDistance (periodic), then atoms
  // ordered by cell.
  std::vector<std::array<double, 3>> positions = placeAtoms(atoms, box, rng);
  auto cellOf = [&](const std::array<double, 3> &p) {
    std::array<int, 3> c;
    for (int k = 0; k < 3; ++k)
      c[k] = std::min(cells - 1, static_cast<int>(p[k] / cellSize));
    return c;
  };
  auto cellIndex = [&](std::array<int, 3> c) {
    return (c[0] * cells + c[1]) * cells + c[2];
  };
  std::sort(positions.begin(), positions.end(),
            [&](const auto &a, const auto &b) {
              return cellIndex(cellOf(a)) < cellIndex(cellOf(b));
            });
  // Every ordered pair within the cutoff (periodic images included), edges
  // by destination, with the source CSR: sezm's own neighbour list.
  Structure structure;
  structure.positions = positions;
  for (int64_t i = 0; i < atoms; ++i)
    structure.species.push_back(i % 3 == 0 ? "O" : "H");
  structure.hasCell = true;
  structure.pbc = {true, true, true};
  structure.cell = {Vec3{box, 0, 0}, Vec3{0, box, 0}, Vec3{0, 0, box}};
  NeighbourGraph graph;
  std::string error;
  if (!buildNeighbourGraph(structure, kCutoff, graph, error)) {
    std::fprintf(stderr, "make-so2-workload: %s\n", error.c_str());
    return 1;
  }
  int64_t edges = graph.src.size();
  writeStructure(out + "/structure.xyz", structure, box);
  if (structureOnly) {
    std::printf("%lld atoms in a %.2f A box, %lld edges (%.1f per atom)\n",
                static_cast<long long>(atoms), box,
                static_cast<long long>(edges),
                static_cast<double>(edges) / atoms);
    return 0;
  }

  write(out, "x", gaussian(seed, 0, {atoms, kRows, kChannels}, 1.0));
  write(out, port::kSrc, indices(graph.src));
  write(out, port::kSrcOrder, indices(graph.srcOrder));
  write(out, port::kSrcRowptr, indices(graph.srcRowptr));
  HostTensor wigner = gaussian(seed, 1, {edges, kRows, kRows}, 0.5);
  write(out, "wigner", wigner);
  write(out, "wigner_kept", keptEntries(wigner));
  write(out, "kc", gaussian(seed, 2, {edges, kKernel}, 0.3));
  write(out, "cb", gaussian(seed, 3, {1, kChannels}, 1.0));
  write(out, "grad", gaussian(seed, 4, {edges, kReduced, kChannels}, 1.0));
  std::printf("%lld atoms in a %.2f A box, %lld edges (%.1f per atom), "
              "lmax %d, C %d\n",
              static_cast<long long>(atoms), box, static_cast<long long>(edges),
              static_cast<double>(edges) / atoms, kLmax, kChannels);
  return 0;
}
