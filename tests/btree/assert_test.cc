// ORDO_ASSERT and ORDO_DCHECK abort with the file, line and condition; the
// node editor's preconditions are such checks.
#include "ordo/assert.h"

#include <gtest/gtest.h>

#include <vector>

#include "ordo/btree/node.h"

namespace ordo {
namespace {

class AssertDeathTest : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(AssertDeathTest, AFailingAssertAbortsNamingFileLineAndCondition) {
  int two = 2;
  EXPECT_DEATH(ORDO_ASSERT(two + 1 == 4),
               "assert_test\\.cc:[0-9]+: ordo assertion failed: two \\+ 1 == 4");
  ORDO_ASSERT(two + 1 == 3);  // a passing one does nothing
}

TEST_F(AssertDeathTest, DcheckIsOnExactlyWithoutNdebug) {
  int evaluated = 0;
  auto fails = [&] {
    ++evaluated;
    return false;
  };
#ifdef NDEBUG
  ORDO_DCHECK(fails());
  EXPECT_EQ(evaluated, 0);
#else
  EXPECT_DEATH(ORDO_DCHECK(fails()), "ordo assertion failed: fails\\(\\)");
  (void)evaluated;
#endif
}

TEST_F(AssertDeathTest, InsertingIntoAFullPageAborts) {
  constexpr uint32_t kPage = 4096;
  std::vector<std::byte> page(kPage);
  btree::NodeEditor ed(page.data(), kPage);
  ed.init(btree::PageType::kLeaf, 1);
  const std::string value(1000, 'v');
  uint32_t i = 0;
  while (ed.fits(btree::leaf_cell_size(1, value.size()))) {
    const char key[1] = {static_cast<char>('a' + i)};
    ed.insert_leaf(i++, ByteView(key, 1), value);
  }
  EXPECT_DEATH(ed.insert_leaf(i, "z", value), "ordo assertion failed: fits\\(size\\)");
}

}  // namespace
}  // namespace ordo
