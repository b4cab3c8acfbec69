//===- Artifact.cpp - the versioned file sezm-compile writes --------------===//

#include "SeZM/Support/Artifact.h"

#include "SeZM/Support/Signature.h"

#include <array>
#include <cstring>
#include <vector>

using namespace sezmrt;

namespace {
constexpr size_t kMagicSize = sizeof(kArtifactMagic) - 1;

void appendInteger(std::string &out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

/// Reads little-endian integers from a byte string, refusing to read past
/// its end.
class Reader {
public:
  explicit Reader(const std::string &bytes) : bytes(bytes) {}
  size_t position() const { return at; }
  bool read(uint64_t &value, int width) {
    if (bytes.size() - at < static_cast<size_t>(width))
      return false;
    value = 0;
    for (int i = 0; i < width; ++i)
      value |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[at + i]))
               << (8 * i);
    at += width;
    return true;
  }
  bool read(std::string &text, size_t size) {
    if (bytes.size() - at < size)
      return false;
    text = bytes.substr(at, size);
    at += size;
    return true;
  }

private:
  const std::string &bytes;
  size_t at = 0;
};

/// The CRC-32 table of the reflected polynomial 0xEDB88320.
std::array<uint32_t, 256> makeCrcTable() {
  std::array<uint32_t, 256> table;
  for (uint32_t n = 0; n < 256; ++n) {
    uint32_t c = n;
    for (int k = 0; k < 8; ++k)
      c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[n] = c;
  }
  return table;
}

bool printableName(const std::string &name) {
  for (char c : name)
    if (c < 0x21 || c > 0x7e)
      return false;
  return true;
}
} // namespace

bool sezmrt::looksLikeArtifact(const std::string &bytes) {
  return bytes.compare(0, kMagicSize, kArtifactMagic) == 0;
}

uint32_t sezmrt::crc32(const std::string &bytes) {
  static const std::array<uint32_t, 256> table = makeCrcTable();
  uint32_t c = 0xFFFFFFFFu;
  for (char byte : bytes)
    c = table[(c ^ static_cast<unsigned char>(byte)) & 0xff] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

std::string sezmrt::writeArtifact(const Artifact &artifact) {
  size_t tableSize = kMagicSize + 8;
  for (const auto &section : artifact.sections)
    tableSize += 4 + section.first.size() + 20;
  std::string out(kArtifactMagic, kMagicSize);
  appendInteger(out, kArtifactVersion, 4);
  appendInteger(out, artifact.sections.size(), 4);
  uint64_t offset = tableSize;
  for (const auto &[name, contents] : artifact.sections) {
    appendInteger(out, name.size(), 4);
    out += name;
    appendInteger(out, offset, 8);
    appendInteger(out, contents.size(), 8);
    appendInteger(out, crc32(contents), 4);
    offset += contents.size();
  }
  for (const auto &section : artifact.sections)
    out += section.second;
  return out;
}

bool sezmrt::parseArtifact(const std::string &bytes, Artifact &artifact,
                           std::string &error) {
  artifact.sections.clear();
  auto fail = [&](size_t at, const std::string &why) {
    error = "byte " + std::to_string(at) + ": " + why;
    return false;
  };
  if (!looksLikeArtifact(bytes))
    return fail(0, "not a sezm artifact (it does not begin with \"SEZMART\")");
  Reader reader(bytes);
  std::string magic;
  reader.read(magic, kMagicSize);
  uint64_t version, count;
  if (!reader.read(version, 4) || !reader.read(count, 4))
    return fail(reader.position(), "truncated header");
  if (version != kArtifactVersion)
    return fail(kMagicSize,
                "artifact format version " + std::to_string(version) +
                    ", but this runtime reads version " +
                    std::to_string(kArtifactVersion) +
                    " (recompile the model with this sezm-compile)");
  if (count > kMaxSections)
    return fail(kMagicSize + 4, std::to_string(count) +
                                    " sections, more than the " +
                                    std::to_string(kMaxSections) + " allowed");
  for (uint64_t i = 0; i < count; ++i) {
    size_t entry = reader.position();
    uint64_t nameSize, offset, size, checksum;
    std::string name;
    if (!reader.read(nameSize, 4))
      return fail(entry, "truncated section table");
    if (nameSize == 0 || nameSize > kMaxSectionName)
      return fail(entry, "section " + std::to_string(i) + " has a name of " +
                             std::to_string(nameSize) + " bytes (1 to " +
                             std::to_string(kMaxSectionName) + " allowed)");
    if (!reader.read(name, nameSize) || !reader.read(offset, 8) ||
        !reader.read(size, 8) || !reader.read(checksum, 4))
      return fail(entry, "truncated section table");
    if (!printableName(name))
      return fail(entry, "section " + std::to_string(i) +
                             " has a name that is not printable ASCII");
    if (offset > bytes.size() || size > bytes.size() - offset)
      return fail(entry,
                  "section '" + name + "' spans bytes " +
                      std::to_string(offset) + " to " + std::to_string(offset) +
                      " + " + std::to_string(size) + ", past the end of the " +
                      std::to_string(bytes.size()) + "-byte file (truncated?)");
    std::string contents = bytes.substr(offset, size);
    if (uint32_t actual = crc32(contents); actual != checksum)
      return fail(offset, "section '" + name +
                              "' is corrupt: its bytes do not match the "
                              "checksum sezm-compile wrote (the file was "
                              "changed or damaged after it was written)");
    if (!artifact.sections.emplace(name, std::move(contents)).second)
      return fail(entry, "section '" + name + "' appears twice");
  }
  if (!artifact.sections.count(kManifestSection))
    return fail(reader.position(), "no 'manifest' section");
  if (!artifact.sections.count(kHostSection) &&
      !artifact.sections.count(kCpuSection))
    return fail(reader.position(),
                "no code: neither a 'host.so' (GPU) nor a 'cpu.so' section");
  for (const char *code : {kHostSection, kCpuSection}) {
    auto section = artifact.sections.find(code);
    if (section != artifact.sections.end() &&
        section->second.compare(0, 4,
                                "\x7f"
                                "ELF") != 0)
      return fail(0, std::string("the '") + code +
                         "' section is not an ELF shared library");
  }
  std::vector<EntrySignature> entries;
  std::string manifestError =
      parseManifest(artifact.sections[kManifestSection], entries);
  if (!manifestError.empty())
    return fail(0, "the manifest: " + manifestError);
  return true;
}
