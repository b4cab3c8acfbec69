//===- Safetensors.cpp - weights in the safetensors format ----------------===//

#include "SeZM/Support/Safetensors.h"

#include <cstring>
#include <limits>
#include <vector>

using namespace sezmrt;

namespace {
/// The subset of JSON a safetensors header uses: objects, arrays, strings
/// and non-negative integers. Fails with the byte offset of the problem.
class HeaderParser {
public:
  explicit HeaderParser(const std::string &text) : text(text) {}

  struct Value {
    enum class Kind { Object, Array, String, Integer } kind;
    std::string string;
    uint64_t integer = 0;
    std::vector<std::pair<std::string, Value>> members; // objects
    std::vector<Value> elements;                        // arrays
  };

  bool parseDocument(Value &value) {
    if (!parseValue(value, 0))
      return false;
    skipSpace();
    if (position != text.size())
      return fail("unexpected text after the header's JSON object");
    return true;
  }

  const std::string &error() const { return message; }

private:
  bool fail(const std::string &what) {
    message = "header byte " + std::to_string(position) + ": " + what;
    return false;
  }
  void skipSpace() {
    while (position < text.size() &&
           (text[position] == ' ' || text[position] == '\n' ||
            text[position] == '\r' || text[position] == '\t'))
      ++position;
  }
  bool parseValue(Value &value, int depth) {
    if (depth > 8)
      return fail("the JSON nests deeper than a safetensors header does");
    skipSpace();
    if (position >= text.size())
      return fail("the JSON ends early");
    char c = text[position];
    if (c == '{')
      return parseObject(value, depth);
    if (c == '[')
      return parseArray(value, depth);
    if (c == '"') {
      value.kind = Value::Kind::String;
      return parseString(value.string);
    }
    if (c >= '0' && c <= '9') {
      value.kind = Value::Kind::Integer;
      uint64_t n = 0;
      while (position < text.size() && text[position] >= '0' &&
             text[position] <= '9') {
        uint64_t digit = text[position] - '0';
        if (n > (std::numeric_limits<uint64_t>::max() - digit) / 10)
          return fail("an integer too large");
        n = n * 10 + digit;
        ++position;
      }
      value.integer = n;
      return true;
    }
    return fail(std::string("unexpected '") + c +
                "' (expected an object, array, string or integer)");
  }
  bool parseString(std::string &out) {
    ++position; // the opening quote
    out.clear();
    while (position < text.size() && text[position] != '"') {
      char c = text[position++];
      if (c == '\\') {
        if (position >= text.size())
          return fail("the JSON ends inside a string");
        char escaped = text[position++];
        switch (escaped) {
        case '"':
        case '\\':
        case '/':
          out += escaped;
          break;
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        default:
          return fail(std::string("unsupported escape \\") + escaped +
                      " in a string");
        }
      } else {
        out += c;
      }
    }
    if (position >= text.size())
      return fail("the JSON ends inside a string");
    ++position; // the closing quote
    return true;
  }
  /// Consumes `c` (after spaces) if it is next.
  bool accept(char c) {
    skipSpace();
    if (position >= text.size() || text[position] != c)
      return false;
    ++position;
    return true;
  }
  /// Items separated by ',' up to `close`, the opening bracket consumed.
  template <typename Item>
  bool parseItems(char close, const char *what, Item item) {
    ++position;
    if (accept(close))
      return true;
    do {
      if (!item())
        return false;
    } while (accept(','));
    if (accept(close))
      return true;
    return fail(std::string("expected ',' or '") + close + "' in " + what);
  }
  bool parseObject(Value &value, int depth) {
    value.kind = Value::Kind::Object;
    return parseItems('}', "an object", [&] {
      skipSpace();
      if (position >= text.size() || text[position] != '"')
        return fail("expected a quoted name in an object");
      std::string key;
      if (!parseString(key))
        return false;
      if (!accept(':'))
        return fail("expected ':' after \"" + key + "\"");
      Value member;
      if (!parseValue(member, depth + 1))
        return false;
      value.members.emplace_back(key, std::move(member));
      return true;
    });
  }
  bool parseArray(Value &value, int depth) {
    value.kind = Value::Kind::Array;
    return parseItems(']', "an array", [&] {
      Value element;
      if (!parseValue(element, depth + 1))
        return false;
      value.elements.push_back(std::move(element));
      return true;
    });
  }

  const std::string &text;
  size_t position = 0;
  std::string message;
};

using Value = HeaderParser::Value;

const Value *member(const Value &object, const std::string &name) {
  for (const auto &[key, value] : object.members)
    if (key == name)
      return &value;
  return nullptr;
}

/// The header's dtype of each element type sezm reads and writes.
constexpr std::pair<ElementType, const char *> kDtypes[] = {
    {ElementType::F32, "F32"},
    {ElementType::F64, "F64"},
    {ElementType::I32, "I32"},
    {ElementType::I64, "I64"}};

bool elementTypeOf(const std::string &dtype, ElementType &type) {
  for (const auto &[known, name] : kDtypes)
    if (dtype == name) {
      type = known;
      return true;
    }
  return false;
}

const char *dtypeOf(ElementType type) {
  for (const auto &[known, name] : kDtypes)
    if (known == type)
      return name;
  return "F32";
}
} // namespace

