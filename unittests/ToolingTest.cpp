//===- ToolingTest.cpp - what the tools that run models share -------------===//

#include "SeZM/Support/Tooling.h"
#include "SeZM/Support/MemoryPlan.h"

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

TEST(MemoryPlan, ReadsAndEvaluatesTheRemarkLines) {
  std::string section =
      "loc(\"m.mlir\":22:1): inference schedule: @energy_forces planned peak "
      "max(16388*N + 22420*E + 262144, 14340*N + 25172*E - 4, 8*N*E) bytes "
      "(unplanned 40748*N + 110524*E + 5378896); 149 buffers, 15 reused\n"
      "loc(\"m.mlir\":3:1): remark: @energy planned peak 4096*E bytes "
      "(unplanned 8192*E + x[0]); 1 buffers\n";
  std::vector<FunctionPlan> plans;
  ASSERT_EQ(parseMemoryPlan(section, plans), "");
  ASSERT_EQ(plans.size(), 2u);
  EXPECT_EQ(plans[0].function, "energy_forces");
  ASSERT_EQ(plans[0].peak.size(), 3u);
  std::map<std::string, int64_t> at = {{"N", 4096}, {"E", 647168}};
  std::string missing;
  EXPECT_EQ(evaluatePlan(plans[0].peak[1], at, missing),
            14340ll * 4096 + 25172ll * 647168 - 4);
  EXPECT_EQ(evaluatePlan(plans[0].peak[2], at, missing), 8ll * 4096 * 647168);
  EXPECT_EQ(linearCoefficient(plans[0].peak[1], "E"), 25172);
  EXPECT_EQ(linearCoefficient(plans[0].peak[2], "E"), 0);
  EXPECT_EQ(plans[1].function, "energy");
  EXPECT_EQ(evaluatePlan(plans[1].peak[0], at, missing), 4096ll * 647168);
  EXPECT_FALSE(evaluatePlan(plans[1].unplanned, at, missing));
  EXPECT_EQ(missing, "x[0]");
  EXPECT_EQ(parseMemoryPlan("@f planned peak 4*E bytes\n", plans),
            "memory plan, line 1: not a line of sezm-plan-memory's remark");
  EXPECT_EQ(parseMemoryPlan("@f planned peak 4**E bytes (unplanned 1)\n", plans)
                .rfind("memory plan, line 1: cannot read the peak term", 0),
            0u);
}
