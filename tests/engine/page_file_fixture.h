// PageFileTest: a fixture holding a writable io::PageFile in a fresh temp
// directory, for the engine's unit tests that write pages.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "io_test_util.h"
#include "ordo/io/page_file.h"

namespace ordo::engine::testing {

class PageFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    io::FileOptions fo;
    fo.create_if_missing = true;
    auto file = io::PageFile::open(dir_.file("pages"), fo);
    ASSERT_TRUE(file.is_ok()) << file.status().to_string();
    file_ = std::move(*file);
  }

  io::testing::TempDir dir_;
  std::unique_ptr<io::PageFile> file_;
};

}  // namespace ordo::engine::testing
