// An etcd v3 client over its JSON gateway (etcd 3.4: POST /v3/kv/put,
// /v3/kv/range, /v3/maintenance/status, with keys and values in base64):
// one HttpClient, so one keep-alive connection to one member.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "http_client.h"
#include "ordo/status.h"

namespace ordo::bench {

// Standard base64 (RFC 4648, with padding), as the gateway's bytes fields.
std::string base64_encode(std::string_view bytes);
// InvalidArgument for text that is not padded standard base64.
Result<std::string> base64_decode(std::string_view text);

// What /v3/maintenance/status says of the member asked.
struct EtcdMemberStatus {
  uint64_t member_id = 0;
  uint64_t leader = 0;  // the member id of the leader it knows; 0: none
  uint64_t raft_term = 0;
  bool is_leader() const { return member_id != 0 && member_id == leader; }
};

// Move-only; one thread at a time.
class EtcdClient {
 public:
  // `client_address`: the member's client URL without the scheme, "127.0.0.1:P".
  // With `tls` (a client context with a client certificate): https.
  EtcdClient(std::string client_address, std::chrono::milliseconds timeout,
             std::shared_ptr<const sys::TlsContext> tls = nullptr);

  // A durable put: answered after a majority wrote it to its WAL (fsynced).
  // IOError when the connection failed (the put may or may not be done);
  // Busy naming etcd's error when the gateway answered with one (e.g. no
  // leader, request timed out); Corruption for an unexpected answer.
  Status put(std::string_view key, std::string_view value);

  // The value under `key`; NotFound when there is none. Errors as put.
  Result<std::string> get(std::string_view key);

  // The member's status. Errors as put.
  Result<EtcdMemberStatus> status();

  const std::string& address() const { return http_.address(); }

 private:
  Result<std::string> call(std::string_view path, std::string_view body);

  HttpClient http_;
};

}  // namespace ordo::bench
