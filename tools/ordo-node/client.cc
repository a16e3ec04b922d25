#include "client.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <map>
#include <thread>

#include "protocol.h"

namespace ordo::node {
namespace {

// Redirects followed in one pass over the nodes (a loop of stale leaders
// ends the pass); the pause between passes while no leader is known; how
// long nodes that all refuse connections are retried (they may be starting).
constexpr int kMaxHops = 5;
constexpr auto kRetryPause = std::chrono::milliseconds(100);
constexpr auto kUnreachableGrace = std::chrono::milliseconds(1000);
// The most a new connection's probe may take on a later pass over the nodes.
constexpr auto kMaxProbeTimeout = std::chrono::milliseconds(1000);

Reply failed(std::string message) {
  Reply r;
  r.code = Reply::Code::kFailed;
  r.message = std::move(message);
  return r;
}

Reply from_wire(WireReply w, const std::string& node) {
  Reply r;
  switch (w.code) {
    case ReplyCode::kOk:
      r.code = Reply::Code::kOk;
      break;
    case ReplyCode::kNotFound:
      r.code = Reply::Code::kNotFound;
      break;
    case ReplyCode::kUnknown:
      r.code = Reply::Code::kUnknown;
      break;
    case ReplyCode::kCompareFailed:
      r.code = Reply::Code::kCompareFailed;
      break;
    default:
      r.code = Reply::Code::kFailed;
      break;
  }
  r.message = std::move(w.message);
  r.index = w.index;
  r.value = std::move(w.value);
  r.entries = std::move(w.entries);
  r.node = node;
  return r;
}

ClientOptions with_timeout(std::chrono::milliseconds timeout) {
  ClientOptions o;
  o.timeout = timeout;
  return o;
}

}  // namespace

struct Client::Impl {
  std::vector<std::string> nodes;
  ClientOptions options;
  std::string current;  // the node connected to (or to connect to first)
  sys::Stream conn;     // to `current` when open
  // The cluster every node must belong to: given, or the one a majority of
  // `nodes` holds (learn_cluster; "" until then).
  std::string cluster_id;
  // Nodes that timed out, until when they are tried after the others.
  std::map<std::string, std::chrono::steady_clock::time_point> suspects;

  void disconnect() { conn.close(); }

  bool suspect(const std::string& node) const {
    auto it = suspects.find(node);
    return it != suspects.end() && std::chrono::steady_clock::now() < it->second;
  }
  void note_failure(const std::string& node, const Status& why) {
    if (why.errno_value() == ETIMEDOUT) {
      suspects[node] = std::chrono::steady_clock::now() + options.suspect_for;
    }
  }

  // Connects to `node` unless already connected to it with a live
  // connection. A new connection must answer a hello within `probe`: a
  // node that is stopped (the kernel accepts for it), refuses ("too many
  // connections", removed) or belongs to another cluster is skipped before
  // any request is sent. A timeout makes the node suspect.
  Status connect(const std::string& node, Deadline deadline, std::chrono::milliseconds probe) {
    if (conn.is_open() && node == current && !conn.peer_closed()) return Status::ok();
    Result<std::string> id = hello(node, deadline, probe);
    if (!id.is_ok()) return id.status();
    // Pinned from now on; a node in no cluster yet (32 zeros) pins nothing.
    if (cluster_id.empty() && in_a_cluster(*id)) cluster_id = *id;
    return Status::ok();
  }

  static bool in_a_cluster(const std::string& id) {
    return id.find_first_not_of('0') != std::string::npos;
  }

