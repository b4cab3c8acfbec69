//===- StructureTest.cpp - extended XYZ and neighbour graphs --------------===//
//
// The neighbour graph against a brute-force search over periodic images
// (triclinic cells smaller than the cutoff, atoms outside the cell, open
// boundaries), known shell counts of a crystal, the CSR invariants, and the
// reader's located errors.
//
//===----------------------------------------------------------------------===//

#include "SeZM/Support/Structure.h"

#include "NeighbourTesting.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>
#include <tuple>

using namespace sezmrt;

namespace {
using neighbour_test::bruteForce;
using neighbour_test::EdgeKey;

/// The graph's edges as (src, dst, image), the image recovered from the
/// shift by the inverse cell; checks each shift is a lattice translation.
std::set<EdgeKey> graphEdges(const Structure &s, const NeighbourGraph &g) {
  std::set<EdgeKey> edges;
  const auto &m = s.cell;
  double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
               m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
               m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  for (size_t e = 0; e < g.src.size(); ++e) {
    // Solve shift = image . cell (Cramer's rule on the transposed system).
    std::array<double, 3> image;
    for (int k = 0; k < 3; ++k) {
      auto rows = m;
      rows[k] = g.shift[e];
      image[k] =
          (rows[0][0] * (rows[1][1] * rows[2][2] - rows[1][2] * rows[2][1]) -
           rows[0][1] * (rows[1][0] * rows[2][2] - rows[1][2] * rows[2][0]) +
           rows[0][2] * (rows[1][0] * rows[2][1] - rows[1][1] * rows[2][0])) /
          det;
      EXPECT_NEAR(image[k], std::round(image[k]), 1e-9) << "edge " << e;
    }
    edges.insert({g.src[e], g.dst[e], std::llround(image[0]),
                  std::llround(image[1]), std::llround(image[2])});
  }
  return edges;
}

void expectCsr(const NeighbourGraph &g, int64_t atoms) {
  int64_t edges = g.src.size();
  ASSERT_EQ(static_cast<int64_t>(g.srcRowptr.size()), atoms + 1);
  ASSERT_EQ(g.srcRowptr.back(), edges);
  ASSERT_EQ(g.dstRowptr.back(), edges);
  for (int64_t n = 0; n < atoms; ++n) {
    for (int64_t t = g.srcRowptr[n]; t < g.srcRowptr[n + 1]; ++t) {
      EXPECT_EQ(g.src[g.srcOrder[t]], n);
      if (t > g.srcRowptr[n])
        EXPECT_LT(g.srcOrder[t - 1], g.srcOrder[t]);
    }
    for (int64_t t = g.dstRowptr[n]; t < g.dstRowptr[n + 1]; ++t)
      EXPECT_EQ(g.dst[g.dstOrder[t]], n);
  }
  for (int64_t e = 1; e < edges; ++e)
    EXPECT_LE(g.dst[e - 1], g.dst[e]) << "edges sorted by destination";
}

Structure randomStructure(std::mt19937_64 &rng, int atoms,
                          std::array<Vec3, 3> cell, std::array<bool, 3> pbc,
                          double spread) {
  Structure s;
  s.cell = cell;
  s.hasCell = true;
  s.pbc = pbc;
  std::uniform_real_distribution<double> unit(-spread, 1 + spread);
  for (int a = 0; a < atoms; ++a) {
    Vec3 f{unit(rng), unit(rng), unit(rng)}, r{0, 0, 0};
    for (int k = 0; k < 3; ++k)
      for (int d = 0; d < 3; ++d)
        r[d] += f[k] * cell[k][d];
    s.positions.push_back(r);
    s.species.push_back("X");
  }
  return s;
}
} // namespace

TEST(NeighbourGraph, FaceCentredCubicShells) {
  Structure s;
  s.cell = {Vec3{3.6, 0, 0}, Vec3{0, 3.6, 0}, Vec3{0, 0, 3.6}};
  s.hasCell = true;
  s.pbc = {true, true, true};
  s.positions = {{0, 0, 0}, {1.8, 1.8, 0}, {1.8, 0, 1.8}, {0, 1.8, 1.8}};
  s.species = {"Cu", "Cu", "Cu", "Cu"};
  // 12 nearest neighbours at 2.55, 6 more at 3.6, 24 more at 4.41.
  for (auto [cutoff, perAtom] : {std::pair{2.6, 12}, {3.7, 18}, {4.5, 42}}) {
    NeighbourGraph g;
    std::string error;
    ASSERT_TRUE(buildNeighbourGraph(s, cutoff, g, error)) << error;
    EXPECT_EQ(g.src.size(), 4u * perAtom) << "cutoff " << cutoff;
    expectCsr(g, 4);
  }
}

