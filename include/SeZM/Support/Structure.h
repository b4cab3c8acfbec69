//===- Structure.h - atomic structures and their neighbour graphs -*- C++
//-*-===//
//
// What a model runs on: atoms read from an extended XYZ file (positions,
// species, a periodic cell), and the directed neighbour graph within a
// cutoff with its periodic shifts and both CSR segmentations. Plain C++: the
// GPU machine and the runtime use it too.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_SUPPORT_STRUCTURE_H
#define SEZM_SUPPORT_STRUCTURE_H

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace sezmrt {

using Vec3 = std::array<double, 3>;

/// Rows of three as one C-ordered array (for an (n, 3) tensor).
std::vector<double> flatten(const std::vector<Vec3> &rows);

/// One frame of atoms.
struct Structure {
  std::vector<Vec3> positions;
  std::vector<std::string> species;
  /// Rows are the lattice vectors a1, a2, a3 (Angstrom).
  std::array<Vec3, 3> cell{};
  bool hasCell = false;
  /// Periodic along each lattice vector.
  std::array<bool, 3> pbc{false, false, false};
};

/// Parses the first frame of extended XYZ text: the atom count, a comment
/// line with optional Lattice="...", Properties=... (species:S:1 and pos:R:3
/// are required among them; other columns are skipped) and pbc="T T T",
/// then one line per atom. `name` prefixes errors, which say where:
/// "<name>:<line>:<column>: <what is wrong>".
bool parseExtendedXyz(const std::string &text, const std::string &name,
                      Structure &out, std::string &error);
/// How a structure is periodic, for what tools print: "periodic along 2 of
/// 3 lattice vectors", or "non-periodic (no Lattice)" when the file gave no
/// cell, or "non-periodic (pbc is F F F)".
std::string describePeriodicity(const Structure &structure);

/// Reads a file and parses it.
bool readExtendedXyz(const std::string &path, Structure &out,
                     std::string &error);

/// The directed edges within a cutoff: edge e carries a message from atom
/// src[e] to atom dst[e], whose edge vector is
/// positions[src] - positions[dst] + shift[e] (shift: a lattice translation
/// in Cartesian coordinates, zero without periodicity). Every ordered pair
/// and periodic image within the cutoff is an edge, except an atom with
/// itself unshifted. Edges are sorted by (dst, src, shift).
struct NeighbourGraph {
  std::vector<int64_t> src, dst;
  std::vector<Vec3> shift;
  /// Edge indices grouped by source (or destination) atom, and each atom's
  /// segment [rowptr[n], rowptr[n + 1]) of them; within a segment, edges in
  /// increasing index order.
  std::vector<int64_t> srcOrder, srcRowptr, dstOrder, dstRowptr;
};

/// Atoms (or an atom and a periodic image) closer than this, in A, are
/// refused as an error in the structure: no bond is this short, and a model
/// gives them unbounded forces.
constexpr double kMinAtomSeparation = 0.2;

/// Builds the graph of `structure` within `cutoff` with the cell list of
/// CellList.h (the GPU's search, in double): O(N) for a fixed density,
/// periodic or not; cells smaller than the cutoff give several images of an
/// atom. Fails (with a reason) for a non-positive cutoff, a periodic axis
/// without a cell, a degenerate cell, a cell too thin for the cutoff, or two
/// atoms closer than kMinAtomSeparation (the error names them and their
/// distance).
bool buildNeighbourGraph(const Structure &structure, double cutoff,
                         NeighbourGraph &out, std::string &error);

/// The graph of a caller's edge list (an MD engine's neighbour list, as
/// DeePMD-kit's compute_edges takes it): edgeIndex (2, edges), row 0 the
/// sources and row 1 the destinations, and edgeVec (edges, 3), each
/// coord[src] - coord[dst] + a lattice shift, which is recovered; the CSRs
/// are built here. Fails (with a reason naming the edge) for an index
/// outside [0, atoms), a non-finite vector, or an edge shorter than
/// kMinAtomSeparation.
bool graphFromEdges(int64_t atoms, int64_t edges, const double *coord,
                    const int64_t *edgeIndex, const double *edgeVec,
                    NeighbourGraph &out, std::string &error);

} // namespace sezmrt

#endif // SEZM_SUPPORT_STRUCTURE_H