  // A new connection to `node` (the current one from now on) that answered
  // a hello naming `cluster_id` ("" for any) within `probe`: the node's
  // cluster id. Busy for a refusal, IOError for no answer (a timeout makes
  // the node suspect).
  Result<std::string> hello(const std::string& node, Deadline deadline,
                            std::chrono::milliseconds probe) {
    disconnect();
    current = node;
    const Deadline probe_deadline = std::min(deadline, std::chrono::steady_clock::now() + probe);
    Result<int> fd = sys::connect_to(node, probe_deadline);
    if (!fd.is_ok()) {
      note_failure(node, fd.status());
      return fd.status();
    }
    conn = sys::Stream(*fd);
    if (options.tls != nullptr) {
      Result<sys::Stream> secured = options.tls->handshake(conn.release(), probe_deadline);
      if (!secured.is_ok()) {
        note_failure(node, secured.status());
        return Status::io_error(node + ": " + secured.status().message(),
                                secured.status().errno_value());
      }
      conn = std::move(*secured);
    }
    Request probe_request;
    probe_request.op = Op::kHello;
    probe_request.cluster_id = cluster_id;
    bool sent = false;
    auto reply = exchange(encode_request(probe_request), probe_deadline, sent);
    if (!reply.is_ok()) {
      note_failure(node, reply.status());
      return Status::io_error(node + ": " + reply.status().message(), reply.status().errno_value());
    }
    if (reply->code != ReplyCode::kOk) {
      disconnect();
      return Status::busy(node + ": " + reply->message);
    }
    suspects.erase(node);
    return std::move(reply->value);
  }

  // Pins the cluster id that more than half of `nodes` answer a hello
  // with: a member bootstrapped by mistake into a cluster of its own (or
  // any node of another cluster) is then refused like a stranger, whatever
  // its place in the list. Nodes are asked again, with the probe doubled,
  // while no id has a majority: a node may be starting or stopped.
  Status learn_cluster(Deadline deadline) {
    const auto start = std::chrono::steady_clock::now();
    auto probe = options.probe_timeout;
    std::map<std::string, std::string> answered;  // node -> its cluster id
    std::map<std::string, size_t> votes;          // cluster id -> nodes
    std::string last_error;
    for (;;) {
      for (const std::string& node : candidates()) {
        if (answered.count(node) != 0 ||
            std::find(nodes.begin(), nodes.end(), node) == nodes.end()) {
          continue;
        }
        if (std::chrono::steady_clock::now() >= deadline) break;
        Result<std::string> id = hello(node, deadline, probe);
        if (!id.is_ok()) {
          if (id.status().is_invalid_argument()) return id.status();
          last_error = id.status().message();
          continue;
        }
        if (!in_a_cluster(*id)) continue;  // a joining node: no vote, asked again
        answered[node] = *id;
        if (2 * ++votes[*id] > nodes.size()) {
          cluster_id = *id;  // the connection to `node` stays open
          return Status::ok();
        }
      }
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline || (answered.empty() && now - start >= kUnreachableGrace)) break;
      std::this_thread::sleep_for(kRetryPause);
      probe = std::min<std::chrono::milliseconds>(2 * probe, kMaxProbeTimeout);
    }
    disconnect();
    std::string seen;
    for (const auto& [node, id] : answered) seen += (seen.empty() ? "" : ", ") + node + " " + id;
    return Status::busy("no cluster id is held by a majority of the " +
                        std::to_string(nodes.size()) +
                        " nodes given (answers: " + (seen.empty() ? std::string("none") : seen) +
                        (last_error.empty() ? "" : "; last error: " + last_error) +
                        "); give more of the members, or the cluster's id (--cluster-id)");
  }

  // The order to try nodes in: the current one (the leader once a write
  // found it) first, then the list; suspects after the others.
  std::vector<std::string> candidates() const {
    std::vector<std::string> out;
    if (!current.empty()) out.push_back(current);
    for (const auto& n : nodes) {
      if (n != current) out.push_back(n);
    }
    std::stable_partition(out.begin(), out.end(),
                          [this](const std::string& n) { return !suspect(n); });
    return out;
  }

