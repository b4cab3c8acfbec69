//===- sezm-graph.cpp - a structure's neighbour graph as .npy files -------===//
//
// sezm-graph STRUCTURE.xyz --cutoff R [--output-dir DIR] [--dtype f32|f64]
//
// Reads the first frame of an extended XYZ file, builds the directed
// neighbour graph within the cutoff (periodic images included) and prints
// its size; with --output-dir writes what a model's entry takes: positions,
// src, dst, shift, src_order, src_rowptr, dst_order, dst_rowptr (.npy). Plain
// C++: it runs where the compiled model runs.
//
//===----------------------------------------------------------------------===//

#include "SeZM/Support/HostTensor.h"
#include "SeZM/Support/Npy.h"
#include "SeZM/Support/Structure.h"
#include "SeZM/Support/Tooling.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace sezmrt;

namespace {
const char *kUsage =
    "usage: sezm-graph STRUCTURE.xyz --cutoff R [--output-dir DIR] "
    "[--dtype f32|f64]\n\n"
    "Builds the directed neighbour graph of the first frame of an extended\n"
    "XYZ file within the cutoff (Angstrom; periodic images included; edges\n"
    "sorted by destination) and prints its size. With --output-dir, writes\n"
    "positions, src, dst, shift, src_order, src_rowptr, dst_order and\n"
    "dst_rowptr as .npy (floats as --dtype, default f32; indices int64).\n";

int fail(const std::string &message) {
  std::fprintf(stderr, "sezm-graph: %s\n", message.c_str());
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  std::string path, outputDir;
  double cutoff = 0;
  bool haveCutoff = false;
  ElementType floatType = ElementType::F32;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> const char * {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "sezm-graph: %s needs a value\n", arg.c_str());
        std::exit(1);
      }
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (arg == "--cutoff") {
      char *end = nullptr;
      const char *text = value();
      cutoff = std::strtod(text, &end);
      if (*text == '\0' || *end != '\0')
        return fail(std::string("--cutoff '") + text + "' is not a number");
      haveCutoff = true;
    } else if (arg == "--output-dir") {
      outputDir = value();
    } else if (arg == "--dtype") {
      std::string type = value();
      if (type != "f32" && type != "f64")
        return fail("--dtype must be f32 or f64, not '" + type + "'");
      floatType = type == "f32" ? ElementType::F32 : ElementType::F64;
    } else if (!arg.empty() && arg[0] == '-') {
      return fail("unknown option '" + arg + "'\n" + kUsage);
    } else if (path.empty()) {
      path = arg;
    } else {
      return fail("one structure file only, got '" + path + "' and '" + arg +
                  "'");
    }
  }
  if (path.empty() || !haveCutoff)
    return fail(
        std::string(path.empty() ? "no structure file" : "no --cutoff") + "\n" +
        kUsage);

  Structure structure;
  NeighbourGraph graph;
  std::string error;
  if (!readExtendedXyz(path, structure, error))
    return fail(error);
  if (!buildNeighbourGraph(structure, cutoff, graph, error))
    return fail(path + ": " + error);
  std::printf("%zu atoms, %zu edges within %g A (%.1f per atom), %s\n",
              structure.positions.size(), graph.src.size(), cutoff,
              static_cast<double>(graph.src.size()) /
                  static_cast<double>(structure.positions.size()),
              describePeriodicity(structure).c_str());
  if (outputDir.empty())
    return 0;
  if (!makeOutputDir(outputDir, error))
    return fail(error);
  for (const GraphInput &input : graphInputs(structure, graph))
    if (!writeNpy(outputDir + "/" + input.name + ".npy",
                  input.as(input.isFloat ? floatType : ElementType::I64),
                  error))
      return fail(error);
  return 0;
}
