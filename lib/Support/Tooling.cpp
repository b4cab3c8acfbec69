//===- Tooling.cpp - what the tools that run models share -----------------===//

#include "SeZM/Support/Tooling.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

using namespace sezmrt;

HostTensor GraphInput::as(ElementType type) const {
  return isFloat ? tensorFrom(type, shape, floats)
                 : tensorFrom(type, shape, indices);
}

std::vector<GraphInput> sezmrt::graphInputs(const Structure &structure,
                                            const NeighbourGraph &graph) {
  int64_t atoms = structure.positions.size(), edges = graph.src.size();
  auto floats = [](const char *name, std::vector<double> values,
                   std::vector<int64_t> shape) {
    return GraphInput{name, true, std::move(shape), std::move(values), {}};
  };
  auto indices = [](const char *name, const std::vector<int64_t> &values) {
    return GraphInput{
        name, false, {static_cast<int64_t>(values.size())}, {}, values};
  };
  return {floats(port::kPositions, flatten(structure.positions), {atoms, 3}),
          floats(port::kShift, flatten(graph.shift), {edges, 3}),
          indices(port::kSrc, graph.src),
          indices(port::kDst, graph.dst),
          indices(port::kSrcOrder, graph.srcOrder),
          indices(port::kSrcRowptr, graph.srcRowptr),
          indices(port::kDstOrder, graph.dstOrder),
          indices(port::kDstRowptr, graph.dstRowptr)};
}

bool sezmrt::parseBinding(const std::string &text, std::string &name,
                          std::string &file, std::string &error) {
  size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == text.size()) {
    error = "--input " + text + ": expected name=file.npy";
    return false;
  }
  name = text.substr(0, equals);
  file = text.substr(equals + 1);
  return true;
}

bool sezmrt::makeOutputDir(const std::string &path, std::string &error) {
  std::error_code failure;
  std::filesystem::create_directories(path, failure);
  if (failure) {
    error = path + ": " + failure.message();
    return false;
  }
  return true;
}

Comparison sezmrt::compare(const HostTensor &out, const HostTensor &reference) {
  Comparison result;
  result.sameShape = out.shape == reference.shape;
  if (!result.sameShape)
    return result;
  for (int64_t k = 0; k < reference.numElements(); ++k) {
    double value = out.at(k), expected = reference.at(k);
    result.finite &= std::isfinite(value);
    result.scale = std::max(result.scale, std::abs(expected));
    result.worst = std::max(result.worst, std::abs(value - expected));
  }
  return result;
}
