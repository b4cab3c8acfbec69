//===- GraphKernels.cu - the neighbour graph's arrays, built on the GPU ---===//
//
// What sezm_model_compute_edges_gpu needs besides the caller's arrays: the
// lattice shift of each edge, the types as int64, and both CSRs. Compiled to
// PTX by nvcc (with -fmad=false) when the runtime is built and loaded
// through the driver API. The neighbour search is a cell list (CellList.h)
// in double whatever the positions' type, as the host list's: the same
// positions give the same edges. A warp per destination atom: its lanes
// share the atoms of each bin within reach. Every array they write is the
// same on every run: counts by integer atomics and warp sums, positions in
// a segment by atomics, then each segment sorted (a stable counting sort;
// keys and edge indices are distinct, so a rank is a place).
//
//===----------------------------------------------------------------------===//

#include <stdint.h>

#include "SeZM/Support/CellList.h"

using namespace sezm_cell_list;
using SearchFrame = sezm_cell_list::Frame<double>;

/// Each atom wrapped into the cell along its periodic axes (CellList.h);
/// the first atom that cannot be (not finite, or too many cells away) into
/// *bad. Coord: the positions' type.
template <typename Coord>
__device__ void wrapAtoms(int64_t atoms, const Coord *coord,
                          const SearchFrame &frame, double *frac,
                          int32_t *cellOf, double *wrapped,
                          unsigned long long *bad) {
  int64_t a = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (a >= atoms)
    return;
  if (!wrappable(frame, coord, a))
    atomicMin(bad, (unsigned long long)a);
  wrapAtom(frame, coord, a, frac, cellOf, wrapped);
}

extern "C" {

__global__ void sezm_wrap(int64_t atoms, const float *coord, SearchFrame frame,
                          double *frac, int32_t *cellOf, double *wrapped,
                          unsigned long long *bad) {
  wrapAtoms(atoms, coord, frame, frac, cellOf, wrapped, bad);
}

__global__ void sezm_wrap_f64(int64_t atoms, const double *coord,
                              SearchFrame frame, double *frac, int32_t *cellOf,
                              double *wrapped, unsigned long long *bad) {
  wrapAtoms(atoms, coord, frame, frac, cellOf, wrapped, bad);
}

/// bounds = the smallest fractional coordinate along each axis, then the
/// largest, by one block of 1024 threads, an axis at a time (min and max:
/// the same in any order).
__global__ void sezm_fraction_bounds(int64_t atoms, const double *frac,
                                     double *bounds) {
  __shared__ double lo[1024], hi[1024];
  int t = threadIdx.x;
  for (int k = 0; k < 3; ++k) {
    lo[t] = INFINITY;
    hi[t] = -INFINITY;
    for (int64_t a = t; a < atoms; a += blockDim.x) {
      lo[t] = fmin(lo[t], frac[3 * a + k]);
      hi[t] = fmax(hi[t], frac[3 * a + k]);
    }
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
      if (t < stride) {
        lo[t] = fmin(lo[t], lo[t + stride]);
        hi[t] = fmax(hi[t], hi[t + stride]);
      }
      __syncthreads();
    }
    if (t == 0) {
      bounds[k] = lo[0];
      bounds[3 + k] = hi[0];
    }
    __syncthreads();
  }
}

__global__ void sezm_bin_atoms(int64_t atoms, const double *frac,
                               SearchFrame frame, int64_t *binOf) {
  int64_t a = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (a < atoms)
    binOf[a] = binOfAtom(frame, frac, a);
}

} // extern "C"

/// The warp of a thread and its lane, when a warp works on one item.
struct WarpItem {
  int64_t item;
  int lane;
};

/// The block size of the kernels that give each item a warp and keep
/// per-warp arrays in workgroup memory (DeviceGraph.cpp launches 256-thread
/// blocks): __launch_bounds__ makes a larger launch fail instead of
/// overrunning the arrays.
constexpr int kWarpBlockThreads = 256;
constexpr int kWarpsPerBlock = kWarpBlockThreads / 32;

