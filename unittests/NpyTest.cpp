//===- NpyTest.cpp - .npy files written and read back ---------------------===//
//
// writeNpy streams the header and the caller's bytes (no copy of the array);
// what it writes must read back as the same array, with its data starting on
// a 64-byte boundary as NumPy writes it, and a file it cannot write must be
// an error that names the file.
//
//===----------------------------------------------------------------------===//

#include "SeZM/Support/Npy.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <unistd.h>

using namespace sezmrt;

namespace {

std::string scratchPath(const char *name) {
  return ::testing::TempDir() + "/sezm-npy-" + std::to_string(::getpid()) +
         "-" + name + ".npy";
}

/// An array of `type` and `shape` whose bytes differ from their neighbours.
HostTensor numbered(ElementType type, std::vector<int64_t> shape) {
  HostTensor tensor(type, std::move(shape));
  for (size_t i = 0; i < tensor.bytes.size(); ++i)
    tensor.bytes[i] = static_cast<unsigned char>(i * 37 + 11);
  return tensor;
}

TEST(Npy, WrittenArraysReadBackTheSame) {
  const struct {
    ElementType type;
    std::vector<int64_t> shape;
  } cases[] = {{ElementType::F32, {3, 5}},
               {ElementType::F64, {7}},
               {ElementType::I32, {}},
               {ElementType::I64, {2, 0, 4}},
               {ElementType::F32, {4, 16, 16}}};
  for (const auto &c : cases) {
    HostTensor written = numbered(c.type, c.shape);
    std::string path = scratchPath("roundtrip");
    std::string error;
    ASSERT_TRUE(writeNpy(path, written, error)) << error;
    std::string bytes;
    ASSERT_TRUE(readFileBytes(path, bytes, error)) << error;
    // Magic, version 1.0, a 2-byte header length; the data 64-byte aligned.
    ASSERT_GE(bytes.size(), 10u);
    EXPECT_EQ(bytes.compare(0, 8, std::string("\x93NUMPY\x01\x00", 8)), 0);
    size_t header = static_cast<unsigned char>(bytes[8]) |
                    static_cast<unsigned char>(bytes[9]) << 8;
    EXPECT_EQ((10 + header) % 64, 0u) << written.describe();
    EXPECT_EQ(bytes.size(), 10 + header + written.bytes.size());
    HostTensor read;
    ASSERT_TRUE(readNpy(path, read, error)) << error;
    EXPECT_EQ(read.type, written.type) << written.describe();
    EXPECT_EQ(read.shape, written.shape) << written.describe();
    EXPECT_EQ(read.bytes, written.bytes) << written.describe();
    std::remove(path.c_str());
  }
}

TEST(Npy, WritesFromTheCallersBytes) {
  // The same array from a plain buffer (a runtime's output) and from a
  // HostTensor gives the same file.
  HostTensor tensor = numbered(ElementType::F32, {6, 10});
  std::vector<unsigned char> buffer(tensor.bytes);
  std::string fromTensor = scratchPath("tensor"),
              fromBuffer = scratchPath("buf");
  std::string error, a, b;
  ASSERT_TRUE(writeNpy(fromTensor, tensor, error)) << error;
  ASSERT_TRUE(
      writeNpy(fromBuffer, ElementType::F32, {6, 10}, buffer.data(), error))
      << error;
  ASSERT_TRUE(readFileBytes(fromTensor, a, error)) << error;
  ASSERT_TRUE(readFileBytes(fromBuffer, b, error)) << error;
  EXPECT_EQ(a, b);
  EXPECT_EQ(describeArray(ElementType::F32, {6, 10}), "float32 (6, 10)");
  EXPECT_EQ(describeArray(ElementType::I64, {3}), "int64 (3,)");
  std::remove(fromTensor.c_str());
  std::remove(fromBuffer.c_str());
}

TEST(Npy, AFileThatCannotBeWrittenIsAnErrorNamingIt) {
  HostTensor tensor = numbered(ElementType::F32, {2});
  std::string path = "/nonexistent-sezm-folder/out.npy", error;
  EXPECT_FALSE(writeNpy(path, tensor, error));
  EXPECT_EQ(error, path + ": cannot write file");
}

} // namespace
