#include "metrics.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>

#include "ordo/assert.h"
#include "ordo/sys/socket.h"

namespace ordo::node {
namespace {

constexpr size_t kMaxRequestHeadBytes = 8192;
constexpr auto kConnectionDeadline = std::chrono::seconds(2);
constexpr auto kStopPoll = std::chrono::milliseconds(200);

// The histogram slot of `op`, or -1 for the ops not timed.
int timed_slot(Op op) {
  switch (op) {
    case Op::kPut:
      return 0;
    case Op::kGet:
      return 1;
    case Op::kBatch:
      return 2;
    default:
      return -1;
  }
}

constexpr std::array<Op, 3> kTimedOps = {Op::kPut, Op::kGet, Op::kBatch};

// A metric name part: [a-zA-Z0-9_], anything else as '_'.
std::string sanitize(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!ok) c = '_';
  }
  return out;
}

// A label value with '\', '"' and newlines escaped.
std::string escape_label(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') {
      out.push_back('\\');
      out.push_back(c);
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

bool is_unsigned(std::string_view text) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

std::string format_double(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string http_response(int code, const char* reason, const std::string& content_type,
                          const std::string& body) {
  std::string out = "HTTP/1.0 " + std::to_string(code) + " " + reason + "\r\n";
  out += "Content-Type: " + content_type + "\r\n";
  out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  out += "Connection: close\r\n\r\n";
  out += body;
  return out;
}

// The help of the status entries exported as 0/1 gauges; nullptr for the others.
const char* text_gauge_help(const std::string& name) {
  if (name == "apply_error") return "1 while this node cannot apply a committed entry.";
  if (name == "disk_wait") return "1 while Raft waits for room on its disk to restart.";
  if (name == "install_error") return "1 while the last snapshot fetch or install failed.";
  return nullptr;
}

}  // namespace

Metrics& node_metrics() {
  static Metrics metrics;
  return metrics;
}

void Metrics::record_request(Op op, ReplyCode code, std::chrono::nanoseconds latency) {
  const auto o = static_cast<size_t>(op);
  const auto c = static_cast<size_t>(code);
  // Decoded requests and replies have bytes below these bounds.
  ORDO_DCHECK(o < kOps && c < kCodes);
  if (o < kOps && c < kCodes) requests_[o][c].fetch_add(1, std::memory_order_relaxed);
  const int slot = timed_slot(op);
  if (slot < 0) return;
  Histogram& h = latency_[static_cast<size_t>(slot)];
  const double seconds = std::chrono::duration<double>(latency).count();
  size_t bucket = 0;
  while (bucket < kBucketsSeconds.size() && seconds > kBucketsSeconds[bucket]) ++bucket;
  h.buckets[bucket].fetch_add(1, std::memory_order_relaxed);
  h.sum_ns.fetch_add(static_cast<uint64_t>(latency.count()), std::memory_order_relaxed);
}

std::string Metrics::render(const std::vector<std::pair<std::string, std::string>>& status) const {
  std::string out;
  for (const auto& [name, value] : status) {
    if (name == "role") {
      out += "# HELP ordo_role 1 for this node's Raft role, 0 for the others.\n";
      out += "# TYPE ordo_role gauge\n";
      bool known = false;
      for (const char* role : {"unavailable", "follower", "candidate", "leader"}) {
        known = known || value == role;
        out +=
            std::string("ordo_role{role=\"") + role + "\"} " + (value == role ? "1" : "0") + "\n";
      }
      if (!known) out += "ordo_role{role=\"" + escape_label(value) + "\"} 1\n";
    } else if (const char* help = text_gauge_help(name)) {
      // A text entry that is "" while all is well: 1 while it is not.
      const std::string metric = "ordo_" + name;
      out += "# HELP " + metric + " " + help + "\n";
      out += "# TYPE " + metric + " gauge\n";
      out += metric + " " + (value.empty() ? "0" : "1") + "\n";
    } else if (is_unsigned(value)) {
      const std::string metric = "ordo_" + sanitize(name);
      out += "# HELP " + metric + " The status entry " + sanitize(name) + ".\n";
      out += "# TYPE " + metric + " gauge\n";
      out += metric + " " + value + "\n";
    }
  }
  out += "# HELP ordo_requests_total Requests served, by op and reply code.\n";
  out += "# TYPE ordo_requests_total counter\n";
  for (size_t o = 0; o < kOps; ++o) {
    for (size_t c = 0; c < kCodes; ++c) {
      const uint64_t n = requests_[o][c].load(std::memory_order_relaxed);
      if (n == 0) continue;
      out += std::string("ordo_requests_total{op=\"") + op_name(static_cast<Op>(o)) + "\",code=\"" +
             reply_code_wire_name(static_cast<ReplyCode>(c)) + "\"} " + std::to_string(n) + "\n";
    }
  }
  out += "# HELP ordo_request_duration_seconds Time to handle a request, by op.\n";
  out += "# TYPE ordo_request_duration_seconds histogram\n";
  for (size_t slot = 0; slot < kTimed; ++slot) {
    const Histogram& h = latency_[slot];
    const std::string op = op_name(kTimedOps[slot]);
    uint64_t cumulative = 0;
    for (size_t b = 0; b < h.buckets.size(); ++b) {
      cumulative += h.buckets[b].load(std::memory_order_relaxed);
      const std::string le =
          b < kBucketsSeconds.size() ? format_double(kBucketsSeconds[b]) : std::string("+Inf");
      out += "ordo_request_duration_seconds_bucket{op=\"" + op + "\",le=\"" + le + "\"} " +
             std::to_string(cumulative) + "\n";
    }
    out += "ordo_request_duration_seconds_sum{op=\"" + op + "\"} " +
           format_double(static_cast<double>(h.sum_ns.load(std::memory_order_relaxed)) / 1e9) +
           "\n";
    out += "ordo_request_duration_seconds_count{op=\"" + op + "\"} " + std::to_string(cumulative) +
           "\n";
  }
  out += "# HELP ordo_compare_failures_total Writes refused by a failed guard.\n";
  out += "# TYPE ordo_compare_failures_total counter\n";
  out += "ordo_compare_failures_total " + std::to_string(compare_failed_.load()) + "\n";
  out += "# HELP ordo_apply_failures_total Writes whose apply failed alike on every replica.\n";
  out += "# TYPE ordo_apply_failures_total counter\n";
  out += "ordo_apply_failures_total " + std::to_string(apply_failed_.load()) + "\n";
  ORDO_ASSERT(!out.empty() && out.back() == '\n');
  return out;
}

Result<std::unique_ptr<MetricsServer>> MetricsServer::start(const std::string& address,
                                                            std::function<std::string()> render) {
  ORDO_ASSIGN_OR_RETURN(int fd, sys::listen_on(address, 16, sys::Blocking::kNo));
  ORDO_ASSERT(fd >= 0);
  return std::unique_ptr<MetricsServer>(new MetricsServer(fd, std::move(render)));
}

MetricsServer::MetricsServer(int listen_fd, std::function<std::string()> render)
    : listen_fd_(listen_fd), render_(std::move(render)) {
  ORDO_ASSERT(listen_fd_ >= 0 && render_);
  thread_ = std::thread([this] { run(); });
}

MetricsServer::~MetricsServer() {
  stop_.store(true);
  ORDO_ASSERT(thread_.joinable());
  thread_.join();
  ::close(listen_fd_);
}

void MetricsServer::run() {
  ORDO_ASSERT(listen_fd_ >= 0);
  while (!stop_.load()) {
    pollfd p{listen_fd_, POLLIN, 0};
    int n = ::poll(&p, 1, static_cast<int>(kStopPoll.count()));
    if (n <= 0) continue;
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) continue;
    serve(fd);
    ::close(fd);
  }
}

