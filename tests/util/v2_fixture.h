// The version 2 database of the upgrade tests, tests/engine/data/v2_small.ordo
// (v2_small.txt there says how it was made), and its dump. The tests that use
// it define ORDO_TEST_DATA as that folder.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "temp_dir.h"

namespace ordo::testing {

inline const std::string kV2Fixture = std::string(ORDO_TEST_DATA) + "/v2_small.ordo";
inline const std::string kV2FixtureDump = std::string(ORDO_TEST_DATA) + "/v2_small.dump";
inline constexpr uint64_t kV2FixtureTxn = 8;         // its last commit
inline constexpr uint64_t kV2FixtureHighWater = 28;  // its page high-water mark

// Copies the fixture to `path`.
inline void copy_v2_fixture(const std::string& path) {
  std::filesystem::copy_file(kV2Fixture, path);
}

// A test with a copy of the fixture at path_, in a directory of its own.
class V2FixtureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.file("db.ordo");
    copy_v2_fixture(path_);
  }
  TempDir dir_;
  std::string path_;
};

}  // namespace ordo::testing
