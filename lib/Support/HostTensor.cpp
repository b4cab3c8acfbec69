//===- HostTensor.cpp - a dense array in host memory ----------------------===//

#include "SeZM/Support/HostTensor.h"

#include <cmath>

#include <fstream>
#include <sstream>

#include <sys/stat.h>

using namespace sezmrt;

size_t sezmrt::elementSize(ElementType type) {
  switch (type) {
  case ElementType::F32:
  case ElementType::I32:
    return 4;
  case ElementType::F64:
  case ElementType::I64:
    return 8;
  }
  return 0;
}

const char *sezmrt::elementTypeName(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return "float32";
  case ElementType::F64:
    return "float64";
  case ElementType::I32:
    return "int32";
  case ElementType::I64:
    return "int64";
  }
  return "unknown";
}

HostTensor::HostTensor(ElementType type, std::vector<int64_t> shape)
    : type(type), shape(std::move(shape)) {
  bytes.assign(static_cast<size_t>(numElements()) * elementSize(type), 0);
}

int64_t sezmrt::elementCount(const std::vector<int64_t> &shape) {
  int64_t count = 1;
  for (int64_t extent : shape)
    count *= extent;
  return count;
}

int64_t HostTensor::numElements() const { return elementCount(shape); }

template <typename T>
static int64_t firstNonFiniteOf(const void *data, int64_t count) {
  const T *values = static_cast<const T *>(data);
  for (int64_t i = 0; i < count; ++i)
    if (!std::isfinite(values[i]))
      return i;
  return -1;
}

int64_t sezmrt::firstNonFinite(ElementType type, const void *data,
                               int64_t count) {
  switch (type) {
  case ElementType::F32:
    return firstNonFiniteOf<float>(data, count);
  case ElementType::F64:
    return firstNonFiniteOf<double>(data, count);
  case ElementType::I32:
  case ElementType::I64:
    return -1;
  }
  return -1;
}

std::string sezmrt::nonFiniteError(const std::string &what, ElementType type,
                                   const void *data, int64_t count) {
  int64_t at = firstNonFinite(type, data, count);
  if (at < 0)
    return std::string();
  double value = type == ElementType::F32
                     ? static_cast<const float *>(data)[at]
                     : static_cast<const double *>(data)[at];
  return what + ": element " + std::to_string(at) + " is " +
         (std::isnan(value) ? "NaN"
          : value > 0       ? "+Inf"
                            : "-Inf") +
         "; inputs must be finite numbers";
}

double HostTensor::at(int64_t i) const {
  switch (type) {
  case ElementType::F32:
    return data<float>()[i];
  case ElementType::F64:
    return data<double>()[i];
  case ElementType::I32:
    return data<int32_t>()[i];
  case ElementType::I64:
    return static_cast<double>(data<int64_t>()[i]);
  }
  return 0;
}

int64_t HostTensor::indexAt(int64_t i) const {
  return type == ElementType::I32 ? data<int32_t>()[i] : data<int64_t>()[i];
}

std::string sezmrt::describeArray(ElementType type,
                                  const std::vector<int64_t> &shape) {
  std::ostringstream os;
  os << elementTypeName(type) << " (";
  for (size_t i = 0; i < shape.size(); ++i)
    os << (i ? ", " : "") << shape[i];
  if (shape.size() == 1)
    os << ",";
  os << ")";
  return os.str();
}

std::string HostTensor::describe() const { return describeArray(type, shape); }

bool sezmrt::readFileBytes(const std::string &path, std::string &bytes,
                           std::string &error) {
  struct stat status;
  bool known = stat(path.c_str(), &status) == 0;
  if (known && S_ISDIR(status.st_mode)) {
    error = path + ": is a directory, not a file";
    return false;
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    error = path + ": cannot open the file";
    return false;
  }
  if (known && S_ISREG(status.st_mode)) {
    // One read into a buffer of the file's size: a stream copy of a
    // multi-gigabyte workload array took seconds.
    bytes.resize(static_cast<size_t>(status.st_size));
    if (!bytes.empty() &&
        !file.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) {
      error = path + ": cannot read the file";
      return false;
    }
    return true;
  }
  // A pipe or device: read until its end.
  std::ostringstream contents;
  contents << file.rdbuf();
  bytes = contents.str();
  return true;
}
