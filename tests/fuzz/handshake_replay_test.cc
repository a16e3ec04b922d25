// Replays the committed seeds of ordo-fuzz-handshake (tests/fuzz/handshake_corpus)
// and every input a fuzzer run found to crash (handshake_regressions), and
// runs a short seeded mutation of the seeds, in every build.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "engine_test_util.h"
#include "handshake_fuzz_body.h"

namespace {

std::vector<std::filesystem::path> inputs(const char* dir) {
  std::vector<std::filesystem::path> out;
  if (!std::filesystem::exists(dir)) return out;
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
  ordo::fuzz::parse_raft_handshake(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

TEST(HandshakeFuzzReplayTest, SeedsAndFoundCrashesParseWithoutCrashing) {
  auto files = inputs(ORDO_FUZZ_DIR "/handshake_corpus");
  EXPECT_GE(files.size(), 4u);
  for (const auto& f : inputs(ORDO_FUZZ_DIR "/handshake_regressions")) files.push_back(f);
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    replay(read_bytes(f));
  }
}

// Bytes flipped, inserted and cut in each seed, then the parser.
TEST(HandshakeFuzzReplayTest, MutatedSeedsParseWithoutCrashing) {
  uint64_t seed = ordo::testing::test_seed(17);
  std::mt19937_64 rng(seed);
  for (const auto& f : inputs(ORDO_FUZZ_DIR "/handshake_corpus")) {
    const std::vector<char> original = read_bytes(f);
    for (int round = 0; round < 2000; ++round) {
      std::vector<char> bytes = original;
      const size_t edits = 1 + rng() % 4;
      for (size_t i = 0; i < edits && !bytes.empty(); ++i) {
        const size_t at = rng() % bytes.size();
        switch (rng() % 3) {
          case 0:
            bytes[at] ^= static_cast<char>(1 + rng() % 255);
            break;
          case 1:
            bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(at), static_cast<char>(rng()));
            break;
          default:
            bytes.resize(at);
            break;
        }
      }
      SCOPED_TRACE(f.string() + ", round " + std::to_string(round));
      replay(bytes);
    }
  }
}

}  // namespace
