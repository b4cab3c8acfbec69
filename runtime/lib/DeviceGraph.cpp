//===- DeviceGraph.cpp - the neighbour graph's inputs, built on the GPU ---===//

#include "DeviceGraph.h"

#include "RuntimeState.h"

#ifdef SEZM_GRAPH_KERNELS
#include "GraphKernelsPtx.inc"
#endif

using namespace sezmrt::cuda;

DeviceGraph::~DeviceGraph() {
  for (void *buffer : {shift, types, srcOrder, srcRowptr, dstOrder, dstRowptr})
    if (buffer)
      mgpuMemFree(buffer, nullptr);
}

#ifndef SEZM_GRAPH_KERNELS
std::string DeviceGraph::build(int64_t, int64_t, int32_t, const void *,
                               const void *, const void *, const void *,
                               const void *) {
  return "this libsezm_runtime was built without nvcc, so without the "
         "kernels that build the neighbour graph's arrays on the GPU";
}
#else
namespace {
constexpr unsigned kThreads = 256;

unsigned blocksFor(int64_t count) {
  return static_cast<unsigned>((count + kThreads - 1) / kThreads);
}

/// The graph kernels' module, loaded once per process like the artifacts'.
CUfunction graphKernel(const char *name) {
  void *module = mgpuModuleLoad(const_cast<char *>(kGraphKernelsPtx), 0);
  return static_cast<CUfunction>(mgpuModuleGetFunction(module, name));
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

/// order and rowptr of the CSR of `keys` (a stable counting sort).
bool buildCsr(int64_t atoms, int64_t edges, const void *keys, void *order,
              void *rowptr, void *cursor) {
  return zero(rowptr, (atoms + 1) * 8) && zero(cursor, atoms * 8) &&
         launch("sezm_csr_count", blocksFor(edges), kThreads,
                {&edges, &atoms, &keys, &rowptr}) &&
         launch("sezm_csr_scan", 1, 1024, {&atoms, &rowptr}) &&
         launch("sezm_csr_scatter", blocksFor(edges), kThreads,
                {&edges, &atoms, &keys, &rowptr, &cursor, &order}) &&
         launch("sezm_csr_sort", blocksFor(atoms), kThreads,
                {&atoms, &rowptr, &order});
}
} // namespace

std::string DeviceGraph::build(int64_t atoms, int64_t edges, int32_t typeCount,
                               const void *coord, const void *atype,
                               const void *src, const void *dst,
                               const void *edgeVec) {
  RuntimeState &s = state();
  auto allocate = [](int64_t bytes) {
    return mgpuMemAlloc(static_cast<uint64_t>(bytes > 0 ? bytes : 8), nullptr,
                        false);
  };
  shift = allocate(edges * 3 * 4);
  types = allocate(atoms * 8);
  srcOrder = allocate(edges * 8);
  srcRowptr = allocate((atoms + 1) * 8);
  dstOrder = allocate(edges * 8);
  dstRowptr = allocate((atoms + 1) * 8);
  void *cursor = allocate(atoms * 8), *bad = allocate(4);
  int32_t badValue = 0;
  if (!s.failed() && zero(bad, 4) &&
      launch("sezm_edge_inputs", blocksFor(std::max(atoms, edges)), kThreads,
             {&atoms, &edges, &coord, &atype, &src, &dst, &edgeVec, &shift,
              &types, &typeCount, &bad}) &&
      buildCsr(atoms, edges, src, srcOrder, srcRowptr, cursor) &&
      buildCsr(atoms, edges, dst, dstOrder, dstRowptr, cursor))
    s.check("cuMemcpyDtoH",
            driver().cuMemcpyDtoH(&badValue, reinterpret_cast<CUdeviceptr>(bad),
                                  4));
  mgpuMemFree(cursor, nullptr);
  mgpuMemFree(bad, nullptr);
  std::string error;
  {
    std::lock_guard<std::mutex> guard(s.lock);
    error.swap(s.error);
  }
  if (!error.empty())
    return "building the graph on the GPU: " + error;
  if (badValue == 1)
    return "edge_index holds an atom index outside [0, " +
           std::to_string(atoms) + ")";
  if (badValue == 2)
    return "atype holds a type outside [0, " + std::to_string(typeCount) + ")";
  return "";
}
#endif
