#include "raft_transport.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <uv.h>

#include "ordo/sys/log_rate.h"
// raft.h declares its API without extern "C".
extern "C" {
#include <raft.h>
#include <raft/uv.h>
}

#include <atomic>
#include <cstdio>
#include <list>
#include <mutex>

#include "ordo/assert.h"
#include "ordo/sys/address.h"
#include "raft_handshake.h"

namespace ordo::replica {

namespace {

class TransportImpl;

// One connection in its handshake, from accept or connect until it is
// handed to Raft or closed. Lives until its handles are closed.
struct Conn {
  enum class Step : uint8_t { kConnecting, kHelloHeader, kHello, kFinish, kReplyHeader, kReply };

  TransportImpl* t = nullptr;
  std::list<Conn*>::iterator pos;
  bool outgoing = false;
  Step step = Step::kConnecting;
  // Raft frees a stream it was handed with raft_free: allocated with
  // raft_malloc. nullptr once handed over.
  uv_tcp_t* tcp = nullptr;
  uv_timer_t timer{};
  uv_connect_t connect_req{};
  uv_write_t write_hello{};
  uv_write_t write_last{};
  int writes_pending = 0;
  int handles_open = 0;
  bool ending = false;
  bool peer_done = false;  // acceptor: the finish is in and checked
  bool refuse_after_write = false;
  bool adopt = false;              // acceptor: take the peer's cluster id at hand-over
  int result = RAFT_NOCONNECTION;  // outgoing: what Raft hears if it ends unhanded
  raft_uv_connect* req = nullptr;  // outgoing: Raft's request
  raft_uv_connect_cb cb = nullptr;
  std::string peer;  // for messages
  std::string mine, theirs, out_hello, out_last;
  std::string in;
  size_t have = 0;
  Hello peer_hello;
};

class TransportImpl final : public RaftTransport {
 public:
  TransportImpl(uv_loop_t* loop, RaftTransportOptions options)
      : loop_(loop), options_(std::move(options)), cluster_id_(options_.cluster_id) {
    raw_.data = nullptr;
    raw_.impl = this;
    raw_.init = &TransportImpl::init_cb;
    raw_.listen = &TransportImpl::listen_cb;
    raw_.connect = &TransportImpl::connect_cb;
    raw_.close = &TransportImpl::close_cb;
  }

  raft_uv_transport* raw() override { return &raw_; }
  uint64_t refused_connections() const override { return refused_.load(); }
  ClusterId cluster_id() const override {
    std::lock_guard lock(id_mu_);
    return cluster_id_;
  }
  Status listen_status() const override { return listen_status_; }

 private:
  static TransportImpl* of(raft_uv_transport* t) { return static_cast<TransportImpl*>(t->impl); }
  static Conn* conn_of(uv_handle_t* h) { return static_cast<Conn*>(h->data); }

  static int init_cb(raft_uv_transport* t, raft_id id, const char* address);
  static int listen_cb(raft_uv_transport* t, raft_uv_accept_cb cb);
  static int connect_cb(raft_uv_transport* t, raft_uv_connect* req, raft_id id, const char* address,
                        raft_uv_connect_cb cb);
  static void close_cb(raft_uv_transport* t, raft_uv_transport_close_cb cb);

  static void on_connection(uv_stream_t* listener, int status);
  static void on_connected(uv_connect_t* req, int status);
  static void on_alloc(uv_handle_t* h, size_t suggested, uv_buf_t* buf);
  static void on_read(uv_stream_t* s, ssize_t nread, const uv_buf_t* buf);
  static void on_written(uv_write_t* w, int status);
  static void on_deadline(uv_timer_t* timer);
  static void on_handle_closed(uv_handle_t* h);
  static void on_listener_closed(uv_handle_t* h);
  static void on_close_watch(uv_poll_t* poll, int status, int events);
  static void on_close_watch_closed(uv_handle_t* h);

  Conn* new_conn(bool outgoing);
  bool start_timer(Conn* c);
  void expect(Conn* c, Conn::Step step, size_t bytes);
  void read_done(Conn* c);
  void write(Conn* c, uv_write_t* w, const std::string& bytes);
  void accepted_hello(Conn* c);
  void accepted_finish(Conn* c);
  void connected_reply(Conn* c);
  void maybe_hand_over(Conn* c);
  void refuse(Conn* c, const std::string& why);
  void end(Conn* c, int result);
  void maybe_fire_close();
  void watch_close(uv_stream_t* stream, uint64_t peer_id);
  Hello own_hello(const Nonce& nonce) const;

