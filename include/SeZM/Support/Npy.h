//===- Npy.h - NumPy .npy files ---------------------------------*- C++ -*-===//
//
// Reads and writes the .npy format (versions 1 to 3) for little-endian
// float32, float64, int32 and int64 arrays in C order. Plain C++.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_SUPPORT_NPY_H
#define SEZM_SUPPORT_NPY_H

#include "SeZM/Support/HostTensor.h"

#include <string>

namespace sezmrt {

/// Parses .npy bytes; on failure returns false and sets `error` to a
/// plain-English reason.
bool parseNpy(const std::string &bytes, HostTensor &tensor, std::string &error);
/// Reads a .npy file; errors name the file.
bool readNpy(const std::string &path, HostTensor &tensor, std::string &error);
/// Writes a .npy file (version 1.0) of the C-order array at `data`, streamed
/// from there: outputs of gigabytes are not copied on the way.
bool writeNpy(const std::string &path, ElementType type,
              const std::vector<int64_t> &shape, const void *data,
              std::string &error);
/// Writes a .npy file of `tensor`.
bool writeNpy(const std::string &path, const HostTensor &tensor,
              std::string &error);

} // namespace sezmrt

#endif // SEZM_SUPPORT_NPY_H
