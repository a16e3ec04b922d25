// Address arithmetic of client.h over the port rule of ordo/sys/node_ports.h.
#include "ordo/sys/address.h"

#include "client.h"
#include "ordo/sys/node_ports.h"

namespace ordo::node {
namespace {

std::string shifted_or_empty(std::string_view address, int delta) {
  Result<std::string> shifted = sys::shift_port(address, delta);
  return shifted.is_ok() ? *shifted : std::string();
}

}  // namespace

std::string raft_address_of(std::string_view client_address) {
  return shifted_or_empty(client_address, sys::kRaftPortOffset);
}
std::string client_address_of(std::string_view raft_address) {
  return shifted_or_empty(raft_address, -sys::kRaftPortOffset);
}

const char* reply_code_name(Reply::Code code) {
  switch (code) {
    case Reply::Code::kOk:
      return "ok";
    case Reply::Code::kNotFound:
      return "not-found";
    case Reply::Code::kFailed:
      return "failed";
    case Reply::Code::kUnknown:
      return "unknown";
    case Reply::Code::kCompareFailed:
      return "compare-failed";
  }
  return "failed";
}

}  // namespace ordo::node
