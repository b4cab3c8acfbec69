//===- ArtifactTest.cpp - the artifact container --------------------------===//
//
// A written artifact reads back section for section; a wrong, truncated or
// foreign file is refused with an error that says what is wrong and where
// (every prefix of a good file among them), before the runtime loads any of
// its code.
//
//===----------------------------------------------------------------------===//

#include "SeZM/Support/Artifact.h"
#include "SeZM/Support/Signature.h"

#include <gtest/gtest.h>

using namespace sezmrt;

namespace {

Artifact goodArtifact() {
  EntrySignature entry;
  entry.function = "energy";
  entry.arguments = {{"positions", ElementType::F32, {-1, 3}}};
  entry.results = {{"energy", ElementType::F32, {}}};
  Artifact artifact;
  artifact.sections[kManifestSection] = writeManifest({entry});
  artifact.sections[kHostSection] = std::string("\x7f"
                                                "ELF\x02\x01\x01",
                                                7) +
                                    std::string(9, '\0');
  artifact.sections["ptx/energy_kernel"] = ".version 8.0\n.target sm_90\n";
  artifact.sections["memory-plan"] = "";
  return artifact;
}

std::string parseError(const std::string &bytes) {
  Artifact artifact;
  std::string error;
  EXPECT_FALSE(parseArtifact(bytes, artifact, error));
  return error;
}

/// Overwrites the little-endian u32 at `offset`.
void putU32(std::string &bytes, size_t offset, uint32_t value) {
  for (int i = 0; i < 4; ++i)
    bytes[offset + i] = static_cast<char>(value >> (8 * i) & 0xff);
}

TEST(Artifact, RoundTripsEverySection) {
  Artifact written = goodArtifact();
  Artifact read;
  std::string error;
  ASSERT_TRUE(parseArtifact(writeArtifact(written), read, error)) << error;
  EXPECT_EQ(read.sections, written.sections);
}

TEST(Artifact, EveryPrefixIsRefused) {
  std::string bytes = writeArtifact(goodArtifact());
  for (size_t size = 0; size < bytes.size(); ++size) {
    Artifact artifact;
    std::string error;
    EXPECT_FALSE(parseArtifact(bytes.substr(0, size), artifact, error))
        << "a prefix of " << size << " bytes was accepted";
    EXPECT_FALSE(error.empty());
  }
}

TEST(Artifact, ForeignFilesAreNamedAsSuch) {
  EXPECT_EQ(parseError("\x7f"
                       "ELF\x02\x01\x01 a shared library"),
            "byte 0: not a sezm artifact (it does not begin with "
            "\"SEZMART\")");
  EXPECT_EQ(parseError(""), "byte 0: not a sezm artifact (it does not begin "
                            "with \"SEZMART\")");
}

TEST(Artifact, OtherVersionsAskForARecompile) {
  std::string bytes = writeArtifact(goodArtifact());
  putU32(bytes, 8, 3);
  EXPECT_EQ(parseError(bytes),
            "byte 8: artifact format version 3, but this runtime reads "
            "version 2 (recompile the model with this sezm-compile)");
}

TEST(Artifact, SectionTableIsChecked) {
  std::string bytes = writeArtifact(goodArtifact());
  std::string huge = bytes;
  putU32(huge, 12, 1u << 30);
  EXPECT_NE(parseError(huge).find("sections, more than the 4096 allowed"),
            std::string::npos);
  // The first section's name length (at byte 16) past the limit.
  std::string longName = bytes;
  putU32(longName, 16, 100000);
  EXPECT_NE(parseError(longName).find("has a name of 100000 bytes"),
            std::string::npos);
  // Its offset (after the 4-byte length and the 7-byte "host.so") past the
  // end.
  std::string farOffset = bytes;
  putU32(farOffset, 27, 0xfffffff0u);
  EXPECT_NE(parseError(farOffset).find("past the end of the"),
            std::string::npos);
}

TEST(Artifact, ContentsAreChecked) {
  Artifact noHost = goodArtifact();
  noHost.sections.erase(kHostSection);
  EXPECT_NE(parseError(writeArtifact(noHost)).find("no code: neither"),
            std::string::npos);
  // CPU code alone is an artifact too.
  Artifact cpuOnly = noHost;
  cpuOnly.sections[kCpuSection] = goodArtifact().sections[kHostSection];
  Artifact parsed;
  std::string error;
  EXPECT_TRUE(parseArtifact(writeArtifact(cpuOnly), parsed, error)) << error;
  Artifact notElf = goodArtifact();
  notElf.sections[kHostSection] = "#!/bin/sh\n";
  EXPECT_NE(parseError(writeArtifact(notElf)).find("not an ELF shared library"),
            std::string::npos);
  Artifact cpuNotElf = goodArtifact();
  cpuNotElf.sections[kCpuSection] = "#!/bin/sh\n";
  EXPECT_NE(parseError(writeArtifact(cpuNotElf))
                .find("'cpu.so' section is not an ELF"),
            std::string::npos);
  Artifact badManifest = goodArtifact();
  badManifest.sections[kManifestSection] = "entry";
  EXPECT_NE(parseError(writeArtifact(badManifest)).find("the manifest: "),
            std::string::npos);
  Artifact badName = goodArtifact();
  badName.sections["bad name"] = "";
  EXPECT_NE(parseError(writeArtifact(badName)).find("not printable ASCII"),
            std::string::npos);
}

TEST(Artifact, FlippedBytesAreCaughtByTheChecksums) {
  EXPECT_EQ(crc32("123456789"), 0xCBF43926u); // the standard check value
  std::string good = writeArtifact(goodArtifact());
  Artifact artifact;
  std::string error;
  ASSERT_TRUE(parseArtifact(good, artifact, error)) << error;
  // Every byte of every section, flipped one at a time, is refused, and the
  // error names the section.
  size_t sectionsStart = good.size();
  for (const auto &section : artifact.sections)
    sectionsStart -= section.second.size();
  for (size_t at = sectionsStart; at < good.size(); ++at) {
    std::string flipped = good;
    flipped[at] ^= 0x10;
    std::string why = parseError(flipped);
    EXPECT_NE(why.find("' is corrupt"), std::string::npos)
        << "byte " << at << ": " << why;
  }
}

TEST(Artifact, DuplicateSectionsAreRefused) {
  // writeArtifact cannot make two sections of one name (a map): the table
  // of two one-byte sections named "a" is written by hand.
  std::string bytes("SEZMART\n", 8);
  auto u32 = [&](uint32_t v) {
    for (int i = 0; i < 4; ++i)
      bytes.push_back(static_cast<char>(v >> (8 * i) & 0xff));
  };
  auto u64 = [&](uint64_t v) {
    for (int i = 0; i < 8; ++i)
      bytes.push_back(static_cast<char>(v >> (8 * i) & 0xff));
  };
  u32(kArtifactVersion);
  u32(2);
  for (int i = 0; i < 2; ++i) {
    u32(1);
    bytes += "a";
    u64(16 + 2 * 25);
    u64(1);
    u32(crc32("x"));
  }
  bytes += "x";
  EXPECT_NE(parseError(bytes).find("section 'a' appears twice"),
            std::string::npos);
}

} // namespace
