//===- Targets.h - the loaders sezm fuzzes ----------------------*- C++ -*-===//
//
// Each target feeds arbitrary bytes to one loader of user files: it must
// either accept them or return an error, never crash, hang or read out of
// bounds. libFuzzer drives them (SEZM_FUZZERS=ON); the replay tool runs the
// kept corpus through them in `make check`.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_FUZZ_TARGETS_H
#define SEZM_FUZZ_TARGETS_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace sezm::fuzz {

/// A safetensors file (weights).
void safetensors(const uint8_t *data, size_t size);
/// A .npy file (inputs).
void npy(const uint8_t *data, size_t size);
/// An extended XYZ file, and the neighbour graph of what parses.
void extendedXyz(const uint8_t *data, size_t size);
/// A compiled artifact (sezm-compile): its container and manifest, checked
/// before the runtime loads any of its code.
void artifact(const uint8_t *data, size_t size);

/// A PyTorch checkpoint (torch.save's zip and pickle), and every tensor in
/// it copied out of its storage.
void torchCheckpoint(const uint8_t *data, size_t size);

/// The target of that name ("safetensors", "npy", "xyz", "artifact",
/// "torch"), or null.
using Target = void (*)(const uint8_t *, size_t);
Target targetNamed(const std::string &name);

} // namespace sezm::fuzz

#endif // SEZM_FUZZ_TARGETS_H
