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
  /// From positions alone: every ordered pair and periodic image within
  /// `cutoff` (cell: lattice vectors as rows, or null; periodic: per axis),
  /// in the order of sezm's host neighbour list, then as fromEdges.
  std::string fromPositions(int64_t atoms, int32_t typeCount, const void *coord,
                            const void *atype, const double *cell,
                            const int *periodic, double cutoff);

private:
  void *ownedEdgeIndex = nullptr, *ownedEdgeVec = nullptr;
};

} // namespace sezmrt::cuda

#endif // SEZM_RUNTIME_DEVICEGRAPH_H