__device__ WarpItem warpItem() {
  int64_t thread = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  return {thread / 32, static_cast<int>(thread % 32)};
}

__device__ int64_t warpSum(int64_t value) {
  for (int offset = 16; offset > 0; offset /= 2)
    value += __shfl_xor_sync(0xffffffffu, value, offset);
  return value;
}

/// out[rank of in[a]] = in[a] for the n distinct values of `in`, by the
/// lanes of one warp (each value's rank: how many are smaller).
__device__ void warpRankSort(const int64_t *in, int64_t n, int64_t *out,
                             int lane) {
  for (int64_t a = lane; a < n; a += 32) {
    int64_t value = in[a], rank = 0;
    for (int64_t b = 0; b < n; ++b)
      rank += in[b] < value;
    out[rank] = value;
  }
}

extern "C" {

/// rowptr[i + 1] = the number of edges of destination i; the first atom
/// with a neighbour closer than the minimum separation into *bad. A warp
/// per destination.
__global__ void sezm_neighbour_count(int64_t atoms, const double *frac,
                                     const double *wrapped,
                                     const int64_t *binStart,
                                     const int64_t *binAtoms, SearchFrame frame,
                                     int64_t *rowptr, unsigned long long *bad) {
  auto [i, lane] = warpItem();
  // The whole warp has the same destination: it runs it or skips it.
  if (i >= atoms)
    return;
  int64_t found = 0;
  bool tooClose = false;
  forEachNeighbour(
      frame, i, frac, wrapped, binStart, binAtoms,
      [&](int64_t, double r2) {
        ++found;
        tooClose |= r2 < frame.minSeparation2;
      },
      lane, 32);
  found = warpSum(found);
  tooClose = __any_sync(0xffffffffu, tooClose);
  if (lane != 0)
    return;
  rowptr[i + 1] = found;
  if (tooClose)
    atomicMin(bad, (unsigned long long)i);
}

} // extern "C"

/// The edges of destination i from rowptr[i], in the host list's order:
/// their keys first, in the order the lanes find them (in the dst row of the
/// edge index, free until the end), then sorted into the src row, then each
/// key made an edge: src, dst, shift and edge_vec (found in double from
/// positions of type Coord, written as Out). A warp per destination.
template <typename Coord, typename Out>
__device__ void fillNeighbours(int64_t atoms, const Coord *coord,
                               const double *frac, const double *wrapped,
                               const int32_t *cellOf, const int64_t *binStart,
                               const int64_t *binAtoms,
                               const SearchFrame &frame, const int64_t *rowptr,
                               int64_t edges, int64_t *edgeIndex, Out *edgeVec,
                               Out *shift) {
  __shared__ unsigned long long found[kWarpsPerBlock];
  auto [i, lane] = warpItem();
  if (i >= atoms)
    return;
  int warp = threadIdx.x / 32;
  if (lane == 0)
    found[warp] = 0;
  __syncwarp();
  int64_t begin = rowptr[i], end = rowptr[i + 1];
  int64_t *keys = edgeIndex + edges + begin;
  forEachNeighbour(
      frame, i, frac, wrapped, binStart, binAtoms,
      [&](int64_t key, double) {
        int64_t slot = (int64_t)atomicAdd(&found[warp], 1ull);
        // The count saw the same edges; never write past them.
        if (begin + slot < end)
          keys[slot] = key;
      },
      lane, 32);
  __syncwarp();
  int64_t n = min((int64_t)found[warp], end - begin);
  warpRankSort(keys, n, edgeIndex + begin, lane);
  __syncwarp();
  for (int64_t e = begin + lane; e < begin + n; e += 32) {
    edgeIndex[e] = edgeFromKey(frame, edgeIndex[e], i, coord, cellOf,
                               shift + 3 * e, edgeVec + 3 * e);
    edgeIndex[edges + e] = i;
  }
}

