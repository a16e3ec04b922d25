// Replays the wire fuzzers' committed corpora (tests/fuzz/corpus-protocol,
// corpus-snapshot) and the inputs a fuzzer run found to crash
// (regressions-protocol, regressions-snapshot) through the fuzzed parsers,
// then a short seeded mutation run of each, in every build.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "wire_fuzz_body.h"

namespace {

using Parser = std::function<void(const uint8_t*, size_t)>;

std::vector<std::filesystem::path> inputs(const std::string& dir) {
  std::vector<std::filesystem::path> out;
  if (!std::filesystem::is_directory(dir)) return out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().filename() != "README.md") out.push_back(e.path());
  }
  return out;
}

std::vector<char> read_bytes(const std::filesystem::path& f) {
  std::ifstream in(f, std::ios::binary);
  return std::vector<char>((std::istreambuf_iterator<char>(in)), {});
}

uint64_t test_seed(uint64_t fallback) {
  const char* env = std::getenv("ORDO_TEST_SEED");
  uint64_t seed = env ? std::strtoull(env, nullptr, 10) : fallback;
  std::printf("seed %llu (set ORDO_TEST_SEED to replay)\n", static_cast<unsigned long long>(seed));
  return seed;
}

// The corpus and regressions of `name`, then each corpus input mutated
// (bytes flipped, cut short, grown) `rounds` times.
void replay(const std::string& name, const Parser& parse, size_t min_corpus, int rounds) {
  const std::string root = ORDO_FUZZ_DIR;
  auto corpus = inputs(root + "/corpus-" + name);
  EXPECT_GE(corpus.size(), min_corpus);
  auto files = corpus;
  for (const auto& f : inputs(root + "/regressions-" + name)) files.push_back(f);
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    std::vector<char> bytes = read_bytes(f);
    parse(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::mt19937_64 rng(test_seed(13));
  for (const auto& f : corpus) {
    const std::vector<char> original = read_bytes(f);
    ASSERT_FALSE(original.empty()) << f;
    for (int round = 0; round < rounds; ++round) {
      std::vector<char> bytes = original;
      switch (rng() % 3) {
        case 0:
          // Byte 0 picks the parser: it stays.
          for (size_t i = 0, n = 1 + rng() % 4; i < n && bytes.size() > 1; ++i)
            bytes[1 + rng() % (bytes.size() - 1)] ^= static_cast<char>(1 + rng() % 255);
          break;
        case 1:
          bytes.resize(1 + rng() % bytes.size());
          break;
        default:
          for (size_t i = 0, n = 1 + rng() % 8; i < n; ++i)
            bytes.insert(bytes.begin() + static_cast<long>(1 + rng() % bytes.size()),
                         static_cast<char>(rng()));
          break;
      }
      SCOPED_TRACE(f.string() + ", round " + std::to_string(round));
      parse(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    }
  }
}

TEST(WireFuzzReplayTest, ClientProtocolCorpusAndMutations) {
  replay("protocol", &ordo::fuzz::decode_client_protocol, 10, 500);
}

TEST(WireFuzzReplayTest, SnapshotChannelCorpusAndMutations) {
  replay("snapshot", &ordo::fuzz::decode_snapshot_channel, 4, 500);
}

}  // namespace
