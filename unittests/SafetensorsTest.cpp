//===- SafetensorsTest.cpp - the safetensors reader -----------------------===//
//
// Reads well-formed files exactly, and says what is wrong with bad ones
// instead of crashing or reading past the end: truncated files, headers
// that are not the JSON they claim, byte ranges outside the data, sizes
// that do not match the shape and dtype. Every prefix of a good file is
// refused with an error.
//
//===----------------------------------------------------------------------===//

#include "SeZM/Support/Safetensors.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace sezmrt;

namespace {

/// A safetensors file: the 8-byte little-endian header length, the header,
/// then `data`.
std::string file(const std::string &header, const std::string &data) {
  std::string bytes(8, '\0');
  uint64_t length = header.size();
  for (int i = 0; i < 8; ++i)
    bytes[i] = static_cast<char>(length >> (8 * i) & 0xff);
  return bytes + header + data;
}

std::string floats(std::initializer_list<float> values) {
  std::string bytes(values.size() * 4, '\0');
  std::memcpy(bytes.data(), values.begin(), bytes.size());
  return bytes;
}

const std::string goodHeader =
    R"({"__metadata__":{"seed":"7"},"b":{"dtype":"F32","shape":[3],)"
    R"("data_offsets":[8,20]},"a":{"dtype":"F32","shape":[2,1],)"
    R"("data_offsets":[0,8]}})";

std::string errorOf(const std::string &bytes) {
  std::map<std::string, HostTensor> tensors;
  std::string error;
  EXPECT_FALSE(parseSafetensors(bytes, tensors, error));
  return error;
}

TEST(Safetensors, ReadsTensorsByName) {
  std::map<std::string, HostTensor> tensors;
  std::string error;
  ASSERT_TRUE(parseSafetensors(file(goodHeader, floats({1, 2, 3, 4, 5})),
                               tensors, error))
      << error;
  ASSERT_EQ(tensors.size(), 2u);
  EXPECT_EQ(tensors["a"].shape, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(tensors["a"].at(1), 2);
  EXPECT_EQ(tensors["b"].shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(tensors["b"].at(0), 3);
  EXPECT_EQ(tensors["b"].at(2), 5);
}

TEST(Safetensors, EveryPrefixOfAGoodFileIsAnError) {
  std::string good = file(goodHeader, floats({1, 2, 3, 4, 5}));
  for (size_t length = 0; length < good.size(); ++length)
    EXPECT_FALSE(errorOf(good.substr(0, length)).empty())
        << "a prefix of " << length << " bytes was accepted";
}

TEST(Safetensors, ErrorsSayWhatIsWrong) {
  std::string data = floats({1, 2, 3, 4, 5});
  EXPECT_EQ(errorOf("abc"), "the file is 3 bytes, shorter than the 8-byte "
                            "header length");
  EXPECT_NE(errorOf(file(goodHeader, data).substr(0, 40))
                .find("runs past the end of the file"),
            std::string::npos);
  EXPECT_NE(errorOf(file("[1, 2]", "")).find("not a JSON object"),
            std::string::npos);
  EXPECT_NE(errorOf(file(R"({"a":{"dtype":"F32")", "")).find("header byte"),
            std::string::npos);
  EXPECT_NE(
      errorOf(file(R"({"a":{"dtype":"BF16","shape":[1],"data_offsets":[0,2]}})",
                   "xx"))
          .find("tensor 'a': dtype BF16 is not supported"),
      std::string::npos);
  EXPECT_NE(
      errorOf(file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
                   "1234"))
          .find("tensor 'a': data_offsets must be [begin, end]"),
      std::string::npos);
  EXPECT_NE(
      errorOf(file(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})",
                   data))
          .find("tensor 'a': holds 8 bytes, but F32 of its shape needs 12"),
      std::string::npos);
  EXPECT_NE(
      errorOf(file(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296,)"
                   R"(4294967296],"data_offsets":[0,8]}})",
                   data))
          .find("too many elements"),
      std::string::npos);
  EXPECT_NE(errorOf(file(R"({"a":{"shape":[1]}})", "")).find("needs \"dtype\""),
            std::string::npos);
}

} // namespace
