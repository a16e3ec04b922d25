#include "http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

namespace ordo::bench {
namespace {

// The largest response accepted: the gateway's answers are a few hundred bytes.
constexpr size_t kMaxResponseBytes = 16 << 20;

bool parse_address(const std::string& host_port, sockaddr_in& addr) {
  const size_t colon = host_port.rfind(':');
  if (colon == std::string::npos) return false;
  const std::string host = host_port.substr(0, colon);
  unsigned port = 0;
  const char* first = host_port.data() + colon + 1;
  const char* last = host_port.data() + host_port.size();
  const auto [end, ec] = std::from_chars(first, last, port);
  if (ec != std::errc() || end != last || port == 0 || port > 65535) return false;
  std::memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  return inet_pton(AF_INET, host.c_str(), &addr.sin_addr) == 1;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

}  // namespace

HttpClient::HttpClient(std::string host_port, std::chrono::milliseconds timeout)
    : host_port_(std::move(host_port)), timeout_(timeout) {}

HttpClient::~HttpClient() { close(); }

HttpClient::HttpClient(HttpClient&& other) noexcept
    : host_port_(std::move(other.host_port_)),
      timeout_(other.timeout_),
      fd_(other.fd_),
      buffer_(std::move(other.buffer_)) {
  other.fd_ = -1;
}

void HttpClient::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  buffer_.clear();
}

Status HttpClient::connect_now() {
  sockaddr_in addr;
  if (!parse_address(host_port_, addr)) {
    return Status::invalid_argument("not an IPv4:port address: '" + host_port_ + "'");
  }
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::io_error("socket for " + host_port_, errno);
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout_.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((timeout_.count() % 1000) * 1000);
  const int one = 1;
  // SO_SNDTIMEO also bounds connect() on Linux.
  if (::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0 ||
      ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0 ||
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) {
    const int err = errno;
    ::close(fd);
    return Status::io_error("setsockopt for " + host_port_, err);
  }
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    const int err = errno;
    ::close(fd);
    return Status::io_error("connect to " + host_port_, err);
  }
  fd_ = fd;
  buffer_.clear();
  return Status::ok();
}

Status HttpClient::send_all(std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EPIPE;
      close();
      return Status::io_error("send to " + host_port_, err);
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::ok();
}

Status HttpClient::read_more() {
  if (buffer_.size() > kMaxResponseBytes) {
    close();
    return Status::corruption("response from " + host_port_ + " larger than 16 MiB");
  }
  char chunk[8192];
  for (;;) {
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n > 0) {
      buffer_.append(chunk, static_cast<size_t>(n));
      return Status::ok();
    }
    // 0: the server closed; EAGAIN: the timeout passed.
    const int err = n == 0 ? ECONNRESET : (errno == EAGAIN ? ETIMEDOUT : errno);
    close();
    return Status::io_error("receive from " + host_port_, err);
  }
}

Result<std::string> HttpClient::read_line() {
  for (;;) {
    const size_t eol = buffer_.find("\r\n");
    if (eol != std::string::npos) {
      std::string line = buffer_.substr(0, eol);
      buffer_.erase(0, eol + 2);
      return line;
    }
    ORDO_RETURN_IF_ERROR(read_more());
  }
}

Status HttpClient::read_exact(size_t n, std::string& out) {
  while (buffer_.size() < n) ORDO_RETURN_IF_ERROR(read_more());
  out.append(buffer_, 0, n);
  buffer_.erase(0, n);
  return Status::ok();
}

Result<HttpResponse> HttpClient::post(std::string_view path, std::string_view body) {
  if (fd_ < 0) ORDO_RETURN_IF_ERROR(connect_now());
  std::string request;
  request.reserve(160 + path.size() + body.size());
  request.append("POST ").append(path).append(" HTTP/1.1\r\nHost: ").append(host_port_);
  request.append("\r\nContent-Type: application/json\r\nContent-Length: ");
  request.append(std::to_string(body.size())).append("\r\n\r\n").append(body);
  ORDO_RETURN_IF_ERROR(send_all(request));

  ORDO_ASSIGN_OR_RETURN(const std::string status_line, read_line());
  HttpResponse response;
  // "HTTP/1.1 200 OK"
  if (status_line.size() < 12 || status_line.compare(0, 5, "HTTP/") != 0) {
    close();
    return Status::corruption("not an HTTP status line from " + host_port_ + ": '" +
                              status_line + "'");
  }
  const size_t space = status_line.find(' ');
  std::from_chars(status_line.data() + space + 1, status_line.data() + status_line.size(),
                  response.status);
  bool chunked = false;
  bool closes = false;
  size_t length = 0;
  bool has_length = false;
  for (;;) {
    ORDO_ASSIGN_OR_RETURN(const std::string line, read_line());
    if (line.empty()) break;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string name = lower(std::string_view(line).substr(0, colon));
    std::string value = lower(std::string_view(line).substr(colon + 1));
    value.erase(0, value.find_first_not_of(' '));
    if (name == "content-length") {
      has_length = std::from_chars(value.data(), value.data() + value.size(), length).ec ==
                   std::errc();
    } else if (name == "transfer-encoding") {
      chunked = value.find("chunked") != std::string::npos;
    } else if (name == "connection") {
      closes = value.find("close") != std::string::npos;
    }
  }
  if (chunked) {
    for (;;) {
      ORDO_ASSIGN_OR_RETURN(const std::string size_line, read_line());
      size_t size = 0;
      if (std::from_chars(size_line.data(), size_line.data() + size_line.size(), size, 16).ec !=
          std::errc()) {
        close();
        return Status::corruption("bad chunk size from " + host_port_ + ": '" + size_line + "'");
      }
      if (size == 0) {
        // Trailers, up to the empty line.
        for (;;) {
          ORDO_ASSIGN_OR_RETURN(const std::string trailer, read_line());
          if (trailer.empty()) break;
        }
        break;
      }
      ORDO_RETURN_IF_ERROR(read_exact(size, response.body));
      ORDO_ASSIGN_OR_RETURN(const std::string end, read_line());
      (void)end;
    }
  } else if (has_length) {
    ORDO_RETURN_IF_ERROR(read_exact(length, response.body));
  } else {
    close();
    return Status::corruption("response from " + host_port_ +
                              " has neither Content-Length nor chunked coding");
  }
  if (closes) close();
  return response;
}

}  // namespace ordo::bench
