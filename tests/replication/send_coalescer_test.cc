// SendCoalescer (replica/src/send_coalescer.h): which messages are joined,
// what the joined AppendEntries says, and that every part's callback is
// called once with the outcome.
#include "send_coalescer.h"

#include <gtest/gtest.h>

#include <vector>

namespace ordo::replica {
namespace {

// What the fake I/O was given: the message as it was at the call (entries
// copied, as libuv's encoding reads them then), its request and callback.
struct Sent {
  raft_message message;
  std::vector<raft_entry> entries;
  std::string address;
  raft_io_send* req;
  raft_io_send_cb cb;
};
std::vector<Sent> g_sent;
int g_send_result = 0;

int fake_send(raft_io* /*io*/, raft_io_send* req, const raft_message* m, raft_io_send_cb cb) {
  if (g_send_result != 0) return g_send_result;
  Sent s{*m, {}, m->server_address, req, cb};
  if (m->type == RAFT_IO_APPEND_ENTRIES) {
    s.entries.assign(m->append_entries.entries,
                     m->append_entries.entries + m->append_entries.n_entries);
  }
  g_sent.push_back(std::move(s));
  return 0;
}

class SendCoalescerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_sent.clear();
    g_send_result = 0;
    ASSERT_EQ(uv_loop_init(&loop_), 0);
    coalescer_ = std::make_unique<SendCoalescer>(&loop_);
    coalescer_->attach(&io_, &fake_send);
  }
  void TearDown() override {
    coalescer_->close();
    uv_run(&loop_, UV_RUN_DEFAULT);
    EXPECT_EQ(uv_loop_close(&loop_), 0);
  }

  // An AppendEntries to `peer` of entries prev+1..prev+n, all of `term`.
  raft_message append(raft_id peer, raft_index prev, unsigned n, raft_term term = 2,
                      raft_index commit = 0) {
    auto& e = entry_store_.emplace_back(n);
    for (unsigned i = 0; i < n; ++i) {
      e[i].term = term;
      e[i].type = RAFT_COMMAND;
      e[i].buf.base = nullptr;
      e[i].buf.len = 100 + prev + i;  // tells the entries apart
    }
    raft_message m{};
    m.type = RAFT_IO_APPEND_ENTRIES;
    m.server_id = peer;
    m.server_address = peer == 2 ? "127.0.0.1:2" : "127.0.0.1:3";
    m.append_entries.term = term;
    m.append_entries.prev_log_index = prev;
    m.append_entries.prev_log_term = term;
    m.append_entries.leader_commit = commit;
    m.append_entries.entries = e.data();
    m.append_entries.n_entries = n;
    return m;
  }

  // Sends `m` with a request whose callback records its status in done_.
  raft_io_send* send(const raft_message& m) {
    auto& req = reqs_.emplace_back(std::make_unique<raft_io_send>());
    req->data = this;
    EXPECT_EQ(coalescer_->send(req.get(), &m, &SendCoalescerTest::on_done), 0);
    return req.get();
  }
  static void on_done(raft_io_send* req, int status) {
    static_cast<SendCoalescerTest*>(req->data)->done_.emplace_back(req, status);
  }
  // Completes every fake send with `status`, as libuv would.
  void complete_all(int status) {
    auto sent = std::move(g_sent);
    g_sent.clear();
    for (Sent& s : sent) s.cb(s.req, status);
  }

  uv_loop_t loop_{};
  raft_io io_{};
  std::unique_ptr<SendCoalescer> coalescer_;
  std::vector<std::vector<raft_entry>> entry_store_;
  std::vector<std::unique_ptr<raft_io_send>> reqs_;
  std::vector<std::pair<raft_io_send*, int>> done_;
};

