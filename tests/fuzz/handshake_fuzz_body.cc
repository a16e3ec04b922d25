#include "handshake_fuzz_body.h"

#include <string_view>

#include "ordo/assert.h"
#include "raft_handshake.h"

namespace ordo::fuzz {

void parse_raft_handshake(const uint8_t* data, size_t size) {
  using namespace ordo::replica;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // As the transport reads: the header, then exactly the address it declares.
  Result<size_t> address_bytes = hello_address_bytes(bytes);
  if (address_bytes.is_ok()) {
    ORDO_ASSERT(*address_bytes >= 1 && *address_bytes <= kMaxAddressBytes);
  }
  Result<Hello> hello = parse_hello(bytes);
  if (!hello.is_ok()) return;
  ORDO_ASSERT(address_bytes.is_ok() && bytes.size() == kHelloHeaderBytes + *address_bytes);
  ORDO_ASSERT(encode_hello(*hello) == bytes);
  const ClusterId own = cluster_id_of("", {{1, "127.0.0.1:7001", true}});
  (void)check_peer_hello(*hello, own, hello->has_secret, false);
  (void)check_peer_hello(*hello, ClusterId(), !hello->has_secret, true);
}

}  // namespace ordo::fuzz
