// The handshake that opens every connection on the Raft port, before any
// byte reaches Raft (raft_transport.h drives it over libuv). Pure functions:
// encode, parse and check the messages, and their MACs.
//
// Messages, all integers big-endian:
//   connector -> acceptor  hello
//   acceptor  -> connector hello, mac (32 bytes)
//   connector -> acceptor  mac (32 bytes)
// hello: magic "ORDORAFT", version u32, flags u32 (bit 0: the sender holds
// a cluster secret), cluster id (16 bytes), nonce (32 random bytes), member
// id u64, address length u32 (1..kMaxAddressBytes), address (the sender's
// Raft address, no NUL byte).
// With a secret each side's mac is HMAC-SHA256(secret, label || connector's
// hello || acceptor's hello), the label telling the two roles apart, so it
// covers both nonces, the cluster id, both ids and both addresses; without a
// secret the macs are zeros and only the cluster id is checked.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "cluster_identity.h"
#include "ordo/byte_view.h"
#include "ordo/status.h"

namespace ordo::replica {

inline constexpr std::string_view kHandshakeMagic = "ORDORAFT";
inline constexpr uint32_t kHandshakeVersion = 1;
inline constexpr uint32_t kHandshakeFlagSecret = 1;
inline constexpr size_t kNonceBytes = 32;
inline constexpr size_t kMacBytes = 32;
inline constexpr size_t kMaxAddressBytes = 255;
// magic, version, flags, cluster id, nonce, id, address length.
inline constexpr size_t kHelloHeaderBytes = 8 + 4 + 4 + 16 + kNonceBytes + 8 + 4;
// The smallest secret accepted.
inline constexpr size_t kMinSecretBytes = 32;

using Nonce = std::array<uint8_t, kNonceBytes>;
using Mac = std::array<uint8_t, kMacBytes>;

struct Hello {
  bool has_secret = false;
  ClusterId cluster_id;
  Nonce nonce{};
  uint64_t id = 0;
  std::string address;
};

// The hello's bytes. `hello.address` must be 1..kMaxAddressBytes bytes
// without NUL and id > 0 (asserted: the replica's own, validated at open).
std::string encode_hello(const Hello& hello);

// From a hello's first kHelloHeaderBytes: how many address bytes follow.
// InvalidArgument naming the problem (not a hello: wrong magic; another
// version; unknown flags; an address length of 0 or over kMaxAddressBytes).
// Safe on any bytes; `header` shorter than kHelloHeaderBytes is refused.
Result<size_t> hello_address_bytes(ByteView header);

// A whole hello (header and address, nothing more). InvalidArgument as
// hello_address_bytes, and for a length that disagrees with the header, id 0
// or an address holding a NUL byte. Safe on any bytes.
Result<Hello> parse_hello(ByteView bytes);

// Whether the peer's hello may go on: Ok, or InvalidArgument saying why
// (the peer holds a secret and this side not, or the other way round;
// another cluster id; an unknown cluster id). With `adopt_unknown_own`, a
// side without a cluster id yet (!own.known()) accepts any known peer id.
Status check_peer_hello(const Hello& peer, const ClusterId& own, bool own_has_secret,
                        bool adopt_unknown_own);

// kRemoval: the MAC of a removal notice (removed_notice.h), over its
// text as `connector_hello` and nothing as `acceptor_hello`.
enum class MacRole : uint8_t { kAcceptor, kConnector, kRemoval };

// HMAC-SHA256(secret, role label || connector_hello || acceptor_hello);
// zeros when `secret` is empty.
Mac handshake_mac(std::string_view secret, MacRole role, ByteView connector_hello,
                  ByteView acceptor_hello);

// Constant-time comparison (CRYPTO_memcmp); false when `got` is not
// kMacBytes long.
bool mac_matches(const Mac& expected, ByteView got);

// kNonceBytes from the OpenSSL random generator. IOError if it fails.
Result<Nonce> random_nonce();

}  // namespace ordo::replica
