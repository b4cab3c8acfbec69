//===- DeviceGraph.h - the neighbour graph's inputs, built on the GPU -*- C++
//-*-===//
#ifndef SEZM_RUNTIME_DEVICEGRAPH_H
#define SEZM_RUNTIME_DEVICEGRAPH_H

#include <cstdint>
#include <string>

namespace sezmrt::cuda {

/// The arrays a model's graph inputs need beyond the caller's (positions,
/// edge index, edge vectors): each edge's lattice shift, the types as
/// int64, and the source and destination CSRs. Device memory, freed with
/// the object.
struct DeviceGraph {
  void *shift = nullptr, *types = nullptr;
  void *srcOrder = nullptr, *srcRowptr = nullptr;
  void *dstOrder = nullptr, *dstRowptr = nullptr;

  DeviceGraph() = default;
  DeviceGraph(const DeviceGraph &) = delete;
  DeviceGraph &operator=(const DeviceGraph &) = delete;
  ~DeviceGraph();

  /// Builds them from device arrays: coord (atoms, 3) f32, atype (atoms)
  /// i32 in [0, typeCount), src and dst (edges) i64, edgeVec (edges, 3) f32.
  /// Returns an empty string, or why not (a node index or type out of
  /// range, a CUDA error, a runtime built without nvcc).
  std::string build(int64_t atoms, int64_t edges, int32_t typeCount,
                    const void *coord, const void *atype, const void *src,
                    const void *dst, const void *edgeVec);
};

} // namespace sezmrt::cuda

#endif // SEZM_RUNTIME_DEVICEGRAPH_H
