//===- Safetensors.h - weights in the safetensors format --------*- C++ -*-===//
//
// Reads the safetensors format (an 8-byte little-endian header length, a
// JSON header naming each tensor's dtype, shape and byte range, then the
// data) for F32, F64, I32 and I64 tensors. Plain C++. Every error says what
// is wrong and where (the file, the tensor, the byte offset).
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_SUPPORT_SAFETENSORS_H
#define SEZM_SUPPORT_SAFETENSORS_H

#include "SeZM/Support/HostTensor.h"

#include <map>
#include <string>

namespace sezmrt {

/// Parses safetensors bytes into tensors by name; on failure returns false
/// and sets `error` to a plain-English reason.
bool parseSafetensors(const std::string &bytes,
                      std::map<std::string, HostTensor> &tensors,
                      std::string &error);
/// Reads a safetensors file; errors name the file.
bool readSafetensors(const std::string &path,
                     std::map<std::string, HostTensor> &tensors,
                     std::string &error);

/// The safetensors bytes of `tensors` (names are written as they are: no
/// JSON escapes are needed for sezm's argument names).
std::string writeSafetensors(const std::map<std::string, HostTensor> &tensors);

} // namespace sezmrt

#endif // SEZM_SUPPORT_SAFETENSORS_H
