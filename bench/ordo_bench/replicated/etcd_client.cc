#include "etcd_client.h"

#include <charconv>
#include <nlohmann/json.hpp>

namespace ordo::bench {
namespace {

using json = nlohmann::json;

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int decode_char(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// The gateway prints uint64 fields as JSON strings; a missing field is 0.
uint64_t u64_field(const json& object, const char* name) {
  const auto it = object.find(name);
  if (it == object.end()) return 0;
  if (it->is_number_unsigned()) return it->get<uint64_t>();
  if (!it->is_string()) return 0;
  const std::string& s = it->get_ref<const std::string&>();
  uint64_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = (static_cast<uint8_t>(bytes[i]) << 16) |
                       (static_cast<uint8_t>(bytes[i + 1]) << 8) |
                       static_cast<uint8_t>(bytes[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  const size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t v = static_cast<uint32_t>(static_cast<uint8_t>(bytes[i])) << 16;
    if (rest == 2) v |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[i + 1])) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

Result<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) {
    return Status::invalid_argument("base64 text of " + std::to_string(text.size()) +
                                    " characters, not a multiple of 4");
  }
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = text[i + static_cast<size_t>(k)];
      if (c == '=' && last && k >= 2) {
        v[k] = 0;
        ++pad;
        continue;
      }
      v[k] = decode_char(c);
      if (v[k] < 0 || pad > 0) {
        return Status::invalid_argument("not base64 at character " + std::to_string(i + k));
      }
    }
    const uint32_t bits = (static_cast<uint32_t>(v[0]) << 18) |
                          (static_cast<uint32_t>(v[1]) << 12) | (static_cast<uint32_t>(v[2]) << 6) |
                          static_cast<uint32_t>(v[3]);
    out += static_cast<char>((bits >> 16) & 0xff);
    if (pad < 2) out += static_cast<char>((bits >> 8) & 0xff);
    if (pad < 1) out += static_cast<char>(bits & 0xff);
  }
  return out;
}

EtcdClient::EtcdClient(std::string client_address, std::chrono::milliseconds timeout,
                       std::shared_ptr<const sys::TlsContext> tls)
    : http_(std::move(client_address), timeout, std::move(tls)) {}

Result<std::string> EtcdClient::call(std::string_view path, std::string_view body) {
  ORDO_ASSIGN_OR_RETURN(HttpResponse response, http_.post(path, body));
  if (response.status == 200) return std::move(response.body);
  // The gateway's errors: {"error": "...", "code": N, "message": "..."}.
  std::string message = response.body;
  const json j = json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (j.is_object() && j.contains("message") && j["message"].is_string()) {
    message = j["message"].get<std::string>();
  }
  return Status::busy("etcd " + http_.address() + std::string(path) + ": HTTP " +
                      std::to_string(response.status) + ": " + message);
}

Status EtcdClient::put(std::string_view key, std::string_view value) {
  const std::string body =
      R"({"key":")" + base64_encode(key) + R"(","value":")" + base64_encode(value) + R"("})";
  ORDO_ASSIGN_OR_RETURN(const std::string answer, call("/v3/kv/put", body));
  // {"header":{...}}: a put that is done has a header with a revision.
  if (answer.find("\"revision\"") == std::string::npos) {
    return Status::corruption("etcd " + http_.address() + " put: unexpected answer: " + answer);
  }
  return Status::ok();
}

Result<std::string> EtcdClient::get(std::string_view key) {
  const std::string body = R"({"key":")" + base64_encode(key) + R"("})";
  ORDO_ASSIGN_OR_RETURN(const std::string answer, call("/v3/kv/range", body));
  const json j = json::parse(answer, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) {
    return Status::corruption("etcd " + http_.address() + " range: not JSON: " + answer);
  }
  const auto kvs = j.find("kvs");
  if (kvs == j.end() || !kvs->is_array() || kvs->empty()) {
    return Status::not_found("etcd " + http_.address() + ": no such key");
  }
  const json& kv = kvs->front();
  if (!kv.contains("value")) return std::string();  // an empty value is left out
  if (!kv["value"].is_string()) {
    return Status::corruption("etcd " + http_.address() + " range: value not a string");
  }
  return base64_decode(kv["value"].get<std::string>());
}

Result<EtcdMemberStatus> EtcdClient::status() {
  ORDO_ASSIGN_OR_RETURN(const std::string answer, call("/v3/maintenance/status", "{}"));
  const json j = json::parse(answer, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("header") || !j["header"].is_object()) {
    return Status::corruption("etcd " + http_.address() + " status: unexpected answer: " + answer);
  }
  EtcdMemberStatus s;
  s.member_id = u64_field(j["header"], "member_id");
  s.raft_term = u64_field(j, "raftTerm");
  if (s.raft_term == 0) s.raft_term = u64_field(j["header"], "raft_term");
  s.leader = u64_field(j, "leader");
  return s;
}

}  // namespace ordo::bench
