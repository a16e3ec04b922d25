// A minimal HTTP/1.1 client for etcd's JSON gateway: one keep-alive TCP
// connection (plain, or TLS when given a client TlsContext) to one IPv4
// address, POST requests with a JSON body, responses read by Content-Length
// or chunked transfer coding.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "ordo/status.h"
#include "ordo/sys/stream.h"
#include "ordo/sys/tls.h"

namespace ordo::bench {

struct HttpResponse {
  int status = 0;    // e.g. 200
  std::string body;  // decoded (chunks joined)
};

// Move-only; one thread at a time.
class HttpClient {
 public:
  // `host_port`: "IPv4:port", e.g. "127.0.0.1:23790". `timeout` bounds the
  // connect, the sending of a request and each receive (sys/socket.h), not
  // the whole request. With `tls` (a client context), each connection is
  // TLS (https) and its handshake is bounded by `timeout` too.
  HttpClient(std::string host_port, std::chrono::milliseconds timeout,
             std::shared_ptr<const sys::TlsContext> tls = nullptr);
  ~HttpClient();
  HttpClient(HttpClient&& other) noexcept;
  HttpClient& operator=(HttpClient&&) = delete;
  HttpClient(const HttpClient&) = delete;

  // POSTs `body` (Content-Type: application/json) to `path` and reads the
  // response. Connects first when not connected; a request that fails on a
  // connection reused from before is not resent (it may have arrived).
  // Errors: InvalidArgument for an address that is not "IPv4:port"; IOError
  // for connect, send or receive failures and timeouts (the connection is
  // closed; the next call reconnects); Corruption for a response that is not
  // HTTP/1.1 as expected.
  Result<HttpResponse> post(std::string_view path, std::string_view body);

  // Closes the connection (the next post reconnects).
  void close();

  const std::string& address() const { return host_port_; }

 private:
  Status connect_now();
  Status send_all(std::string_view data);
  Status read_more();  // appends to buffer_ at least one byte, or fails
  Result<std::string> read_line();
  Status read_exact(size_t n, std::string& out);

  std::string host_port_;
  std::chrono::milliseconds timeout_;
  std::shared_ptr<const sys::TlsContext> tls_;
  sys::Stream stream_;
  std::string buffer_;  // received, not yet consumed
};

}  // namespace ordo::bench
