//===- DeviceGraph.h - a neighbour graph's inputs, on the GPU ---*- C++ -*-===//
#ifndef SEZM_RUNTIME_DEVICEGRAPH_H
#define SEZM_RUNTIME_DEVICEGRAPH_H

#include <cstdint>
#include <string>

namespace sezmrt::cuda {

/// The arrays a model's graph inputs need, in device memory: the caller's
/// positions, edge index (src row, then dst row) and edge vectors (or a
/// neighbour list found here), each edge's lattice shift, the types as
/// int64, and the source and destination CSRs. What it allocates is freed
/// with it.
struct DeviceGraph {
  int64_t atoms = 0, edges = 0;
  /// Whether coord, edgeVec and shift hold doubles (else floats).
  bool doubles = false;
  const void *coord = nullptr, *edgeIndex = nullptr, *edgeVec = nullptr;
  void *shift = nullptr, *types = nullptr;
  void *srcOrder = nullptr, *srcRowptr = nullptr;
  void *dstOrder = nullptr, *dstRowptr = nullptr;

  DeviceGraph() = default;
  DeviceGraph(const DeviceGraph &) = delete;
  DeviceGraph &operator=(const DeviceGraph &) = delete;
  ~DeviceGraph();

  /// From an edge list on the device: coord (atoms, 3) f32 (f64 with
  /// `inDoubles`), atype (atoms) i32 in [0, typeCount) or null, edgeIndex
  /// (2, edges) i64, edgeVec (edges, 3) like coord. Returns an empty
  /// string, or why not (a node index or type out of range, a CUDA error, a
  /// runtime built without nvcc).
  std::string fromEdges(int64_t atoms, int64_t edges, int32_t typeCount,
                        const void *coord, const void *atype,
                        const void *edgeIndex, const void *edgeVec,
                        bool inDoubles = false);
  /// From positions alone (f32, or f64 with `coordDoubles`): every ordered
  /// pair and periodic image within `cutoff` (cell: lattice vectors as
  /// rows, or null; periodic: per axis), found in double: the edges of
  /// sezm's host neighbour list of the same positions, in its order. Then
  /// as fromEdges, with the arrays in double where `outDoubles` (double
  /// positions only), else in float (double positions rounded).
  std::string fromPositions(int64_t atoms, int32_t typeCount, const void *coord,
                            bool coordDoubles, const void *atype,
                            const double *cell, const int *periodic,
                            double cutoff, bool outDoubles);

private:
  void *ownedEdgeIndex = nullptr, *ownedEdgeVec = nullptr,
       *ownedCoord = nullptr;
};

/// An MD engine's candidate pairs on the GPU (its neighbour list, with a
/// skin, between two of its list builds), from which each step keeps the
/// pairs within the cutoff as edges: only the positions go up per step.
/// Centre c (a node, and the row of its position) has the candidates
/// [start[c], start[c + 1]): rows of the positions (neighbour) and the
/// nodes they are images of (source), in the order its edges should have.
class PairList {
public:
  PairList() = default;
  PairList(const PairList &) = delete;
  PairList &operator=(const PairList &) = delete;
  ~PairList();

  /// Copies the candidates to the GPU; an empty string, or why not.
  std::string assign(int64_t nodes, int64_t centres, const int32_t *centre,
                     const int64_t *start, const int32_t *neighbour,
                     const int32_t *source);
  /// The edges of positions (host double[points][3], rows [0, nodes) the
  /// nodes) closer than `cutoff`: coord, edgeIndex (2, edges) and edgeVec
  /// in double or float, valid until the next call. A candidate within the
  /// cutoff but closer than `minSeparation`, or not a finite distance
  /// away, sets `badCandidate` (the first such, else -1) and no edges.
  std::string select(int64_t points, const double *positions, double cutoff,
                     double minSeparation, bool doubles, int64_t &badCandidate);

  int64_t nodes = 0, centres = 0, candidates = 0, edges = 0;
  /// Whether the last selection wrote doubles (else floats).
  bool doubles = false;
  const void *coord = nullptr;
  void *edgeIndex = nullptr, *edgeVec = nullptr;

private:
  /// A device buffer that grows to the largest size asked of it.
  struct Buffer {
    void *data = nullptr;
    size_t bytes = 0;
    bool reserve(size_t wanted);
    void release();
  };
  Buffer centre, start, neighbour, source;
  Buffer positions, rowptr, coord32, index, vectors;
};

} // namespace sezmrt::cuda

#endif // SEZM_RUNTIME_DEVICEGRAPH_H
