// The version 3 database of the upgrade tests, tests/engine/data/v3_deep.ordo
// (v3_deep.txt there says how it was made), and its content, which a formula
// gives. The tests that use it define ORDO_TEST_DATA as that folder.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>

namespace ordo::testing {

inline const std::string kV3Fixture = std::string(ORDO_TEST_DATA) + "/v3_deep.ordo";
inline constexpr uint64_t kV3FixtureTxn = 2;  // its last commit

// Copies the fixture to `path`.
inline void copy_v3_fixture(const std::string& path) {
  std::filesystem::copy_file(kV3Fixture, path);
}

// Tree name ("" the default tree) -> key -> value, as v3_deep.txt made it.
inline std::map<std::string, std::map<std::string, std::string>> v3_fixture_content() {
  std::map<std::string, std::map<std::string, std::string>> out;
  char k[32];
  for (int i = 0; i < 400; ++i) {
    if (i % 3 == 0) continue;  // the second txn deleted these
    std::snprintf(k, sizeof k, "key%05d", i);
    out[""][std::string(600, 'k') + k] = "v" + std::to_string(i * 7);
  }
  for (int i = 0; i < 300; ++i) {
    std::snprintf(k, sizeof k, "user:%04d", i);
    out["users"][k] = i == 10 ? std::string(3000, 'a') : "u" + std::to_string(i);
  }
  return out;
}

}  // namespace ordo::testing