  // One exchange with the connected node. `sent` tells whether the request
  // left (then a failure is "unknown" for writes).
  Result<WireReply> exchange(const std::string& body, Deadline deadline, bool& sent) {
    sent = false;
    Status s = write_frame(conn, body, deadline);
    if (!s.is_ok()) {
      // Bytes may have left before the failure.
      sent = true;
      disconnect();
      return s;
    }
    sent = true;
    auto reply_body = read_frame(conn, deadline);
    if (!reply_body.is_ok()) {
      disconnect();
      return reply_body.status();
    }
    auto reply = decode_reply(*reply_body);
    if (!reply.is_ok()) disconnect();
    return reply;
  }

  // Sends `request`; `is_write` makes a broken exchange kUnknown and lets
  // not-leader replies redirect. Reads follow redirects too (a
  // linearizable read asked of a follower).
  Reply call(const Request& request, bool is_write) {
    const std::string body = encode_request(request);
    if (body.size() > kMaxFrameBody) {
      return failed("request of " + std::to_string(body.size()) + " bytes is over the frame limit");
    }
    const auto start = std::chrono::steady_clock::now();
    const Deadline deadline = start + options.timeout;
    if (cluster_id.empty() && nodes.size() > 1) {
      Status learned = learn_cluster(deadline);
      if (!learned.is_ok()) return failed(learned.message());
    }
    std::vector<std::string> order = candidates();
    size_t next = 0;
    int hops = 0;                        // redirects followed in this pass over the nodes
    auto probe = options.probe_timeout;  // doubles on each later pass
    bool answered = false;               // some node answered since the call began
    std::string last_error = "no node given";
    std::string target;
    while (std::chrono::steady_clock::now() < deadline) {
      if (target.empty()) {
        if (next >= order.size()) {
          // A pass over every node without an answer to return. Nodes that
          // all refuse stay a failure after a short grace (they may be
          // starting); nodes in an election get until the deadline.
          if (order.empty() ||
              (!answered && std::chrono::steady_clock::now() - start >= kUnreachableGrace)) {
            break;
          }
          std::this_thread::sleep_for(kRetryPause);
          order = candidates();
          next = 0;
          hops = 0;
          probe = std::min<std::chrono::milliseconds>(2 * probe, kMaxProbeTimeout);
          continue;
        }
        target = order[next++];
      }
      Status c = connect(target, deadline, probe);
      if (c.is_invalid_argument()) return failed(c.message());  // not an address: no retry helps
      if (!c.is_ok()) {
        last_error = c.message();
        target.clear();
        continue;  // refused or unreachable before sending: the next node
      }
      bool sent = false;
      auto reply = exchange(body, deadline, sent);
      if (!reply.is_ok()) {
        note_failure(target, reply.status());
        if (is_write && sent) {
          Reply r;
          r.code = Reply::Code::kUnknown;
          r.message = "connection to " + target +
                      " broke after the request was sent: " + reply.status().message();
          r.node = target;
          return r;
        }
        last_error = target + ": " + reply.status().message();
        target.clear();
        continue;
      }
      answered = true;
      if (reply->code != ReplyCode::kNotLeader) return from_wire(std::move(*reply), target);
      last_error = target + ": not the leader" +
                   (reply->message.empty() ? std::string() : " (" + reply->message + ")");
      if (!reply->leader.empty() && reply->leader != target && hops < kMaxHops) {
        ++hops;
        target = reply->leader;
      } else {
        target.clear();  // no leader known there (an election): the next node
      }
    }
    return failed(last_error);
  }
};

Client::Client(std::vector<std::string> nodes, std::chrono::milliseconds timeout)
    : Client(std::move(nodes), with_timeout(timeout)) {}

Client::Client(std::vector<std::string> nodes, ClientOptions options)
    : impl_(new Impl{std::move(nodes), std::move(options), {}, {}, {}, {}}) {
  if (!impl_->nodes.empty()) impl_->current = impl_->nodes.front();
}

Client::~Client() {
  impl_->disconnect();
  delete impl_;
}

