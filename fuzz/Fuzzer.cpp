//===- Fuzzer.cpp - one libFuzzer binary per loader -----------------------===//
//
// Built with -fsanitize=fuzzer,address and SEZM_FUZZ_TARGET naming the
// loader, e.g. `sezm-fuzz-safetensors fuzz/corpus/safetensors`.
//
//===----------------------------------------------------------------------===//

#include "Targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static sezm::fuzz::Target target = sezm::fuzz::targetNamed(SEZM_FUZZ_TARGET);
  target(data, size);
  return 0;
}
