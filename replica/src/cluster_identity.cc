#include "cluster_identity.h"

#include <fcntl.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "ordo/base/errno_status.h"
#include "ordo/base/replacement_file.h"
#include "ordo/hex.h"

namespace ordo::replica {

namespace {

constexpr std::string_view kIdDomain = "ordo cluster id v1";
constexpr std::string_view kFileHeader = "ordo cluster id 1";
// A cluster file is a few lines; anything longer is not one.
constexpr size_t kMaxFileBytes = 64 * 1024;
constexpr base::OutputKind kClusterOutput{"cluster id", "written", "writing"};

std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// The lines the checksum covers.
std::string file_body(const ClusterFile& f) {
  return std::string(kFileHeader) + "\nid " + f.id.hex() + "\npeers " + f.peers + "\n";
}

}  // namespace

bool ClusterId::known() const {
  return std::any_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b != 0; });
}

std::string ClusterId::hex() const {
  return hex_string(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

Result<ClusterId> parse_cluster_id(std::string_view hex) {
  const auto bad = [&](const char* why) {
    return Status::invalid_argument("cluster id '" + std::string(hex.substr(0, 64)) + "' " + why);
  };
  if (hex.size() != 32) return bad("is not 32 hex digits");
  ClusterId id;
  for (size_t i = 0; i < 16; ++i) {
    const int hi = hex_digit_value(hex[2 * i]);
    const int lo = hex_digit_value(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return bad("is not 32 hex digits");
    id.bytes[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  if (!id.known()) return bad("is all zeros");
  return id;
}

std::string peer_list_text(const std::vector<Member>& members) {
  std::vector<const Member*> sorted;
  for (const Member& m : members) sorted.push_back(&m);
  std::sort(sorted.begin(), sorted.end(),
            [](const Member* a, const Member* b) { return a->id < b->id; });
  std::string out;
  for (const Member* m : sorted) {
    if (!out.empty()) out += ",";
    out += std::to_string(m->id) + "=" + m->address;
  }
  return out;
}

ClusterId cluster_id_of(std::string_view token, const std::vector<Member>& members) {
  // Length-prefixed parts: no token and list run into each other.
  std::string input(kIdDomain);
  const std::string peers = peer_list_text(members);
  for (std::string_view part : {std::string_view(token), std::string_view(peers)}) {
    input += '\0';
    input += std::to_string(part.size());
    input += ':';
    input += part;
  }
  const XXH128_hash_t h = XXH3_128bits(input.data(), input.size());
  ClusterId id;
  for (int i = 0; i < 8; ++i) {
    id.bytes[i] = static_cast<uint8_t>(h.high64 >> (56 - 8 * i));
    id.bytes[8 + i] = static_cast<uint8_t>(h.low64 >> (56 - 8 * i));
  }
  // An all-zero hash would read as "unknown"; it has probability 2^-128.
  if (!id.known()) id.bytes[15] = 1;
  return id;
}

Result<std::optional<ClusterFile>> read_cluster_file(const std::string& dir) {
  const std::string path = dir + "/" + std::string(kClusterFile);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT) return std::optional<ClusterFile>();
    return Status::io_error("read " + path, errno);
  }
  std::string text(kMaxFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  const auto corrupt = [&](const std::string& why) {
    return Status::corruption(path + ": " + why + " (remove it to write it again from --peers)");
  };
  if (text.size() > kMaxFileBytes) return corrupt("not a cluster file (too long)");
  std::istringstream lines(text);
  std::string header, id_line, peers_line, check_line;
  if (!std::getline(lines, header) || header != kFileHeader) {
    return corrupt("not a cluster file");
  }
  if (!std::getline(lines, id_line) || !std::getline(lines, peers_line) ||
      !std::getline(lines, check_line) || id_line.rfind("id ", 0) != 0 ||
      peers_line.rfind("peers ", 0) != 0 || check_line.rfind("check ", 0) != 0) {
    return corrupt("truncated");
  }
  ClusterFile f;
  Result<ClusterId> id = parse_cluster_id(std::string_view(id_line).substr(3));
  if (!id.is_ok()) return corrupt(id.status().message());
  f.id = *id;
  f.peers = peers_line.substr(6);
  const std::string body = file_body(f);
  if (check_line.substr(6) != hex64(XXH3_64bits(body.data(), body.size()))) {
    return corrupt("checksum mismatch");
  }
  return std::optional<ClusterFile>(std::move(f));
}

Status write_cluster_file(const std::string& dir, const ClusterFile& file) {
  const std::string path = dir + "/" + std::string(kClusterFile);
  const std::string body = file_body(file);
  const std::string text = body + "check " + hex64(XXH3_64bits(body.data(), body.size())) + "\n";
  base::ReplacementFile out;
  ORDO_RETURN_IF_ERROR(out.create(path, /*overwrite=*/true, "", kClusterOutput));
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(out.fd(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::io_error("write " + path, errno);
    done += static_cast<size_t>(n);
  }
  if (::fdatasync(out.fd()) != 0) return Status::io_error("fdatasync " + path, errno);
  return out.publish(/*overwrite=*/true);
}

Result<ClusterId> settle_cluster_id(const ReplicaOptions& options, bool has_raft_state,
                                    const std::function<void(const std::string&)>& notice) {
  std::optional<ClusterId> pinned;
  if (!options.cluster_id.empty()) {
    ORDO_ASSIGN_OR_RETURN(ClusterId id, parse_cluster_id(options.cluster_id));
    pinned = id;
  }
  ClusterFile wanted;
  // A directory that will not bootstrap takes its id from the leader (or
  // cluster_id); the list only checks the id of one that has Raft state.
  const bool from_list = !options.bootstrap.empty() &&
                         (has_raft_state || options.initial_cluster_state ==
                                                ReplicaOptions::InitialClusterState::kNew);
  if (from_list) {
    wanted.id = cluster_id_of(options.cluster_token, options.bootstrap);
    wanted.peers = peer_list_text(options.bootstrap);
    if (pinned && *pinned != wanted.id) {
      return Status::invalid_argument("the cluster id given (" + pinned->hex() +
                                      ") is not the one the bootstrap peers and token give (" +
                                      wanted.id.hex() + ", peers " + wanted.peers + ")");
    }
  } else if (pinned) {
    wanted.id = *pinned;
  }
  ORDO_ASSIGN_OR_RETURN(std::optional<ClusterFile> stored, read_cluster_file(options.dir));
  if (stored) {
    if (wanted.id.known() && wanted.id != stored->id) {
      const std::string stored_peers = stored->peers.empty() ? "not recorded" : stored->peers;
      const std::string given = from_list ? "the bootstrap peers and token give cluster " +
                                                wanted.id.hex() + " (peers " + wanted.peers + ")"
                                          : "the cluster id given is " + wanted.id.hex();
      return Status::invalid_argument(
          "data directory " + options.dir + " belongs to cluster " + stored->id.hex() +
          " (bootstrap peers " + stored_peers + "), but " + given +
          ": start it with the peers and token the cluster was made with, or with an empty "
          "directory and --join to add it as a new member");
    }
    return stored->id;
  }
  if (!wanted.id.known()) return ClusterId();  // adopted from the first leader
  ORDO_RETURN_IF_ERROR(write_cluster_file(options.dir, wanted));
  if (has_raft_state) {
    notice("data directory " + options.dir + " had no cluster file: wrote cluster id " +
           wanted.id.hex() + (wanted.peers.empty() ? "" : " from peers " + wanted.peers));
  }
  return wanted.id;
}

}  // namespace ordo::replica
