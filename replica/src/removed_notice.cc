#include "removed_notice.h"

#include <unistd.h>

#include <charconv>
#include <string>

#include "ordo/sys/socket.h"

namespace ordo::replica {

Status send_removed_notice(const sys::HostPort& to, const RemovedNotice& notice,
                           std::chrono::milliseconds timeout, const sys::TlsContext* tls) {
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
  const std::string line = std::string(kRemovedNotice) + " " + std::to_string(notice.id) + " " +
                           std::to_string(notice.index) + "\n";
  return stream.send_all(line, deadline)
      .with_context("removal notice to " + sys::format_address(to));
}

Result<RemovedNotice> parse_removed_notice(std::string_view line) {
  auto bad = [&] {
    return Status::invalid_argument("not a removal notice: '" + std::string(line) + "'");
  };
  if (line.substr(0, kRemovedNotice.size()) != kRemovedNotice) return bad();
  line.remove_prefix(kRemovedNotice.size());
  RemovedNotice n;
  for (uint64_t* field : {&n.id, &n.index}) {
    if (line.empty() || line.front() != ' ') return bad();
    line.remove_prefix(1);
    auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), *field);
    if (ec != std::errc() || end == line.data()) return bad();
    line.remove_prefix(static_cast<size_t>(end - line.data()));
  }
  if (!line.empty() || n.id == 0) return bad();
  return n;
}

}  // namespace ordo::replica
