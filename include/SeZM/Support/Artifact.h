//===- Artifact.h - the versioned file sezm-compile writes ------*- C++ -*-===//
//
// One file holds everything an MD engine needs to run a compiled model:
// named sections (the manifest of entries, the host shared library with its
// kernels' PTX, each kernel module's PTX for inspection, the memory plan and,
// optionally, the weights) behind a magic string and a format version.
// Plain C++, shared by sezm-compile (writing) and libsezm_runtime (reading);
// the reader checks every offset and size before it trusts them.
//
// Layout (little-endian):
//   "SEZMART\n"                      8-byte magic
//   u32 version                      kArtifactVersion
//   u32 section count                at most kMaxSections
//   per section: u32 name length, the name (1..kMaxSectionName printable
//                ASCII bytes), u64 offset, u64 size (from the file's start),
//                u32 CRC-32 of its bytes
//   the sections' bytes
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_SUPPORT_ARTIFACT_H
#define SEZM_SUPPORT_ARTIFACT_H

#include <cstdint>
#include <map>
#include <string>

namespace sezmrt {

constexpr char kArtifactMagic[] = "SEZMART\n";
constexpr uint32_t kArtifactVersion = 2;
constexpr uint32_t kMaxSections = 4096;
constexpr uint32_t kMaxSectionName = 256;

/// The manifest every artifact has, and the code for at least one device:
/// the GPU program's host library (its launch sequences, which load the
/// kernels' PTX) or the CPU program's library.
constexpr char kManifestSection[] = "manifest";
constexpr char kHostSection[] = "host.so";
constexpr char kCpuSection[] = "cpu.so";
/// The x86-64 level the CPU code needs ("x86-64" or "x86-64-v3").
constexpr char kCpuLevelSection[] = "cpu.level";

/// An artifact's sections by name.
struct Artifact {
  std::map<std::string, std::string> sections;
};

/// Whether `bytes` begin with the artifact magic (a file that is meant to be
/// an artifact, right or wrong).
bool looksLikeArtifact(const std::string &bytes);

/// Serializes the sections (in name order).
std::string writeArtifact(const Artifact &artifact);

/// The CRC-32 (IEEE 802.3, as zlib computes it) of `bytes`.
uint32_t crc32(const std::string &bytes);

/// Parses and checks an artifact: magic, version, the section table, every
/// section inside the file and equal to its checksum, unique names, a manifest
/// that parses and code for a device (each code section an ELF file). On
/// failure returns false and sets `error` to a plain-English reason that names
/// the byte offset.
bool parseArtifact(const std::string &bytes, Artifact &artifact,
                   std::string &error);

} // namespace sezmrt

#endif // SEZM_SUPPORT_ARTIFACT_H
