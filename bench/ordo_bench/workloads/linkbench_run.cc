// The linkbench workload: preload, the timed operations, the model check.
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <random>

#include "kv_registry.h"
#include "linkbench_graph.h"
#include "linkbench_workload.h"
#include "ordo/uuid_v7_generator.h"
#include "rows.h"

namespace ordo::bench {
namespace {

using SteadyClock = std::chrono::steady_clock;

double micros_since(SteadyClock::time_point start) {
  return std::chrono::duration<double, std::micro>(SteadyClock::now() - start).count();
}

// A random existing link is looked for among this many random groups.
constexpr int kPickTries = 1000;

// One size's store, its node IDs and the model of its links.
class Session {
 public:
  Session(std::unique_ptr<KvEngine> db, const LinkbenchConfig& config, uint64_t nodes)
      : db_(std::move(db)), model_(config.seed, nodes), rng_(config.seed ^ nodes) {}

  Status open_tables() {
    ORDO_ASSIGN_OR_RETURN(nodes_table_, db_->open_table("nodes"));
    ORDO_ASSIGN_OR_RETURN(links_table_, db_->open_table("links"));
    return Status::ok();
  }

  // Puts nodes 0..n-1, each followed by its links; returns the links put.
  Result<uint64_t> preload(uint64_t n, uint64_t batch) {
    BatchWriter writer(*db_, batch);
    uint64_t links = 0;
    ids_.reserve(n);
    for (uint64_t i = 0; i < n; ++i) {
      ORDO_ASSIGN_OR_RETURN(KvWrite* const txn, writer.txn());
      ids_.push_back(next_id(*txn));
      const auto node = row_value(i, 0);
      ORDO_RETURN_IF_ERROR(
          writer.put(nodes_table_, ids_[i].view(), ByteView(node.data(), node.size())));
      for (const auto& [type, id2] : model_.preload_links(i)) {
        const auto value = link_value(id2, 0);
        ORDO_RETURN_IF_ERROR(writer.put(links_table_, link_key(ids_[i], type, ids_[id2]),
                                        ByteView(value.data(), value.size())));
        ++links;
      }
    }
    ORDO_RETURN_IF_ERROR(writer.finish());
    return links;
  }

  // Runs `op` once; returns its microseconds. Reads are checked against the
  // model after the clock stops.
  Result<double> run(LinkOp op, uint64_t& links_read) {
    switch (op) {
      case LinkOp::kAddNode:
        return add_node();
      case LinkOp::kAddLink: {
        const LinkGroup group{random_node(), rng_() % kLinkTypes};
        return write_link(group, random_node(), /*remove=*/false);
      }
      case LinkOp::kUpdateLink:
      case LinkOp::kDeleteLink: {
        ORDO_ASSIGN_OR_RETURN(const auto link, existing_link());
        return write_link(link.first, link.second, op == LinkOp::kDeleteLink);
      }
      case LinkOp::kGetNode:
        return get_node();
      case LinkOp::kGetLinks:
        return get_links(links_read);
    }
    return Status::invalid_argument("unknown linkbench operation");
  }

  // Compares every touched group and the groups of about `samples` nodes
  // with the model; returns the groups compared.
  Result<uint64_t> check(uint64_t samples) {
    ORDO_ASSIGN_OR_RETURN(std::unique_ptr<KvRead> read, db_->begin_read());
    uint64_t checked = 0;
    for (const auto& [group, want] : model_.touched()) {
      ORDO_RETURN_IF_ERROR(check_group(*read, group, want));
      ++checked;
    }
    const uint64_t step = std::max<uint64_t>(1, ids_.size() / std::max<uint64_t>(1, samples));
    for (uint64_t id1 = 0; id1 < ids_.size(); id1 += step) {
      for (uint64_t type = 0; type < kLinkTypes; ++type) {
        ORDO_RETURN_IF_ERROR(check_group(*read, {id1, type}, model_.links({id1, type})));
        ++checked;
      }
    }
    return checked;
  }

  KvEngine& db() { return *db_; }

