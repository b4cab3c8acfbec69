//===- Npy.cpp - NumPy .npy files -----------------------------------------===//
//
// The format: the magic "\x93NUMPY", a major and minor version byte, the
// header length (2 bytes in version 1, 4 in versions 2 and 3, little
// endian), then a Python dict literal with 'descr', 'fortran_order' and
// 'shape', padded with spaces and a newline; then the raw data.
//
//===----------------------------------------------------------------------===//

#include "SeZM/Support/Npy.h"

#include <cctype>
#include <fstream>
#include <limits>
#include <sstream>

using namespace sezmrt;

namespace {
/// Finds the value text of `key` in the header dict, or returns false.
bool findValue(const std::string &header, const std::string &key,
               std::string &value) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos)
    return false;
  size_t colon = header.find(':', at);
  if (colon == std::string::npos)
    return false;
  size_t begin = colon + 1;
  while (begin < header.size() && std::isspace(header[begin]))
    ++begin;
  size_t end = begin;
  if (begin < header.size() && header[begin] == '(') {
    end = header.find(')', begin);
    if (end == std::string::npos)
      return false;
    ++end;
  } else if (begin < header.size() && header[begin] == '\'') {
    end = header.find('\'', begin + 1);
    if (end == std::string::npos)
      return false;
    ++end;
  } else {
    while (end < header.size() && header[end] != ',' && header[end] != '}')
      ++end;
  }
  value = header.substr(begin, end - begin);
  return true;
}

bool parseShape(const std::string &text, std::vector<int64_t> &shape) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')')
    return false;
  std::string inner = text.substr(1, text.size() - 2);
  std::stringstream items(inner);
  std::string item;
  while (std::getline(items, item, ',')) {
    size_t first = item.find_first_not_of(" \t");
    if (first == std::string::npos)
      continue;
    size_t last = item.find_last_not_of(" \t");
    std::string digits = item.substr(first, last - first + 1);
    if (digits.empty() || digits.size() > 18)
      return false;
    for (char c : digits)
      if (!std::isdigit(static_cast<unsigned char>(c)))
        return false;
    shape.push_back(std::stoll(digits));
  }
  return true;
}

bool parseDescr(const std::string &text, ElementType &type) {
  const struct {
    const char *descr;
    ElementType type;
  } known[] = {{"'<f4'", ElementType::F32},
               {"'<f8'", ElementType::F64},
               {"'<i4'", ElementType::I32},
               {"'<i8'", ElementType::I64}};
  for (const auto &entry : known) {
    if (text == entry.descr) {
      type = entry.type;
      return true;
    }
  }
  return false;
}
} // namespace

bool sezmrt::parseNpy(const std::string &bytes, HostTensor &tensor,
                      std::string &error) {
  static const char magic[] = "\x93NUMPY";
  if (bytes.size() < 10 || bytes.compare(0, 6, magic, 6) != 0) {
    error = "not a NumPy .npy file (bad magic)";
    return false;
  }
  unsigned major = static_cast<unsigned char>(bytes[6]);
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = static_cast<unsigned char>(bytes[8]) |
                   (static_cast<unsigned char>(bytes[9]) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) {
      error = "truncated .npy header";
      return false;
    }
    headerLength = 0;
    for (int i = 3; i >= 0; --i)
      headerLength =
          (headerLength << 8) | static_cast<unsigned char>(bytes[8 + i]);
    headerStart = 12;
  } else {
    error = "unsupported .npy version " + std::to_string(major);
    return false;
  }
  if (bytes.size() < headerStart + headerLength) {
    error = "truncated .npy header";
    return false;
  }
  std::string header = bytes.substr(headerStart, headerLength);

  std::string descr, fortran, shapeText;
  if (!findValue(header, "descr", descr) ||
      !findValue(header, "fortran_order", fortran) ||
      !findValue(header, "shape", shapeText)) {
    error = "malformed .npy header: " + header;
    return false;
  }
  ElementType type;
  if (!parseDescr(descr, type)) {
    error = "unsupported element type " + descr +
            " (expected little-endian float32, float64, int32 or int64)";
    return false;
  }
  if (fortran != "False") {
    error = "Fortran-ordered arrays are not supported (save in C order)";
    return false;
  }
  std::vector<int64_t> shape;
  if (!parseShape(shapeText, shape)) {
    error = "malformed shape " + shapeText + " in .npy header";
    return false;
  }
  size_t dataStart = headerStart + headerLength;
  size_t count = 1;
  for (int64_t extent : shape) {
    size_t limit = std::numeric_limits<size_t>::max() / elementSize(type);
    if (extent != 0 && count > limit / static_cast<size_t>(extent)) {
      error = "shape " + shapeText + " in .npy header is too large";
      return false;
    }
    count *= static_cast<size_t>(extent);
  }
  size_t dataBytes = count * elementSize(type);
  if (bytes.size() - dataStart != dataBytes) {
    error = bytes.size() - dataStart < dataBytes
                ? "truncated .npy data: expected " + std::to_string(dataBytes) +
                      " bytes, found " +
                      std::to_string(bytes.size() - dataStart)
                : "trailing bytes after the .npy data";
    return false;
  }
  tensor.type = type;
  tensor.shape = shape;
  tensor.bytes.assign(bytes.begin() + dataStart, bytes.end());
  return true;
}

bool sezmrt::readNpy(const std::string &path, HostTensor &tensor,
                     std::string &error) {
  return readAndParse(path, error,
                      [&](const std::string &bytes, std::string &why) {
                        return parseNpy(bytes, tensor, why);
                      });
}

namespace {
/// The bytes of a .npy file (version 1.0) before an array's data.
std::string npyHeader(ElementType type, const std::vector<int64_t> &shape) {
  const char *descr = type == ElementType::F32   ? "<f4"
                      : type == ElementType::F64 ? "<f8"
                      : type == ElementType::I32 ? "<i4"
                                                 : "<i8";
  std::ostringstream dict;
  dict << "{'descr': '" << descr << "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < shape.size(); ++i)
    dict << (i ? ", " : "") << shape[i];
  if (shape.size() == 1)
    dict << ",";
  dict << "), }";
  std::string header = dict.str();
  // Pad so that the data starts on a 64-byte boundary.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  return out + header;
}
} // namespace

bool sezmrt::writeNpy(const std::string &path, ElementType type,
                      const std::vector<int64_t> &shape, const void *data,
                      std::string &error) {
  size_t bytes = static_cast<size_t>(elementCount(shape)) * elementSize(type);
  std::string header = npyHeader(type, shape);
  std::ofstream file(path, std::ios::binary);
  if (!file || !file.write(header.data(), header.size()) ||
      !file.write(static_cast<const char *>(data),
                  static_cast<std::streamsize>(bytes)) ||
      !file.flush()) {
    error = path + ": cannot write file";
    return false;
  }
  return true;
}

bool sezmrt::writeNpy(const std::string &path, const HostTensor &tensor,
                      std::string &error) {
  return writeNpy(path, tensor.type, tensor.shape, tensor.bytes.data(), error);
}