void MetricsServer::serve(int fd) {
  ORDO_ASSERT(fd >= 0);
  const sys::Deadline deadline = std::chrono::steady_clock::now() + kConnectionDeadline;
  // The request head: up to the blank line. The body (none for GET) is not read.
  std::string head;
  char buf[1024];
  while (head.find("\r\n\r\n") == std::string::npos && head.find("\n\n") == std::string::npos) {
    if (head.size() >= kMaxRequestHeadBytes) {
      (void)sys::send_all(fd,
                          http_response(431, "Request Header Fields Too Large", "text/plain",
                                        "request head over 8 KiB\n"),
                          deadline);
      return;
    }
    Result<size_t> got =
        sys::recv_some(fd, buf, std::min(sizeof buf, kMaxRequestHeadBytes - head.size()), deadline);
    if (!got.is_ok()) return;  // closed, reset or too slow: nothing to answer
    head.append(buf, *got);
  }
  // "METHOD TARGET HTTP/x.y"
  const std::string line = head.substr(0, head.find_first_of("\r\n"));
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string::npos ? std::string::npos : line.find(' ', sp1 + 1);
  if (sp2 == std::string::npos || line.compare(sp2 + 1, 5, "HTTP/") != 0) {
    (void)sys::send_all(fd, http_response(400, "Bad Request", "text/plain", "not HTTP\n"),
                        deadline);
    return;
  }
  const std::string method = line.substr(0, sp1);
  std::string target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  target = target.substr(0, target.find('?'));
  std::string reply;
  if (method != "GET") {
    reply = http_response(405, "Method Not Allowed", "text/plain", "GET only\n");
  } else if (target != "/metrics") {
    reply = http_response(404, "Not Found", "text/plain", "try /metrics\n");
  } else {
    reply = http_response(200, "OK", "text/plain; version=0.0.4; charset=utf-8", render_());
  }
  (void)sys::send_all(fd, reply, deadline);
}

}  // namespace ordo::node