extern "C" {

/// Float positions, float edges.
__global__ void __launch_bounds__(kWarpBlockThreads)
sezm_neighbour_fill(int64_t atoms, const float *coord, const double *frac,
                    const double *wrapped, const int32_t *cellOf,
                    const int64_t *binStart, const int64_t *binAtoms,
                    SearchFrame frame, const int64_t *rowptr, int64_t edges,
                    int64_t *edgeIndex, float *edgeVec, float *shift) {
  fillNeighbours(atoms, coord, frac, wrapped, cellOf, binStart, binAtoms,
                 frame, rowptr, edges, edgeIndex, edgeVec, shift);
}

/// Double positions, double edges.
__global__ void __launch_bounds__(kWarpBlockThreads)
sezm_neighbour_fill_f64(int64_t atoms, const double *coord, const double *frac,
                        const double *wrapped, const int32_t *cellOf,
                        const int64_t *binStart, const int64_t *binAtoms,
                        SearchFrame frame, const int64_t *rowptr,
                        int64_t edges, int64_t *edgeIndex, double *edgeVec,
                        double *shift) {
  fillNeighbours(atoms, coord, frac, wrapped, cellOf, binStart, binAtoms,
                 frame, rowptr, edges, edgeIndex, edgeVec, shift);
}

/// Double positions, edges rounded to float (for a float entry).
__global__ void __launch_bounds__(kWarpBlockThreads)
sezm_neighbour_fill_f64_f32(int64_t atoms, const double *coord,
                            const double *frac, const double *wrapped,
                            const int32_t *cellOf, const int64_t *binStart,
                            const int64_t *binAtoms, SearchFrame frame,
                            const int64_t *rowptr, int64_t edges,
                            int64_t *edgeIndex, float *edgeVec, float *shift) {
  fillNeighbours(atoms, coord, frac, wrapped, cellOf, binStart, binAtoms,
                 frame, rowptr, edges, edgeIndex, edgeVec, shift);
}

} // extern "C"

/// shift[e] = edge_vec[e] - (coord[src[e]] - coord[dst[e]]), so that the
/// model's edge vectors are the caller's; types[n] = atype[n]. A node index
/// out of range sets *bad to 1 (and the edge is skipped), a type out of
/// range sets it to 2. T is float, or double for the double entry.

template <typename T>
__device__ void edgeInputs(int64_t nodes, int64_t typed, int64_t edges,
                           const T *coord, const int32_t *atype,
                           const int64_t *src, const int64_t *dst,
                           const T *edgeVec, T *shift, int32_t computeShift,
                           int64_t *types, int32_t types_count, int32_t *bad) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  // typed is 0 without types (atype null), else the atom count.
  if (i < typed) {
    int32_t t = atype[i];
    if (t < 0 || t >= types_count)
      *bad = 2;
    types[i] = t;
  }
  if (i >= edges)
    return;
  int64_t s = src[i], d = dst[i];
  if (s < 0 || s >= nodes || d < 0 || d >= nodes) {
    *bad = 1;
    return;
  }
  if (computeShift)
    for (int k = 0; k < 3; ++k)
      shift[3 * i + k] =
          edgeVec[3 * i + k] - (coord[3 * s + k] - coord[3 * d + k]);
}