bool sezmrt::parseSafetensors(const std::string &bytes,
                              std::map<std::string, HostTensor> &tensors,
                              std::string &error) {
  tensors.clear();
  if (bytes.size() < 8) {
    error = "the file is " + std::to_string(bytes.size()) +
            " bytes, shorter than the 8-byte header length";
    return false;
  }
  uint64_t headerLength = 0;
  for (int i = 7; i >= 0; --i)
    headerLength = headerLength << 8 | static_cast<unsigned char>(bytes[i]);
  if (headerLength > bytes.size() - 8) {
    error = "the header length " + std::to_string(headerLength) +
            " runs past the end of the file (" + std::to_string(bytes.size()) +
            " bytes): truncated, or not a safetensors file";
    return false;
  }
  std::string header = bytes.substr(8, headerLength);
  size_t dataStart = 8 + headerLength;
  uint64_t dataSize = bytes.size() - dataStart;
  HeaderParser parser(header);
  Value root;
  if (!parser.parseDocument(root)) {
    error = parser.error();
    return false;
  }
  if (root.kind != Value::Kind::Object) {
    error = "the header is not a JSON object";
    return false;
  }
  for (const auto &[name, entry] : root.members) {
    if (name == "__metadata__")
      continue;
    std::string where = "tensor '" + name + "': ";
    if (entry.kind != Value::Kind::Object) {
      error = where + "its header entry is not an object";
      return false;
    }
    const Value *dtype = member(entry, "dtype");
    const Value *shape = member(entry, "shape");
    const Value *offsets = member(entry, "data_offsets");
    if (!dtype || dtype->kind != Value::Kind::String || !shape ||
        shape->kind != Value::Kind::Array || !offsets ||
        offsets->kind != Value::Kind::Array || offsets->elements.size() != 2) {
      error = where + "needs \"dtype\" (a string), \"shape\" (an array) and "
                      "\"data_offsets\" ([begin, end])";
      return false;
    }
    HostTensor tensor;
    if (!elementTypeOf(dtype->string, tensor.type)) {
      error = where + "dtype " + dtype->string +
              " is not supported (F32, F64, I32 or I64)";
      return false;
    }
    uint64_t count = 1;
    for (const Value &extent : shape->elements) {
      if (extent.kind != Value::Kind::Integer) {
        error = where + "its shape holds something other than integers";
        return false;
      }
      if (extent.integer != 0 &&
          count > std::numeric_limits<int64_t>::max() / extent.integer) {
        error = where + "its shape has too many elements";
        return false;
      }
      count *= extent.integer;
      tensor.shape.push_back(static_cast<int64_t>(extent.integer));
    }
    const Value &begin = offsets->elements[0], &end = offsets->elements[1];
    if (begin.kind != Value::Kind::Integer ||
        end.kind != Value::Kind::Integer || begin.integer > end.integer ||
        end.integer > dataSize) {
      error = where +
              "data_offsets must be [begin, end] with begin <= end <= " +
              std::to_string(dataSize) +
              " (the data's size): truncated file, or a bad header";
      return false;
    }
    uint64_t expected = count * elementSize(tensor.type);
    if (end.integer - begin.integer != expected) {
      error = where + "holds " + std::to_string(end.integer - begin.integer) +
              " bytes, but " + dtype->string + " of its shape needs " +
              std::to_string(expected);
      return false;
    }
    const char *first = bytes.data() + dataStart + begin.integer;
    tensor.bytes.assign(first, first + expected);
    if (!tensors.emplace(name, std::move(tensor)).second) {
      error = where + "is named twice in the header";
      return false;
    }
  }
  return true;
}

bool sezmrt::readSafetensors(const std::string &path,
                             std::map<std::string, HostTensor> &tensors,
                             std::string &error) {
  return readAndParse(path, error,
                      [&](const std::string &bytes, std::string &why) {
                        return parseSafetensors(bytes, tensors, why);
                      });
}

std::string
sezmrt::writeSafetensors(const std::map<std::string, HostTensor> &tensors) {
  std::string header = "{", data;
  for (const auto &[name, tensor] : tensors) {
    if (header.size() > 1)
      header += ",";
    header += "\"" + name + "\":{\"dtype\":\"" + dtypeOf(tensor.type) +
              "\",\"shape\":[";
    for (size_t i = 0; i < tensor.shape.size(); ++i)
      header += (i ? "," : "") + std::to_string(tensor.shape[i]);
    header += "],\"data_offsets\":[" + std::to_string(data.size()) + "," +
              std::to_string(data.size() + tensor.bytes.size()) + "]}";
    data.append(tensor.bytes.begin(), tensor.bytes.end());
  }
  header += "}";
  // The data starts 8-byte aligned, as the format recommends.
  header.append((8 - header.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  uint64_t length = header.size();
  for (int i = 0; i < 8; ++i)
    out[i] = static_cast<char>((length >> (8 * i)) & 0xff);
  return out + header + data;
}