TEST(NeighbourGraph, MatchesBruteForceOverImages) {
  std::mt19937_64 rng(7);
  // A triclinic cell smaller than the cutoff along every axis (several
  // images of each atom), atoms up to 40 % outside it, mixed periodicity.
  std::array<Vec3, 3> cell = {Vec3{4.0, 0.0, 0.0}, Vec3{1.3, 3.7, 0.0},
                              Vec3{-0.8, 0.9, 4.4}};
  for (std::array<bool, 3> pbc : {std::array<bool, 3>{true, true, true},
                                  {true, false, true},
                                  {false, false, false}}) {
    Structure s = randomStructure(rng, 9, cell, pbc, 0.4);
    for (double cutoff : {2.5, 6.0}) {
      NeighbourGraph g;
      std::string error;
      ASSERT_TRUE(buildNeighbourGraph(s, cutoff, g, error)) << error;
      EXPECT_EQ(graphEdges(s, g), bruteForce(s, cutoff, 6))
          << "pbc " << pbc[0] << pbc[1] << pbc[2] << ", cutoff " << cutoff;
      expectCsr(g, 9);
      for (size_t e = 0; e < g.src.size(); ++e) {
        double r2 = 0;
        for (int d = 0; d < 3; ++d) {
          double v = s.positions[g.src[e]][d] - s.positions[g.dst[e]][d] +
                     g.shift[e][d];
          r2 += v * v;
        }
        EXPECT_LT(r2, cutoff * cutoff);
      }
    }
  }
}

TEST(NeighbourGraph, LargeCellUsesBinsAndAgrees) {
  std::mt19937_64 rng(11);
  std::array<Vec3, 3> cell = {Vec3{14.0, 0, 0}, Vec3{0, 13.0, 0},
                              Vec3{0, 0, 15.0}};
  Structure s = randomStructure(rng, 120, cell, {true, true, true}, 0.0);
  NeighbourGraph g;
  std::string error;
  ASSERT_TRUE(buildNeighbourGraph(s, 4.0, g, error)) << error;
  EXPECT_EQ(graphEdges(s, g), bruteForce(s, 4.0, 1));
  expectCsr(g, 120);
}

TEST(NeighbourGraph, RefusesCoincidingAtoms) {
  Structure s;
  s.species = {"O", "H", "H"};
  s.positions = {{0, 0, 0}, {0.96, 0, 0}, {0, 0.95, 0}};
  NeighbourGraph g;
  std::string error;
  ASSERT_TRUE(buildNeighbourGraph(s, 3.0, g, error)) << error;
  // Just inside the limit, and a whole cell apart: both are named.
  s.positions[2] = {0.96, kMinAtomSeparation * 0.99, 0};
  EXPECT_FALSE(buildNeighbourGraph(s, 3.0, g, error));
  EXPECT_EQ(error.rfind("atom 2 (H) and atom 3 (H) are 0.198 A apart", 0), 0u)
      << error;
  s.positions[2] = {0.96, kMinAtomSeparation * 1.01, 0};
  EXPECT_TRUE(buildNeighbourGraph(s, 3.0, g, error)) << error;
  s.hasCell = true;
  s.pbc = {true, true, true};
  s.cell = {Vec3{5, 0, 0}, Vec3{0, 5, 0}, Vec3{0, 0, 5}};
  s.positions[2] = {0.96, 5.0, 0};
  EXPECT_FALSE(buildNeighbourGraph(s, 3.0, g, error));
  EXPECT_EQ(error.rfind("atom 2 (H) and atom 3 (H)'s periodic image are ", 0),
            0u)
      << error;
}

