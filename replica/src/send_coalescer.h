// Raft messages to a peer, held until the end of the loop iteration that
// made them and then sent in order, consecutive AppendEntries that continue
// one another joined into one.
//
// libraft 0.15's leader sends each follower one AppendEntries per
// raft_apply in pipeline mode: with many proposals taken in one iteration,
// as many messages, each a write, a wake-up and an append on the follower,
// and a reply. Joined, they are the message libraft itself would send for
// those entries outside pipeline mode: the first message's previous entry,
// the entries of all, the last one's commit index. Each message's own
// completion callback is called when the joined one is sent (or failed).
//
// Loop thread only. The caller fails what is held (cancel) before the Raft
// I/O closes: libuv's I/O takes no send once it is closing.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

// raft.h declares its API without extern "C".
extern "C" {
#include <raft.h>
}
#include <uv.h>

namespace ordo::replica {

// True when `next`, sent right after `first` to the same peer, continues it:
// both AppendEntries of the same term, `next` starting at the entry after
// `first`'s last (heartbeats, with no entries, included).
bool continues(const raft_append_entries& first, const raft_append_entries& next);

class SendCoalescer {
 public:
  using SendFn = int (*)(raft_io*, raft_io_send*, const raft_message*, raft_io_send_cb);

  // An idle handle on `loop`, closed by close().
  explicit SendCoalescer(uv_loop_t* loop);
  SendCoalescer(const SendCoalescer&) = delete;
  SendCoalescer& operator=(const SendCoalescer&) = delete;

  // Sends go to `send` on `io` from now on (each start of Raft).
  void attach(raft_io* io, SendFn send_fn);
  // Holds the message (copied; its entries, snapshot data and configuration
  // stay Raft's until `cb`) until the iteration ends. Always 0: a failure
  // to send reaches `cb`.
  int send(raft_io_send* req, const raft_message* message, raft_io_send_cb cb);
  // Sends what is held now.
  void flush();
  // Ends every held send with `status` (before the I/O closes).
  void cancel(int status);
  // Closes the idle handle (the loop must run for it to close).
  void close();

  uint64_t messages_joined() const { return joined_; }

 private:
  struct Held {
    raft_io_send* req;
    raft_io_send_cb cb;
    raft_message message;
    std::string address;
  };
  struct Joined;
  static void on_idle(uv_idle_t* idle);
  static void on_joined_sent(raft_io_send* req, int status);
  void send_now(std::vector<Held>& run);
  // Hands each peer's held messages, in order, to `per_peer` until none is
  // held, then stops the idle handle.
  template <typename PerPeer>
  void drain(PerPeer per_peer);

  uv_idle_t idle_{};
  raft_io* io_ = nullptr;
  SendFn send_ = nullptr;
  // Per peer, in the order Raft sent them; peers_ keeps the first-seen order.
  std::unordered_map<raft_id, std::vector<Held>> held_;
  std::vector<raft_id> peers_;
  uint64_t joined_ = 0;
};

}  // namespace ordo::replica
