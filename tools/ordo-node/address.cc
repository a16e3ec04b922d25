// Address arithmetic of client.h: client port P, Raft port P + 1.
#include "client.h"
#include "socket.h"

namespace ordo::node {
namespace {

std::string shift_port(std::string_view address, int delta) {
  auto hp = parse_address(address);
  if (!hp.is_ok()) return {};
  int port = static_cast<int>(hp->port) + delta;
  if (port < 1 || port > 65535) return {};
  return hp->host + ":" + std::to_string(port);
}

}  // namespace

std::string raft_address_of(std::string_view client_address) { return shift_port(client_address, 1); }
std::string client_address_of(std::string_view raft_address) { return shift_port(raft_address, -1); }

const char* reply_code_name(Reply::Code code) {
  switch (code) {
    case Reply::Code::kOk: return "ok";
    case Reply::Code::kNotFound: return "not-found";
    case Reply::Code::kFailed: return "failed";
    case Reply::Code::kUnknown: return "unknown";
  }
  return "failed";
}

}  // namespace ordo::node