TEST_F(SendCoalescerTest, ContinuingAppendEntriesToAPeerGoAsOneAtTheEndOfTheIteration) {
  raft_io_send* a = send(append(2, 10, 1, 2, 9));
  raft_io_send* b = send(append(2, 11, 2, 2, 10));
  raft_io_send* c = send(append(2, 13, 0, 2, 12));  // a heartbeat that follows on
  raft_io_send* d = send(append(3, 10, 1, 2, 9));
  EXPECT_TRUE(g_sent.empty()) << "held until the iteration ends";
  uv_run(&loop_, UV_RUN_NOWAIT);
  ASSERT_EQ(g_sent.size(), 2u);
  const Sent& joined = g_sent[0];
  EXPECT_EQ(joined.message.server_id, 2u);
  EXPECT_EQ(joined.address, "127.0.0.1:2");
  EXPECT_EQ(joined.message.append_entries.prev_log_index, 10u);
  EXPECT_EQ(joined.message.append_entries.prev_log_term, 2u);
  EXPECT_EQ(joined.message.append_entries.leader_commit, 12u) << "the last part's commit";
  ASSERT_EQ(joined.entries.size(), 3u);
  EXPECT_EQ(joined.entries[0].buf.len, 110u);
  EXPECT_EQ(joined.entries[1].buf.len, 111u);
  EXPECT_EQ(joined.entries[2].buf.len, 112u);
  EXPECT_EQ(g_sent[1].message.server_id, 3u);
  EXPECT_EQ(g_sent[1].entries.size(), 1u);
  EXPECT_EQ(coalescer_->messages_joined(), 2u);
  EXPECT_TRUE(done_.empty()) << "no callback before the I/O completes";

  complete_all(0);
  ASSERT_EQ(done_.size(), 4u);
  EXPECT_EQ(done_[0], std::make_pair(a, 0));
  EXPECT_EQ(done_[1], std::make_pair(b, 0));
  EXPECT_EQ(done_[2], std::make_pair(c, 0));
  EXPECT_EQ(done_[3], std::make_pair(d, 0));
}

TEST_F(SendCoalescerTest, MessagesThatDoNotContinueEachOtherGoSeparatelyInOrder) {
  send(append(2, 10, 1));
  send(append(2, 12, 1));     // a gap: entry 12 is missing
  send(append(2, 13, 1, 3));  // another term
  raft_message vote{};
  vote.type = RAFT_IO_REQUEST_VOTE;
  vote.server_id = 2;
  vote.server_address = "127.0.0.1:2";
  send(vote);
  send(append(2, 14, 1, 3));  // after the vote: not joined across it
  uv_run(&loop_, UV_RUN_NOWAIT);
  ASSERT_EQ(g_sent.size(), 5u);
  EXPECT_EQ(g_sent[0].message.append_entries.prev_log_index, 10u);
  EXPECT_EQ(g_sent[1].message.append_entries.prev_log_index, 12u);
  EXPECT_EQ(g_sent[2].message.append_entries.prev_log_index, 13u);
  EXPECT_EQ(g_sent[3].message.type, RAFT_IO_REQUEST_VOTE);
  EXPECT_EQ(g_sent[4].message.append_entries.prev_log_index, 14u);
  EXPECT_EQ(coalescer_->messages_joined(), 0u);
  complete_all(RAFT_NOCONNECTION);
  ASSERT_EQ(done_.size(), 5u);
  for (const auto& [req, status] : done_) EXPECT_EQ(status, RAFT_NOCONNECTION);
}

TEST_F(SendCoalescerTest, AFailedSendEndsEveryPartWithItsStatus) {
  send(append(2, 10, 1));
  send(append(2, 11, 1));
  g_send_result = RAFT_NOMEM;
  uv_run(&loop_, UV_RUN_NOWAIT);
  EXPECT_TRUE(g_sent.empty());
  ASSERT_EQ(done_.size(), 2u);
  EXPECT_EQ(done_[0].second, RAFT_NOMEM);
  EXPECT_EQ(done_[1].second, RAFT_NOMEM);
}

TEST_F(SendCoalescerTest, CancelEndsWhatIsHeldWithoutSendingIt) {
  send(append(2, 10, 1));
  send(append(3, 10, 1));
  coalescer_->cancel(RAFT_CANCELED);
  ASSERT_EQ(done_.size(), 2u);
  EXPECT_EQ(done_[0].second, RAFT_CANCELED);
  EXPECT_EQ(done_[1].second, RAFT_CANCELED);
  uv_run(&loop_, UV_RUN_NOWAIT);
  EXPECT_TRUE(g_sent.empty());
}

TEST(SendCoalescerContinues, FollowsTheLastEntrysTerm) {
  raft_entry entries[2]{};
  entries[0].term = 4;
  entries[1].term = 5;
  raft_append_entries first{};
  first.term = 5;
  first.prev_log_index = 7;
  first.prev_log_term = 4;
  first.entries = entries;
  first.n_entries = 2;
  raft_append_entries next{};
  next.term = 5;
  next.prev_log_index = 9;
  next.prev_log_term = 5;
  EXPECT_TRUE(continues(first, next));
  next.prev_log_term = 4;
  EXPECT_FALSE(continues(first, next));
  next.prev_log_term = 5;
  next.prev_log_index = 8;
  EXPECT_FALSE(continues(first, next));
}

}  // namespace
}  // namespace ordo::replica
