//===- DeviceGraph.cpp - a neighbour graph's inputs, on the GPU -----------===//

#include "DeviceGraph.h"

#include "RuntimeState.h"
#include "SeZM/Support/Structure.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <vector>

#ifdef SEZM_GRAPH_KERNELS
#include "GraphKernelsPtx.inc"
#include "SeZM/Support/CellList.h"
#endif

using namespace sezmrt::cuda;

DeviceGraph::~DeviceGraph() {
  for (void *buffer : {shift, types, srcOrder, srcRowptr, dstOrder, dstRowptr,
                       ownedEdgeIndex, ownedEdgeVec})
    if (buffer)
      mgpuMemFree(buffer, nullptr);
}

PairList::~PairList() {
  for (Buffer *buffer : {&centre, &start, &neighbour, &source, &positions,
                         &rowptr, &coord32, &index, &vectors})
    buffer->release();
}

bool PairList::Buffer::reserve(size_t wanted) {
  wanted = std::max<size_t>(wanted, 8);
  if (wanted <= bytes)
    return true;
  release();
  data = mgpuMemAlloc(wanted, nullptr, false);
  bytes = data ? wanted : 0;
  return data != nullptr;
}

void PairList::Buffer::release() {
  if (data)
    mgpuMemFree(data, nullptr);
  data = nullptr;
  bytes = 0;
}

#ifndef SEZM_GRAPH_KERNELS
static const char *kNoKernels =
    "this libsezm_runtime was built without nvcc, so without the kernels "
    "that build a neighbour graph on the GPU";
std::string DeviceGraph::fromEdges(int64_t, int64_t, int32_t, const void *,
                                   const void *, const void *, const void *,
                                   bool) {
  return kNoKernels;
}
std::string DeviceGraph::fromPositions(int64_t, int32_t, const void *, bool,
                                       const void *, const double *,
                                       const int *, double, bool) {
  return kNoKernels;
}
std::string PairList::assign(int64_t, int64_t, const int32_t *, const int64_t *,
                             const int32_t *, const int32_t *) {
  return kNoKernels;
}
std::string PairList::select(int64_t, const double *, double, double, bool,
                             int64_t &) {
  return kNoKernels;
}
#else
namespace {
/// Threads per block; the warp-per-item graph kernels are bounded to this
/// (kWarpBlockThreads in GraphKernels.cu).
constexpr unsigned kThreads = 256;

unsigned blocksFor(int64_t count) {
  return static_cast<unsigned>((count + kThreads - 1) / kThreads);
}

/// The blocks of a kernel that gives each of `count` items a warp.
unsigned warpBlocksFor(int64_t count) { return blocksFor(count * 32); }

/// The graph kernels' module, loaded once per process: the module cache
/// would otherwise hash the whole PTX text at every launch of every step.
CUfunction graphKernel(const char *name) {
  static std::atomic<void *> module{nullptr};
  if (!module.load())
    module = mgpuModuleLoad(const_cast<char *>(kGraphKernelsPtx), 0);
  return static_cast<CUfunction>(mgpuModuleGetFunction(module.load(), name));
}

bool launch(const char *name, unsigned blocks, unsigned threads,
            std::initializer_list<void *> arguments) {
  CUfunction function = graphKernel(name);
  RuntimeState &s = state();
  if (!function || blocks == 0)
    return !s.failed();
  std::vector<void *> params(arguments);
  return s.check(name,
                 driver().cuLaunchKernel(function, blocks, 1, 1, threads, 1, 1,
                                         0, nullptr, params.data(), nullptr));
}

bool zero(void *buffer, size_t bytes) {
  return state().check(
      "cuMemsetD32Async",
      driver().cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(buffer), 0,
                                bytes / 4, nullptr));
}

void *allocate(int64_t bytes) {
  return mgpuMemAlloc(static_cast<uint64_t>(std::max<int64_t>(bytes, 8)),
                      nullptr, false);
}

