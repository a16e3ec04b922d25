#include "raft_handshake.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <cstring>

#include "codec.h"
#include "ordo/assert.h"

namespace ordo::replica {

namespace {

constexpr std::string_view kAcceptorLabel = "ordo raft handshake v1 acceptor";
constexpr std::string_view kConnectorLabel = "ordo raft handshake v1 connector";
constexpr std::string_view kRemovedNoticeLabel = "ordo removal notice v1";

Status bad(const std::string& why) { return Status::invalid_argument("raft handshake: " + why); }

void put_u32_prefixed(std::string& out, ByteView bytes) {
  codec::put_u32_be(out, static_cast<uint32_t>(bytes.size()));
  out.append(bytes.char_data(), bytes.size());
}

}  // namespace

std::string encode_hello(const Hello& hello) {
  ORDO_ASSERT(hello.id > 0);
  ORDO_ASSERT(!hello.address.empty() && hello.address.size() <= kMaxAddressBytes);
  ORDO_ASSERT(hello.address.find('\0') == std::string::npos);
  std::string out(kHandshakeMagic);
  codec::put_u32_be(out, kHandshakeVersion);
  codec::put_u32_be(out, hello.has_secret ? kHandshakeFlagSecret : 0);
  out.append(reinterpret_cast<const char*>(hello.cluster_id.bytes.data()), 16);
  out.append(reinterpret_cast<const char*>(hello.nonce.data()), kNonceBytes);
  codec::put_u64_be(out, hello.id);
  codec::put_u32_be(out, static_cast<uint32_t>(hello.address.size()));
  ORDO_ASSERT(out.size() == kHelloHeaderBytes);
  out += hello.address;
  return out;
}

Result<size_t> hello_address_bytes(ByteView header) {
  if (header.size() < kHelloHeaderBytes) {
    return bad("hello of " + std::to_string(header.size()) + " bytes, shorter than its " +
               std::to_string(kHelloHeaderBytes) + "-byte header");
  }
  codec::Reader in(std::string_view(header.char_data(), kHelloHeaderBytes));
  std::string magic;
  if (!in.get_bytes(kHandshakeMagic.size(), magic) || magic != kHandshakeMagic) {
    return bad("not an ordo Raft hello (no ORDORAFT magic)");
  }
  uint32_t version = 0, flags = 0;
  (void)in.get_u32_be(version);
  (void)in.get_u32_be(flags);
  if (version != kHandshakeVersion) {
    return bad("version " + std::to_string(version) + ", this node speaks " +
               std::to_string(kHandshakeVersion));
  }
  if ((flags & ~kHandshakeFlagSecret) != 0) return bad("unknown flags " + std::to_string(flags));
  std::string skip;
  (void)in.get_bytes(16 + kNonceBytes + 8, skip);
  uint32_t address_bytes = 0;
  (void)in.get_u32_be(address_bytes);
  ORDO_ASSERT(in.done());
  if (address_bytes == 0 || address_bytes > kMaxAddressBytes) {
    return bad("address of " + std::to_string(address_bytes) + " bytes (1.." +
               std::to_string(kMaxAddressBytes) + ")");
  }
  return static_cast<size_t>(address_bytes);
}

Result<Hello> parse_hello(ByteView bytes) {
  ORDO_ASSIGN_OR_RETURN(size_t address_bytes, hello_address_bytes(bytes));
  if (bytes.size() != kHelloHeaderBytes + address_bytes) {
    return bad("hello of " + std::to_string(bytes.size()) + " bytes, its header says " +
               std::to_string(kHelloHeaderBytes + address_bytes));
  }
  codec::Reader in(std::string_view(bytes.char_data(), bytes.size()));
  std::string field;
  (void)in.get_bytes(kHandshakeMagic.size() + 4, field);
  uint32_t flags = 0;
  (void)in.get_u32_be(flags);
  Hello h;
  h.has_secret = (flags & kHandshakeFlagSecret) != 0;
  (void)in.get_bytes(16, field);
  std::memcpy(h.cluster_id.bytes.data(), field.data(), 16);
  (void)in.get_bytes(kNonceBytes, field);
  std::memcpy(h.nonce.data(), field.data(), kNonceBytes);
  (void)in.get_u64_be(h.id);
  uint32_t n = 0;
  (void)in.get_u32_be(n);
  (void)in.get_bytes(n, h.address);
  ORDO_ASSERT(in.done());
  if (h.id == 0) return bad("member id 0");
  if (h.address.find('\0') != std::string::npos) return bad("address holds a NUL byte");
  return h;
}

Status check_peer_hello(const Hello& peer, const ClusterId& own, bool own_has_secret,
                        bool adopt_unknown_own) {
  if (peer.has_secret && !own_has_secret) {
    return bad("the peer uses a cluster secret, this node has none (--cluster-secret-file)");
  }
  if (!peer.has_secret && own_has_secret) {
    return bad("the peer has no cluster secret, this node uses one");
  }
  if (!peer.cluster_id.known()) return bad("the peer has no cluster id yet");
  if (!own.known()) {
    if (adopt_unknown_own) return Status::ok();
    return bad("this node has no cluster id yet");
  }
  if (peer.cluster_id != own) {
    return bad("the peer is in cluster " + peer.cluster_id.hex() + ", this node in cluster " +
               own.hex());
  }
  return Status::ok();
}

Mac handshake_mac(std::string_view secret, MacRole role, ByteView connector_hello,
                  ByteView acceptor_hello) {
  Mac mac{};
  if (secret.empty()) return mac;
  std::string input(role == MacRole::kAcceptor    ? kAcceptorLabel
                    : role == MacRole::kConnector ? kConnectorLabel
                                                  : kRemovedNoticeLabel);
  put_u32_prefixed(input, connector_hello);
  put_u32_prefixed(input, acceptor_hello);
  unsigned int n = 0;
  const unsigned char* out =
      HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
           reinterpret_cast<const unsigned char*>(input.data()), input.size(), mac.data(), &n);
  ORDO_ASSERT(out != nullptr && n == kMacBytes);
  return mac;
}

bool mac_matches(const Mac& expected, ByteView got) {
  if (got.size() != kMacBytes) return false;
  return CRYPTO_memcmp(expected.data(), got.data(), kMacBytes) == 0;
}

Result<Nonce> random_nonce() {
  Nonce n{};
  if (RAND_bytes(n.data(), static_cast<int>(n.size())) != 1) {
    return Status::io_error("RAND_bytes failed: no random nonce for the Raft handshake", 0);
  }
  return n;
}

}  // namespace ordo::replica
