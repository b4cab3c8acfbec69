//===- Replay.cpp - run a kept fuzz corpus through a loader ---------------===//
//
// sezm-fuzz-replay TARGET FILE_OR_DIR...: feeds every file to the target
// (Targets.h) and prints how many ran. A crash fails the test that runs it.
//
//===----------------------------------------------------------------------===//

#include "Targets.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: sezm-fuzz-replay safetensors|npy|xyz "
                         "FILE_OR_DIR...\n");
    return 2;
  }
  sezm::fuzz::Target target = sezm::fuzz::targetNamed(argv[1]);
  if (!target) {
    std::fprintf(stderr, "sezm-fuzz-replay: no target '%s'\n", argv[1]);
    return 2;
  }
  std::vector<std::filesystem::path> files;
  for (int i = 2; i < argc; ++i) {
    std::filesystem::path path(argv[i]);
    if (std::filesystem::is_directory(path)) {
      for (const auto &entry : std::filesystem::directory_iterator(path))
        if (entry.is_regular_file())
          files.push_back(entry.path());
    } else {
      files.push_back(path);
    }
  }
  for (const auto &path : files) {
    std::ifstream in(path, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    target(bytes.data(), bytes.size());
  }
  std::printf("%s: %zu inputs ran\n", argv[1], files.size());
  return files.empty() ? 1 : 0;
}