/// order and rowptr of the CSR of `keys` (a stable counting sort).
bool buildCsr(int64_t atoms, int64_t edges, const void *keys, void *order,
              void *rowptr, void *cursor) {
  return zero(rowptr, (atoms + 1) * 8) && zero(cursor, atoms * 8) &&
         launch("sezm_csr_count", blocksFor(edges), kThreads,
                {&edges, &atoms, &keys, &rowptr}) &&
         launch("sezm_csr_scan", 1, 1024, {&atoms, &rowptr}) &&
         launch("sezm_csr_scatter", blocksFor(edges), kThreads,
                {&edges, &atoms, &keys, &rowptr, &cursor, &order}) &&
         launch("sezm_csr_sort", warpBlocksFor(atoms), kThreads,
                {&atoms, &rowptr, &order});
}

/// The recorded CUDA failure, taken.
std::string takeError() {
  RuntimeState &s = state();
  std::lock_guard<std::mutex> guard(s.lock);
  std::string error;
  error.swap(s.error);
  return error.empty() ? error : "building the graph on the GPU: " + error;
}
} // namespace

std::string DeviceGraph::fromEdges(int64_t atomCount, int64_t edgeCount,
                                   int32_t typeCount, const void *coordIn,
                                   const void *atype, const void *index,
                                   const void *vectors, bool inDoubles) {
  atoms = atomCount;
  doubles = inDoubles;
  edges = edgeCount;
  coord = coordIn;
  edgeIndex = index;
  edgeVec = vectors;
  const void *src = edgeIndex;
  const void *dst = static_cast<const int64_t *>(edgeIndex) + edges;
  // The neighbour search has written exact lattice shifts; an edge list's
  // are what its edge vectors imply.
  int32_t computeShift = shift ? 0 : 1;
  if (!shift)
    shift = allocate(edges * 3 * (doubles ? 8 : 4));
  types = allocate(atoms * 8);
  srcOrder = allocate(edges * 8);
  srcRowptr = allocate((atoms + 1) * 8);
  dstOrder = allocate(edges * 8);
  dstRowptr = allocate((atoms + 1) * 8);
  void *cursor = allocate(atoms * 8), *bad = allocate(4);
  int32_t badValue = 0;
  int64_t typedAtoms = atype ? atoms : 0;
  if (!state().failed() && zero(bad, 4) &&
      launch(doubles ? "sezm_edge_inputs_f64" : "sezm_edge_inputs",
             blocksFor(std::max(atoms, edges)), kThreads,
             {&atoms, &typedAtoms, &edges, &coord, &atype, &src, &dst, &edgeVec,
              &shift, &computeShift, &types, &typeCount, &bad}) &&
      buildCsr(atoms, edges, src, srcOrder, srcRowptr, cursor) &&
      buildCsr(atoms, edges, dst, dstOrder, dstRowptr, cursor))
    state().check("cuMemcpyDtoH",
                  driver().cuMemcpyDtoH(&badValue,
                                        reinterpret_cast<CUdeviceptr>(bad), 4));
  mgpuMemFree(cursor, nullptr);
  mgpuMemFree(bad, nullptr);
  std::string error = takeError();
  if (!error.empty())
    return error;
  if (badValue == 1)
    return "the edge index holds an atom index outside [0, " +
           std::to_string(atoms) + ")";
  if (badValue == 2)
    return "atype holds a type outside [0, " + std::to_string(typeCount) + ")";
  return "";
}

