//===- CellList.h - the neighbour search, for the host and the GPU -------===//
//
// One definition of sezm's cell-list neighbour search for both compilers:
// the host list (buildNeighbourGraph) runs its steps in loops over the
// atoms, the GPU's (runtime/kernels/GraphKernels.cu) one thread per atom,
// and unittests/CellListTest.cpp runs the GPU's steps on the host against
// the host list and an all-pairs search. Both search in double, whatever
// the positions' type (Coord), and neither contracts a multiply and an add
// (nvcc -fmad=false, the host's -ffp-contract=off): the same positions give
// the same edges to the bit on both. Atoms are
// binned in fractional coordinates (the periodic axes wrapped into [0, 1),
// the others over the atoms' range); each destination atom tries the atoms
// of the bins within `reach` of its own, and its edges are sorted by
// (source, periodic image).
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_SUPPORT_CELLLIST_H
#define SEZM_SUPPORT_CELLLIST_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define SEZM_HOST_DEVICE __host__ __device__
#else
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>
#define SEZM_HOST_DEVICE
#endif

namespace sezm_cell_list {

/// Bins per axis at most (a huge cell does not make a huge grid).
constexpr int kMaxBins = 64;
/// A periodic image along one axis is in [-kMaxImage, kMaxImage]: the
/// search refuses cells so thin that it would need more.
constexpr int kMaxImage = 127;
/// An atom more cells than this from the origin along a periodic axis is
/// refused (its cell index is a 32-bit integer).
constexpr double kMaxCells = 1e9;
/// Bins each atom searches at most (a nearly flat cell is refused).
constexpr double kMaxSearched = 1e6;
/// Edge keys: source * kImageCodes + the image's code, which sort as
/// (source, image a, image b, image c).
constexpr int64_t kImageSpan = 2 * kMaxImage + 1;
constexpr int64_t kImageCodes = kImageSpan * kImageSpan * kImageSpan;

/// The cell and the grid of bins over it (passed by value to the kernels).
/// Without a cell: the identity, nothing periodic.
template <typename Real> struct Frame {
  Real cell[9];    // lattice vectors as rows
  Real inverse[9]; // fractional = cartesian * inverse
  int periodic[3];
  // The binned range along each axis in fractional coordinates: [0, 1)
  // along periodic axes, the atoms' range along the others.
  Real origin[3];
  Real extent[3];
  int bins[3];
  int reach[3]; // bins searched each way
  Real cutoff2;
  Real minSeparation2;
};

SEZM_HOST_DEVICE inline float floorOf(float x) { return floorf(x); }
SEZM_HOST_DEVICE inline double floorOf(double x) { return floor(x); }

/// Fractional coordinate k of an atom (cartesian row times the inverse).
template <typename Real, typename Coord>
SEZM_HOST_DEVICE inline Real fractional(const Frame<Real> &frame,
                                        const Coord *r, int k) {
  Real f = 0;
  for (int d = 0; d < 3; ++d)
    f += Real(r[d]) * frame.inverse[3 * d + k];
  return f;
}

/// Whether atom a can be wrapped: finite coordinates, within kMaxCells
/// cells of the origin along each periodic axis (its cell index fits in 32
/// bits).
template <typename Real, typename Coord>
SEZM_HOST_DEVICE inline bool wrappable(const Frame<Real> &frame,
                                       const Coord *coord, int64_t a) {
  for (int k = 0; k < 3; ++k) {
    if (!isfinite(coord[3 * a + k]))
      return false;
    Real f = fractional(frame, coord + 3 * a, k);
    if (frame.periodic[k] && !(f > -kMaxCells && f < kMaxCells))
      return false;
  }
  return true;
}

/// Atom a wrapped into the cell along its periodic axes: its fractional
/// coordinates (`frac`), the whole cells it moved (wrapped = coord - cellOf
/// . cell) and its wrapped cartesian position.
template <typename Real, typename Coord>
SEZM_HOST_DEVICE inline void wrapAtom(const Frame<Real> &frame,
                                      const Coord *coord, int64_t a, Real *frac,
                                      int32_t *cellOf, Real *wrapped) {
  Real f[3];
  for (int k = 0; k < 3; ++k) {
    f[k] = fractional(frame, coord + 3 * a, k);
    Real whole = frame.periodic[k] ? floorOf(f[k]) : Real(0);
    f[k] -= whole;
    // Rounding can leave 1.0 after subtracting the floor of -1e-9.
    if (frame.periodic[k] && f[k] >= Real(1)) {
      f[k] = 0;
      whole += 1;
    }
    frac[3 * a + k] = f[k];
    cellOf[3 * a + k] = (int32_t)whole;
  }
  for (int d = 0; d < 3; ++d) {
    Real r = 0;
    for (int k = 0; k < 3; ++k)
      r += f[k] * frame.cell[3 * k + d];
    wrapped[3 * a + d] = r;
  }
}

/// The bin of fractional coordinate f along axis k.
template <typename Real>
SEZM_HOST_DEVICE inline int binAlong(const Frame<Real> &frame, Real f, int k) {
  Real t = (f - frame.origin[k]) / frame.extent[k] * frame.bins[k];
  int bin = t > 0 ? (int)t : 0;
  return bin < frame.bins[k] ? bin : frame.bins[k] - 1;
}

/// The linear bin of atom a.
template <typename Real>
SEZM_HOST_DEVICE inline int64_t binOfAtom(const Frame<Real> &frame,
                                          const Real *frac, int64_t a) {
  int64_t b[3];
  for (int k = 0; k < 3; ++k)
    b[k] = binAlong(frame, frac[3 * a + k], k);
  return (b[0] * frame.bins[1] + b[1]) * frame.bins[2] + b[2];
}

SEZM_HOST_DEVICE inline int floorDiv(int t, int n) {
  return t >= 0 ? t / n : -((-t + n - 1) / n);
}

/// The edges of destination atom i: every atom j of the bins within reach
/// (and every periodic image of it that the bins reach) closer than the
/// cutoff. Calls visit(key, r2) per edge, key = j * kImageCodes + the
/// image's code (the image in wrapped coordinates). binStart / binAtoms:
/// the atoms of each bin (a CSR over the bins). With `lanes` > 1 a caller
/// visits only the `lane`-th of every `lanes` atoms of each bin, so that
/// the lanes of a warp share a destination's search.
template <typename Real, typename Visit>
SEZM_HOST_DEVICE inline void
forEachNeighbour(const Frame<Real> &frame, int64_t i, const Real *frac,
                 const Real *wrapped, const int64_t *binStart,
                 const int64_t *binAtoms, Visit visit, int64_t lane = 0,
                 int64_t lanes = 1) {
  int home[3];
  for (int k = 0; k < 3; ++k)
    home[k] = binAlong(frame, frac[3 * i + k], k);
  int offset[3];
  for (offset[0] = -frame.reach[0]; offset[0] <= frame.reach[0]; ++offset[0])
    for (offset[1] = -frame.reach[1]; offset[1] <= frame.reach[1]; ++offset[1])
      for (offset[2] = -frame.reach[2]; offset[2] <= frame.reach[2];
           ++offset[2]) {
        int target[3], image[3];
        bool outside = false;
        for (int k = 0; k < 3; ++k) {
          int t = home[k] + offset[k];
          if (frame.periodic[k]) {
            image[k] = floorDiv(t, frame.bins[k]);
            target[k] = t - image[k] * frame.bins[k];
          } else {
            image[k] = 0;
            target[k] = t;
            outside |= t < 0 || t >= frame.bins[k];
          }
        }
        if (outside)
          continue;
        Real translation[3];
        for (int d = 0; d < 3; ++d)
          translation[d] = image[0] * frame.cell[d] +
                           image[1] * frame.cell[3 + d] +
                           image[2] * frame.cell[6 + d];
        bool unshifted = image[0] == 0 && image[1] == 0 && image[2] == 0;
        int64_t code =
            ((image[0] + kMaxImage) * kImageSpan + (image[1] + kMaxImage)) *
                kImageSpan +
            (image[2] + kMaxImage);
        int64_t bin =
            ((int64_t)target[0] * frame.bins[1] + target[1]) * frame.bins[2] +
            target[2];
        for (int64_t p = binStart[bin] + lane; p < binStart[bin + 1];
             p += lanes) {
          int64_t j = binAtoms[p];
          if (j == i && unshifted)
            continue;
          Real r2 = 0;
          for (int d = 0; d < 3; ++d) {
            Real v = wrapped[3 * j + d] + translation[d] - wrapped[3 * i + d];
            r2 += v * v;
          }
          if (r2 < frame.cutoff2)
            visit(j * kImageCodes + code, r2);
        }
      }
}

/// keys[0, n) ascending (insertion sort: a segment holds an atom's
/// ~100-200 edges).
SEZM_HOST_DEVICE inline void sortKeys(int64_t *keys, int64_t n) {
  for (int64_t a = 1; a < n; ++a) {
    int64_t key = keys[a], b = a - 1;
    while (b >= 0 && keys[b] > key) {
      keys[b + 1] = keys[b];
      --b;
    }
    keys[b + 1] = key;
  }
}

/// The periodic image (in wrapped coordinates) that `key` names.
SEZM_HOST_DEVICE inline void imageOfKey(int64_t key, int image[3]) {
  int64_t code = key % kImageCodes;
  image[0] = (int)(code / (kImageSpan * kImageSpan)) - kMaxImage;
  image[1] = (int)(code / kImageSpan % kImageSpan) - kMaxImage;
  image[2] = (int)(code % kImageSpan) - kMaxImage;
}

/// The edge of destination i that `key` names: its source, its lattice
/// shift (whole lattice vectors: edge_vec = coord[src] - coord[i] + shift)
/// and edge_vec, found in Real and written as Out.
template <typename Real, typename Coord, typename Out>
SEZM_HOST_DEVICE inline int64_t
edgeFromKey(const Frame<Real> &frame, int64_t key, int64_t i,
            const Coord *coord, const int32_t *cellOf, Out *shift,
            Out *edgeVec) {
  int64_t j = key / kImageCodes;
  int image[3];
  imageOfKey(key, image);
  int m[3];
  for (int k = 0; k < 3; ++k)
    m[k] = image[k] + cellOf[3 * i + k] - cellOf[3 * j + k];
  for (int d = 0; d < 3; ++d) {
    Real t = m[0] * frame.cell[d] + m[1] * frame.cell[3 + d] +
             m[2] * frame.cell[6 + d];
    shift[d] = Out(t);
    edgeVec[d] = Out(Real(coord[3 * j + d]) - Real(coord[3 * i + d]) + t);
  }
  return j;
}

#ifndef __CUDACC__
/// The frame of a cell (lattice vectors as rows, or null: no cell and
/// nothing periodic) before binning, and the spacing of the lattice planes
/// along each axis. Returns an empty string, or why not.
template <typename Real>
std::string makeFrame(const double *cellIn, const int *periodic, double cutoff,
                      double minSeparation, Frame<Real> &frame,
                      double spacing[3]) {
  frame = Frame<Real>{};
  double a[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  if (cellIn)
    for (int k = 0; k < 9; ++k)
      a[k / 3][k % 3] = cellIn[k];
  // inverse = adj(a) / det(a); the spacing of the planes of axis k is
  // volume / |a[k+1] x a[k+2]|.
  double cross[3][3];
  for (int k = 0; k < 3; ++k) {
    const double *u = a[(k + 1) % 3], *v = a[(k + 2) % 3];
    cross[k][0] = u[1] * v[2] - u[2] * v[1];
    cross[k][1] = u[2] * v[0] - u[0] * v[2];
    cross[k][2] = u[0] * v[1] - u[1] * v[0];
  }
  double volume =
      a[0][0] * cross[0][0] + a[0][1] * cross[0][1] + a[0][2] * cross[0][2];
  double scale = 1;
  for (int k = 0; k < 3; ++k)
    scale *=
        std::sqrt(a[k][0] * a[k][0] + a[k][1] * a[k][1] + a[k][2] * a[k][2]);
  if (!(std::abs(volume) > 1e-12 * scale))
    return "the cell is degenerate (its lattice vectors span no volume)";
  for (int k = 0; k < 3; ++k) {
    for (int d = 0; d < 3; ++d) {
      frame.cell[3 * k + d] = static_cast<Real>(a[k][d]);
      frame.inverse[3 * d + k] = static_cast<Real>(cross[k][d] / volume);
    }
    frame.periodic[k] = cellIn && periodic && periodic[k];
    spacing[k] = std::abs(volume) / std::sqrt(cross[k][0] * cross[k][0] +
                                              cross[k][1] * cross[k][1] +
                                              cross[k][2] * cross[k][2]);
  }
  frame.cutoff2 = static_cast<Real>(cutoff * cutoff);
  frame.minSeparation2 = static_cast<Real>(minSeparation * minSeparation);
  return "";
}

/// The atoms of each bin as a CSR over the bins, ascending within a bin (a
/// counting sort): on the host, what sezm_bin_atoms and the GPU's CSR
/// kernels build.
template <typename Real>
void binAtomsOnHost(const Frame<Real> &frame, const Real *frac, int64_t atoms,
                    std::vector<int64_t> &binStart,
                    std::vector<int64_t> &binAtoms) {
  int64_t bins = int64_t(frame.bins[0]) * frame.bins[1] * frame.bins[2];
  std::vector<int64_t> binOf(atoms);
  binStart.assign(bins + 1, 0);
  binAtoms.resize(atoms);
  for (int64_t a = 0; a < atoms; ++a)
    ++binStart[(binOf[a] = binOfAtom(frame, frac, a)) + 1];
  for (int64_t b = 0; b < bins; ++b)
    binStart[b + 1] += binStart[b];
  std::vector<int64_t> next(binStart.begin(), binStart.end() - 1);
  for (int64_t a = 0; a < atoms; ++a)
    binAtoms[next[binOf[a]]++] = a;
}

/// The grid: a bin per cutoff of the binned range's height (at most
/// kMaxBins), searched far enough each way to see every atom within the
/// cutoff. lo / hi: the atoms' fractional range along each axis (used
/// along the non-periodic ones). Returns an empty string, or why not.
template <typename Real>
std::string binFrame(const double spacing[3], const Real lo[3],
                     const Real hi[3], double cutoff, Frame<Real> &frame) {
  for (int k = 0; k < 3; ++k) {
    frame.origin[k] = frame.periodic[k] ? Real(0) : lo[k];
    double extent =
        frame.periodic[k] ? 1.0 : static_cast<double>(hi[k]) - lo[k];
    // A hair under a bin per cutoff, so that the rounding of the binning
    // cannot put two atoms within the cutoff two bins apart.
    double height = extent * spacing[k] * (1 - 1e-5);
    int bins = static_cast<int>(std::min(height / cutoff, double(kMaxBins)));
    frame.bins[k] = std::max(bins, 1);
    // A range of zero height (atoms in a plane) is one bin of any extent.
    frame.extent[k] = extent > 0 ? static_cast<Real>(extent) : Real(1);
    if (!frame.periodic[k]) {
      frame.reach[k] = frame.bins[k] > 1 ? 1 : 0;
      continue;
    }
    // Bins of a fractional width 1 / bins: an atom within the cutoff is at
    // most cutoff * bins / spacing bins away, plus one for where in its bin
    // each atom is.
    double need = cutoff * frame.bins[k] / spacing[k] * (1 + 1e-5) + 1;
    if (!(need <= kMaxImage))
      return "the cell is too thin for the cutoff: its height along "
             "lattice vector " +
             std::to_string(k + 1) + " is " + std::to_string(spacing[k]) +
             " A against a cutoff of " + std::to_string(cutoff) +
             " A (the search reaches at most " + std::to_string(kMaxImage) +
             " periodic images each way)";
    frame.reach[k] = static_cast<int>(need);
  }
  // A nearly flat cell would have each atom try millions of images.
  double searched = 1;
  for (int k = 0; k < 3; ++k)
    searched *= 2 * frame.reach[k] + 1;
  if (searched > kMaxSearched)
    return "the cell is too thin for the cutoff: an atom would see over " +
           std::to_string(int64_t(kMaxSearched)) +
           " periodic cells within it (cell heights against a cutoff of " +
           std::to_string(cutoff) + " A)";
  return "";
}
#endif

} // namespace sezm_cell_list

#endif // SEZM_SUPPORT_CELLLIST_H
