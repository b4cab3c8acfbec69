//===- CellListTest.cpp - the GPU neighbour search, run on the host -------===//
//
// SeZM/Support/CellList.h is the cell-list search of the GPU and of the
// host list; here the GPU's steps run in loops over the atoms, in the order
// DeviceGraph::fromPositions launches them, and the graph must be the host
// list's to the bit (the same edges in the same order, the same shifts and
// edge vectors) for positions in double, and the host list of the rounded
// positions for positions in float; and equal an all-pairs search over
// periodic images, on periodic, triclinic, thin, partly periodic and open
// structures.
//
//===----------------------------------------------------------------------===//

#include "SeZM/Support/CellList.h"
#include "SeZM/Support/Structure.h"

#include "NeighbourTesting.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>
#include <tuple>

using namespace sezmrt;
using namespace sezm_cell_list;

namespace {

/// The GPU graph's arrays; Out is what sezm_neighbour_fill* writes.
template <typename Out> struct CellGraph {
  std::vector<int64_t> src, dst;
  std::vector<Out> shift, edgeVec;
  Frame<double> frame;
};

/// DeviceGraph::fromPositions's kernels as loops over their threads, on the
/// structure's positions as Coord.
template <typename Coord, typename Out>
std::string searchOnHost(const Structure &s, double cutoff,
                         CellGraph<Out> &out) {
  int64_t atoms = s.positions.size();
  std::vector<Coord> coord;
  for (const Vec3 &r : s.positions)
    coord.insert(coord.end(), r.begin(), r.end());
  double cell[9];
  int periodic[3];
  for (int k = 0; k < 3; ++k) {
    periodic[k] = s.pbc[k];
    for (int d = 0; d < 3; ++d)
      cell[3 * k + d] = s.cell[k][d];
  }
  Frame<double> &frame = out.frame;
  double spacing[3];
  std::string error = makeFrame(s.hasCell ? cell : nullptr, periodic, cutoff,
                                kMinAtomSeparation, frame, spacing);
  if (!error.empty())
    return error;
  // sezm_wrap(_f64), sezm_fraction_bounds.
  std::vector<double> frac(3 * atoms), wrapped(3 * atoms);
  std::vector<int32_t> cellOf(3 * atoms);
  double lo[3] = {INFINITY, INFINITY, INFINITY},
         hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int64_t a = 0; a < atoms; ++a) {
    wrapAtom(frame, coord.data(), a, frac.data(), cellOf.data(),
             wrapped.data());
    for (int k = 0; k < 3; ++k) {
      lo[k] = std::min(lo[k], frac[3 * a + k]);
      hi[k] = std::max(hi[k], frac[3 * a + k]);
    }
  }
  error = binFrame(spacing, lo, hi, cutoff, frame);
  if (!error.empty())
    return error;
  // sezm_bin_atoms and the counting sort by bin (atoms ascending in a bin).
  std::vector<int64_t> binStart, binAtoms;
  binAtomsOnHost(frame, frac.data(), atoms, binStart, binAtoms);
  // sezm_neighbour_count, the scan, sezm_neighbour_fill*: as there, the 32
  // lanes of a destination's warp each take every 32nd atom of a bin.
  constexpr int64_t kLanes = 32;
  std::vector<int64_t> rowptr(atoms + 1, 0);
  for (int64_t i = 0; i < atoms; ++i) {
    bool tooClose = false;
    for (int64_t lane = 0; lane < kLanes; ++lane)
      forEachNeighbour(
          frame, i, frac.data(), wrapped.data(), binStart.data(),
          binAtoms.data(),
          [&](int64_t, double r2) {
            ++rowptr[i + 1];
            tooClose |= r2 < frame.minSeparation2;
          },
          lane, kLanes);
    if (tooClose)
      return "atom " + std::to_string(i + 1) + " has a neighbour too close";
    rowptr[i + 1] += rowptr[i];
  }
  int64_t edges = rowptr[atoms];
  std::vector<int64_t> edgeIndex(2 * edges);
  out.shift.resize(3 * edges);
  out.edgeVec.resize(3 * edges);
  for (int64_t i = 0; i < atoms; ++i) {
    int64_t slot = rowptr[i];
    for (int64_t lane = 0; lane < kLanes; ++lane)
      forEachNeighbour(
          frame, i, frac.data(), wrapped.data(), binStart.data(),
          binAtoms.data(),
          [&](int64_t key, double) { edgeIndex[slot++] = key; }, lane, kLanes);
    EXPECT_EQ(slot, rowptr[i + 1]) << "the fill found what the count found";
    sortKeys(edgeIndex.data() + rowptr[i], slot - rowptr[i]);
    for (int64_t e = rowptr[i]; e < slot; ++e) {
      edgeIndex[e] =
          edgeFromKey(frame, edgeIndex[e], i, coord.data(), cellOf.data(),
                      out.shift.data() + 3 * e, out.edgeVec.data() + 3 * e);
      edgeIndex[edges + e] = i;
    }
  }
  out.src.assign(edgeIndex.begin(), edgeIndex.begin() + edges);
  out.dst.assign(edgeIndex.begin() + edges, edgeIndex.end());
  return "";
}

