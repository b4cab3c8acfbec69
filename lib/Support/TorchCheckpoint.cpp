//===- TorchCheckpoint.cpp - PyTorch checkpoints without PyTorch ----------===//

#include "SeZM/Support/TorchCheckpoint.h"

#include "SeZM/Support/Artifact.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <unordered_map>

using namespace sezmrt;

namespace {
uint64_t readLe(const std::string &bytes, size_t at, int width) {
  uint64_t value = 0;
  for (int i = 0; i < width; ++i)
    value |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[at + i]))
             << (8 * i);
  return value;
}

//===----------------------------------------------------------------------===//
// The zip container
//===----------------------------------------------------------------------===//

struct ZipEntry {
  std::string name;
  size_t offset, size;
};

/// The entries of a zip archive that stores them uncompressed, each checked
/// against its CRC-32.
bool readZip(const std::string &bytes, std::vector<ZipEntry> &entries,
             std::string &error) {
  auto fail = [&](size_t at, const std::string &why) {
    error = "byte " + std::to_string(at) + ": " + why;
    return false;
  };
  constexpr size_t kEndSize = 22;
  if (bytes.size() < kEndSize)
    return fail(0, "too short for a zip archive (truncated?)");
  // The end-of-directory record, behind at most a 64 KiB comment.
  size_t end = std::string::npos;
  size_t lowest =
      bytes.size() > kEndSize + 65535 ? bytes.size() - kEndSize - 65535 : 0;
  for (size_t at = bytes.size() - kEndSize + 1; at-- > lowest;)
    if (readLe(bytes, at, 4) == 0x06054b50) {
      end = at;
      break;
    }
  if (end == std::string::npos)
    return fail(bytes.size(), "no zip end-of-directory record (truncated, or "
                              "not a zip archive)");
  uint64_t count = readLe(bytes, end + 10, 2);
  uint64_t directorySize = readLe(bytes, end + 12, 4);
  uint64_t directory = readLe(bytes, end + 16, 4);
  if (count == 0xffff || directorySize == 0xffffffff ||
      directory == 0xffffffff) {
    // ZIP64: a locator just before the record points to the real one.
    if (end < 20 || readLe(bytes, end - 20, 4) != 0x07064b50)
      return fail(end, "a ZIP64 archive without its locator");
    uint64_t record = readLe(bytes, end - 12, 8);
    if (record > bytes.size() || bytes.size() - record < 56 ||
        readLe(bytes, record, 4) != 0x06064b50)
      return fail(end - 12, "the ZIP64 end-of-directory record lies outside "
                            "the file");
    count = readLe(bytes, record + 32, 8);
    directorySize = readLe(bytes, record + 40, 8);
    directory = readLe(bytes, record + 48, 8);
  }
  if (directory > bytes.size() || directorySize > bytes.size() - directory)
    return fail(end, "the zip directory lies outside the file (truncated?)");
  if (count > directorySize / 46)
    return fail(end, "the zip directory claims " + std::to_string(count) +
                         " entries in " + std::to_string(directorySize) +
                         " bytes");
  size_t at = directory, limit = directory + directorySize;
  for (uint64_t i = 0; i < count; ++i) {
    if (limit - at < 46 || readLe(bytes, at, 4) != 0x02014b50)
      return fail(at,
                  "zip directory entry " + std::to_string(i) + " is damaged");
    uint64_t method = readLe(bytes, at + 10, 2);
    uint64_t crc = readLe(bytes, at + 16, 4);
    uint64_t stored = readLe(bytes, at + 20, 4);
    uint64_t size = readLe(bytes, at + 24, 4);
    uint64_t nameSize = readLe(bytes, at + 28, 2);
    uint64_t extraSize = readLe(bytes, at + 30, 2);
    uint64_t commentSize = readLe(bytes, at + 32, 2);
    uint64_t local = readLe(bytes, at + 42, 4);
    if (limit - at - 46 < nameSize + extraSize + commentSize)
      return fail(at, "zip directory entry " + std::to_string(i) +
                          " runs past the directory");
    std::string name = bytes.substr(at + 46, nameSize);
    // ZIP64 sizes and offset, in that order, for the fields that overflow.
    for (size_t extra = at + 46 + nameSize, extraEnd = extra + extraSize;
         extraEnd - extra >= 4;) {
      uint64_t id = readLe(bytes, extra, 2),
               length = readLe(bytes, extra + 2, 2);
      if (extraEnd - extra - 4 < length)
        break;
      if (id == 0x0001) {
        size_t field = extra + 4, fieldEnd = field + length;
        for (uint64_t *value : {&size, &stored, &local})
          if (*value == 0xffffffff && fieldEnd - field >= 8) {
            *value = readLe(bytes, field, 8);
            field += 8;
          }
      }
      extra += 4 + length;
    }
    if (method != 0)
      return fail(at, "zip entry '" + name + "' is compressed (method " +
                          std::to_string(method) +
                          "); torch.save stores its entries uncompressed");
    if (stored != size)
      return fail(at, "zip entry '" + name + "' has " + std::to_string(stored) +
                          " stored bytes for " + std::to_string(size));
    if (local > bytes.size() || bytes.size() - local < 30 ||
        readLe(bytes, local, 4) != 0x04034b50)
      return fail(at, "zip entry '" + name +
                          "' has no local header where the directory says");
    uint64_t data = local + 30 + readLe(bytes, local + 26, 2) +
                    readLe(bytes, local + 28, 2);
    if (data > bytes.size() || size > bytes.size() - data)
      return fail(local, "zip entry '" + name +
                             "' runs past the end of the file (truncated?)");
    if (crc32(bytes.substr(data, size)) != crc)
      return fail(data, "zip entry '" + name +
                            "' does not match its CRC-32 (the file is "
                            "damaged)");
    entries.push_back(
        {name, static_cast<size_t>(data), static_cast<size_t>(size)});
    at += 46 + nameSize + extraSize + commentSize;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// The pickle machine
//===----------------------------------------------------------------------===//

/// The globals a DeePMD-kit checkpoint's pickle refers to; REDUCE calls
/// the first three, the storage types name what a storage holds.
bool knownGlobal(const std::string &name) {
  static const char *const known[] = {"collections.OrderedDict",
                                      "torch._utils._rebuild_tensor_v2",
                                      "torch._utils._rebuild_parameter",
                                      "torch.FloatStorage",
                                      "torch.DoubleStorage",
                                      "torch.LongStorage",
                                      "torch.IntStorage",
                                      "torch.BoolStorage",
                                      "torch.HalfStorage",
                                      "torch.BFloat16Storage",
                                      "torch.ByteStorage",
                                      "torch.CharStorage",
                                      "torch.ShortStorage"};
  for (const char *candidate : known)
    if (name == candidate)
      return true;
  return false;
}

class Unpickler {
public:
  Unpickler(const std::string &bytes, size_t begin, size_t size,
            TorchCheckpoint &out)
      : bytes(bytes), at(begin), end(begin + size), begin(begin), out(out) {}

  bool run(std::string &error);

private:
  PyObject *make(PyObject::Kind kind) {
    out.objects.push_back(std::make_unique<PyObject>());
    out.objects.back()->kind = kind;
    return out.objects.back().get();
  }
  bool need(size_t count) { return end - at >= count; }
  bool fail(const std::string &why) {
    failure = "pickle byte " + std::to_string(opcodeAt - begin) + ": " + why;
    return false;
  }
  bool pop(PyObject *&value) {
    if (stack.size() <= floor())
      return fail("the pickle pops an empty stack");
    value = stack.back();
    stack.pop_back();
    return true;
  }
  size_t floor() const { return marks.empty() ? 0 : marks.back(); }
  /// The objects above the last mark, which is removed.
  bool popMark(std::vector<PyObject *> &items) {
    if (marks.empty())
      return fail("the pickle has no mark to pop to");
    items.assign(stack.begin() + marks.back(), stack.end());
    stack.resize(marks.back());
    marks.pop_back();
    return true;
  }
  bool integerOf(const PyObject *value, int64_t &result, const char *what) {
    if (!value || value->kind != PyObject::Kind::Int)
      return fail(std::string(what) + " is not an integer");
    result = value->integer;
    return true;
  }
  bool call(const PyObject *callable, const PyObject *args, PyObject *&result);
  bool step(unsigned char opcode);

  const std::string &bytes;
  size_t at, end, begin, opcodeAt = 0;
  TorchCheckpoint &out;
  std::vector<PyObject *> stack;
  std::vector<size_t> marks;
  std::unordered_map<uint64_t, PyObject *> memo;
  std::string failure;
  bool stopped = false;
};

bool Unpickler::call(const PyObject *callable, const PyObject *args,
                     PyObject *&result) {
  if (callable->kind != PyObject::Kind::Global)
    return fail("the pickle calls " + callable->describe());
  if (!args || args->kind != PyObject::Kind::Tuple)
    return fail("the pickle calls " + callable->text + " without a tuple");
  const std::vector<const PyObject *> &a = args->items;
  if (callable->text == "collections.OrderedDict") {
    if (!a.empty())
      return fail("OrderedDict is called with arguments");
    result = make(PyObject::Kind::Dict);
    return true;
  }
  if (callable->text == "torch._utils._rebuild_parameter") {
    if (a.empty() || a[0]->kind != PyObject::Kind::Tensor)
      return fail("_rebuild_parameter is called without a tensor");
    result = const_cast<PyObject *>(a[0]);
    return true;
  }
  if (callable->text == "torch._utils._rebuild_tensor_v2") {
    // (storage, storage_offset, size, stride, requires_grad, hooks[, meta])
    if (a.size() < 4 || a[0]->kind != PyObject::Kind::Storage ||
        a[2]->kind != PyObject::Kind::Tuple ||
        a[3]->kind != PyObject::Kind::Tuple ||
        a[2]->items.size() != a[3]->items.size())
      return fail("_rebuild_tensor_v2 is called with arguments that are not "
                  "(storage, offset, size, stride, ...)");
    PyObject *tensor = make(PyObject::Kind::Tensor);
    tensor->storage = a[0];
    tensor->storageType = a[0]->storageType;
    if (!integerOf(a[1], tensor->storageOffset, "the storage offset"))
      return false;
    for (size_t k = 0; k < a[2]->items.size(); ++k) {
      int64_t extent, stride;
      if (!integerOf(a[2]->items[k], extent, "a tensor extent") ||
          !integerOf(a[3]->items[k], stride, "a tensor stride"))
        return false;
      if (extent < 0 || stride < 0 || tensor->storageOffset < 0)
        return fail("a tensor has a negative extent, stride or offset");
      tensor->shape.push_back(extent);
      tensor->stride.push_back(stride);
    }
    result = tensor;
    return true;
  }
  return fail("the pickle calls " + callable->text +
              ", which a checkpoint does not");
}

bool Unpickler::step(unsigned char opcode) {
  using Kind = PyObject::Kind;
  auto readInt = [&](int width, uint64_t &value) {
    if (!need(width))
      return fail("the pickle ends inside an opcode (truncated?)");
    value = readLe(bytes, at, width);
    at += width;
    return true;
  };
  auto readText = [&](uint64_t size, std::string &text) {
    if (!need(size))
      return fail("a string of " + std::to_string(size) +
                  " bytes runs past the pickle's end");
    text = bytes.substr(at, size);
    at += size;
    return true;
  };
  auto readLine = [&](std::string &text) {
    size_t newline = bytes.find('\n', at);
    if (newline == std::string::npos || newline >= end)
      return fail("a GLOBAL opcode runs past the pickle's end");
    text = bytes.substr(at, newline - at);
    at = newline + 1;
    return true;
  };
  auto push = [&](PyObject *value) {
    stack.push_back(value);
    return true;
  };
  auto pushInt = [&](int64_t value) {
    PyObject *object = make(Kind::Int);
    object->integer = value;
    return push(object);
  };
  auto pushText = [&](Kind kind, std::string text) {
    PyObject *object = make(kind);
    object->text = std::move(text);
    return push(object);
  };
  auto global = [&](const std::string &module, const std::string &name) {
    std::string full = module + "." + name;
    if (!knownGlobal(full))
      return fail("the pickle refers to the Python global '" + full +
                  "', which a DeePMD-kit checkpoint does not use (it is not "
                  "loaded)");
    return pushText(Kind::Global, full);
  };
  auto setItems = [&](PyObject *dict, const std::vector<PyObject *> &items) {
    if (dict->kind != Kind::Dict)
      return fail("the pickle sets items of " + dict->describe());
    if (items.size() % 2 != 0)
      return fail("the pickle sets a key without a value");
    for (size_t k = 0; k < items.size(); k += 2) {
      const PyObject *key = items[k];
      auto same = [&](const std::pair<const PyObject *, const PyObject *> &e) {
        return e.first->kind == key->kind && e.first->text == key->text &&
               e.first->integer == key->integer;
      };
      bool hashable = key->kind == Kind::String || key->kind == Kind::Int;
      auto it = hashable ? std::find_if(dict->entries.begin(),
                                        dict->entries.end(), same)
                         : dict->entries.end();
      if (it != dict->entries.end())
        it->second = items[k + 1];
      else
        dict->entries.emplace_back(key, items[k + 1]);
    }
    return true;
  };
  auto appendItems = [&](PyObject *list, const std::vector<PyObject *> &items) {
    if (list->kind != Kind::List)
      return fail("the pickle appends to " + list->describe());
    list->items.insert(list->items.end(), items.begin(), items.end());
    return true;
  };
  auto top = [&](PyObject *&value) {
    if (stack.size() <= floor())
      return fail("the pickle reads an empty stack");
    value = stack.back();
    return true;
  };
  uint64_t n = 0;
  std::string text;
  std::vector<PyObject *> items;
  PyObject *a = nullptr, *b = nullptr, *c = nullptr;
  switch (opcode) {
  case 0x80: // PROTO
    return readInt(1, n) && (n <= 5 || fail("pickle protocol " +
                                            std::to_string(n) + " is unknown"));
  case 0x95: // FRAME
    return readInt(8, n);
  case '.': // STOP
    stopped = true;
    return true;
  case '(': // MARK
    marks.push_back(stack.size());
    return true;
  case '0': // POP
    return pop(a);
  case '1': // POP_MARK
    return popMark(items);
  case '2': // DUP
    return top(a) && push(a);
  case 'N':
    return push(make(Kind::None));
  case 0x88: // NEWTRUE
  case 0x89: // NEWFALSE
    a = make(Kind::Bool);
    a->boolean = opcode == 0x88;
    return push(a);
  case 'J': // BININT
    return readInt(4, n) && pushInt(static_cast<int32_t>(n));
  case 'K': // BININT1
    return readInt(1, n) && pushInt(static_cast<int64_t>(n));
  case 'M': // BININT2
    return readInt(2, n) && pushInt(static_cast<int64_t>(n));
  case 0x8a: { // LONG1
    if (!readInt(1, n))
      return false;
    if (n > 8)
      return fail("an integer of " + std::to_string(n) +
                  " bytes is wider than 64 bits");
    uint64_t value;
    if (!readInt(static_cast<int>(n), value))
      return false;
    // Two's complement of n bytes.
    if (n > 0 && n < 8 && (value >> (8 * n - 1)) & 1)
      value |= ~uint64_t(0) << (8 * n);
    return pushInt(static_cast<int64_t>(value));
  }
  case 'G': { // BINFLOAT, big-endian
    if (!need(8))
      return fail("the pickle ends inside a float (truncated?)");
    uint64_t raw = 0;
    for (int i = 0; i < 8; ++i)
      raw = raw << 8 | static_cast<unsigned char>(bytes[at + i]);
    at += 8;
    a = make(Kind::Float);
    std::memcpy(&a->real, &raw, 8);
    return push(a);
  }
  case 'X': // BINUNICODE
    return readInt(4, n) && readText(n, text) &&
           pushText(Kind::String, std::move(text));
  case 0x8c: // SHORT_BINUNICODE
    return readInt(1, n) && readText(n, text) &&
           pushText(Kind::String, std::move(text));
  case 0x8d: // BINUNICODE8
    return readInt(8, n) && readText(n, text) &&
           pushText(Kind::String, std::move(text));
  case 'B': // BINBYTES
    return readInt(4, n) && readText(n, text) &&
           pushText(Kind::Bytes, std::move(text));
  case 'C': // SHORT_BINBYTES
    return readInt(1, n) && readText(n, text) &&
           pushText(Kind::Bytes, std::move(text));
  case '}': // EMPTY_DICT
    return push(make(Kind::Dict));
  case ']': // EMPTY_LIST
    return push(make(Kind::List));
  case ')': // EMPTY_TUPLE
    return push(make(Kind::Tuple));
  case 't': // TUPLE
    if (!popMark(items))
      return false;
    a = make(Kind::Tuple);
    a->items.assign(items.begin(), items.end());
    return push(a);
  case 0x85:   // TUPLE1
  case 0x86:   // TUPLE2
  case 0x87: { // TUPLE3
    size_t count = opcode - 0x84;
    if (stack.size() - floor() < count)
      return fail("a tuple takes more than the stack holds");
    a = make(Kind::Tuple);
    a->items.assign(stack.end() - count, stack.end());
    stack.resize(stack.size() - count);
    return push(a);
  }
  case 'q': // BINPUT
  case 'r': // LONG_BINPUT
    if (!readInt(opcode == 'q' ? 1 : 4, n) || !top(a))
      return false;
    memo[n] = a;
    return true;
  case 0x94: // MEMOIZE
    if (!top(a))
      return false;
    n = memo.size();
    memo[n] = a;
    return true;
  case 'h':   // BINGET
  case 'j': { // LONG_BINGET
    if (!readInt(opcode == 'h' ? 1 : 4, n))
      return false;
    auto it = memo.find(n);
    if (it == memo.end())
      return fail("the pickle reads memo " + std::to_string(n) +
                  ", which it never wrote");
    return push(it->second);
  }
  case 'c': { // GLOBAL
    std::string module, name;
    return readLine(module) && readLine(name) && global(module, name);
  }
  case 0x93: // STACK_GLOBAL
    if (!pop(b) || !pop(a))
      return false;
    if (a->kind != Kind::String || b->kind != Kind::String)
      return fail("STACK_GLOBAL takes two strings");
    return global(a->text, b->text);
  case 'R': // REDUCE
    if (!pop(b) || !pop(a) || !call(a, b, c))
      return false;
    return push(c);
  case 'b': // BUILD: a dict's or tensor's attributes (state_dict _metadata)
    if (!pop(b) || !top(a))
      return false;
    if (a->kind != Kind::Dict && a->kind != Kind::Tensor)
      return fail("the pickle sets the state of " + a->describe());
    return true;
  case 'Q': { // BINPERSID: ('storage', type, key, location, numel)
    if (!pop(a))
      return false;
    if (a->kind != Kind::Tuple || a->items.size() != 5 ||
        a->items[0]->kind != Kind::String || a->items[0]->text != "storage" ||
        a->items[1]->kind != Kind::Global ||
        a->items[2]->kind != Kind::String || a->items[4]->kind != Kind::Int)
      return fail("a persistent id that is not a torch storage");
    b = make(Kind::Storage);
    b->storageType = a->items[1]->text;
    b->text = a->items[2]->text;
    b->integer = a->items[4]->integer;
    return push(b);
  }
  case 's': // SETITEM
    if (!pop(c) || !pop(b) || !top(a))
      return false;
    return setItems(a, {b, c});
  case 'u': // SETITEMS
    return popMark(items) && top(a) && setItems(a, items);
  case 'a': // APPEND
    return pop(b) && top(a) && appendItems(a, {b});
  case 'e': // APPENDS
    return popMark(items) && top(a) && appendItems(a, items);
  default: {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", opcode);
    return fail(std::string("pickle opcode ") + hex +
                " is not one torch.save writes");
  }
  }
}

bool Unpickler::run(std::string &error) {
  while (!stopped) {
    if (at >= end) {
      error = "pickle byte " + std::to_string(at - begin) +
              ": the pickle ends before its STOP (truncated?)";
      return false;
    }
    opcodeAt = at;
    if (!step(static_cast<unsigned char>(bytes[at++]))) {
      error = failure;
      return false;
    }
  }
  if (stack.size() != 1 || !marks.empty()) {
    error = "the pickle stops with " + std::to_string(stack.size()) +
            " values on its stack, not one";
    return false;
  }
  out.root = stack.back();
  return true;
}
} // namespace

//===----------------------------------------------------------------------===//
// PyObject
//===----------------------------------------------------------------------===//

const PyObject *PyObject::get(const std::string &key) const {
  if (kind != Kind::Dict)
    return nullptr;
  for (const auto &[k, v] : entries)
    if (k->kind == Kind::String && k->text == key)
      return v;
  return nullptr;
}

std::string PyObject::describe() const {
  switch (kind) {
  case Kind::None:
    return "None";
  case Kind::Bool:
    return boolean ? "True" : "False";
  case Kind::Int:
    return "the integer " + std::to_string(integer);
  case Kind::Float: {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", real);
    return std::string("the number ") + text;
  }
  case Kind::String:
    return "the string '" + text + "'";
  case Kind::Bytes:
    return "bytes";
  case Kind::Tuple:
    return "a tuple of " + std::to_string(items.size());
  case Kind::List:
    return "a list of " + std::to_string(items.size());
  case Kind::Dict:
    return "a dict of " + std::to_string(entries.size()) + " entries";
  case Kind::Global:
    return "the Python global " + text;
  case Kind::Storage:
    return "a " + storageType + " of " + std::to_string(integer);
  case Kind::Tensor: {
    ElementType type;
    if (storageElementType(storageType, type))
      return "a tensor " + describeArray(type, shape);
    std::string text = "a tensor of " + storageType + " (";
    for (size_t k = 0; k < shape.size(); ++k)
      text += (k ? ", " : "") + std::to_string(shape[k]);
    return text + (shape.size() == 1 ? ",)" : ")");
  }
  }
  return "an object";
}

//===----------------------------------------------------------------------===//
// The checkpoint
//===----------------------------------------------------------------------===//

bool sezmrt::looksLikeZip(const std::string &bytes) {
  return bytes.size() >= 4 && readLe(bytes, 0, 4) == 0x04034b50;
}

bool sezmrt::storageElementType(const std::string &storageType,
                                ElementType &type) {
  if (storageType == "torch.FloatStorage")
    type = ElementType::F32;
  else if (storageType == "torch.DoubleStorage")
    type = ElementType::F64;
  else if (storageType == "torch.IntStorage")
    type = ElementType::I32;
  else if (storageType == "torch.LongStorage")
    type = ElementType::I64;
  else
    return false;
  return true;
}

bool sezmrt::parseTorchCheckpoint(std::string bytes, TorchCheckpoint &out,
                                  std::string &error) {
  out = TorchCheckpoint();
  out.bytes = std::move(bytes);
  auto fail = [&](const std::string &why) {
    error = why;
    return false;
  };
  if (!looksLikeZip(out.bytes))
    return fail("not a PyTorch checkpoint (torch.save writes a zip archive, "
                "which begins with \"PK\")");
  std::vector<ZipEntry> entries;
  std::string zipError;
  if (!readZip(out.bytes, entries, zipError))
    return fail(zipError);
  // Every entry lies in one folder, the archive's name.
  const ZipEntry *pickle = nullptr;
  std::string folder;
  for (const ZipEntry &entry : entries) {
    size_t slash = entry.name.find('/');
    if (slash == std::string::npos)
      return fail("zip entry '" + entry.name +
                  "' is outside the archive's folder; torch.save writes "
                  "<name>/data.pkl and <name>/data/<key>");
    std::string top = entry.name.substr(0, slash);
    if (folder.empty())
      folder = top;
    else if (top != folder)
      return fail("zip entries lie in two folders, '" + folder + "' and '" +
                  top + "'");
    std::string rest = entry.name.substr(slash + 1);
    if (rest == "data.pkl")
      pickle = &entry;
    else if (rest == "byteorder" &&
             out.bytes.compare(entry.offset, entry.size, "little") != 0)
      return fail(
          "the storages are " +
          out.bytes.substr(entry.offset, std::min<size_t>(entry.size, 16)) +
          "-endian; sezm reads little-endian checkpoints");
    else if (rest.rfind("data/", 0) == 0)
      out.storages[rest.substr(5)] = {entry.offset, entry.size};
  }
  if (!pickle)
    return fail("no data.pkl in the archive: not a torch.save checkpoint");
  Unpickler unpickler(out.bytes, pickle->offset, pickle->size, out);
  std::string pickleError;
  if (!unpickler.run(pickleError))
    return fail(folder + "/data.pkl: " + pickleError);
  // Every storage the pickle names is in the archive, large enough.
  for (const std::unique_ptr<PyObject> &object : out.objects) {
    if (object->kind != PyObject::Kind::Storage)
      continue;
    auto it = out.storages.find(object->text);
    if (it == out.storages.end())
      return fail("the pickle names storage '" + object->text +
                  "', which the archive lacks (" + folder + "/data/" +
                  object->text + ")");
    ElementType type;
    if (storageElementType(object->storageType, type) &&
        (object->integer < 0 ||
         static_cast<uint64_t>(object->integer) * elementSize(type) !=
             it->second.second))
      return fail("storage '" + object->text + "' is " +
                  std::to_string(it->second.second) +
                  " bytes, but the pickle "
                  "says " +
                  std::to_string(object->integer) + " elements of " +
                  object->storageType);
  }
  return true;
}

bool sezmrt::readTorchCheckpoint(const std::string &path, TorchCheckpoint &out,
                                 std::string &error) {
  return readAndParse(path, error, [&](std::string &bytes, std::string &why) {
    return parseTorchCheckpoint(std::move(bytes), out, why);
  });
}

bool sezmrt::loadTensor(const TorchCheckpoint &checkpoint,
                        const PyObject &tensor, HostTensor &out,
                        std::string &error) {
  if (tensor.kind != PyObject::Kind::Tensor || !tensor.storage) {
    error = "expected a tensor, found " + tensor.describe();
    return false;
  }
  ElementType type;
  if (!storageElementType(tensor.storageType, type)) {
    error = "a tensor of " + tensor.storageType +
            ", an element type sezm does not read";
    return false;
  }
  auto range = checkpoint.storages.find(tensor.storage->text);
  if (range == checkpoint.storages.end()) {
    error = "the tensor's storage is missing";
    return false;
  }
  // The furthest element the view reaches must lie in the storage.
  int64_t elements = tensor.storage->integer;
  int64_t last = tensor.storageOffset;
  bool empty = false;
  for (size_t k = 0; k < tensor.shape.size(); ++k) {
    if (tensor.shape[k] == 0)
      empty = true;
    else if (tensor.stride[k] > 0 &&
             tensor.shape[k] - 1 > (INT64_MAX - last) / tensor.stride[k]) {
      error = "a tensor view overflows";
      return false;
    } else {
      last += (tensor.shape[k] - 1) * tensor.stride[k];
    }
  }
  // A saved view has no more elements than its storage (no stride-0
  // broadcasts), which also bounds what is allocated.
  int64_t count = 1;
  for (int64_t extent : tensor.shape)
    if (!empty && count > elements / std::max<int64_t>(extent, 1))
      count = elements + 1;
    else if (!empty)
      count *= extent;
  if (!empty && count > elements) {
    error = "a tensor " + describeArray(type, tensor.shape) +
            " of more than "
            "the " +
            std::to_string(elements) + " elements of its storage";
    return false;
  }
  if (!empty && last >= elements) {
    error = "a tensor " + describeArray(type, tensor.shape) +
            " reaches element " + std::to_string(last) + " of a storage of " +
            std::to_string(elements);
    return false;
  }
  out = HostTensor(type, tensor.shape);
  if (empty)
    return true;
  size_t width = elementSize(type);
  const char *storage = checkpoint.bytes.data() + range->second.first;
  std::vector<int64_t> index(tensor.shape.size(), 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t source = tensor.storageOffset;
    for (size_t k = 0; k < index.size(); ++k)
      source += index[k] * tensor.stride[k];
    std::memcpy(out.bytes.data() + i * width, storage + source * width, width);
    for (size_t k = index.size(); k-- > 0;) {
      if (++index[k] < tensor.shape[k])
        break;
      index[k] = 0;
    }
  }
  return true;
}
