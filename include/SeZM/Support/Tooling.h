//===- Tooling.h - what the tools that run models share ---------*- C++ -*-===//
//
// One place for what sezm-run, sezm-exec, sezm-graph, the runtime and the
// MD-engine front ends would otherwise each spell out: the names of the
// graph inputs a structure gives a model, --input bindings, and how an
// output is compared with a reference (one default tolerance). Plain C++.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_SUPPORT_TOOLING_H
#define SEZM_SUPPORT_TOOLING_H

#include "SeZM/Support/HostTensor.h"
#include "SeZM/Support/Structure.h"

#include <string>
#include <vector>

namespace sezmrt {

/// The arguments of a model that a structure and its neighbour graph give,
/// by their sezm.name.
namespace port {
constexpr char kPositions[] = "positions";
constexpr char kShift[] = "shift";
constexpr char kSrc[] = "src";
constexpr char kDst[] = "dst";
constexpr char kSrcOrder[] = "src_order";
constexpr char kSrcRowptr[] = "src_rowptr";
constexpr char kDstOrder[] = "dst_order";
constexpr char kDstRowptr[] = "dst_rowptr";
constexpr char kTypes[] = "types";
/// The device-resident entry's (sezm_model_compute_edges_gpu) edge list.
constexpr char kEdgeIndex[] = "edge_index";
constexpr char kEdgeVec[] = "edge_vec";
} // namespace port

/// One graph input, held as doubles or int64 until the entry's element
/// type is known.
struct GraphInput {
  std::string name;
  bool isFloat;
  std::vector<int64_t> shape;
  std::vector<double> floats;
  std::vector<int64_t> indices;
  /// The values as a tensor of `type`.
  HostTensor as(ElementType type) const;
};

/// The graph inputs of a structure: positions, shift, src, dst and both
/// CSRs (not types, which need the model's type map).
std::vector<GraphInput> graphInputs(const Structure &structure,
                                    const NeighbourGraph &graph);

/// Splits an --input binding NAME=FILE; false (with the reason) when it is
/// not one.
bool parseBinding(const std::string &text, std::string &name, std::string &file,
                  std::string &error);

/// Makes the folder `path` and the folders above it that are missing (an
/// --output-dir); false (with the reason) when it cannot.
bool makeOutputDir(const std::string &path, std::string &error);

/// How far an output may be from its reference:
/// max |out - ref| <= atol + rtol * max |ref|, the same in every tool.
struct Tolerance {
  double rtol = 2e-5;
  double atol = 1e-6;
};

/// An output against its reference.
struct Comparison {
  bool sameShape = true;
  /// Every element of the output is a finite number.
  bool finite = true;
  /// max |out - ref| and max |ref|.
  double worst = 0, scale = 0;

  bool within(const Tolerance &tolerance) const {
    return sameShape && finite &&
           worst <= tolerance.atol + tolerance.rtol * scale;
  }
  /// worst / scale (worst where the reference is all zeros).
  double relative() const { return scale > 0 ? worst / scale : worst; }
};
Comparison compare(const HostTensor &out, const HostTensor &reference);

} // namespace sezmrt

#endif // SEZM_SUPPORT_TOOLING_H