std::string DeviceGraph::fromPositions(int64_t atomCount, int32_t typeCount,
                                       const void *coordIn, bool coordDoubles,
                                       const void *atype, const double *cell,
                                       const int *periodic, double cutoff,
                                       bool outDoubles) {
  using namespace sezm_cell_list;
  if (outDoubles && !coordDoubles)
    return "a graph in double needs positions in double";
  Frame<double> frame;
  double spacing[3];
  std::string invalid = makeFrame(cell, periodic, cutoff,
                                  sezmrt::kMinAtomSeparation, frame, spacing);
  if (!invalid.empty())
    return invalid;

  // Wrapped, the atoms' range along the open axes, the grid.
  void *frac = allocate(atomCount * 24), *cellOf = allocate(atomCount * 12),
       *wrapped = allocate(atomCount * 24), *bounds = allocate(48),
       *bad = allocate(16);
  // bad: the first non-finite atom, then the first with a neighbour too
  // close (all ones when none: the kernels take the minimum).
  uint64_t badHost[2] = {~0ull, ~0ull};
  double boundsHost[6] = {0, 0, 0, 0, 0, 0};
  if (!state().failed() &&
      state().check("cuMemcpyHtoD",
                    driver().cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(bad),
                                          badHost, 16)) &&
      launch(coordDoubles ? "sezm_wrap_f64" : "sezm_wrap", blocksFor(atomCount),
             kThreads,
             {&atomCount, &coordIn, &frame, &frac, &cellOf, &wrapped, &bad}) &&
      launch("sezm_fraction_bounds", 1, 1024, {&atomCount, &frac, &bounds}) &&
      state().check("cuMemcpyDtoH",
                    driver().cuMemcpyDtoH(
                        boundsHost, reinterpret_cast<CUdeviceptr>(bounds), 48)))
    state().check(
        "cuMemcpyDtoH",
        driver().cuMemcpyDtoH(badHost, reinterpret_cast<CUdeviceptr>(bad), 16));
  if (badHost[0] != ~0ull)
    invalid = "atom " + std::to_string(badHost[0] + 1) +
              " has a coordinate that is not a finite number, or lies over "
              "10^9 cells outside the cell";
  else if (!state().failed())
    invalid = binFrame(spacing, boundsHost, boundsHost + 3, cutoff, frame);

  // The atoms of each bin (ascending), then each atom's edges.
  int64_t binCount = int64_t(frame.bins[0]) * frame.bins[1] * frame.bins[2];
  void *binOf = nullptr, *binAtoms = nullptr, *binStart = nullptr,
       *cursor = nullptr, *rowptr = nullptr;
  int64_t total = 0;
  if (invalid.empty() && !state().failed()) {
    binOf = allocate(atomCount * 8);
    binAtoms = allocate(atomCount * 8);
    binStart = allocate((binCount + 1) * 8);
    cursor = allocate(binCount * 8);
    rowptr = allocate((atomCount + 1) * 8);
    void *tooClose = static_cast<uint64_t *>(bad) + 1;
    if (launch("sezm_bin_atoms", blocksFor(atomCount), kThreads,
               {&atomCount, &frac, &frame, &binOf}) &&
        buildCsr(binCount, atomCount, binOf, binAtoms, binStart, cursor) &&
        zero(rowptr, 8) &&
        launch("sezm_neighbour_count", warpBlocksFor(atomCount), kThreads,
               {&atomCount, &frac, &wrapped, &binStart, &binAtoms, &frame,
                &rowptr, &tooClose}) &&
        launch("sezm_csr_scan", 1, 1024, {&atomCount, &rowptr}) &&
        state().check("cuMemcpyDtoH",
                      driver().cuMemcpyDtoH(
                          &total,
                          reinterpret_cast<CUdeviceptr>(
                              static_cast<int64_t *>(rowptr) + atomCount),
                          8)))
      state().check("cuMemcpyDtoH",
                    driver().cuMemcpyDtoH(
                        badHost, reinterpret_cast<CUdeviceptr>(bad), 16));
    if (badHost[1] != ~0ull) {
      char limit[32];
      std::snprintf(limit, sizeof limit, "%g", sezmrt::kMinAtomSeparation);
      invalid = "atom " + std::to_string(badHost[1] + 1) +
                " has a neighbour closer than " + limit +
                " A: atoms this close are taken for an error in the "
                "structure (they would give unbounded forces)";
    }
  }
  // The graph's positions: the caller's, or its doubles rounded to float.
  const void *coordOut = coordIn;
  if (invalid.empty() && !state().failed()) {
    size_t real = outDoubles ? 8 : 4;
    ownedEdgeIndex = allocate(total * 16);
    ownedEdgeVec = allocate(total * 3 * real);
    shift = allocate(total * 3 * real);
    const char *fill = !coordDoubles ? "sezm_neighbour_fill"
                       : outDoubles  ? "sezm_neighbour_fill_f64"
                                     : "sezm_neighbour_fill_f64_f32";
    if (launch(fill, warpBlocksFor(atomCount), kThreads,
               {&atomCount, &coordIn, &frac, &wrapped, &cellOf, &binStart,
                &binAtoms, &frame, &rowptr, &total, &ownedEdgeIndex,
                &ownedEdgeVec, &shift}) &&
        coordDoubles && !outDoubles) {
      ownedCoord = allocate(atomCount * 12);
      coordOut = ownedCoord;
      launch("sezm_positions_f32", blocksFor(3 * atomCount), kThreads,
             {&atomCount, &coordIn, &ownedCoord});
    }
  }
  for (void *buffer : {frac, cellOf, wrapped, bounds, bad, binOf, binAtoms,
                       binStart, cursor, rowptr})
    if (buffer)
      mgpuMemFree(buffer, nullptr);
  std::string error = takeError();
  if (!error.empty())
    return error;
  if (!invalid.empty())
    return invalid;
  return fromEdges(atomCount, total, typeCount, coordOut, atype, ownedEdgeIndex,
                   ownedEdgeVec, outDoubles);
}

