// BatchQueue: the front caller leads; a group is a prefix of the queue of at
// most kMaxGroup callers in queue order; finish() hands members their
// outcome and makes the next front caller lead.
#include "batch_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace ordo::engine {
namespace {

bool wait_for_size(const BatchQueue& q, size_t n) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (q.size() != n) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

TEST(BatchQueueTest, AGroupIsAtMostKMaxGroupCallersInQueueOrder) {
  BatchQueue q;
  const BatchFn fn = [](WriteTxn&) { return Status::ok(); };
  BatchQueue::Member leader(fn);
  ASSERT_TRUE(q.join(leader));  // alone: leads at once
  constexpr size_t kWaiting = BatchQueue::kMaxGroup + 2;
  std::vector<std::unique_ptr<BatchQueue::Member>> members;
  std::vector<std::thread> threads;
  std::vector<int> led(kWaiting, -1);
  std::vector<std::vector<BatchQueue::Member*>> second_group(1);
  for (size_t i = 0; i < kWaiting; ++i) members.push_back(std::make_unique<BatchQueue::Member>(fn));
  for (size_t i = 0; i < kWaiting; ++i) {
    threads.emplace_back([&, i] {
      BatchQueue::Member& m = *members[i];
      led[i] = q.join(m);
      if (!led[i]) return;
      // The next front caller leads whoever is left.
      std::vector<BatchQueue::Member*> group = q.take_group(m);
      for (BatchQueue::Member* g : group) g->status = Status::busy("second group");
      second_group[0] = group;
      q.finish(group);
    });
    EXPECT_TRUE(wait_for_size(q, 2 + i)) << i;  // queued in this order
  }
  std::vector<BatchQueue::Member*> group = q.take_group(leader);
  ASSERT_EQ(group.size(), BatchQueue::kMaxGroup);
  EXPECT_EQ(group[0], &leader);
  for (size_t i = 1; i < group.size(); ++i) EXPECT_EQ(group[i], members[i - 1].get()) << i;
  for (BatchQueue::Member* g : group) g->status = Status::not_found("first group");
  q.finish(group);
  for (auto& t : threads) t.join();
  EXPECT_EQ(q.size(), 0u);
  const size_t first = BatchQueue::kMaxGroup - 1;  // waiting callers in the first group
  for (size_t i = 0; i < kWaiting; ++i) {
    SCOPED_TRACE(std::to_string(i));
    EXPECT_EQ(led[i], i == first ? 1 : 0);
    EXPECT_EQ(members[i]->status.message(), i < first ? "first group" : "second group");
  }
  ASSERT_EQ(second_group[0].size(), kWaiting - first);
  EXPECT_EQ(second_group[0][0], members[first].get());
}

}  // namespace
}  // namespace ordo::engine
