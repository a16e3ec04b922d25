// The snapshot channel's messages as bytes (snapshot_server.h describes the
// exchange): the request line and the server's header, built and parsed by
// pure functions so that the parsing is tested and fuzzed apart from the
// sockets. Thread-safety: free functions without shared state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "cluster_identity.h"
#include "ordo/status.h"

namespace ordo::replica {

// A copy request line: kCopyRequest, ' ', the cluster id asked for (32 hex
// digits; 32 zeros when the asking replica does not know its own yet).
inline constexpr std::string_view kCopyRequest = "ORDOCOPY 3";
// The header's first field when the server made no copy (sent alone).
inline constexpr uint64_t kNoCopy = ~uint64_t{0};
// The first field when the request named another cluster; the server's
// cluster id (16 bytes) follows.
inline constexpr uint64_t kWrongCluster = ~uint64_t{0} - 1;
// A header that announces a copy: size, XXH3-64 and applied index, each
// 8 big-endian bytes, then the server's cluster id (16 bytes). The first
// field alone tells a refusal (kNoCopy, kWrongCluster) and how many bytes
// follow it (copy_header_bytes).
inline constexpr size_t kFirstFieldBytes = 8;
inline constexpr size_t kCopyHeaderBytes = 40;
inline constexpr size_t kWrongClusterBytes = 24;

struct CopyHeader {
  uint64_t size_bytes = 0;  // never kNoCopy nor kWrongCluster
  uint64_t xxh3 = 0;
  uint64_t applied_index = 0;
  ClusterId cluster_id;  // the server's
};

// The request line (without its '\n') asking for a copy of `cluster`.
std::string encode_copy_request(const ClusterId& cluster);
// The cluster a request line (without its '\n') asks for; InvalidArgument
// for a line that is not a copy request. Safe on any bytes.
Result<ClusterId> parse_copy_request(std::string_view line);

// The header announcing a copy. REQUIRES header.size_bytes is neither
// kNoCopy nor kWrongCluster.
std::string encode_copy_header(const CopyHeader& header);
// The refusals: kNoCopy alone; kWrongCluster and the server's id `own`.
std::string encode_no_copy();
std::string encode_wrong_cluster(const ClusterId& own);

// How many bytes the server's answer whose first field is `first_field`
// (8 big-endian bytes) holds in all: kFirstFieldBytes, kWrongClusterBytes
// or kCopyHeaderBytes.
size_t copy_header_bytes(std::string_view first_field);

// Parses the server's answer: kNoCopy alone (NotFound "made no copy"),
// kWrongCluster and an id (InvalidArgument "wrong cluster: the snapshot
// server is cluster X"),
// or a whole header. InvalidArgument naming the problem for fewer than 8
// bytes, an answer cut short, or bytes past its end. Safe on any bytes.
Result<CopyHeader> decode_copy_header(std::string_view bytes);

}  // namespace ordo::replica
