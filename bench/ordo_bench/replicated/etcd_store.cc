// The etcd arm: EtcdCluster, and puts through the JSON gateway of a member.
#include <memory>

#include "etcd_client.h"
#include "etcd_cluster.h"
#include "replicated_store.h"
#include "tls_files.h"

namespace ordo::bench {
namespace {

class EtcdPutClient final : public PutClient {
 public:
  EtcdPutClient(std::vector<std::string> addresses, int first, std::chrono::milliseconds timeout,
                std::shared_ptr<const sys::TlsContext> tls)
      : addresses_(std::move(addresses)),
        next_(static_cast<size_t>(first - 1)),
        timeout_(timeout),
        tls_(std::move(tls)) {
    connect_next();
  }

  Status put(std::string_view key, std::string_view value) override {
    Status s = client_->put(key, value);
    if (!s.is_ok()) connect_next();
    return s;
  }

 private:
  void connect_next() {
    client_ = std::make_unique<EtcdClient>(addresses_[next_ % addresses_.size()], timeout_, tls_);
    ++next_;
  }

  std::vector<std::string> addresses_;
  size_t next_;
  std::chrono::milliseconds timeout_;
  std::shared_ptr<const sys::TlsContext> tls_;
  std::unique_ptr<EtcdClient> client_;
};

class EtcdStore final : public ReplicatedStore {
 public:
  EtcdStore(std::string binary, std::string root, int nodes, bool tls)
      : tls_(tls), root_(root), cluster_(make_options(std::move(binary), std::move(root), nodes)) {}

  Status start() override {
    if (tls_) {
      ORDO_ASSIGN_OR_RETURN(TlsFiles files, make_tls_files(root_ + "/tls"));
      cluster_.set_tls(std::move(files));
    }
    return cluster_.start();
  }
  int size() const override { return cluster_.size(); }
  int leader(std::chrono::milliseconds timeout) override { return cluster_.leader(timeout); }
  Status kill(int node) override { return cluster_.kill(node); }
  std::unique_ptr<PutClient> client(int first, std::chrono::milliseconds timeout) override {
    return std::make_unique<EtcdPutClient>(cluster_.client_addresses(), first, timeout,
                                           cluster_.client_tls());
  }
  std::vector<std::string> settings() const override {
    return {
        "store: etcd (/usr/bin/etcd), defaults: WAL fsync per write batch, heartbeat 100 ms, "
        "election timeout 1000 ms",
        std::string("client: HTTP/1.1 keep-alive to the JSON gateway, POST /v3/kv/put, base64 key "
                    "and value") +
            (tls_ ? "; TLS 1.3 with client certificates on client and peer ports (EC P-256)" : "")};
  }

 private:
  static EtcdClusterOptions make_options(std::string binary, std::string root, int nodes) {
    EtcdClusterOptions o;
    o.binary = std::move(binary);
    o.root = std::move(root);
    o.members = nodes;
    return o;
  }

  bool tls_;
  std::string root_;
  EtcdCluster cluster_;
};

}  // namespace

std::unique_ptr<ReplicatedStore> make_etcd_store(std::string etcd_binary, std::string root,
                                                 int nodes, bool tls) {
  return std::make_unique<EtcdStore>(std::move(etcd_binary), std::move(root), nodes, tls);
}

}  // namespace ordo::bench
