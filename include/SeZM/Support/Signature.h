//===- Signature.h - what an entry function takes and returns ---*- C++ -*-===//
//
// Each argument and result of a compiled entry function with its name,
// element type and shape (-1 for a dynamic extent), and the run-time
// contracts its sezm ops place on the inputs: graph sizes that must agree
// and index arrays that must stay in range. The compiler derives it from
// the IR; artifacts carry it as a text manifest, so that the runtime checks
// inputs without MLIR. Plain C++.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_SUPPORT_SIGNATURE_H
#define SEZM_SUPPORT_SIGNATURE_H

#include "SeZM/Support/HostTensor.h"

#include <string>
#include <utility>
#include <vector>

namespace sezmrt {

struct TensorPort {
  std::string name;
  ElementType type;
  std::vector<int64_t> shape; // -1: dynamic
  /// "'x' (float32 (?, 16, 64))".
  std::string describe() const;
  /// Whether `tensor` has this port's type and shape (a dynamic extent
  /// takes any size).
  bool accepts(const HostTensor &tensor) const;
};

/// One dimension that an op's verifier names as a graph size: the size is
/// inputs[argument].shape[axis] - offset.
struct GraphExtent {
  int argument;
  unsigned axis;
  int64_t offset;
};

/// The largest graph size (N or E) that sezm runs: the GPU's fused backward
/// carries edge positions, which run up to 12 past the last edge, as 32-bit
/// integers. (Far beyond a GPU's memory: E = 2^31 edges of 32 floats of
/// gradient alone are 256 GiB.)
constexpr int64_t kMaxGraphSize = (int64_t(1) << 31) - 64;

/// What one sezm op requires of its inputs at run time.
struct OpContract {
  /// "sezm.rotate at model.mlir:12:8".
  std::string op;
  /// Per graph size symbol (N, E): the input dimensions that give it.
  std::vector<std::pair<std::string, std::vector<GraphExtent>>> extents;
  /// Index arrays passed straight from arguments, with their role: "node"
  /// (below N), "order" (a permutation of 0..E-1) or "rowptr" (0 up to E,
  /// non-decreasing).
  struct IndexInput {
    int argument;
    std::string operand;
    std::string role;
  };
  std::vector<IndexInput> indices;
  /// CSR arrays from arguments marked `sezm.csr_of`: each segment n of
  /// (order, rowptr) must hold exactly the edges whose key is n.
  struct Segments {
    int keys, order, rowptr;
  };
  std::vector<Segments> segments;
};

struct EntrySignature {
  std::string function;
  std::vector<TensorPort> arguments, results;
  std::vector<OpContract> contracts;
  /// The model's species by type index and cutoff radius (A), where its
  /// module says (sezm.type_map, sezm.rcut); empty and 0 where not.
  std::vector<std::string> typeMap;
  double rcut = 0;
  /// How the entry's GPU code multiplies in its GEMM-tiled kernels where
  /// not IEEE fp32: "tf32x3" (sezm-compile --gemm-precision); empty for
  /// IEEE.
  std::string gemmPrecision;

  /// Checks inputs (in argument order) against the ports and the contracts;
  /// returns an empty string or the error, which names the input and what
  /// it expected.
  /// `readIndices` false skips the checks that read index arrays (inputs
  /// that stay on the device).
  std::string checkInputs(const std::vector<HostTensor> &inputs,
                          bool readIndices = true) const;
};

/// The text manifest of a set of entries, and its parser (which returns an
/// empty error string on success).
std::string writeManifest(const std::vector<EntrySignature> &entries);
std::string parseManifest(const std::string &text,
                          std::vector<EntrySignature> &entries);

} // namespace sezmrt

#endif // SEZM_SUPPORT_SIGNATURE_H
