#include "removed_notice.h"

#include <unistd.h>

#include <charconv>
#include <string>

#include "ordo/hex.h"
#include "ordo/sys/socket.h"
#include "raft_handshake.h"

namespace ordo::replica {
namespace {

std::string hex_of(const Mac& mac) {
  return hex_string(std::string_view(reinterpret_cast<const char*>(mac.data()), mac.size()));
}

// The text the mac covers: everything before it.
std::string notice_text(const RemovedNotice& n) {
  return std::string(kRemovedNotice) + " " + std::to_string(n.id) + " " + std::to_string(n.index) +
         " " + n.cluster.hex();
}

Mac notice_mac(std::string_view text, std::string_view secret) {
  return handshake_mac(secret, MacRole::kRemoval, ByteView(text), ByteView());
}

}  // namespace

std::string encode_removed_notice(const RemovedNotice& notice, std::string_view secret) {
  const std::string text = notice_text(notice);
  return text + " " + hex_of(notice_mac(text, secret));
}

Status send_removed_notice(const sys::HostPort& to, const RemovedNotice& notice,
                           std::string_view secret, std::chrono::milliseconds timeout,
                           const sys::TlsContext* tls) {
  const sys::Deadline deadline = sys::deadline_in(timeout);
  ORDO_ASSIGN_OR_RETURN(int sock, sys::connect_to(to, deadline));
  sys::Stream stream(sock);
  if (tls != nullptr) {
    Result<sys::Stream> secured = tls->handshake(stream.release(), deadline);
    if (!secured.is_ok()) {
      return secured.status().with_context("removal notice to " + sys::format_address(to));
    }
    stream = std::move(*secured);
  }
  const std::string line = encode_removed_notice(notice, secret) + "\n";
  ORDO_DCHECK(line.size() <= kMaxRemovedNoticeBytes);
  return stream.send_all(line, deadline)
      .with_context("removal notice to " + sys::format_address(to));
}

Result<RemovedNotice> parse_removed_notice(std::string_view line, const ClusterId& own,
                                           std::string_view secret) {
  auto bad = [&](const char* why) {
    return Status::invalid_argument(std::string("removal notice refused: ") + why);
  };
  if (line.size() > kMaxRemovedNoticeBytes) return bad("too long");
  std::string_view rest = line;
  if (rest.substr(0, kRemovedNotice.size()) != kRemovedNotice) return bad("not a removal notice");
  rest.remove_prefix(kRemovedNotice.size());
  RemovedNotice n;
  for (uint64_t* field : {&n.id, &n.index}) {
    if (rest.empty() || rest.front() != ' ') return bad("malformed");
    rest.remove_prefix(1);
    auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), *field);
    if (ec != std::errc() || end == rest.data()) return bad("malformed");
    rest.remove_prefix(static_cast<size_t>(end - rest.data()));
  }
  // " <32 hex> <64 hex>"
  if (rest.size() != 1 + 32 + 1 + 64 || rest[0] != ' ' || rest[33] != ' ' || n.id == 0) {
    return bad("malformed");
  }
  Result<ClusterId> cluster = parse_cluster_id(rest.substr(1, 32));
  if (!cluster.is_ok()) return bad("malformed cluster id");
  n.cluster = *cluster;
  if (own.known() && n.cluster != own) return bad("of another cluster");
  const std::string expected = hex_of(notice_mac(notice_text(n), secret));
  // Hex of a MAC: comparing the text in constant time is comparing the MAC.
  const std::string_view got = rest.substr(34);
  bool same = got.size() == expected.size();
  unsigned char diff = 0;
  for (size_t i = 0; same && i < got.size(); ++i) {
    diff |= static_cast<unsigned char>(got[i] ^ expected[i]);
  }
  if (!same || diff != 0) return bad("its mac does not match this node's cluster secret");
  return n;
}

}  // namespace ordo::replica