  uv_loop_t* loop_;
  RaftTransportOptions options_;
  raft_uv_transport raw_{};
  uint64_t id_ = 0;
  std::string address_;
  uv_tcp_t listener_{};
  bool listener_open_ = false;
  Status listen_status_;  // listen_status(); loop thread
  raft_uv_accept_cb accept_cb_ = nullptr;
  // Accepted connections handed to Raft are registered (by fd, one shot,
  // peer id as data) in an epoll set of their own that libuv polls: the
  // registration follows the socket and leaves with it when Raft closes it,
  // and the set reports a peer's close without reading Raft's bytes.
  int close_watch_fd_ = -1;
  uv_poll_t close_watch_{};
  bool close_watch_open_ = false;
  bool closing_ = false;
  raft_uv_transport_close_cb close_done_ = nullptr;
  std::list<Conn*> conns_;
  std::atomic<uint64_t> refused_{0};
  mutable std::mutex id_mu_;
  ClusterId cluster_id_;     // guarded by id_mu_; written on the loop thread only
  sys::RateLimitedLog log_;  // refusals: one line a second
};

int TransportImpl::init_cb(raft_uv_transport* t, raft_id id, const char* address) {
  TransportImpl* self = of(t);
  self->id_ = id;
  self->address_ = address;
  if (self->address_.empty() || self->address_.size() > kMaxAddressBytes) {
    std::snprintf(t->errmsg, sizeof t->errmsg, "address of %zu bytes", self->address_.size());
    return RAFT_INVALID;
  }
  int rv = uv_tcp_init(self->loop_, &self->listener_);
  if (rv != 0) {
    std::snprintf(t->errmsg, sizeof t->errmsg, "uv_tcp_init: %s", uv_strerror(rv));
    return RAFT_IOERR;
  }
  self->listener_.data = self;
  self->listener_open_ = true;
  // Without the watch a leader's death is noticed by timers alone.
  if (self->options_.on_peer_closed) {
    self->close_watch_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
    if (self->close_watch_fd_ >= 0 &&
        uv_poll_init(self->loop_, &self->close_watch_, self->close_watch_fd_) == 0) {
      self->close_watch_.data = self;
      self->close_watch_open_ = true;
      (void)uv_poll_start(&self->close_watch_, UV_READABLE, &TransportImpl::on_close_watch);
    } else if (self->close_watch_fd_ >= 0) {
      ::close(self->close_watch_fd_);
      self->close_watch_fd_ = -1;
    }
  }
  return 0;
}

int TransportImpl::listen_cb(raft_uv_transport* t, raft_uv_accept_cb cb) {
  TransportImpl* self = of(t);
  self->accept_cb_ = cb;
  Result<sys::HostPort> at = sys::parse_address(self->address_);
  if (!at.is_ok()) {
    self->listen_status_ = at.status();
    std::snprintf(t->errmsg, sizeof t->errmsg, "%s", at.status().message().c_str());
    return RAFT_INVALID;
  }
  sockaddr_in addr{};
  int rv = uv_ip4_addr(at->host.c_str(), at->port, &addr);
  if (rv == 0) rv = uv_tcp_bind(&self->listener_, reinterpret_cast<const sockaddr*>(&addr), 0);
  if (rv == 0) {
    rv = uv_listen(reinterpret_cast<uv_stream_t*>(&self->listener_), 64,
                   &TransportImpl::on_connection);
  }
  if (rv != 0) {
    // libuv's codes are negated errno values on POSIX systems.
    self->listen_status_ =
        Status::io_error("listen on " + self->address_ + ": " + uv_strerror(rv), -rv);
    std::snprintf(t->errmsg, sizeof t->errmsg, "%s", self->listen_status_.message().c_str());
    return RAFT_IOERR;
  }
  self->listen_status_ = Status::ok();
  return 0;
}

Conn* TransportImpl::new_conn(bool outgoing) {
  auto* c = new Conn;
  c->t = this;
  c->outgoing = outgoing;
  c->tcp = static_cast<uv_tcp_t*>(raft_malloc(sizeof(uv_tcp_t)));
  if (c->tcp == nullptr) {
    delete c;
    return nullptr;
  }
  (void)uv_tcp_init(loop_, c->tcp);
  c->tcp->data = c;
  c->handles_open = 1;
  conns_.push_front(c);
  c->pos = conns_.begin();
  return c;
}

bool TransportImpl::start_timer(Conn* c) {
  (void)uv_timer_init(loop_, &c->timer);
  c->timer.data = c;
  ++c->handles_open;
  return uv_timer_start(&c->timer, &TransportImpl::on_deadline,
                        static_cast<uint64_t>(options_.handshake_deadline.count()), 0) == 0;
}

std::string peer_name(uv_tcp_t* tcp) {
  sockaddr_storage ss{};
  int n = sizeof ss;
  if (uv_tcp_getpeername(tcp, reinterpret_cast<sockaddr*>(&ss), &n) != 0 ||
      ss.ss_family != AF_INET) {
    return "an unknown peer";
  }
  const auto* in = reinterpret_cast<const sockaddr_in*>(&ss);
  char host[INET_ADDRSTRLEN] = {};
  (void)uv_ip4_name(in, host, sizeof host);
  return std::string(host) + ":" + std::to_string(ntohs(in->sin_port));
}

void TransportImpl::on_connection(uv_stream_t* listener, int status) {
  auto* self = static_cast<TransportImpl*>(listener->data);
  if (status != 0 || self->closing_) return;
  Conn* c = self->new_conn(false);
  if (c == nullptr) return;  // out of memory: the pending connection waits in the backlog
  if (uv_accept(listener, reinterpret_cast<uv_stream_t*>(c->tcp)) != 0) {
    self->end(c, RAFT_NOCONNECTION);
    return;
  }
  (void)uv_tcp_nodelay(c->tcp, 1);
  c->peer = "from " + peer_name(c->tcp);
  if (!self->start_timer(c)) {
    self->end(c, RAFT_NOCONNECTION);
    return;
  }
  self->expect(c, Conn::Step::kHelloHeader, kHelloHeaderBytes);
  if (uv_read_start(reinterpret_cast<uv_stream_t*>(c->tcp), &TransportImpl::on_alloc,
                    &TransportImpl::on_read) != 0) {
    self->end(c, RAFT_NOCONNECTION);
  }
}

int TransportImpl::connect_cb(raft_uv_transport* t, raft_uv_connect* req, raft_id /*id*/,
                              const char* address, raft_uv_connect_cb cb) {
  TransportImpl* self = of(t);
  ORDO_ASSERT(!self->closing_);
  Result<sys::HostPort> to = sys::parse_address(address);
  sockaddr_in addr{};
  if (!to.is_ok() || uv_ip4_addr(to->host.c_str(), to->port, &addr) != 0) {
    std::snprintf(t->errmsg, sizeof t->errmsg, "bad address %s", address);
    return RAFT_NOCONNECTION;
  }
  Conn* c = self->new_conn(true);
  if (c == nullptr) return RAFT_NOMEM;
  c->req = req;
  c->cb = cb;
  req->cb = cb;
  c->peer = std::string("to ") + address;
  c->connect_req.data = c;
  int rv = uv_tcp_connect(&c->connect_req, c->tcp, reinterpret_cast<const sockaddr*>(&addr),
                          &TransportImpl::on_connected);
  if (rv != 0) {
    // Not started: Raft hears the failure from this return, not from cb.
    c->req = nullptr;
    self->end(c, RAFT_NOCONNECTION);
    std::snprintf(t->errmsg, sizeof t->errmsg, "uv_tcp_connect: %s", uv_strerror(rv));
    return RAFT_NOCONNECTION;
  }
  if (!self->start_timer(c)) self->end(c, RAFT_NOCONNECTION);
  return 0;
}

void TransportImpl::on_connected(uv_connect_t* req, int status) {
  auto* c = static_cast<Conn*>(req->data);
  TransportImpl* self = c->t;
  if (c->ending) return;
  if (status != 0) {
    // Nobody listening: not a refusal, Raft retries.
    self->end(c, RAFT_NOCONNECTION);
    return;
  }
  (void)uv_tcp_nodelay(c->tcp, 1);
  Result<Nonce> nonce = random_nonce();
  if (!nonce.is_ok()) {
    self->refuse(c, nonce.status().message());
    return;
  }
  c->mine = encode_hello(self->own_hello(*nonce));
  self->write(c, &c->write_hello, c->mine);
  if (c->ending) return;
  self->expect(c, Conn::Step::kReplyHeader, kHelloHeaderBytes);
  if (uv_read_start(reinterpret_cast<uv_stream_t*>(c->tcp), &TransportImpl::on_alloc,
                    &TransportImpl::on_read) != 0) {
    self->end(c, RAFT_NOCONNECTION);
  }
}

Hello TransportImpl::own_hello(const Nonce& nonce) const {
  Hello h;
  h.has_secret = !options_.secret.empty();
  h.cluster_id = cluster_id();
  h.nonce = nonce;
  h.id = id_;
  h.address = address_;
  return h;
}

void TransportImpl::expect(Conn* c, Conn::Step step, size_t bytes) {
  c->step = step;
  c->in.assign(bytes, '\0');
  c->have = 0;
}

void TransportImpl::on_alloc(uv_handle_t* h, size_t /*suggested*/, uv_buf_t* buf) {
  Conn* c = conn_of(h);
  // Exactly the bytes of the message expected: what follows the handshake
  // stays in the socket for Raft.
  ORDO_ASSERT(c->have < c->in.size());
  buf->base = c->in.data() + c->have;
  buf->len = c->in.size() - c->have;
}

void TransportImpl::on_read(uv_stream_t* s, ssize_t nread, const uv_buf_t* /*buf*/) {
  Conn* c = conn_of(reinterpret_cast<uv_handle_t*>(s));
  TransportImpl* self = c->t;
  if (c->ending || nread == 0) return;
  if (nread < 0) {
    self->refuse(c, nread == UV_EOF ? "closed by the peer during the handshake"
                                    : std::string("read: ") + uv_strerror(static_cast<int>(nread)));
    return;
  }
  c->have += static_cast<size_t>(nread);
  if (c->have == c->in.size()) self->read_done(c);
}

void TransportImpl::read_done(Conn* c) {
  switch (c->step) {
    case Conn::Step::kHelloHeader:
    case Conn::Step::kReplyHeader: {
      Result<size_t> n = hello_address_bytes(c->in);
      if (!n.is_ok()) {
        refuse(c, n.status().message());
        return;
      }
      const std::string header = std::move(c->in);
      const bool reply = c->step == Conn::Step::kReplyHeader;
      expect(c, reply ? Conn::Step::kReply : Conn::Step::kHello,
             kHelloHeaderBytes + *n + (reply ? kMacBytes : 0));
      c->in.replace(0, header.size(), header);
      c->have = header.size();
      return;
    }
    case Conn::Step::kHello:
      accepted_hello(c);
      return;
    case Conn::Step::kFinish:
      accepted_finish(c);
      return;
    case Conn::Step::kReply:
      connected_reply(c);
      return;
    case Conn::Step::kConnecting:
      break;
  }
  ORDO_ASSERT(false);
}

void TransportImpl::accepted_hello(Conn* c) {
  Result<Hello> hello = parse_hello(c->in);
  if (!hello.is_ok()) {
    refuse(c, hello.status().message());
    return;
  }
  c->peer_hello = std::move(*hello);
  c->peer += " (member " + std::to_string(c->peer_hello.id) + " at " + c->peer_hello.address + ")";
  c->theirs = std::move(c->in);
  const ClusterId own = cluster_id();
  Status ok = check_peer_hello(c->peer_hello, own, !options_.secret.empty(),
                               /*adopt_unknown_own=*/true);
  Result<Nonce> nonce = random_nonce();
  if (!nonce.is_ok()) {
    refuse(c, nonce.status().message());
    return;
  }
  Hello mine = own_hello(*nonce);
  if (ok.is_ok() && !own.known()) {
    // Answer with the id this side takes once the peer proved itself.
    mine.cluster_id = c->peer_hello.cluster_id;
    c->adopt = true;
  }
  c->mine = encode_hello(mine);
  const Mac mac = handshake_mac(options_.secret, MacRole::kAcceptor, c->theirs, c->mine);
  c->out_hello = c->mine;
  c->out_hello.append(reinterpret_cast<const char*>(mac.data()), mac.size());
  if (!ok.is_ok()) {
    // The hello is answered all the same, so that the connector sees the
    // other cluster id too and says so on its side.
    (void)uv_read_stop(reinterpret_cast<uv_stream_t*>(c->tcp));
    c->refuse_after_write = true;
    c->out_last = ok.message();
    write(c, &c->write_hello, c->out_hello);
    return;
  }
  expect(c, Conn::Step::kFinish, kMacBytes);
  write(c, &c->write_hello, c->out_hello);
}

void TransportImpl::accepted_finish(Conn* c) {
  (void)uv_read_stop(reinterpret_cast<uv_stream_t*>(c->tcp));
  const Mac expected = handshake_mac(options_.secret, MacRole::kConnector, c->theirs, c->mine);
  if (!mac_matches(expected, c->in)) {
    refuse(c, "raft handshake: the peer's proof does not match (another cluster secret)");
    return;
  }
  c->peer_done = true;
  maybe_hand_over(c);
}

void TransportImpl::connected_reply(Conn* c) {
  (void)uv_read_stop(reinterpret_cast<uv_stream_t*>(c->tcp));
  const size_t hello_bytes = c->in.size() - kMacBytes;
  Result<Hello> hello = parse_hello(std::string_view(c->in).substr(0, hello_bytes));
  if (!hello.is_ok()) {
    refuse(c, hello.status().message());
    return;
  }
  c->peer_hello = std::move(*hello);
  c->theirs = c->in.substr(0, hello_bytes);
  Status ok = check_peer_hello(c->peer_hello, cluster_id(), !options_.secret.empty(),
                               /*adopt_unknown_own=*/false);
  if (!ok.is_ok()) {
    refuse(c, ok.message());
    return;
  }
  const Mac expected = handshake_mac(options_.secret, MacRole::kAcceptor, c->mine, c->theirs);
  if (!mac_matches(expected, std::string_view(c->in).substr(hello_bytes))) {
    refuse(c, "raft handshake: the peer's proof does not match (another cluster secret)");
    return;
  }
  const Mac mac = handshake_mac(options_.secret, MacRole::kConnector, c->mine, c->theirs);
  c->out_last.assign(reinterpret_cast<const char*>(mac.data()), mac.size());
  c->peer_done = true;
  write(c, &c->write_last, c->out_last);
}

void TransportImpl::write(Conn* c, uv_write_t* w, const std::string& bytes) {
  w->data = c;
  uv_buf_t buf = uv_buf_init(const_cast<char*>(bytes.data()), static_cast<unsigned>(bytes.size()));
  int rv = uv_write(w, reinterpret_cast<uv_stream_t*>(c->tcp), &buf, 1, &TransportImpl::on_written);
  if (rv != 0) {
    refuse(c, std::string("write: ") + uv_strerror(rv));
    return;
  }
  ++c->writes_pending;
}

void TransportImpl::on_written(uv_write_t* w, int status) {
  auto* c = static_cast<Conn*>(w->data);
  TransportImpl* self = c->t;
  --c->writes_pending;
  if (c->ending) return;
  if (status != 0) {
    self->refuse(c, std::string("write: ") + uv_strerror(status));
    return;
  }
  if (c->refuse_after_write) {
    self->refuse(c, c->out_last);
    return;
  }
  self->maybe_hand_over(c);
}

// Both sides' messages are through: the stream goes to Raft.
void TransportImpl::maybe_hand_over(Conn* c) {
  if (!c->peer_done || c->writes_pending > 0 || c->ending) return;
  if (closing_) {
    end(c, RAFT_CANCELED);
    return;
  }
  if (c->adopt) {
    Status s = options_.on_adopt ? options_.on_adopt(c->peer_hello.cluster_id) : Status::ok();
    if (!s.is_ok()) {
      refuse(c,
             "cannot keep the cluster id " + c->peer_hello.cluster_id.hex() + ": " + s.to_string());
      return;
    }
    {
      std::lock_guard lock(id_mu_);
      cluster_id_ = c->peer_hello.cluster_id;
    }
    std::fprintf(stderr, "%s: joined cluster %s (first contact %s)\n", options_.log_name.c_str(),
                 c->peer_hello.cluster_id.hex().c_str(), c->peer.c_str());
  }
  auto* stream = reinterpret_cast<uv_stream_t*>(c->tcp);
  c->tcp = nullptr;
  --c->handles_open;
  stream->data = nullptr;
  const uint64_t peer_id = c->peer_hello.id;
  const std::string peer_address = c->peer_hello.address;
  raft_uv_connect* req = c->req;
  c->req = nullptr;
  end(c, 0);  // closes the timer only
  if (req != nullptr) {
    req->cb(req, stream, 0);
  } else {
    watch_close(stream, peer_id);
    accept_cb_(&raw_, peer_id, peer_address.c_str(), stream);
  }
}

void TransportImpl::watch_close(uv_stream_t* stream, uint64_t peer_id) {
  if (!close_watch_open_) return;
  uv_os_fd_t fd = -1;
  if (uv_fileno(reinterpret_cast<uv_handle_t*>(stream), &fd) != 0) return;
  epoll_event ev{};
  ev.events = EPOLLRDHUP | EPOLLONESHOT;
  ev.data.u64 = peer_id;
  (void)::epoll_ctl(close_watch_fd_, EPOLL_CTL_ADD, fd, &ev);
}

void TransportImpl::on_close_watch(uv_poll_t* poll, int /*status*/, int /*events*/) {
  auto* self = static_cast<TransportImpl*>(poll->data);
  epoll_event events[16];
  const int n = ::epoll_wait(self->close_watch_fd_, events, 16, 0);
  for (int i = 0; i < n; ++i) {
    if ((events[i].events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0 && !self->closing_) {
      self->options_.on_peer_closed(events[i].data.u64);
    }
  }
}

void TransportImpl::on_close_watch_closed(uv_handle_t* h) {
  auto* self = static_cast<TransportImpl*>(h->data);
  ::close(self->close_watch_fd_);
  self->close_watch_fd_ = -1;
  self->close_watch_open_ = false;
  self->maybe_fire_close();
}

void TransportImpl::on_deadline(uv_timer_t* timer) {
  Conn* c = conn_of(reinterpret_cast<uv_handle_t*>(timer));
  if (c->step == Conn::Step::kConnecting) {
    // An unreachable host: no refusal, Raft retries.
    c->t->end(c, RAFT_NOCONNECTION);
    return;
  }
  c->t->refuse(c, "no complete handshake within " +
                      std::to_string(c->t->options_.handshake_deadline.count()) + " ms");
}

void TransportImpl::refuse(Conn* c, const std::string& why) {
  if (c->ending) return;
  refused_.fetch_add(1);
  (void)log_.print(options_.log_name + ": Raft connection " + c->peer + " refused: " + why);
  end(c, RAFT_NOCONNECTION);
}

void TransportImpl::end(Conn* c, int result) {
  if (c->ending) return;
  c->ending = true;
  c->result = result;
  if (c->tcp != nullptr) {
    uv_close(reinterpret_cast<uv_handle_t*>(c->tcp), &TransportImpl::on_handle_closed);
  }
  if (c->timer.data != nullptr) {
    uv_close(reinterpret_cast<uv_handle_t*>(&c->timer), &TransportImpl::on_handle_closed);
  }
  ORDO_ASSERT(c->handles_open > 0);
}

void TransportImpl::on_handle_closed(uv_handle_t* h) {
  Conn* c = conn_of(h);
  if (c->tcp != nullptr && h == reinterpret_cast<uv_handle_t*>(c->tcp)) {
    raft_free(c->tcp);
    c->tcp = nullptr;
  }
  if (--c->handles_open > 0) return;
  TransportImpl* self = c->t;
  raft_uv_connect* req = c->req;
  const int result = c->result;
  self->conns_.erase(c->pos);
  delete c;
  // An outgoing connection that never reached Raft: Raft hears why (it
  // retries later).
  if (req != nullptr) req->cb(req, nullptr, result);
  self->maybe_fire_close();
}

void TransportImpl::close_cb(raft_uv_transport* t, raft_uv_transport_close_cb cb) {
  TransportImpl* self = of(t);
  ORDO_ASSERT(!self->closing_);
  self->closing_ = true;
  self->close_done_ = cb;
  if (self->listener_open_) {
    uv_close(reinterpret_cast<uv_handle_t*>(&self->listener_), &TransportImpl::on_listener_closed);
  }
  if (self->close_watch_open_) {
    uv_close(reinterpret_cast<uv_handle_t*>(&self->close_watch_),
             &TransportImpl::on_close_watch_closed);
  }
  // end() may not erase: each Conn leaves the list in its close callback.
  for (Conn* c : self->conns_) self->end(c, RAFT_CANCELED);
  self->maybe_fire_close();
}

void TransportImpl::on_listener_closed(uv_handle_t* h) {
  auto* self = static_cast<TransportImpl*>(h->data);
  self->listener_open_ = false;
  self->maybe_fire_close();
}

void TransportImpl::maybe_fire_close() {
  if (!closing_ || listener_open_ || close_watch_open_ || !conns_.empty() ||
      close_done_ == nullptr) {
    return;
  }
  raft_uv_transport_close_cb cb = close_done_;
  close_done_ = nullptr;
  cb(&raw_);
}

}  // namespace

std::unique_ptr<RaftTransport> make_raft_transport(uv_loop_s* loop, RaftTransportOptions options) {
  return std::make_unique<TransportImpl>(loop, std::move(options));
}

}  // namespace ordo::replica