/// The search of positions in double (sezm_graph_from_positions_gpu_f64).
std::string searchOnHost(const Structure &s, double cutoff,
                         CellGraph<double> &out) {
  return searchOnHost<double, double>(s, cutoff, out);
}

using neighbour_test::bruteForce;
using neighbour_test::EdgeKey;

/// The cell-list graph's edges as (src, dst, image), the image solved from
/// the shift (a whole number of lattice vectors to rounding).
template <typename Out>
std::set<EdgeKey> cellGraphEdges(const CellGraph<Out> &g) {
  std::set<EdgeKey> edges;
  for (size_t e = 0; e < g.src.size(); ++e) {
    long long image[3];
    for (int k = 0; k < 3; ++k) {
      double f = 0;
      for (int d = 0; d < 3; ++d)
        f += g.shift[3 * e + d] * g.frame.inverse[3 * d + k];
      image[k] = std::llround(f);
      EXPECT_NEAR(f, image[k], 1e-4) << "edge " << e;
    }
    edges.insert({g.src[e], g.dst[e], image[0], image[1], image[2]});
  }
  return edges;
}

/// Atoms on a jittered grid of n^3 points in the cell's fractional
/// coordinates (no two closer than about half the grid spacing), some of
/// them moved a lattice vector outside the cell (so that an edge's image
/// is up to two cells more than the search's reach).
Structure jittered(std::array<Vec3, 3> cell, std::array<bool, 3> pbc, int n,
                   uint64_t seed, bool hasCell = true) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> jitter(-0.2, 0.2);
  std::uniform_int_distribution<int> away(-1, 1);
  Structure s;
  s.cell = cell;
  s.hasCell = hasCell;
  s.pbc = pbc;
  for (int x = 0; x < n; ++x)
    for (int y = 0; y < n; ++y)
      for (int z = 0; z < n; ++z) {
        double f[3] = {(x + 0.5 + jitter(rng)) / n, (y + 0.5 + jitter(rng)) / n,
                       (z + 0.5 + jitter(rng)) / n};
        for (int k = 0; k < 3; ++k)
          if (pbc[k] && rng() % 4 == 0)
            f[k] += away(rng);
        Vec3 r{0, 0, 0};
        for (int k = 0; k < 3; ++k)
          for (int d = 0; d < 3; ++d)
            r[d] += f[k] * cell[k][d];
        s.positions.push_back(r);
        s.species.push_back("X");
      }
  return s;
}

/// The structure with its positions rounded to float (what the float
/// search sees).
Structure roundedToFloat(Structure s) {
  for (Vec3 &r : s.positions)
    for (double &x : r)
      x = static_cast<float>(x);
  return s;
}

