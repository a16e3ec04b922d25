#include "link_proxy.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "ordo/sys/ports.h"
#include "ordo/sys/socket.h"

namespace ordo::testing {

namespace {

constexpr size_t kBufferCap = 1 << 20;
constexpr size_t kChunk = 64 << 10;

std::pair<int, int> ordered(int a, int b) { return a < b ? std::pair(a, b) : std::pair(b, a); }

// One connection: `a` the dialing node's side, `b` the target's. Touched by the forwarding thread
// only.

}  // namespace

// Not in the anonymous namespace: LinkProxies::Forwarder (a type with
// linkage) holds it.
namespace link_proxy_internal {
struct Pipe {
  int a = -1;
  int b = -1;
  std::string a2b, b2a;
  bool a_eof = false, b_eof = false;  // no more bytes will come from that side
  bool a_shut = false, b_shut = false;
  bool dead = false;
  ~Pipe() {
    if (a >= 0) ::close(a);
    if (b >= 0) ::close(b);
  }
};
}  // namespace link_proxy_internal
using link_proxy_internal::Pipe;

struct LinkProxies::Forwarder {
  int from = 0;
  int to = 0;
  std::string target;
  std::string address;
  int listen_fd = -1;
  std::vector<std::unique_ptr<Pipe>> pipes;  // the forwarding thread's
  ~Forwarder() {
    if (listen_fd >= 0) ::close(listen_fd);
  }
};

Result<std::unique_ptr<LinkProxies>> LinkProxies::start() {
  int fds[2];
  if (::pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0) return Status::io_error("pipe2", errno);
  return std::unique_ptr<LinkProxies>(new LinkProxies(fds[0], fds[1]));
}

LinkProxies::LinkProxies(int wake_read, int wake_write)
    : wake_read_(wake_read), wake_write_(wake_write) {
  thread_ = std::thread([this] { run(); });
}

LinkProxies::~LinkProxies() {
  stopping_.store(true);
  wake();
  thread_.join();
  forwarders_.clear();
  ::close(wake_read_);
  ::close(wake_write_);
}

void LinkProxies::wake() {
  char c = 1;
  (void)!::write(wake_write_, &c, 1);
}

Result<std::string> LinkProxies::link(int from, int to, const std::string& target) {
  std::lock_guard lock(mu_);
  auto key = std::make_tuple(from, to, target);
  if (auto it = forwarders_.find(key); it != forwarders_.end()) return it->second->address;
  // A port below the ephemeral range: no outgoing connection takes it meanwhile.
  Result<int> listening = Status::io_error("no free port", EADDRINUSE);
  std::string address;
  for (int attempt = 0; attempt < 5 && !listening.is_ok(); ++attempt) {
    ORDO_ASSIGN_OR_RETURN(uint16_t port, sys::pick_free_port_run(1));
    address = "127.0.0.1:" + std::to_string(port);
    listening = sys::listen_on(address, 64, sys::Blocking::kNo);
  }
  ORDO_RETURN_IF_ERROR(listening.status());
  const int fd = *listening;
  auto f = std::make_shared<Forwarder>();
  f->from = from;
  f->to = to;
  f->target = target;
  f->listen_fd = fd;
  f->address = address;
  forwarders_[key] = f;
  wake();
  return f->address;
}

void LinkProxies::cut(int a, int b) {
  {
    std::lock_guard lock(mu_);
    cut_.insert(ordered(a, b));
  }
  wake();
}

void LinkProxies::heal(int a, int b) {
  std::lock_guard lock(mu_);
  cut_.erase(ordered(a, b));
}

void LinkProxies::heal_all() {
  std::lock_guard lock(mu_);
  cut_.clear();
}

bool LinkProxies::is_cut(int a, int b) const {
  std::lock_guard lock(mu_);
  return cut_.count(ordered(a, b)) != 0;
}

void LinkProxies::accept_on(Forwarder& f) {
  for (;;) {
    int fd = ::accept4(f.listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN: none left
    if (is_cut(f.from, f.to)) {
      // Counted first: whoever sees the close finds it counted.
      refused_.fetch_add(1);
      ::close(fd);
      continue;
    }
    // On 127.0.0.1 the connect ends at once: accepted (a stopped node's
    // kernel still accepts) or refused (the node is down).
    Result<int> up = sys::connect_to(f.target, sys::deadline_in(std::chrono::milliseconds(1000)));
    if (!up.is_ok()) {
      ::close(fd);
      continue;
    }
    auto p = std::make_unique<Pipe>();
    p->a = fd;
    p->b = *up;
    f.pipes.push_back(std::move(p));
    connections_.fetch_add(1);
  }
}

namespace {

// Reads what `from` has into `buf` (up to the cap): sets eof at EOF, false
// on an error.
bool pull(int from, std::string& buf, bool& eof) {
  char chunk[kChunk];
  while (!eof && buf.size() < kBufferCap) {
    ssize_t n = ::recv(from, chunk, sizeof chunk, MSG_DONTWAIT);
    if (n > 0) {
      buf.append(chunk, static_cast<size_t>(n));
      continue;
    }
    if (n == 0) {
      eof = true;
      break;
    }
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;
  }
  return true;
}

// Sends what it can of `buf` to `to`; false on an error.
bool push(int to, std::string& buf) {
  while (!buf.empty()) {
    ssize_t n = ::send(to, buf.data(), buf.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
      buf.erase(0, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
  return true;
}

// Moves what both sides have; marks the pipe dead when done or broken.
void pump(Pipe& p) {
  if (!pull(p.a, p.a2b, p.a_eof) || !pull(p.b, p.b2a, p.b_eof) || !push(p.b, p.a2b) ||
      !push(p.a, p.b2a)) {
    p.dead = true;
    return;
  }
  // A side that closed its writing end: pass the close on once its bytes are out.
  if (p.a_eof && p.a2b.empty() && !p.b_shut) {
    ::shutdown(p.b, SHUT_WR);
    p.b_shut = true;
  }
  if (p.b_eof && p.b2a.empty() && !p.a_shut) {
    ::shutdown(p.a, SHUT_WR);
    p.a_shut = true;
  }
  if (p.a_shut && p.b_shut) p.dead = true;
}

}  // namespace

void LinkProxies::run() {
  std::vector<pollfd> fds;
  while (!stopping_.load()) {
    std::vector<std::shared_ptr<Forwarder>> all;
    {
      std::lock_guard lock(mu_);
      for (auto& [key, f] : forwarders_) {
        // A cut drops what is open: both ends see the connection closed.
        if (cut_.count(ordered(f->from, f->to)) != 0) f->pipes.clear();
        all.push_back(f);
      }
    }
    fds.clear();
    fds.push_back({wake_read_, POLLIN, 0});
    for (auto& f : all) {
      fds.push_back({f->listen_fd, POLLIN, 0});
      for (auto& p : f->pipes) {
        short a_events = 0, b_events = 0;
        if (!p->a_eof && p->a2b.size() < kBufferCap) a_events |= POLLIN;
        if (!p->b_eof && p->b2a.size() < kBufferCap) b_events |= POLLIN;
        if (!p->b2a.empty()) a_events |= POLLOUT;
        if (!p->a2b.empty()) b_events |= POLLOUT;
        fds.push_back({p->a, a_events, 0});
        fds.push_back({p->b, b_events, 0});
      }
    }
    int n = ::poll(fds.data(), fds.size(), 200);
    if (n < 0) continue;  // EINTR
    if (fds[0].revents != 0) {
      char drain[64];
      while (::read(wake_read_, drain, sizeof drain) > 0) {
      }
    }
    size_t at = 1;
    for (auto& f : all) {
      const bool acceptable = fds[at++].revents != 0;
      for (auto& p : f->pipes) {
        const bool ready = (fds[at].revents | fds[at + 1].revents) != 0;
        at += 2;
        if (ready) {
          pump(*p);
        }
      }
      std::erase_if(f->pipes, [](const std::unique_ptr<Pipe>& p) { return p->dead; });
      if (acceptable) accept_on(*f);
    }
  }
}

}  // namespace ordo::testing
