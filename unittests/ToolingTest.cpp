//===- ToolingTest.cpp - what the tools that run models share -------------===//

#include "SeZM/Support/Tooling.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace sezmrt;

namespace {
TEST(Tooling, ComparesWithOneTolerance) {
  HostTensor reference =
      tensorFrom(ElementType::F64, {3}, std::vector<double>{1.0, -4.0, 2.0});
  HostTensor close = tensorFrom(ElementType::F64, {3},
                                std::vector<double>{1.0, -4.0 + 5e-5, 2.0});
  Comparison near = compare(close, reference);
  EXPECT_DOUBLE_EQ(near.scale, 4.0);
  EXPECT_NEAR(near.worst, 5e-5, 1e-9);
  EXPECT_TRUE(near.within(Tolerance())); // 5e-5 <= 1e-6 + 2e-5 * 4
  EXPECT_FALSE(near.within(Tolerance{1e-5, 1e-6}));
  HostTensor nan =
      tensorFrom(ElementType::F64, {3}, std::vector<double>{1.0, NAN, 2.0});
  EXPECT_FALSE(compare(nan, reference).within(Tolerance{1e9, 1e9}));
  HostTensor longer = tensorFrom(ElementType::F64, {4},
                                 std::vector<double>{1.0, -4.0, 2.0, 0.0});
  EXPECT_FALSE(compare(longer, reference).sameShape);
}

TEST(Tooling, ParsesBindings) {
  std::string name, file, error;
  ASSERT_TRUE(parseBinding("positions=in/pos.npy", name, file, error));
  EXPECT_EQ(name, "positions");
  EXPECT_EQ(file, "in/pos.npy");
  for (const char *bad : {"positions", "=pos.npy", "positions="}) {
    EXPECT_FALSE(parseBinding(bad, name, file, error)) << bad;
    EXPECT_EQ(error,
              std::string("--input ") + bad + ": expected name=file.npy");
  }
}

TEST(Tooling, GraphInputsUseThePortNames) {
  Structure structure;
  structure.species = {"O", "H"};
  structure.positions = {{0, 0, 0}, {0.96, 0, 0}};
  NeighbourGraph graph;
  std::string error;
  ASSERT_TRUE(buildNeighbourGraph(structure, 2.0, graph, error)) << error;
  std::vector<GraphInput> inputs = graphInputs(structure, graph);
  std::vector<std::string> names;
  for (const GraphInput &input : inputs)
    names.push_back(input.name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       port::kPositions, port::kShift, port::kSrc, port::kDst,
                       port::kSrcOrder, port::kSrcRowptr, port::kDstOrder,
                       port::kDstRowptr}));
  HostTensor positions = inputs[0].as(ElementType::F64);
  EXPECT_EQ(positions.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_DOUBLE_EQ(positions.at(3), 0.96);
  HostTensor rowptr = inputs[5].as(ElementType::I32);
  EXPECT_EQ(rowptr.describe(), "int32 (3,)");
  EXPECT_EQ(rowptr.indexAt(2), 2);
}
} // namespace
