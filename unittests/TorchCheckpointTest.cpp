//===- TorchCheckpointTest.cpp - torch.save files read without PyTorch ----===//
//
// The fixtures are DeePMD-kit's own checkpoints (test/Import/make_fixtures.py
// trains a tiny DPA4 one step): every tensor of the state dict and every
// scalar of model_params must read back as PyTorch wrote it.
//
//===----------------------------------------------------------------------===//

#include "SeZM/Support/TorchCheckpoint.h"
#include "SeZM/Support/Artifact.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

using namespace sezmrt;

namespace {
std::string fixture(const std::string &name) {
  return std::string(SEZM_IMPORT_FIXTURES) + "/" + name;
}

std::string fileBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

/// The object at a dotted model_params path ("descriptor.env_exp.0").
const PyObject *at(const PyObject *object, const std::string &path) {
  std::istringstream parts(path);
  for (std::string part; object && std::getline(parts, part, '.');) {
    if (object->kind == PyObject::Kind::List) {
      size_t index = std::stoul(part);
      object = index < object->items.size() ? object->items[index] : nullptr;
    } else {
      object = object->get(part);
    }
  }
  return object;
}

const char *dtypeOf(const std::string &storageType) {
  if (storageType == "torch.FloatStorage")
    return "float32";
  if (storageType == "torch.DoubleStorage")
    return "float64";
  if (storageType == "torch.LongStorage")
    return "int64";
  return "other";
}

void expectFixture(const std::string &file, bool withOptimizer) {
  TorchCheckpoint checkpoint;
  std::string error;
  ASSERT_TRUE(readTorchCheckpoint(fixture(file), checkpoint, error)) << error;
  ASSERT_EQ(checkpoint.root->kind, PyObject::Kind::Dict);
  const PyObject *model = checkpoint.root->get("model");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(checkpoint.root->get("optimizer") != nullptr, withOptimizer);
  const PyObject *params = at(model, "_extra_state.model_params");
  ASSERT_NE(params, nullptr);

  std::ifstream expected(fixture("dpa4-tiny.expected.txt"));
  int tensors = 0, scalars = 0;
  for (std::string line; std::getline(expected, line);) {
    std::istringstream fields(line);
    std::string kind, key;
    fields >> kind >> key;
    if (kind == "tensor") {
      std::string dtype, shape;
      double sum;
      fields >> dtype >> shape >> sum;
      const PyObject *tensor = model->get(key);
      ASSERT_NE(tensor, nullptr) << key;
      ASSERT_EQ(tensor->kind, PyObject::Kind::Tensor) << key;
      EXPECT_EQ(dtypeOf(tensor->storageType), dtype) << key;
      std::string got;
      for (int64_t extent : tensor->shape)
        got += (got.empty() ? "" : ",") + std::to_string(extent);
      EXPECT_EQ(got.empty() ? "-" : got, shape) << key;
      HostTensor values;
      ASSERT_TRUE(loadTensor(checkpoint, *tensor, values, error)) << error;
      double total = 0;
      for (int64_t i = 0; i < values.numElements(); ++i)
        total += values.at(i);
      EXPECT_NEAR(total, sum, 1e-12 * (1 + std::abs(sum))) << key;
      ++tensors;
    } else if (kind == "param") {
      std::string value;
      fields >> value;
      const PyObject *object = at(params, key);
      ASSERT_NE(object, nullptr) << key;
      switch (object->kind) {
      case PyObject::Kind::Bool:
        EXPECT_EQ(object->boolean ? "true" : "false", value) << key;
        break;
      case PyObject::Kind::Int:
        EXPECT_EQ(std::to_string(object->integer), value) << key;
        break;
      case PyObject::Kind::Float:
        EXPECT_EQ(object->real, std::stod(value)) << key;
        break;
      case PyObject::Kind::String:
        EXPECT_EQ(object->text, value) << key;
        break;
      default:
        ADD_FAILURE() << key << " is " << object->describe();
      }
      ++scalars;
    }
  }
  EXPECT_GT(tensors, 40);
  EXPECT_GT(scalars, 50);
}

TEST(TorchCheckpoint, ReadsATrainingCheckpoint) {
  expectFixture("dpa4-tiny.train.ckpt.pt", /*withOptimizer=*/true);
}

TEST(TorchCheckpoint, ReadsAModelOnlyCheckpoint) {
  expectFixture("dpa4-tiny.model.ckpt.pt", /*withOptimizer=*/false);
}

TEST(TorchCheckpoint, OptimizerStateReads) {
  TorchCheckpoint checkpoint;
  std::string error;
  ASSERT_TRUE(readTorchCheckpoint(fixture("dpa4-tiny.train.ckpt.pt"),
                                  checkpoint, error))
      << error;
  const PyObject *groups = at(checkpoint.root, "optimizer.param_groups");
  ASSERT_NE(groups, nullptr);
  ASSERT_EQ(groups->kind, PyObject::Kind::List);
  ASSERT_FALSE(groups->items.empty());
  EXPECT_NE(groups->items[0]->get("lr"), nullptr);
}

std::string parseError(const std::string &bytes) {
  TorchCheckpoint checkpoint;
  std::string error;
  EXPECT_FALSE(parseTorchCheckpoint(bytes, checkpoint, error));
  return error;
}

TEST(TorchCheckpoint, TruncationsAndFlippedBytesAreRefused) {
  std::string good = fileBytes(fixture("dpa4-tiny.model.ckpt.pt"));
  for (size_t size : {size_t(0), size_t(3), size_t(100), good.size() / 2,
                      good.size() - 23, good.size() - 1})
    EXPECT_FALSE(parseError(good.substr(0, size)).empty()) << size;
  // A byte inside a storage: the entry's CRC-32 no longer matches.
  std::string flipped = good;
  flipped[good.size() / 2] ^= 0x04;
  EXPECT_NE(parseError(flipped).find("does not match its CRC-32"),
            std::string::npos)
      << parseError(flipped);
}

TEST(TorchCheckpoint, ForeignFilesAreNamed) {
  EXPECT_EQ(parseError("func.func @f() { return }"),
            "not a PyTorch checkpoint (torch.save writes a zip archive, "
            "which begins with \"PK\")");
  std::string artifact = fileBytes(fixture("dpa4-tiny.expected.txt"));
  EXPECT_NE(parseError(artifact).find("not a PyTorch checkpoint"),
            std::string::npos);
}

/// A zip of stored entries, as torch.save writes it.
std::string
zipOf(const std::vector<std::pair<std::string, std::string>> &files) {
  std::string out, directory;
  auto le = [](std::string &to, uint64_t value, int width) {
    for (int i = 0; i < width; ++i)
      to.push_back(static_cast<char>(value >> (8 * i) & 0xff));
  };
  for (const auto &[name, data] : files) {
    uint32_t crc = crc32(data);
    size_t local = out.size();
    le(out, 0x04034b50, 4);
    le(out, 20, 2), le(out, 0, 2), le(out, 0, 2), le(out, 0, 4);
    le(out, crc, 4), le(out, data.size(), 4), le(out, data.size(), 4);
    le(out, name.size(), 2), le(out, 0, 2);
    out += name + data;
    le(directory, 0x02014b50, 4);
    le(directory, 20, 2), le(directory, 20, 2), le(directory, 0, 2);
    le(directory, 0, 2), le(directory, 0, 4), le(directory, crc, 4);
    le(directory, data.size(), 4), le(directory, data.size(), 4);
    le(directory, name.size(), 2), le(directory, 0, 2), le(directory, 0, 2);
    le(directory, 0, 2), le(directory, 0, 2), le(directory, 0, 4);
    le(directory, local, 4);
    directory += name;
  }
  size_t start = out.size();
  out += directory;
  le(out, 0x06054b50, 4), le(out, 0, 2), le(out, 0, 2);
  le(out, files.size(), 2), le(out, files.size(), 2);
  le(out, directory.size(), 4), le(out, start, 4), le(out, 0, 2);
  return out;
}

TEST(TorchCheckpoint, PicklesThatRunCodeAreRefused) {
  using namespace std::string_literals;
  // os.system("echo hi"): the global is named, nothing runs.
  std::string pickle =
      "\x80\x02"s + "cos\nsystem\n" + "X\x07\x00\x00\x00"s + "echo hi\x85R.";
  std::string error = parseError(zipOf({{"archive/data.pkl", pickle}}));
  EXPECT_NE(error.find("the Python global 'os.system', which a DeePMD-kit "
                       "checkpoint does not use"),
            std::string::npos)
      << error;
  // A small pickle of the subset reads: {"a": [1, 2.5, True, None]}.
  std::string good = "\x80\x02}q\x00X\x01\x00\x00\x00"s + "a" +
                     "]q\x01(K\x01G@\x04\x00\x00\x00\x00\x00\x00\x88Nes."s;
  TorchCheckpoint checkpoint;
  ASSERT_TRUE(parseTorchCheckpoint(zipOf({{"archive/data.pkl", good}}),
                                   checkpoint, error))
      << error;
  const PyObject *list = checkpoint.root->get("a");
  ASSERT_NE(list, nullptr);
  ASSERT_EQ(list->items.size(), 4u);
  EXPECT_EQ(list->items[0]->integer, 1);
  EXPECT_EQ(list->items[1]->real, 2.5);
  EXPECT_TRUE(list->items[2]->boolean);
  EXPECT_EQ(list->items[3]->kind, PyObject::Kind::None);
  // A storage the pickle names but the archive lacks.
  std::string missing = "\x80\x02"s + "ctorch._utils\n_rebuild_tensor_v2\n((" +
                        "X\x07\x00\x00\x00"s + "storage" +
                        "ctorch\nFloatStorage\n" + "X\x01\x00\x00\x00"s + "0" +
                        "X\x03\x00\x00\x00"s + "cpuK\x02tQ" +
                        "K\x00K\x02\x85K\x01\x85\x89}tR."s;
  error = parseError(zipOf({{"archive/data.pkl", missing}}));
  EXPECT_NE(error.find("names storage '0', which the archive lacks"),
            std::string::npos)
      << error;
  // With it, but too small for what the pickle says.
  error = parseError(zipOf({{"archive/data.pkl", missing},
                            {"archive/data/0", std::string(4, '\0')}}));
  EXPECT_NE(error.find("storage '0' is 4 bytes, but the pickle says 2"),
            std::string::npos)
      << error;
  // The right size: a float32 tensor (2,) of zeros.
  ASSERT_TRUE(
      parseTorchCheckpoint(zipOf({{"archive/data.pkl", missing},
                                  {"archive/data/0", std::string(8, '\0')}}),
                           checkpoint, error))
      << error;
  EXPECT_EQ(checkpoint.root->describe(), "a tensor float32 (2,)");
}
} // namespace