std::string PairList::assign(int64_t nodeCount, int64_t centreCount,
                             const int32_t *centreHost,
                             const int64_t *startHost,
                             const int32_t *neighbourHost,
                             const int32_t *sourceHost) {
  nodes = nodeCount;
  centres = centreCount;
  candidates = startHost[centres];
  edges = 0;
  auto upload = [](Buffer &buffer, const void *host, size_t bytes) {
    return buffer.reserve(bytes) &&
           (bytes == 0 ||
            state().check(
                "cuMemcpyHtoD",
                driver().cuMemcpyHtoD(
                    reinterpret_cast<CUdeviceptr>(buffer.data), host, bytes)));
  };
  if (!state().failed() && upload(centre, centreHost, centres * 4) &&
      upload(start, startHost, (centres + 1) * 8) &&
      upload(neighbour, neighbourHost, candidates * 4))
    upload(source, sourceHost, candidates * 4);
  return takeError();
}

std::string PairList::select(int64_t points, const double *positionsHost,
                             double cutoff, double minSeparation,
                             bool inDoubles, int64_t &badCandidate) {
  badCandidate = -1;
  edges = 0;
  coord = nullptr;
  double cutoff2 = cutoff * cutoff,
         minSeparation2 = minSeparation * minSeparation;
  // rowptr[0, centres] and, after it, the first bad candidate (all ones
  // when none: the kernel takes the minimum).
  int64_t tail[2] = {0, -1};
  if (!state().failed() && positions.reserve(points * 24) &&
      rowptr.reserve((centres + 2) * 8) &&
      state().check(
          "cuMemcpyHtoD",
          driver().cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(positions.data),
                                positionsHost, points * 24)) &&
      zero(rowptr.data, 8) &&
      state().check("cuMemcpyHtoD",
                    driver().cuMemcpyHtoD(
                        reinterpret_cast<CUdeviceptr>(
                            static_cast<int64_t *>(rowptr.data) + centres + 1),
                        &tail[1], 8))) {
    void *bad = static_cast<int64_t *>(rowptr.data) + centres + 1;
    if (launch("sezm_pairs_count", blocksFor(centres), kThreads,
               {&centres, &centre.data, &start.data, &neighbour.data,
                &positions.data, &cutoff2, &minSeparation2, &rowptr.data,
                &bad}) &&
        launch("sezm_csr_scan", 1, 1024, {&centres, &rowptr.data}))
      state().check("cuMemcpyDtoH",
                    driver().cuMemcpyDtoH(
                        tail,
                        reinterpret_cast<CUdeviceptr>(
                            static_cast<int64_t *>(rowptr.data) + centres),
                        16));
  }
  std::string error = takeError();
  if (!error.empty())
    return error;
  if (tail[1] >= 0) {
    badCandidate = tail[1];
    return "";
  }
  int64_t total = tail[0];
  if (index.reserve(total * 16) &&
      vectors.reserve(total * (inDoubles ? 24 : 12)) &&
      (inDoubles || coord32.reserve(nodes * 12))) {
    launch(inDoubles ? "sezm_pairs_fill_f64" : "sezm_pairs_fill",
           blocksFor(centres), kThreads,
           {&centres, &centre.data, &start.data, &neighbour.data, &source.data,
            &positions.data, &cutoff2, &rowptr.data, &total, &index.data,
            &vectors.data});
    if (!inDoubles)
      launch("sezm_positions_f32", blocksFor(3 * nodes), kThreads,
             {&nodes, &positions.data, &coord32.data});
  }
  error = takeError();
  if (!error.empty())
    return error;
  edges = total;
  doubles = inDoubles;
  coord = doubles ? positions.data : coord32.data;
  edgeIndex = index.data;
  edgeVec = vectors.data;
  return "";
}
#endif
