#include "request_handler.h"

#include <algorithm>
#include <cctype>

#include "client.h"
#include "metrics.h"

namespace ordo::node {
namespace {

WireReply failed(std::string message) {
  WireReply r;
  r.code = ReplyCode::kFailed;
  r.message = std::move(message);
  return r;
}

std::string big_endian(uint64_t v) {
  std::string out(8, '\0');
  for (int i = 7; i >= 0; --i) {
    out[static_cast<size_t>(i)] = static_cast<char>(v & 0xff);
    v >>= 8;
  }
  return out;
}

}  // namespace

RequestHandler::RequestHandler(replica::Replica& replica, const ServerOptions& options)
    : replica_(replica), options_(options) {}

WireReply RequestHandler::handle(const Request& r) {
  const auto start = std::chrono::steady_clock::now();
  WireReply reply = handle_op(r);
  node_metrics().record_request(r.op, reply.code, std::chrono::steady_clock::now() - start);
  return reply;
}

std::vector<std::pair<std::string, std::string>> RequestHandler::status_entries() {
  return status().entries;
}

WireReply RequestHandler::handle_op(const Request& r) {
  replica::WriteBatch batch;
  switch (r.op) {
    case Op::kPut:
      batch.put(r.tree, r.key, r.value);
      return write(batch);
    case Op::kDel:
      batch.del(r.tree, r.key);
      return write(batch);
    case Op::kBatch: {
      auto decoded = replica::WriteBatch::decode(r.batch);
      if (!decoded.is_ok()) return failed("batch: " + decoded.status().message());
      return write(*decoded);
    }
    case Op::kPutNewId: {
      // Mint only on the leader: a follower's answer is a redirect anyway.
      replica::ReplicaStatus st = replica_.status();
      if (st.role != replica::Role::kLeader) {
        return not_leader(st.leader_id, st.leader_address, "put_new_id");
      }
      std::string key = big_endian(replica_.next_id64().value);
      batch.put(r.tree, key, r.value);
      WireReply reply = write(batch);
      if (reply.code == ReplyCode::kOk) reply.value = key;
      return reply;
    }
    case Op::kGet:
      return get(r);
    case Op::kScan:
      return scan(r);
    case Op::kStatus:
      return status();
    case Op::kHello:
      return hello(r);
    case Op::kAddMember:
    case Op::kRemoveMember:
      return membership(r);
    case Op::kDelRange:
      batch.del_range(r.tree, r.key, r.end);
      return write(batch);
    case Op::kWatch:
      return watch(r);
  }
  return failed("unknown op");
}

WireReply RequestHandler::not_leader(uint64_t leader_id, const std::string& leader_raft_address,
                                     const std::string& why) {
  WireReply r;
  if (leader_id == 0 || leader_raft_address.empty() || leader_id == options_.id) {
    r.code = ReplyCode::kNotLeader;  // the client tries another node
    r.message = "no leader known (" + why + ")";
    return r;
  }
  r.code = ReplyCode::kNotLeader;
  r.leader = client_address_of(leader_raft_address);
  r.message = "the leader is node " + std::to_string(leader_id) + " at " + r.leader;
  return r;
}

WireReply RequestHandler::write(const replica::WriteBatch& batch) {
  replica::WriteResult w = replica_.write(batch, options_.request_timeout);
  WireReply r;
  switch (w.outcome) {
    case replica::Outcome::kApplied:
      r.code = ReplyCode::kOk;
      r.index = w.index;
      // The previous values: (key, value) per put and del in op order, and
      // one '1' (found) or '0' (absent) byte each in value; left out when
      // they would not fit a reply (the write is done all the same).
      {
        size_t prev_bytes = 0;
        for (const replica::PrevValue& p : w.prev) prev_bytes += p.key.size() + p.value.size();
        if (prev_bytes > kMaxScanBytes) {
          r.message = "previous values of " + std::to_string(prev_bytes) +
                      " bytes not returned (over " + std::to_string(kMaxScanBytes) + ")";
          return r;
        }
      }
      for (replica::PrevValue& p : w.prev) {
        r.value.push_back(p.found ? '1' : '0');
        r.entries.emplace_back(std::move(p.key), std::move(p.value));
      }
      return r;
    case replica::Outcome::kFailed:
      if (w.status.is_busy()) return not_leader(w.leader_id, w.leader_address, w.status.message());
      if (w.status.is_compare_failed()) {
        node_metrics().record_compare_failed();
        r.code = ReplyCode::kCompareFailed;
        r.message = w.status.message();  // names the guard; the code says the rest
      } else {
        node_metrics().record_apply_failed();
        r.code = ReplyCode::kFailed;
        r.message = w.status.to_string();
      }
      return r;
    case replica::Outcome::kUnknown:
      r.code = ReplyCode::kUnknown;
      r.message = w.status.to_string();
      return r;
  }
  return failed("unknown outcome");
}

WireReply RequestHandler::watch(const Request& req) {
  if (!req.all_trees && req.tree == replica::kSystemTree) {
    return failed("watch: the tree '" + std::string(replica::kSystemTree) +
                  "' is the replica's own");
  }
  const size_t limit = req.limit == 0 ? kMaxScanEntries : std::min(req.limit, kMaxScanEntries);
  const auto wait = std::chrono::milliseconds(std::min(req.wait_ms, kMaxWatchWaitMs));
  Result<replica::WatchResult> result =
      replica_.watch(req.all_trees ? nullptr : &req.tree, req.from_index, req.from_offset, limit,
                     kMaxScanBytes, wait);
  // "compacted: oldest index N" as it is: the client reads N from it.
  if (!result.is_ok()) {
    return failed(result.status().is_not_found() ? result.status().message()
                                                 : result.status().to_string());
  }
  return watch_reply(*result);
}

WireReply RequestHandler::read_refused(const Status& why) {
  if (why.is_busy()) {
    replica::ReplicaStatus st = replica_.status();
    return not_leader(st.leader_id, st.leader_address, why.message());
  }
  return failed(why.to_string());
}

WireReply RequestHandler::get(const Request& req) {
  if (req.tree == replica::kSystemTree) {
    return failed("get: the tree '" + std::string(replica::kSystemTree) + "' is the replica's own");
  }
  auto view = replica_.read(req.mode, options_.request_timeout);
  if (!view.is_ok()) return read_refused(view.status());
  WireReply r;
  r.index = view->applied_index();
  auto value = view->get(req.tree, req.key);
  if (value.is_ok()) {
    r.code = ReplyCode::kOk;
    r.value = std::move(*value);
  } else if (value.status().is_not_found()) {
    r.code = ReplyCode::kNotFound;
    r.message = value.status().message();
  } else {
    r.code = ReplyCode::kFailed;
    r.message = value.status().to_string();
  }
  return r;
}

WireReply RequestHandler::scan(const Request& req) {
  if (req.tree == replica::kSystemTree) {
    return failed("scan: the tree '" + std::string(replica::kSystemTree) +
                  "' is the replica's own");
  }
  auto view = replica_.read(req.mode, options_.request_timeout);
  if (!view.is_ok()) return read_refused(view.status());
  WireReply r;
  r.index = view->applied_index();
  ReadTxn& txn = view->txn();
  Tree tree = txn.default_tree();
  if (!req.tree.empty()) {
    auto opened = txn.open_tree(req.tree);
    if (!opened.is_ok()) {
      r.code = opened.status().is_not_found() ? ReplyCode::kNotFound : ReplyCode::kFailed;
      r.message = opened.status().to_string();
      return r;
    }
    tree = *opened;
  }
  // The caller's limit ends the scan; the server's cap (entries or bytes)
  // cuts it short, and then the reply says where the rest begins.
  const uint64_t want = req.limit == 0 ? UINT64_MAX : req.limit;
  size_t bytes = 0;
  bool capped = false;
  bool more = false;
  std::string next;
  Status s = txn.scan(tree, KeyRange::starting_at(req.key), [&](ByteView k, ByteView v) {
    if (capped) {
      more = true;
      next = k.str();
      return false;
    }
    r.entries.emplace_back(k.str(), v.str());
    bytes += k.size() + v.size();
    if (r.entries.size() >= want) return false;
    capped = r.entries.size() >= kMaxScanEntries || bytes >= kMaxScanBytes;
    return true;
  });
  if (!s.is_ok()) return failed(s.to_string());
  r.code = ReplyCode::kOk;
  if (more) {
    r.message = std::string(kScanMore);
    r.value = std::move(next);
  }
  return r;
}

WireReply RequestHandler::hello(const Request& r) {
  const replica::ReplicaStatus st = replica_.status();
  // A client that finds a removed node moves on to the next one.
  if (st.role == replica::Role::kRemoved) {
    return failed("removed from the cluster: node " + std::to_string(st.id) +
                  " serves no requests; ask another member");
  }
  const std::string& own = st.cluster_id;
  std::string asked = r.cluster_id;
  for (char& c : asked) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const bool own_known = own.find_first_not_of('0') != std::string::npos;
  if (!asked.empty() && (asked != own || !own_known)) {
    return failed("wrong cluster: this node is " +
                  (own_known ? "cluster " + own : std::string("in no cluster yet (--join)")) +
                  ", the client asked for " + asked);
  }
  WireReply reply;
  reply.code = ReplyCode::kOk;
  reply.value = own;
  return reply;
}

WireReply RequestHandler::status() {
  replica::ReplicaStatus st = replica_.status();
  WireReply r;
  r.code = ReplyCode::kOk;
  r.index = st.applied_index;
  auto add = [&](const char* name, std::string value) {
    r.entries.emplace_back(name, std::move(value));
  };
  add("id", std::to_string(st.id));
  add("address", options_.listen);
  add("raft_address", st.address);
  add("role", replica::role_name(st.role));
  add("term", std::to_string(st.term));
  add("leader_id", std::to_string(st.leader_id));
  add("leader", st.leader_address.empty() ? std::string() : client_address_of(st.leader_address));
  add("last_log_index", std::to_string(st.last_log_index));
  add("applied_index", std::to_string(st.applied_index));
  add("snapshot_index", std::to_string(st.snapshot_index));
  add("snapshots_taken", std::to_string(st.snapshots_taken));
  add("snapshots_installed", std::to_string(st.snapshots_installed));
  add("install_pending_index", std::to_string(st.install_pending_index));
  add("install_error", st.install_error);
  add("install_failures", std::to_string(st.install_failures));
  add("apply_error", st.apply_error);
  add("disk_error", st.disk_error);
  add("disk_wait", st.disk_wait);
  add("disk_errors", std::to_string(st.disk_errors));
  add("raft_restarts", std::to_string(st.raft_restarts));
  add("raft_log_entries", std::to_string(st.raft_log_entries));
  add("raft_log_bytes", std::to_string(st.raft_log_bytes));
  add("unapplied_bytes", std::to_string(st.unapplied_bytes));
  add("proposals_refused", std::to_string(st.proposals_refused));
  std::string members;
  for (const auto& m : st.members) {
    if (!members.empty()) members += ",";
    members +=
        std::to_string(m.id) + "=" + client_address_of(m.address) + (m.voter ? "" : "(non-voter)");
  }
  add("members", members);
  add("cluster_id", st.cluster_id);
  add("raft_refused_connections", std::to_string(st.raft_refused_connections));
  for (const auto& [k, v] : r.entries) r.value += k + ": " + v + "\n";
  return r;
}

WireReply RequestHandler::membership(const Request& req) {
  replica::ReplicaStatus st = replica_.status();
  if (st.role != replica::Role::kLeader) {
    return not_leader(st.leader_id, st.leader_address, "membership changes go to the leader");
  }
  // Within the client's wait (less a margin for the reply), else the
  // server's own limit.
  const std::chrono::milliseconds wait = req.timeout_ms != 0
                                             ? std::chrono::milliseconds(req.timeout_ms) * 9 / 10
                                             : options_.request_timeout * 4;
  Status s;
  if (req.op == Op::kAddMember) {
    std::string raft = raft_address_of(req.address);
    if (req.id == 0 || raft.empty()) {
      return failed("add: need an id > 0 and a client address IPv4:port (got id " +
                    std::to_string(req.id) + ", address '" + req.address + "')");
    }
    s = replica_.add_member({req.id, raft, true}, wait);
  } else {
    s = replica_.remove_member(req.id, wait);
  }
  WireReply r;
  if (s.is_ok()) {
    r.code = ReplyCode::kOk;
    return r;
  }
  if (s.is_busy()) {
    st = replica_.status();
    if (st.role != replica::Role::kLeader) {
      return not_leader(st.leader_id, st.leader_address, s.message());
    }
  }
  // A timed-out change may still complete.
  r.code = s.is_io_error() ? ReplyCode::kUnknown : ReplyCode::kFailed;
  r.message = s.to_string();
  return r;
}

}  // namespace ordo::node
