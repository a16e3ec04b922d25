// Replays a fuzzer's committed corpus and the inputs a fuzzer run found to
// crash through its parser, then a short seeded mutation run of the corpus,
// so that every build checks what the fuzzers check (the libFuzzer programs
// need the clang build).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "engine_test_util.h"

namespace ordo::fuzz {

using Parser = std::function<void(const uint8_t*, size_t)>;

// The input files of `dir` (its README.md left out); none when it is missing.
inline std::vector<std::filesystem::path> corpus_inputs(const std::string& dir) {
  std::vector<std::filesystem::path> out;
  if (!std::filesystem::is_directory(dir)) return out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().filename() != "README.md") out.push_back(e.path());
  }
  return out;
}

inline std::vector<char> read_input(const std::filesystem::path& f) {
  std::ifstream in(f, std::ios::binary);
  return std::vector<char>((std::istreambuf_iterator<char>(in)), {});
}

// Parses every input of `corpus_dir` (at least `min_corpus` of them) and of
// `regressions_dir`, then each corpus input mutated `rounds` times (bytes
// flipped, cut short, grown) with its first `fixed_prefix` bytes kept (a
// byte that picks the parser, say). Seeded: ORDO_TEST_SEED, else
// `seed_fallback`; the seed is printed.
inline void replay_corpus(const std::string& corpus_dir, const std::string& regressions_dir,
                          const Parser& parse, size_t min_corpus, int rounds, size_t fixed_prefix,
                          uint64_t seed_fallback) {
  const auto corpus = corpus_inputs(corpus_dir);
  EXPECT_GE(corpus.size(), min_corpus) << corpus_dir;
  auto files = corpus;
  for (const auto& f : corpus_inputs(regressions_dir)) files.push_back(f);
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    std::vector<char> bytes = read_input(f);
    parse(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::mt19937_64 rng(ordo::testing::test_seed(seed_fallback));
  for (const auto& f : corpus) {
    const std::vector<char> original = read_input(f);
    ASSERT_GT(original.size(), fixed_prefix) << f;
    for (int round = 0; round < rounds; ++round) {
      std::vector<char> bytes = original;
      const size_t free_bytes = bytes.size() - fixed_prefix;
      switch (rng() % 3) {
        case 0:
          for (size_t i = 0, n = 1 + rng() % 4; i < n; ++i) {
            bytes[fixed_prefix + rng() % free_bytes] ^= static_cast<char>(1 + rng() % 255);
          }
          break;
        case 1:
          bytes.resize(fixed_prefix + rng() % free_bytes);
          break;
        default:
          for (size_t i = 0, n = 1 + rng() % 8; i < n; ++i) {
            const size_t at = fixed_prefix + rng() % (bytes.size() - fixed_prefix + 1);
            bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(at), static_cast<char>(rng()));
          }
          break;
      }
      SCOPED_TRACE(f.string() + ", round " + std::to_string(round));
      parse(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    }
  }
}

}  // namespace ordo::fuzz
