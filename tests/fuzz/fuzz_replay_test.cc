// Replays the committed fuzz corpus and every input a fuzzer run found to
// crash (tests/fuzz/regressions) through the fuzzed operation, in every build.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "engine_test_util.h"
#include "fuzz_body.h"

namespace {

std::vector<std::filesystem::path> inputs(const char* dir) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().filename() != "README.md") out.push_back(e.path());
  }
  return out;
}

std::vector<char> read_bytes(const std::filesystem::path& f) {
  std::ifstream in(f, std::ios::binary);
  return std::vector<char>((std::istreambuf_iterator<char>(in)), {});
}

void replay(const std::vector<char>& bytes) {
  ordo::fuzz::open_check_and_scan(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

// The seed corpus and every input a fuzzer run once found to crash.
TEST(FuzzReplayTest, CorpusAndFoundCrashesOpenWithoutCrashing) {
  auto files = inputs(ORDO_FUZZ_DIR "/corpus");
  EXPECT_GE(files.size(), 4u);
  for (const auto& f : inputs(ORDO_FUZZ_DIR "/regressions")) files.push_back(f);
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    replay(read_bytes(f));
  }
}

// A short seeded mutation run in every build: bytes flipped anywhere in each
// corpus file (metas included), then the whole fuzzed operation. A crash, a
// hang or (under ASan) a memory error fails the test; the seed reproduces it.
TEST(FuzzReplayTest, MutatedCorpusOpensWithoutCrashing) {
  uint64_t seed = ordo::testing::test_seed(11);
  std::mt19937_64 rng(seed);
  for (const auto& f : inputs(ORDO_FUZZ_DIR "/corpus")) {
    const std::vector<char> original = read_bytes(f);
    ASSERT_FALSE(original.empty()) << f;
    for (int round = 0; round < 150; ++round) {
      std::vector<char> bytes = original;
      size_t flips = 1 + rng() % 16;
      for (size_t i = 0; i < flips; ++i)
        bytes[rng() % bytes.size()] ^= static_cast<char>(1 + rng() % 255);
      SCOPED_TRACE(f.string() + ", round " + std::to_string(round));
      replay(bytes);
    }
  }
}

}  // namespace