 private:
  Uuid next_id(KvWrite& txn) {
    if (std::optional<Uuid> id = txn.engine_id()) return *id;
    return generator_.next();
  }

  uint64_t random_node() { return rng_() % ids_.size(); }

  // A random link the model says exists.
  Result<std::pair<LinkGroup, uint64_t>> existing_link() {
    for (int t = 0; t < kPickTries; ++t) {
      const LinkGroup group{random_node(), rng_() % kLinkTypes};
      const std::set<uint64_t> links = model_.links(group);
      if (links.empty()) continue;
      return std::make_pair(group,
                            *std::next(links.begin(), static_cast<long>(rng_() % links.size())));
    }
    return Status::invalid_argument("no link found to update or delete");
  }

  Result<double> add_node() {
    const uint64_t index = ids_.size();
    const auto value = row_value(index, ++version_);
    const SteadyClock::time_point start = SteadyClock::now();
    ORDO_ASSIGN_OR_RETURN(std::unique_ptr<KvWrite> txn, db_->begin_write());
    const Uuid id = next_id(*txn);
    ORDO_RETURN_IF_ERROR(txn->put(nodes_table_, id.view(), ByteView(value.data(), value.size())));
    ORDO_RETURN_IF_ERROR(txn->commit());
    const double us = micros_since(start);
    ids_.push_back(id);
    return us;
  }

  // Puts (a new version of) or deletes the link group -> id2.
  Result<double> write_link(LinkGroup group, uint64_t id2, bool remove) {
    const std::string key = link_key(ids_[group.id1], group.type, ids_[id2]);
    const auto value = link_value(id2, ++version_);
    const SteadyClock::time_point start = SteadyClock::now();
    ORDO_ASSIGN_OR_RETURN(std::unique_ptr<KvWrite> txn, db_->begin_write());
    if (remove) {
      ORDO_RETURN_IF_ERROR(txn->del(links_table_, key));
    } else {
      ORDO_RETURN_IF_ERROR(txn->put(links_table_, key, ByteView(value.data(), value.size())));
    }
    ORDO_RETURN_IF_ERROR(txn->commit());
    const double us = micros_since(start);
    if (remove) {
      model_.remove(group, id2);
    } else {
      model_.add(group, id2);
    }
    return us;
  }

  Result<double> get_node() {
    const uint64_t index = random_node();
    uint64_t got = 0;
    const SteadyClock::time_point start = SteadyClock::now();
    {
      ORDO_ASSIGN_OR_RETURN(std::unique_ptr<KvRead> read, db_->begin_read());
      ORDO_ASSIGN_OR_RETURN(const ByteView value, read->get(nodes_table_, ids_[index].view()));
      got = row_of_value(value);
    }
    const double us = micros_since(start);
    if (got != index) {
      return Status::corruption("get_node of node " + std::to_string(index) + " read node " +
                                std::to_string(got));
    }
    return us;
  }

  Result<double> get_links(uint64_t& links_read) {
    const LinkGroup group{random_node(), rng_() % kLinkTypes};
    const std::string prefix = link_prefix(ids_[group.id1], group.type);
    uint64_t got = 0;
    const SteadyClock::time_point start = SteadyClock::now();
    {
      ORDO_ASSIGN_OR_RETURN(std::unique_ptr<KvRead> read, db_->begin_read());
      ORDO_ASSIGN_OR_RETURN(got,
                            scan_prefix(*read, links_table_, prefix, [](ByteView, ByteView) {}));
    }
    const double us = micros_since(start);
    const uint64_t want = model_.links(group).size();
    if (got != want) {
      return Status::corruption("get_links of node " + std::to_string(group.id1) + " type " +
                                std::to_string(group.type) + " read " + std::to_string(got) +
                                " links, the model has " + std::to_string(want));
    }
    links_read += got;
    return us;
  }