TEST(NeighbourGraph, RejectsBadRequests) {
  Structure s;
  s.positions = {{0, 0, 0}};
  s.species = {"H"};
  NeighbourGraph g;
  std::string error;
  EXPECT_FALSE(buildNeighbourGraph(s, 0.0, g, error));
  EXPECT_EQ(error, "the cutoff must be a positive number");
  s.hasCell = true;
  s.pbc = {true, true, true};
  s.cell = {Vec3{1, 0, 0}, Vec3{2, 0, 0}, Vec3{0, 0, 1}};
  EXPECT_FALSE(buildNeighbourGraph(s, 1.0, g, error));
  EXPECT_EQ(error,
            "the cell is degenerate (its lattice vectors span no volume)");
  // Nearly flat (the fuzzer's hang: millions of images per atom) is
  // refused too; a huge cell is a coarse grid, not a huge one.
  s.cell = {Vec3{4, 0.01, 0}, Vec3{0.5, 601, 0.5}, Vec3{4, 0, 0}};
  EXPECT_FALSE(buildNeighbourGraph(s, 2.5, g, error));
  EXPECT_EQ(error.rfind("the cell is too thin for the cutoff", 0), 0u) << error;
  s.cell = {Vec3{1e12, 0, 0}, Vec3{0, 1e12, 0}, Vec3{0, 0, 1e12}};
  EXPECT_TRUE(buildNeighbourGraph(s, 2.5, g, error)) << error;
  EXPECT_EQ(g.src.size(), 0u);
  s.cell = {Vec3{5, 0, 0}, Vec3{0, 5, 0}, Vec3{0, 0, 5}};
  // A cell index past 32 bits would wrap the shift silently.
  s.positions = {{0, 1e11, 0}};
  EXPECT_FALSE(buildNeighbourGraph(s, 2.5, g, error));
  EXPECT_EQ(error, "atom 1 lies over 10^9 cells outside the cell");
  s.positions = {{0, NAN, 0}};
  EXPECT_FALSE(buildNeighbourGraph(s, 2.5, g, error));
  EXPECT_EQ(error, "atom 1 has a coordinate that is not a finite number");
}

TEST(ExtendedXyz, ReadsCellSpeciesAndPositions) {
  Structure s;
  std::string error;
  ASSERT_TRUE(parseExtendedXyz(
      "2\nLattice=\"5 0 0 0 6 0 0 0 7\" Properties=species:S:1:pos:R:3:"
      "forces:R:3 pbc=\"T F T\" energy=-1.5\nO 0.1 0.2 0.3 1 2 3\n"
      "H -1e-1 2.5 3 4 5 6\n",
      "mem", s, error))
      << error;
  ASSERT_EQ(s.positions.size(), 2u);
  EXPECT_EQ(s.species[1], "H");
  EXPECT_DOUBLE_EQ(s.positions[1][0], -0.1);
  EXPECT_DOUBLE_EQ(s.cell[1][1], 6.0);
  EXPECT_TRUE(s.hasCell);
  EXPECT_EQ(s.pbc, (std::array<bool, 3>{true, false, true}));
  // Plain XYZ: no cell, nothing periodic.
  ASSERT_TRUE(parseExtendedXyz("1\nwater\nO 0 0 0\n", "mem", s, error));
  EXPECT_FALSE(s.hasCell);
  EXPECT_EQ(s.pbc, (std::array<bool, 3>{false, false, false}));
}

TEST(ExtendedXyz, ErrorsSayWhere) {
  struct Case {
    const char *text, *message;
  } cases[] = {
      {"", "mem:1:1: the file is empty; an XYZ file starts with the number "
           "of atoms"},
      {"two\n\n", "mem:1:1: expected the number of atoms (a positive "
                  "integer) alone on the first line, got 'two'"},
      {"2\n\nO 0 0 0\n", "mem:4:1: the file ends after 1 of 2 atoms"},
      {"1\n\nO 0 x 0\n",
       "mem:3:5: coordinate 'x' of atom 1 is not a finite number"},
      {"1\n\nO 0 0 0 9\n", "mem:3:9: atom 1 has 5 columns; Properties gives 4"},
      {"1\nLattice=\"1 0 0 0 1 0 0 0\"\nO 0 0 0\n",
       "mem:2:10: Lattice needs 9 numbers (a1, a2, a3), got 8"},
      {"1\nLattice=\"1 0 0 0 1 0 0 0 q\"\nO 0 0 0\n",
       "mem:2:26: Lattice entry 'q' is not a number"},
      {"1\npbc=\"T T T\"\nO 0 0 0\n",
       "mem:2:1: pbc is true along lattice vector 1 but the comment line "
       "gives no Lattice"},
      {"1\nProperties=species:S:1:pos:R:2\nO 0 0\n",
       "mem:2:1: Properties gives pos as R:2; it must be R:3"},
      {"1\nProperties=species:S:1\nO\n",
       "mem:2:1: Properties has no 'pos' column"},
      {"1\nLattice=\"1 0 0\nO 0 0 0\n",
       "mem:2:9: a quoted value is not closed"},
  };
  for (const Case &c : cases) {
    Structure s;
    std::string error;
    EXPECT_FALSE(parseExtendedXyz(c.text, "mem", s, error)) << c.text;
    EXPECT_EQ(error, c.message);
  }
}
