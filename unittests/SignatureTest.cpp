//===- SignatureTest.cpp - run-time checks of an entry's inputs -----------===//
//
// The graph sizes that inputs give are checked before anything runs: inputs
// must agree on them, and none may pass what the kernels index in 32 bits.
// Only shapes are read, so the tensors here hold no elements.
//
//===----------------------------------------------------------------------===//

#include "SeZM/Support/Signature.h"

#include <gtest/gtest.h>

using namespace sezmrt;

namespace {

/// An entry whose edge count E is the first dimension of 'src' and of
/// 'wigner'.
EntrySignature edgeEntry() {
  EntrySignature entry;
  entry.function = "rotate";
  entry.arguments = {{"src", ElementType::I32, {-1}},
                     {"wigner", ElementType::F32, {-1, 16, 16}}};
  OpContract contract;
  contract.op = "sezm.rotate at model.mlir:3:8";
  contract.extents = {{"E", {{0, 0, 0}, {1, 0, 0}}}};
  entry.contracts = {contract};
  return entry;
}

/// Shapes alone: tensors of `edges` edges without their elements.
std::vector<HostTensor> shapesOf(int64_t srcEdges, int64_t wignerEdges) {
  HostTensor src, wigner;
  src.type = ElementType::I32;
  src.shape = {srcEdges};
  wigner.type = ElementType::F32;
  wigner.shape = {wignerEdges, 16, 16};
  return {src, wigner};
}

TEST(Signature, TakesTheLargestGraphSize) {
  EXPECT_EQ(edgeEntry().checkInputs(shapesOf(kMaxGraphSize, kMaxGraphSize),
                                    /*readIndices=*/false),
            "");
}

TEST(Signature, RefusesAGraphTooLargeFor32BitPositions) {
  int64_t edges = int64_t(1) << 31;
  EXPECT_EQ(edgeEntry().checkInputs(shapesOf(edges, edges),
                                    /*readIndices=*/false),
            "the graph size E of sezm.rotate at model.mlir:3:8 is 2147483648 "
            "(from 'src'), more than the 2147483584 that sezm's kernels "
            "index");
}

TEST(Signature, NamesTheInputsThatDisagree) {
  EXPECT_EQ(edgeEntry().checkInputs(shapesOf(4, 5), /*readIndices=*/false),
            "inputs disagree on the graph size E of sezm.rotate at "
            "model.mlir:3:8: 'src' (dimension 0 is 4) gives E = 4, 'wigner' "
            "(dimension 0 is 5) gives E = 5");
}

} // namespace

namespace {
TEST(Signature, TheManifestCarriesTheTypeMapAndTheCutoff) {
  EntrySignature entry = edgeEntry();
  entry.typeMap = {"O", "H"};
  entry.rcut = 6.5;
  std::vector<EntrySignature> read;
  ASSERT_EQ(parseManifest(writeManifest({entry}), read), "");
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].typeMap, (std::vector<std::string>{"O", "H"}));
  EXPECT_EQ(read[0].rcut, 6.5);
  // A model that states neither writes neither.
  std::string plain = writeManifest({edgeEntry()});
  EXPECT_EQ(plain.find("type_map"), std::string::npos);
  EXPECT_EQ(plain.find("rcut"), std::string::npos);
  read.clear();
  EXPECT_EQ(parseManifest("sezm-manifest 1\nentry f\nrcut -1\nend\n", read),
            "manifest line 3: malformed rcut");
}
} // namespace