  Status check_group(KvRead& read, LinkGroup group, const std::set<uint64_t>& want) {
    std::set<uint64_t> got;
    ORDO_RETURN_IF_ERROR(
        scan_prefix(read, links_table_, link_prefix(ids_[group.id1], group.type),
                    [&](ByteView, ByteView value) { got.insert(row_of_value(value)); })
            .status());
    if (got == want) return Status::ok();
    return Status::corruption("links of node " + std::to_string(group.id1) + " type " +
                              std::to_string(group.type) + ": the store holds " +
                              std::to_string(got.size()) + ", the model " +
                              std::to_string(want.size()) + " (or other id2s)");
  }

  std::unique_ptr<KvEngine> db_;
  TableId nodes_table_ = 0;
  TableId links_table_ = 0;
  std::vector<Uuid> ids_;  // by node index
  LinkModel model_;
  std::mt19937_64 rng_;
  UuidV7Generator generator_;
  uint64_t version_ = 0;
};

// ops_per_type of each operation in a seeded random order.
std::vector<LinkOp> op_order(const LinkbenchConfig& config, uint64_t nodes) {
  std::vector<LinkOp> order;
  for (const LinkOp op : kLinkOps) order.insert(order.end(), config.ops_per_type, op);
  std::mt19937_64 rng(config.seed + nodes);
  std::shuffle(order.begin(), order.end(), rng);
  return order;
}

Result<LinkbenchAtSize> run_size(const std::string& path, const LinkbenchConfig& config,
                                 uint64_t nodes) {
  LinkbenchAtSize at;
  at.nodes = nodes;
  ORDO_ASSIGN_OR_RETURN(std::unique_ptr<KvEngine> db, open_engine(config.engine, path, {}));
  Session session(std::move(db), config, nodes);
  ORDO_RETURN_IF_ERROR(session.open_tables());
  const SteadyClock::time_point start = SteadyClock::now();
  ORDO_ASSIGN_OR_RETURN(at.links, session.preload(nodes, config.load_batch));
  at.preload_seconds = std::chrono::duration<double>(SteadyClock::now() - start).count();

  std::array<std::vector<double>, kLinkOpCount> samples;
  for (const LinkOp op : op_order(config, nodes)) {
    ORDO_ASSIGN_OR_RETURN(const double us, session.run(op, at.links_read));
    samples[static_cast<size_t>(op)].push_back(us);
  }
  for (size_t i = 0; i < kLinkOpCount; ++i) at.ops[i] = summarize_latency(samples[i]);
  ORDO_ASSIGN_OR_RETURN(at.groups_checked, session.check(config.check_samples));
  ORDO_ASSIGN_OR_RETURN(at.store, close_store(session.db(), path));
  return at;
}

}  // namespace

std::string_view link_op_name(LinkOp op) {
  switch (op) {
    case LinkOp::kAddNode:
      return "add_node";
    case LinkOp::kAddLink:
      return "add_link";
    case LinkOp::kUpdateLink:
      return "update_link";
    case LinkOp::kDeleteLink:
      return "delete_link";
    case LinkOp::kGetNode:
      return "get_node";
    case LinkOp::kGetLinks:
      return "get_links";
  }
  return "?";
}

bool link_op_writes(LinkOp op) { return op != LinkOp::kGetNode && op != LinkOp::kGetLinks; }

double LinkbenchRun::p99_growth(LinkOp op) const {
  if (sizes.empty()) return 0;
  const double first = sizes.front().ops[static_cast<size_t>(op)].p99_us;
  return first > 0 ? sizes.back().ops[static_cast<size_t>(op)].p99_us / first : 0;
}

Result<LinkbenchRun> run_linkbench(const std::vector<std::string>& paths,
                                   const LinkbenchConfig& config) {
  if (paths.size() != config.sizes.size()) {
    return Status::invalid_argument("linkbench needs one store path per size");
  }
  LinkbenchRun run;
  run.engine = config.engine;
  for (size_t i = 0; i < paths.size(); ++i) {
    ORDO_ASSIGN_OR_RETURN(LinkbenchAtSize at, run_size(paths[i], config, config.sizes[i]));
    fmt::print(stderr, "ordo-bench: linkbench: N = {} done (preload {:.1f} s)\n", at.nodes,
               at.preload_seconds);
    run.sizes.push_back(std::move(at));
  }
  return run;
}

}  // namespace ordo::bench
