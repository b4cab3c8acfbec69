//===- HostTensor.h - a dense array in host memory --------------*- C++ -*-===//
//
// The unit of data that crosses sezm's tools: inputs read from .npy files,
// results written back, and the arrays the runners bind to compiled code.
// Plain C++: no MLIR or LLVM.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_SUPPORT_HOSTTENSOR_H
#define SEZM_SUPPORT_HOSTTENSOR_H

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace sezmrt {

enum class ElementType { F32, F64, I32, I64 };

/// Bytes per element.
size_t elementSize(ElementType type);
/// "float32", "float64", "int32", "int64".
const char *elementTypeName(ElementType type);
/// The number of elements of an array of `shape`.
int64_t elementCount(const std::vector<int64_t> &shape);

/// The index of the first of `count` elements at `data` that is NaN or
/// infinite, or -1 (always -1 for an integer type).
int64_t firstNonFinite(ElementType type, const void *data, int64_t count);

/// An error naming `what` and its first element that is NaN or infinite,
/// or an empty string.
std::string nonFiniteError(const std::string &what, ElementType type,
                           const void *data, int64_t count);
/// "float32 (5, 3)": an array's element type and shape.
std::string describeArray(ElementType type, const std::vector<int64_t> &shape);

/// Reads a whole file; on failure returns false and sets `error` to
/// "<path>: cannot open the file" (or why else it cannot be read).
bool readFileBytes(const std::string &path, std::string &bytes,
                   std::string &error);

/// Reads a file and hands its bytes to `parse(bytes, error)`, whose error is
/// then prefixed with the path: the shape of every reader of a format.
template <typename Parse>
bool readAndParse(const std::string &path, std::string &error, Parse parse) {
  std::string bytes;
  if (!readFileBytes(path, bytes, error))
    return false;
  if (parse(bytes, error))
    return true;
  error = path + ": " + error;
  return false;
}

/// A C-ordered dense array.
struct HostTensor {
  ElementType type = ElementType::F32;
  std::vector<int64_t> shape;
  std::vector<unsigned char> bytes;

  HostTensor() = default;
  HostTensor(ElementType type, std::vector<int64_t> shape);

  int64_t numElements() const;
  template <typename T> T *data() {
    return reinterpret_cast<T *>(bytes.data());
  }
  template <typename T> const T *data() const {
    return reinterpret_cast<const T *>(bytes.data());
  }
  /// Element i converted to double (any element type).
  double at(int64_t i) const;
  /// Element i of an integer tensor.
  int64_t indexAt(int64_t i) const;
  /// "float32 (5, 3)".
  std::string describe() const;
};

/// `values` (C order) as a tensor of `type` and `shape`, each converted.
template <typename T>
HostTensor tensorFrom(ElementType type, std::vector<int64_t> shape,
                      const std::vector<T> &values) {
  HostTensor tensor(type, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i) {
    switch (type) {
    case ElementType::F32:
      tensor.data<float>()[i] = static_cast<float>(values[i]);
      break;
    case ElementType::F64:
      tensor.data<double>()[i] = static_cast<double>(values[i]);
      break;
    case ElementType::I32:
      tensor.data<int32_t>()[i] = static_cast<int32_t>(values[i]);
      break;
    case ElementType::I64:
      tensor.data<int64_t>()[i] = static_cast<int64_t>(values[i]);
      break;
    }
  }
  return tensor;
}

} // namespace sezmrt

#endif // SEZM_SUPPORT_HOSTTENSOR_H