extern "C" {

__global__ void sezm_edge_inputs(int64_t nodes, int64_t typed, int64_t edges,
                                 const float *coord, const int32_t *atype,
                                 const int64_t *src, const int64_t *dst,
                                 const float *edgeVec, float *shift,
                                 int32_t computeShift, int64_t *types,
                                 int32_t types_count, int32_t *bad) {
  edgeInputs(nodes, typed, edges, coord, atype, src, dst, edgeVec, shift,
             computeShift, types, types_count, bad);
}

__global__ void sezm_edge_inputs_f64(int64_t nodes, int64_t typed,
                                     int64_t edges, const double *coord,
                                     const int32_t *atype, const int64_t *src,
                                     const int64_t *dst, const double *edgeVec,
                                     double *shift, int32_t computeShift,
                                     int64_t *types, int32_t types_count,
                                     int32_t *bad) {
  edgeInputs(nodes, typed, edges, coord, atype, src, dst, edgeVec, shift,
             computeShift, types, types_count, bad);
}

/// counts[key[e] + 1] += 1 (counts is rowptr, zeroed, N + 1 entries).
__global__ void sezm_csr_count(int64_t edges, int64_t atoms,
                               const int64_t *keys, int64_t *rowptr) {
  int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (e >= edges)
    return;
  int64_t key = keys[e];
  if (key >= 0 && key < atoms)
    atomicAdd(reinterpret_cast<unsigned long long *>(rowptr + key + 1), 1ull);
}

/// rowptr[1..N] counts -> inclusive prefix sums, by one block of 1024
/// threads: each sums a contiguous chunk, the chunk totals are scanned in
/// workgroup memory, then each thread rewrites its chunk.
__global__ void sezm_csr_scan(int64_t atoms, int64_t *rowptr) {
  __shared__ int64_t totals[1024];
  int64_t t = threadIdx.x, threads = blockDim.x;
  int64_t chunk = (atoms + threads - 1) / threads;
  int64_t begin = 1 + t * chunk, end = min(atoms + 1, begin + chunk);
  int64_t sum = 0;
  for (int64_t i = begin; i < end; ++i)
    sum += rowptr[i];
  totals[t] = sum;
  __syncthreads();
  for (int64_t stride = 1; stride < threads; stride *= 2) {
    int64_t add = t >= stride ? totals[t - stride] : 0;
    __syncthreads();
    totals[t] += add;
    __syncthreads();
  }
  int64_t running = t > 0 ? totals[t - 1] : 0;
  for (int64_t i = begin; i < end; ++i) {
    running += rowptr[i];
    rowptr[i] = running;
  }
}

/// order[rowptr[key] + cursor[key]++] = e, then sezm_csr_sort.
__global__ void sezm_csr_scatter(int64_t edges, int64_t atoms,
                                 const int64_t *keys, const int64_t *rowptr,
                                 int64_t *cursor, int64_t *order) {
  int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (e >= edges)
    return;
  int64_t key = keys[e];
  if (key < 0 || key >= atoms)
    return;
  unsigned long long slot =
      atomicAdd(reinterpret_cast<unsigned long long *>(cursor + key), 1ull);
  order[rowptr[key] + (int64_t)slot] = e;
}

/// Each node's segment of order sorted by edge index, a warp per node: the
/// segment is ranked in workgroup memory where it fits (a node's ~100-200
/// edges), else sorted by one lane (insertion sort).
__global__ void __launch_bounds__(kWarpBlockThreads)
    sezm_csr_sort(int64_t atoms, const int64_t *rowptr, int64_t *order) {
  constexpr int64_t kStaged = 512;
  __shared__ int64_t staged[kWarpsPerBlock][kStaged];
  auto [n, lane] = warpItem();
  if (n >= atoms)
    return;
  int64_t begin = rowptr[n], end = rowptr[n + 1], size = end - begin;
  if (size <= kStaged) {
    int64_t *segment = staged[threadIdx.x / 32];
    for (int64_t a = lane; a < size; a += 32)
      segment[a] = order[begin + a];
    __syncwarp();
    warpRankSort(segment, size, order + begin, lane);
    return;
  }
  if (lane != 0)
    return;
  for (int64_t i = begin + 1; i < end; ++i) {
    int64_t value = order[i], j = i - 1;
    while (j >= begin && order[j] > value) {
      order[j + 1] = order[j];
      --j;
    }
    order[j + 1] = value;
  }
}

} // extern "C"

