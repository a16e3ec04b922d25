#include "http_client.h"

#include <charconv>

#include "ordo/sys/socket.h"

namespace ordo::bench {
namespace {

// The largest response accepted: the gateway's answers are a few hundred bytes.
constexpr size_t kMaxResponseBytes = 16 << 20;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

}  // namespace

HttpClient::HttpClient(std::string host_port, std::chrono::milliseconds timeout,
                       std::shared_ptr<const sys::TlsContext> tls)
    : host_port_(std::move(host_port)), timeout_(timeout), tls_(std::move(tls)) {}

HttpClient::~HttpClient() { close(); }

HttpClient::HttpClient(HttpClient&& other) noexcept
    : host_port_(std::move(other.host_port_)),
      timeout_(other.timeout_),
      tls_(std::move(other.tls_)),
      stream_(std::move(other.stream_)),
      buffer_(std::move(other.buffer_)) {}

void HttpClient::close() {
  stream_.close();
  buffer_.clear();
}

Status HttpClient::connect_now() {
  ORDO_ASSIGN_OR_RETURN(const sys::HostPort to, sys::parse_address(host_port_));
  const sys::Deadline deadline = sys::deadline_in(timeout_);
  ORDO_ASSIGN_OR_RETURN(const int fd, sys::connect_to(to, deadline));
  if (tls_ != nullptr) {
    Result<sys::Stream> secured = tls_->handshake(fd, deadline);
    if (!secured.is_ok()) return secured.status().with_context("connect to " + host_port_);
    stream_ = std::move(*secured);
  } else {
    stream_ = sys::Stream(fd);
  }
  buffer_.clear();
  return Status::ok();
}

Status HttpClient::send_all(std::string_view data) {
  Status s = stream_.send_all(data, sys::deadline_in(timeout_));
  if (!s.is_ok()) {
    close();
    return s.with_context("send to " + host_port_);
  }
  return Status::ok();
}

Status HttpClient::read_more() {
  if (buffer_.size() > kMaxResponseBytes) {
    close();
    return Status::corruption("response from " + host_port_ + " larger than 16 MiB");
  }
  char chunk[8192];
  Result<size_t> n = stream_.recv_some(chunk, sizeof chunk, sys::deadline_in(timeout_));
  if (!n.is_ok()) {
    close();
    return n.status().with_context("receive from " + host_port_);
  }
  buffer_.append(chunk, *n);
  return Status::ok();
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
  if (!stream_.is_open()) ORDO_RETURN_IF_ERROR(connect_now());
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
    return Status::corruption("not an HTTP status line from " + host_port_ + ": '" + status_line +
                              "'");
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
      has_length =
          std::from_chars(value.data(), value.data() + value.size(), length).ec == std::errc();
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