/// The cell-list graph of positions as Coord, arrays as Out, is the host
/// list of the same positions: its edges in its order, its shifts and edge
/// vectors rounded to Out (to the bit).
template <typename Coord, typename Out>
void expectHostList(const Structure &original, double cutoff) {
  Structure s =
      std::is_same_v<Coord, float> ? roundedToFloat(original) : original;
  CellGraph<Out> cells;
  std::string error = searchOnHost<Coord, Out>(original, cutoff, cells);
  EXPECT_EQ(error, "");
  NeighbourGraph host;
  ASSERT_TRUE(buildNeighbourGraph(s, cutoff, host, error)) << error;
  ASSERT_EQ(cells.src, host.src);
  ASSERT_EQ(cells.dst, host.dst);
  for (size_t e = 0; e < host.src.size(); ++e)
    for (int d = 0; d < 3; ++d) {
      EXPECT_EQ(cells.shift[3 * e + d], static_cast<Out>(host.shift[e][d]))
          << "edge " << e;
      double v = s.positions[host.src[e]][d] - s.positions[host.dst[e]][d] +
                 host.shift[e][d];
      EXPECT_EQ(cells.edgeVec[3 * e + d], static_cast<Out>(v)) << "edge " << e;
    }
}

/// The cell-list graph equals the host list (order included, for positions
/// in double, in float and rounded to float) and the brute-force search;
/// returns the number of edges.
size_t expectSameGraph(const Structure &s, double cutoff, int range) {
  expectHostList<double, double>(s, cutoff);
  expectHostList<double, float>(s, cutoff);
  expectHostList<float, float>(s, cutoff);
  CellGraph<double> cells;
  EXPECT_EQ(searchOnHost(s, cutoff, cells), "");
  EXPECT_EQ(cellGraphEdges(cells), bruteForce(s, cutoff, range));
  return cells.src.size();
}

const std::array<bool, 3> kPeriodic{true, true, true};

} // namespace

TEST(CellList, PeriodicCubeManyBins) {
  // 14 A at a 4.5 A cutoff: 3 bins per axis, every neighbour bin distinct.
  Structure s = jittered({Vec3{14, 0, 0}, Vec3{0, 14, 0}, Vec3{0, 0, 14}},
                         kPeriodic, 7, 1);
  CellGraph<double> cells;
  ASSERT_EQ(searchOnHost(s, 4.5, cells), "");
  EXPECT_EQ(cells.frame.bins[0], 3);
  EXPECT_EQ(cells.frame.reach[0], 1);
  EXPECT_GT(expectSameGraph(s, 4.5, 3), 343u * 20);
}

TEST(CellList, TriclinicCell) {
  Structure s =
      jittered({Vec3{13, 0, 0}, Vec3{4.1, 12.2, 0}, Vec3{-3.3, 2.7, 11.8}},
               kPeriodic, 6, 2);
  EXPECT_GT(expectSameGraph(s, 4.0, 3), 0u);
}

TEST(CellList, CellThinnerThanTheCutoff) {
  // 2.1 A along the third vector at a 5 A cutoff: one bin, three images
  // each way, several images of the same source in one destination's edges.
  Structure s =
      jittered({Vec3{11, 0, 0}, Vec3{2.5, 10.5, 0}, Vec3{0.7, -0.4, 2.1}},
               kPeriodic, 4, 3);
  CellGraph<double> cells;
  ASSERT_EQ(searchOnHost(s, 5.0, cells), "");
  EXPECT_EQ(cells.frame.bins[2], 1);
  EXPECT_EQ(cells.frame.reach[2], 3);
  EXPECT_GT(expectSameGraph(s, 5.0, 6), 0u);
}

TEST(CellList, PartlyPeriodicAndOpen) {
  // Periodic along a and c; b open with atoms over four cell heights.
  Structure slab = jittered({Vec3{12, 0, 0}, Vec3{0, 12, 0}, Vec3{1.5, 0, 12}},
                            {true, false, true}, 6, 4);
  for (Vec3 &r : slab.positions)
    r[1] *= 4;
  CellGraph<double> cells;
  ASSERT_EQ(searchOnHost(slab, 4.0, cells), "");
  EXPECT_GT(cells.frame.bins[1], 5) << "the open axis binned over the atoms";
  EXPECT_GT(expectSameGraph(slab, 4.0, 3), 0u);
  // No cell at all: a cluster, binned over its extent.
  Structure cluster = jittered({Vec3{16, 0, 0}, Vec3{0, 16, 0}, Vec3{0, 0, 16}},
                               {false, false, false}, 6, 5, /*hasCell=*/false);
  ASSERT_EQ(searchOnHost(cluster, 4.0, cells), "");
  EXPECT_EQ(cells.frame.bins[0], 3);
  EXPECT_GT(expectSameGraph(cluster, 4.0, 0), 0u);
}