Reply Client::put(std::string_view tree, std::string_view key, std::string_view value) {
  Request r;
  r.op = Op::kPut;
  r.tree = tree;
  r.key = key;
  r.value = value;
  return impl_->call(r, true);
}

Reply Client::del(std::string_view tree, std::string_view key) {
  Request r;
  r.op = Op::kDel;
  r.tree = tree;
  r.key = key;
  return impl_->call(r, true);
}

Reply Client::batch(const replica::WriteBatch& batch) {
  Request r;
  r.op = Op::kBatch;
  r.batch = batch.encode();
  return impl_->call(r, true);
}

Reply Client::del_range(std::string_view tree, std::string_view first, std::string_view end) {
  Request r;
  r.op = Op::kDelRange;
  r.tree = tree;
  r.key = first;
  r.end = end;
  return impl_->call(r, true);
}

Reply Client::watch(const std::string* tree, uint64_t from_index, uint32_t from_offset,
                    uint32_t limit, uint32_t wait_ms) {
  Request r;
  r.op = Op::kWatch;
  r.all_trees = tree == nullptr;
  if (tree != nullptr) r.tree = *tree;
  r.from_index = from_index;
  r.from_offset = from_offset;
  r.limit = limit;
  r.wait_ms = wait_ms;
  // The server holds the request up to wait_ms before it answers.
  const std::chrono::milliseconds saved = impl_->options.timeout;
  impl_->options.timeout = saved + std::chrono::milliseconds(wait_ms);
  Reply reply = impl_->call(r, false);
  impl_->options.timeout = saved;
  return reply;
}

uint64_t compacted_oldest(const Reply& reply) {
  constexpr std::string_view kPrefix = "compacted: oldest index ";
  if (reply.code != Reply::Code::kFailed || reply.message.rfind(kPrefix, 0) != 0) return 0;
  uint64_t oldest = 0;
  const char* begin = reply.message.data() + kPrefix.size();
  const char* end = reply.message.data() + reply.message.size();
  auto [at, ec] = std::from_chars(begin, end, oldest);
  if (ec != std::errc() || at != end) return 0;
  return oldest;
}

Reply Client::put_new_id(std::string_view tree, std::string_view value) {
  Request r;
  r.op = Op::kPutNewId;
  r.tree = tree;
  r.value = value;
  return impl_->call(r, true);
}

Reply Client::get(std::string_view tree, std::string_view key, replica::ReadMode mode) {
  Request r;
  r.op = Op::kGet;
  r.mode = mode;
  r.tree = tree;
  r.key = key;
  return impl_->call(r, false);
}

Reply Client::scan(std::string_view tree, std::string_view from, uint32_t limit,
                   replica::ReadMode mode) {
  Request r;
  r.op = Op::kScan;
  r.mode = mode;
  r.tree = tree;
  r.key = from;
  r.limit = limit;
  return impl_->call(r, false);
}

Reply Client::status() {
  Request r;
  r.op = Op::kStatus;
  return impl_->call(r, false);
}

Reply Client::add_member(uint64_t id, std::string_view address) {
  Request r;
  r.op = Op::kAddMember;
  r.id = id;
  r.address = address;
  r.timeout_ms = static_cast<uint32_t>(impl_->options.timeout.count());
  return impl_->call(r, true);
}

Reply Client::remove_member(uint64_t id) {
  Request r;
  r.op = Op::kRemoveMember;
  r.id = id;
  r.timeout_ms = static_cast<uint32_t>(impl_->options.timeout.count());
  return impl_->call(r, true);
}

void Client::connect_to(std::string node) {
  if (node != impl_->current) impl_->disconnect();
  impl_->current = std::move(node);
}

void Client::expect_cluster(std::string cluster_id) {
  for (char& c : cluster_id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  impl_->disconnect();
  impl_->cluster_id = std::move(cluster_id);
}

const std::string& Client::cluster_id() const { return impl_->cluster_id; }

}  // namespace ordo::node
