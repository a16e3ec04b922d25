// The ordo arm: ordo-node processes (LocalCluster) and ordo::node::Client puts.
#include <memory>

#include "replicated_store.h"
#include "tls_files.h"

#ifdef ORDO_BENCH_HAVE_ORDO_NODE
#include "client.h"
#include "local_cluster.h"
#endif

namespace ordo::bench {

#ifdef ORDO_BENCH_HAVE_ORDO_NODE
namespace {

class OrdoPutClient final : public PutClient {
 public:
  OrdoPutClient(std::vector<std::string> addresses, int first, std::chrono::milliseconds timeout,
                std::shared_ptr<const sys::TlsContext> tls)
      : addresses_(std::move(addresses)),
        next_(static_cast<size_t>(first - 1)),
        timeout_(timeout),
        tls_(std::move(tls)) {
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
    node::ClientOptions options;
    options.timeout = timeout_;
    options.tls = tls_;
    client_ = std::make_unique<node::Client>(std::move(order), std::move(options));
    ++next_;
  }

  std::vector<std::string> addresses_;
  size_t next_;
  std::chrono::milliseconds timeout_;
  std::shared_ptr<const sys::TlsContext> tls_;
  std::unique_ptr<node::Client> client_;
};

class OrdoStore final : public ReplicatedStore {
 public:
  OrdoStore(std::string binary, std::string root, int nodes, bool tls)
      : binary_(std::move(binary)), root_(std::move(root)), nodes_(nodes), tls_(tls) {}

  Status start() override {
    node::LocalClusterOptions o;
    o.binary = binary_;
    o.root = root_;
    o.nodes = nodes_;
    if (tls_) {
      ORDO_ASSIGN_OR_RETURN(const TlsFiles files, make_tls_files(root_ + "/tls"));
      o.extra_args = {"--tls-cert",     files.server_cert, "--tls-key",
                      files.server_key, "--tls-ca",        files.ca_cert};
      sys::TlsConfig config;
      config.ca_file = files.ca_cert;
      config.cert_file = files.client_cert;
      config.key_file = files.client_key;
      ORDO_ASSIGN_OR_RETURN(client_tls_, sys::TlsContext::create(config, sys::TlsRole::kClient));
      o.client_tls = client_tls_;
    }
    cluster_ = std::make_unique<node::LocalCluster>(std::move(o));
    return cluster_->start();
  }
  int size() const override { return cluster_ == nullptr ? 0 : cluster_->size(); }
  int leader(std::chrono::milliseconds timeout) override {
    return cluster_ == nullptr ? 0 : cluster_->leader(timeout);
  }
  Status kill(int node) override {
    if (cluster_ == nullptr) return Status::invalid_argument("ordo-node cluster not started");
    return cluster_->kill(node);
  }
  std::unique_ptr<PutClient> client(int first, std::chrono::milliseconds timeout) override {
    return std::make_unique<OrdoPutClient>(cluster_->addresses(), first, timeout, client_tls_);
  }
  std::vector<std::string> settings() const override {
    return {
        "store: ordo-node, defaults: Raft log fsynced per append, ordo file sync_commits=false, "
        "heartbeat 100 ms, election timeout 1000 ms",
        std::string("client: ordo::node::Client, one TCP connection, put in the default tree") +
            (tls_ ? "; TLS 1.3 with client certificates on client and snapshot ports (EC P-256), "
                    "Raft port without TLS"
                  : "")};
  }

 private:
  std::string binary_;
  std::string root_;
  int nodes_;
  bool tls_;
  std::shared_ptr<const sys::TlsContext> client_tls_;
  std::unique_ptr<node::LocalCluster> cluster_;
};

}  // namespace

std::unique_ptr<ReplicatedStore> make_ordo_store(std::string node_binary, std::string root,
                                                 int nodes, bool tls) {
  return std::make_unique<OrdoStore>(std::move(node_binary), std::move(root), nodes, tls);
}

#else

std::unique_ptr<ReplicatedStore> make_ordo_store(std::string, std::string, int, bool) {
  return nullptr;
}

#endif

}  // namespace ordo::bench