TEST(CellList, OneAtomSeesItsImages) {
  Structure s;
  s.cell = {Vec3{3, 0, 0}, Vec3{0, 3, 0}, Vec3{0, 0, 3}};
  s.hasCell = true;
  s.pbc = kPeriodic;
  s.positions = {{-0.2, 1.0, 4.1}};
  s.species = {"X"};
  // 6 images at 3 A and 12 at 4.24 A within 4.5 A.
  EXPECT_EQ(expectSameGraph(s, 4.5, 2), 18u);
}

TEST(CellList, RefusesCoincidingAtomsAndHopelesslyThinCells) {
  Structure s = jittered({Vec3{10, 0, 0}, Vec3{0, 10, 0}, Vec3{0, 0, 10}},
                         kPeriodic, 3, 6);
  s.positions.push_back(s.positions[4]);
  s.positions.back()[0] += 10.05; // a periodic image 0.05 A away
  CellGraph<double> cells;
  EXPECT_EQ(searchOnHost(s, 4.0, cells), "atom 5 has a neighbour too close");
  Structure thin = jittered({Vec3{10, 0, 0}, Vec3{0, 10, 0}, Vec3{0, 0, 0.04}},
                            kPeriodic, 2, 7);
  EXPECT_NE(searchOnHost(thin, 6.0, cells).find("too thin for the cutoff"),
            std::string::npos);
  Structure flat = s;
  flat.cell[2] = {1, 1, 0};
  EXPECT_NE(searchOnHost(flat, 4.0, cells).find("degenerate"),
            std::string::npos);
}

TEST(CellList, PairsAtTheCutoffAsTheHostListHasThem) {
  // Pairs a hair (1e-9 A) inside and outside the cutoff, in a periodic box
  // and through its boundary: a search in float could not tell them apart,
  // the double search keeps exactly the host list's.
  Structure s;
  s.cell = {Vec3{20, 0, 0}, Vec3{0, 20, 0}, Vec3{0, 0, 20}};
  s.hasCell = true;
  s.pbc = kPeriodic;
  const double cutoff = 4.5;
  for (int p = 0; p < 6; ++p) {
    double gap = cutoff + (p % 2 ? 1e-9 : -1e-9);
    Vec3 a{1.1 + 3.0 * p, 2.3 + 3.1 * p, 17.9 - 0.7 * p};
    Vec3 b = a;
    b[p % 3] += gap;
    if (p >= 3)
      b[p % 3] -= 20; // the same pair through the boundary
    s.positions.push_back(a);
    s.positions.push_back(b);
    s.species.push_back("X");
    s.species.push_back("X");
  }
  expectHostList<double, double>(s, cutoff);
  expectHostList<double, float>(s, cutoff);
  NeighbourGraph host;
  std::string error;
  ASSERT_TRUE(buildNeighbourGraph(s, cutoff, host, error)) << error;
  CellGraph<double> cells;
  ASSERT_EQ(searchOnHost(s, cutoff, cells), "");
  EXPECT_EQ(cellGraphEdges(cells), bruteForce(s, cutoff, 1));
  std::set<std::pair<int64_t, int64_t>> pairs;
  for (size_t e = 0; e < cells.src.size(); ++e)
    pairs.insert({cells.src[e], cells.dst[e]});
  for (int p = 0; p < 6; ++p)
    EXPECT_EQ(pairs.count({2 * p + 1, 2 * p}), p % 2 ? 0u : 1u)
        << "pair " << p << (p % 2 ? " (outside)" : " (inside)");
}
