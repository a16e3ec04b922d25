#include "send_coalescer.h"

#include <utility>

#include "ordo/assert.h"

namespace ordo::replica {

bool continues(const raft_append_entries& first, const raft_append_entries& next) {
  if (next.term != first.term) return false;
  if (next.prev_log_index != first.prev_log_index + first.n_entries) return false;
  const raft_term last_term =
      first.n_entries > 0 ? first.entries[first.n_entries - 1].term : first.prev_log_term;
  return next.prev_log_term == last_term;
}

// One message made of several: the parts' requests, called back in order.
struct SendCoalescer::Joined {
  raft_io_send req{};
  std::vector<std::pair<raft_io_send*, raft_io_send_cb>> parts;
};

SendCoalescer::SendCoalescer(uv_loop_t* loop) {
  (void)uv_idle_init(loop, &idle_);
  idle_.data = this;
}

void SendCoalescer::attach(raft_io* io, SendFn send_fn) {
  ORDO_ASSERT(held_.empty());
  io_ = io;
  send_ = send_fn;
}

int SendCoalescer::send(raft_io_send* req, const raft_message* message, raft_io_send_cb cb) {
  req->cb = cb;
  auto [it, fresh] = held_.try_emplace(message->server_id);
  if (fresh) peers_.push_back(message->server_id);
  it->second.push_back(
      Held{req, cb, *message, message->server_address != nullptr ? message->server_address : ""});
  // An active idle handle keeps the loop from waiting in poll: the held
  // messages go out before it next sleeps.
  if (!uv_is_active(reinterpret_cast<uv_handle_t*>(&idle_))) {
    (void)uv_idle_start(&idle_, &SendCoalescer::on_idle);
  }
  return 0;
}

void SendCoalescer::on_idle(uv_idle_t* idle) { static_cast<SendCoalescer*>(idle->data)->flush(); }

void SendCoalescer::flush() {
  drain([this](std::vector<Held>& queue) {
    size_t i = 0;
    while (i < queue.size()) {
      size_t end = i + 1;
      if (queue[i].message.type == RAFT_IO_APPEND_ENTRIES) {
        raft_append_entries last = queue[i].message.append_entries;
        while (end < queue.size() && queue[end].message.type == RAFT_IO_APPEND_ENTRIES) {
          const raft_append_entries& next = queue[end].message.append_entries;
          if (!continues(last, next)) break;
          last = next;
          ++end;
        }
      }
      std::vector<Held> run(std::make_move_iterator(queue.begin() + static_cast<long>(i)),
                            std::make_move_iterator(queue.begin() + static_cast<long>(end)));
      send_now(run);
      i = end;
    }
  });
}

template <typename PerPeer>
void SendCoalescer::drain(PerPeer per_peer) {
  // A callback called from per_peer may send again: loop until nothing is
  // held.
  while (!held_.empty()) {
    auto held = std::move(held_);
    auto peers = std::move(peers_);
    held_.clear();
    peers_.clear();
    for (raft_id peer : peers) per_peer(held[peer]);
  }
  (void)uv_idle_stop(&idle_);
}

void SendCoalescer::send_now(std::vector<Held>& run) {
  ORDO_ASSERT(!run.empty());
  ORDO_ASSERT(send_ != nullptr);
  if (run.size() == 1) {
    Held& h = run.front();
    h.message.server_address = h.address.c_str();
    const int rv = send_(io_, h.req, &h.message, h.cb);
    if (rv != 0) h.cb(h.req, rv);
    return;
  }
  // The entries of every part, in order, under the first part's previous
  // entry and the last part's commit index. libuv's I/O encodes the message
  // (entry data by reference) before send_ returns: `entries` may go then.
  std::vector<raft_entry> entries;
  auto* joined = new Joined;
  joined->req.data = joined;
  for (Held& h : run) {
    const raft_append_entries& a = h.message.append_entries;
    entries.insert(entries.end(), a.entries, a.entries + a.n_entries);
    joined->parts.emplace_back(h.req, h.cb);
  }
  raft_message message = run.front().message;
  message.server_address = run.front().address.c_str();
  message.append_entries.leader_commit = run.back().message.append_entries.leader_commit;
  message.append_entries.entries = entries.data();
  message.append_entries.n_entries = static_cast<unsigned>(entries.size());
  joined_ += run.size() - 1;
  const int rv = send_(io_, &joined->req, &message, &SendCoalescer::on_joined_sent);
  if (rv != 0) on_joined_sent(&joined->req, rv);
}

void SendCoalescer::on_joined_sent(raft_io_send* req, int status) {
  auto* joined = static_cast<Joined*>(req->data);
  const auto parts = std::move(joined->parts);
  delete joined;
  for (const auto& [part, cb] : parts) cb(part, status);
}

void SendCoalescer::cancel(int status) {
  drain([status](std::vector<Held>& queue) {
    for (Held& h : queue) h.cb(h.req, status);
  });
}

void SendCoalescer::close() {
  ORDO_ASSERT(held_.empty());
  if (!uv_is_closing(reinterpret_cast<uv_handle_t*>(&idle_))) {
    uv_close(reinterpret_cast<uv_handle_t*>(&idle_), nullptr);
  }
}

}  // namespace ordo::replica
