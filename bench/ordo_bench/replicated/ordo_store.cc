// The ordo arm: ordo-node processes (LocalCluster) and ordo::node::Client puts.
#include <memory>

#include "replicated_store.h"

#ifdef ORDO_BENCH_HAVE_ORDO_NODE
#include "client.h"
#include "local_cluster.h"
#endif

namespace ordo::bench {

#ifdef ORDO_BENCH_HAVE_ORDO_NODE
namespace {

class OrdoPutClient final : public PutClient {
 public:
  OrdoPutClient(std::vector<std::string> addresses, int first, std::chrono::milliseconds timeout)
      : addresses_(std::move(addresses)), next_(static_cast<size_t>(first - 1)), timeout_(timeout) {
    connect_next();
  }

  Status put(std::string_view key, std::string_view value) override {
    const node::Reply reply = client_->put("", key, value);
    if (reply.ok()) return Status::ok();
    connect_next();
    return Status::busy(std::string("ordo-node put: ") + node::reply_code_name(reply.code) + ": " +
                        reply.message);
  }

 private:
  // A new Client whose list starts at the next node, as the etcd arm does.
  void connect_next() {
    std::vector<std::string> order;
    for (size_t k = 0; k < addresses_.size(); ++k) {
      order.push_back(addresses_[(next_ + k) % addresses_.size()]);
    }
    client_ = std::make_unique<node::Client>(std::move(order), timeout_);
    ++next_;
  }

  std::vector<std::string> addresses_;
  size_t next_;
  std::chrono::milliseconds timeout_;
  std::unique_ptr<node::Client> client_;
};

class OrdoStore final : public ReplicatedStore {
 public:
  OrdoStore(std::string binary, std::string root, int nodes)
      : cluster_(make_options(std::move(binary), std::move(root), nodes)) {}

  Status start() override { return cluster_.start(); }
  int size() const override { return cluster_.size(); }
  int leader(std::chrono::milliseconds timeout) override { return cluster_.leader(timeout); }
  Status kill(int node) override { return cluster_.kill(node); }
  std::unique_ptr<PutClient> client(int first, std::chrono::milliseconds timeout) override {
    return std::make_unique<OrdoPutClient>(cluster_.addresses(), first, timeout);
  }
  std::vector<std::string> settings() const override {
    return {
        "store: ordo-node, defaults: Raft log fsynced per append, ordo file sync_commits=false, "
        "heartbeat 100 ms, election timeout 1000 ms",
        "client: ordo::node::Client, one TCP connection, put in the default tree"};
  }

 private:
  static node::LocalClusterOptions make_options(std::string binary, std::string root, int nodes) {
    node::LocalClusterOptions o;
    o.binary = std::move(binary);
    o.root = std::move(root);
    o.nodes = nodes;
    return o;
  }

  node::LocalCluster cluster_;
};

}  // namespace

std::unique_ptr<ReplicatedStore> make_ordo_store(std::string node_binary, std::string root,
                                                 int nodes) {
  return std::make_unique<OrdoStore>(std::move(node_binary), std::move(root), nodes);
}

#else

std::unique_ptr<ReplicatedStore> make_ordo_store(std::string, std::string, int) { return nullptr; }

#endif

}  // namespace ordo::bench
