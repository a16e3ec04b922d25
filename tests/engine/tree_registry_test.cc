// TreeRegistry: one id per name for the registry's life, the default tree for
// the empty name, and handles of another registry refused.
#include "tree_registry.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>
#include <vector>

#include "tree_handles.h"

namespace ordo::engine {
namespace {

TEST(TreeRegistryTest, SameNameSameIdInOrderOfFirstUse) {
  TreeRegistry r;
  const Tree a = r.handle("a");
  const Tree b = r.handle("b");
  EXPECT_EQ(TreeHandles::id(a), 1u);
  EXPECT_EQ(TreeHandles::id(b), 2u);
  EXPECT_EQ(TreeHandles::id(r.handle("a")), 1u);
  EXPECT_EQ(r.handle("a").name(), "a");
}

TEST(TreeRegistryTest, EmptyNameIsTheDefaultTree) {
  TreeRegistry r;
  const Tree d = r.handle("");
  EXPECT_TRUE(d.is_default());
  EXPECT_EQ(TreeHandles::id(d), 0u);
  EXPECT_TRUE(r.check(d).is_ok());
}

TEST(TreeRegistryTest, HandlesOfAnotherRegistryAreRefused) {
  TreeRegistry r, other;
  EXPECT_TRUE(r.check(r.handle("t")).is_ok());
  const Status s = r.check(other.handle("t"));
  EXPECT_TRUE(s.is_invalid_argument()) << s.to_string();
  EXPECT_TRUE(r.check(other.handle("")).is_ok());  // the default tree is everyone's
}

TEST(TreeRegistryTest, ConcurrentFirstUsesGetDistinctIds) {
  TreeRegistry r;
  constexpr int kThreads = 4, kNames = 50;
  std::vector<std::vector<uint32_t>> ids(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kNames; ++i)
        ids[t].push_back(TreeHandles::id(r.handle(std::to_string(i))));
    });
  }
  for (auto& th : threads) th.join();
  std::set<uint32_t> distinct(ids[0].begin(), ids[0].end());
  EXPECT_EQ(distinct.size(), static_cast<size_t>(kNames));
  for (int t = 1; t < kThreads; ++t) EXPECT_EQ(ids[t], ids[0]);
}

}  // namespace
}  // namespace ordo::engine