/// An MD engine's candidate pairs (its neighbour list with a skin), kept
/// between two of its list builds: centre c's candidates are
/// [start[c], start[c + 1]), each a row of `positions` (neighbour) and the
/// node it is an image of (source). With `rowptr` null, counts the
/// candidates closer than the cutoff into count[c + 1] and records in *bad
/// the first candidate that is closer than the minimum separation or not a
/// finite distance away; else writes the edges of centre c from rowptr[c]:
/// src = source, dst = centre[c], edge_vec = positions[neighbour] -
/// positions[centre[c]] in double, rounded to T.
template <typename T>
__device__ void
selectPairs(int64_t c, const int32_t *centre, const int64_t *start,
            const int32_t *neighbour, const int32_t *source,
            const double *positions, double cutoff2, double minSeparation2,
            int64_t *count, unsigned long long *bad, const int64_t *rowptr,
            int64_t edges, int64_t *edgeIndex, T *edgeVec) {
  int64_t i = centre[c], slot = rowptr ? rowptr[c] : 0, found = 0;
  for (int64_t p = start[c]; p < start[c + 1]; ++p) {
    int64_t j = neighbour[p];
    double v[3];
    for (int k = 0; k < 3; ++k)
      v[k] = positions[3 * j + k] - positions[3 * i + k];
    double r2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    if (!(r2 < cutoff2)) {
      if (!rowptr && !isfinite(r2))
        atomicMin(bad, (unsigned long long)p);
      continue;
    }
    if (!rowptr) {
      if (r2 < minSeparation2)
        atomicMin(bad, (unsigned long long)p);
      ++found;
      continue;
    }
    edgeIndex[slot] = source[p];
    edgeIndex[edges + slot] = i;
    for (int k = 0; k < 3; ++k)
      edgeVec[3 * slot + k] = (T)v[k];
    ++slot;
  }
  if (!rowptr)
    count[c + 1] = found;
}

extern "C" {

__global__ void sezm_pairs_count(int64_t centres, const int32_t *centre,
                                 const int64_t *start, const int32_t *neighbour,
                                 const double *positions, double cutoff2,
                                 double minSeparation2, int64_t *rowptr,
                                 unsigned long long *bad) {
  int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (c < centres)
    selectPairs<float>(c, centre, start, neighbour, nullptr, positions, cutoff2,
                       minSeparation2, rowptr, bad, nullptr, 0, nullptr,
                       nullptr);
}

__global__ void sezm_pairs_fill(int64_t centres, const int32_t *centre,
                                const int64_t *start, const int32_t *neighbour,
                                const int32_t *source, const double *positions,
                                double cutoff2, const int64_t *rowptr,
                                int64_t edges, int64_t *edgeIndex,
                                float *edgeVec) {
  int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (c < centres)
    selectPairs(c, centre, start, neighbour, source, positions, cutoff2, 0.0,
                nullptr, nullptr, rowptr, edges, edgeIndex, edgeVec);
}

__global__ void sezm_pairs_fill_f64(int64_t centres, const int32_t *centre,
                                    const int64_t *start,
                                    const int32_t *neighbour,
                                    const int32_t *source,
                                    const double *positions, double cutoff2,
                                    const int64_t *rowptr, int64_t edges,
                                    int64_t *edgeIndex, double *edgeVec) {
  int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (c < centres)
    selectPairs(c, centre, start, neighbour, source, positions, cutoff2, 0.0,
                nullptr, nullptr, rowptr, edges, edgeIndex, edgeVec);
}

/// The first `nodes` positions rounded to float (the float entry's coord).
__global__ void sezm_positions_f32(int64_t nodes, const double *positions,
                                   float *coord) {
  int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (k < 3 * nodes)
    coord[k] = (float)positions[k];
}

} // extern "C"
