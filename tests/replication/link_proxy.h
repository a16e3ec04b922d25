// TCP forwarders on 127.0.0.1 between the nodes of a test cluster, so that
// a test can partition nodes that share one host: each node dials the
// others through a forwarder of its own per (node, target address) (the
// nodes run under tests/util/dial_via_preload.cc), and cut(a, b) drops
// every connection between a and b, either way, and refuses new ones
// (accepted, then closed at once) until heal(a, b).
//
// One thread forwards every connection (poll(2), non-blocking sockets,
// up to 1 MiB buffered per direction). Thread-safety: every member may be
// called from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "ordo/status.h"

namespace ordo::testing {

class LinkProxies {
 public:
  // Starts the forwarding thread. IOError when its wake-up pipe cannot be made.
  static Result<std::unique_ptr<LinkProxies>> start();
  ~LinkProxies();  // stops the thread, closes every socket
  LinkProxies(const LinkProxies&) = delete;
  LinkProxies& operator=(const LinkProxies&) = delete;

  // The address ("127.0.0.1:port") of the forwarder that carries node
  // `from`'s connections to `target` (node `to`'s address); made on the
  // first call, the same one afterwards. IOError when it cannot listen.
  Result<std::string> link(int from, int to, const std::string& target);

  // Partitions nodes a and b (both directions) / joins them again.
  void cut(int a, int b);
  void heal(int a, int b);
  void heal_all();
  bool is_cut(int a, int b) const;

  // Connections forwarded since start, and ones refused while cut.
  uint64_t connections() const { return connections_.load(); }
  uint64_t refused() const { return refused_.load(); }

 private:
  struct Forwarder;
  LinkProxies(int wake_read, int wake_write);
  void run();
  void wake();
  // On the thread: accepts on `f`, connects to its target.
  void accept_on(Forwarder& f);

  const int wake_read_;
  const int wake_write_;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> connections_{0};
  std::atomic<uint64_t> refused_{0};
  mutable std::mutex mu_;
  std::map<std::tuple<int, int, std::string>, std::shared_ptr<Forwarder>> forwarders_;  // mu_
  std::set<std::pair<int, int>> cut_;  // (low, high) node pairs; guarded by mu_
  std::thread thread_;
};

}  // namespace ordo::testing
