//===- RuntimeApiTest.cpp - the C API refuses bad calls with a reason -----===//
//
// What can be checked without a GPU: every call that cannot proceed returns
// its failure value and says why in sezm_last_error(), before it touches
// the driver or a pointer it was given.
//
//===----------------------------------------------------------------------===//

#include "sezm_runtime.h"

#include "SeZM/Support/RuntimeTensors.h"

#include <gtest/gtest.h>

#include <string>

namespace {
std::string lastError() { return sezm_last_error(); }

TEST(RuntimeApi, ComputeEdgesNeedsAModelEntry) {
  float out[9];
  EXPECT_EQ(sezm_model_compute_edges_gpu(nullptr, "energy_forces", 4, 0, 1, out,
                                         nullptr, nullptr, nullptr, out, out,
                                         out),
            1);
  EXPECT_EQ(lastError(),
            "sezm_model_compute_edges_gpu: no entry 'energy_forces'");
}

TEST(RuntimeApi, ComputeEdgesInDoubleNeedsAModelEntry) {
  double out[9];
  EXPECT_EQ(sezm_model_compute_edges_gpu_f64(nullptr, "energy_forces", 4, 0, 1,
                                             out, nullptr, nullptr, nullptr,
                                             out, out, out),
            1);
  EXPECT_EQ(lastError(),
            "sezm_model_compute_edges_gpu_f64: no entry 'energy_forces'");
}

TEST(RuntimeApi, NoDeviceBlocksKeptWithoutADevice) {
  // Nothing was allocated, so nothing is kept; releasing then is harmless
  // and touches no driver.
  EXPECT_EQ(sezm_device_bytes_cached(), 0u);
  sezm_device_release_cache();
  EXPECT_EQ(sezm_device_bytes_cached(), 0u);
  EXPECT_EQ(sezm_device_bytes_in_use(), 0u);
}

TEST(RuntimeApi, KernelResourcesOfAnUnloadedKernel) {
  int registers = 7, local = 7, shared = 7;
  EXPECT_EQ(sezm_kernel_resources("rotate_mix", &registers, &local, &shared),
            -1);
  EXPECT_EQ(sezm_kernel_resources(nullptr, &registers, &local, &shared), -1);
  EXPECT_EQ(registers, 7); // untouched
}

TEST(RuntimeApi, GraphFromPositionsChecksItsArguments) {
  float coord[3] = {0, 0, 0};
  EXPECT_EQ(sezm_graph_from_positions_gpu(0, coord, nullptr, 0, nullptr,
                                          nullptr, 6.0),
            nullptr);
  EXPECT_NE(lastError().find("needs natoms >= 1"), std::string::npos)
      << lastError();
  EXPECT_EQ(sezm_graph_from_positions_gpu(1, coord, nullptr, 0, nullptr,
                                          nullptr, -1.0),
            nullptr);
  EXPECT_NE(lastError().find("a positive cutoff"), std::string::npos)
      << lastError();
  int32_t atype[1] = {0};
  EXPECT_EQ(
      sezm_graph_from_positions_gpu(1, coord, atype, 0, nullptr, nullptr, 6.0),
      nullptr);
  EXPECT_NE(lastError().find("ntypes >= 1 with atype"), std::string::npos)
      << lastError();
  double coord64[3] = {0, 0, 0};
  EXPECT_EQ(sezm_graph_from_positions_gpu_f64(0, coord64, nullptr, 0, nullptr,
                                              nullptr, 6.0, 1),
            nullptr);
  EXPECT_NE(lastError().find("sezm_graph_from_positions_gpu_f64: needs natoms "
                             ">= 1"),
            std::string::npos)
      << lastError();
}

TEST(RuntimeApi, GraphAccessorsRefuseNoGraph) {
  sezm_tensor array;
  EXPECT_EQ(sezm_graph_edge_count(nullptr), -1);
  EXPECT_EQ(sezm_graph_array(nullptr, "src", &array), 1);
  EXPECT_EQ(lastError(),
            "sezm_graph_array: needs a graph, a name and an array");
  sezm_graph_free(nullptr);
}

TEST(RuntimeApi, CopiesRefuseHostArraysAndNull) {
  float host[4] = {1, 2, 3, 4};
  sezm_tensor onHost{};
  onHost.dtype = SEZM_F32;
  onHost.rank = 1;
  onHost.shape[0] = 4;
  onHost.data = host;
  EXPECT_EQ(sezm_tensor_to_host(&onHost, host), 1);
  EXPECT_NE(lastError().find("needs a device array"), std::string::npos)
      << lastError();
  EXPECT_EQ(sezm_tensor_to_host(nullptr, host), 1);
  sezm_tensor device{};
  onHost.on_device = 1;
  EXPECT_EQ(sezm_tensor_to_device(&onHost, &device), 1);
  EXPECT_NE(lastError().find("needs a host array"), std::string::npos)
      << lastError();
}
TEST(RuntimeApi, DescribeKeepsShapeAndRefusesRankOverEight) {
  int64_t shape[9] = {2, 3, 1, 1, 1, 1, 1, 1, 1};
  float data[6];
  sezm_tensor t = sezm_tensor_describe(SEZM_F32, 2, shape, data, 0);
  EXPECT_EQ(t.rank, 2);
  EXPECT_EQ(t.shape[0], 2);
  EXPECT_EQ(t.shape[1], 3);
  EXPECT_EQ(t.data, data);
  EXPECT_EQ(t.on_device, 0);
  EXPECT_EQ(sezm_tensor_describe(SEZM_F32, 9, shape, data, 0).rank, -1);
  sezm_tensor device{};
  sezm_tensor tooDeep = sezm_tensor_describe(SEZM_F32, 9, shape, data, 0);
  EXPECT_EQ(sezm_tensor_to_device(&tooDeep, &device), 1);
  EXPECT_NE(lastError().find("rank 0-8"), std::string::npos) << lastError();
}

TEST(RuntimeApi, HostTensorsCrossTheApiUnchanged) {
  using sezmrt::ElementType;
  for (ElementType type : {ElementType::F32, ElementType::F64, ElementType::I32,
                           ElementType::I64}) {
    EXPECT_EQ(sezmrt::elementTypeOf(sezmrt::runtimeDtype(type)), type);
    sezmrt::HostTensor host(type, {2, 3});
    for (size_t i = 0; i < host.bytes.size(); ++i)
      host.bytes[i] = static_cast<unsigned char>(i * 7 + 1);
    sezm_tensor view = sezmrt::describeHost(host);
    EXPECT_EQ(view.data, host.bytes.data());
    EXPECT_EQ(view.on_device, 0);
    sezmrt::HostTensor copy = sezmrt::copyToHostTensor(view);
    EXPECT_EQ(copy.type, type);
    EXPECT_EQ(copy.shape, host.shape);
    EXPECT_EQ(copy.bytes, host.bytes);
  }
  EXPECT_EQ(sezmrt::runtimeDtype(ElementType::I64), SEZM_I64);
  EXPECT_EQ(sezmrt::runtimeDtype(ElementType::F64), SEZM_F64);
}
} // namespace
