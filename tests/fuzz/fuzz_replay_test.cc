// Replays the committed fuzz corpus and every input a fuzzer run found to
// crash (tests/fuzz/regressions) through the fuzzed operation, in every build.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "fuzz_body.h"

namespace {

std::vector<std::filesystem::path> inputs(const char* dir) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().filename() != "README.md") out.push_back(e.path());
  }
  return out;
}

void replay(const char* dir, size_t at_least) {
  auto files = inputs(dir);
  EXPECT_GE(files.size(), at_least) << dir;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
    SCOPED_TRACE(f.string());
    ordo::fuzz::open_check_and_scan(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
}

TEST(FuzzReplayTest, SeedCorpusOpensWithoutCrashing) { replay(ORDO_FUZZ_DIR "/corpus", 4); }

TEST(FuzzReplayTest, EveryFoundCrashStaysFixed) { replay(ORDO_FUZZ_DIR "/regressions", 0); }

}  // namespace
