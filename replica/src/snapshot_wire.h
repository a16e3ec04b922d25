// The snapshot channel's messages as bytes (snapshot_server.h describes the
// exchange): the request line and the server's header, built and parsed by
// pure functions so that the parsing is tested and fuzzed apart from the
// sockets. Thread-safety: free functions without shared state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ordo/status.h"

namespace ordo::replica {

inline constexpr std::string_view kCopyRequest = "ORDOCOPY 2";
// The header's first field when the server made no copy (sent alone).
inline constexpr uint64_t kNoCopy = ~uint64_t{0};
// A header that announces a copy: size, XXH3-64 and applied index, each
// 8 big-endian bytes. The first 8 alone tell a refusal (kNoCopy).
inline constexpr size_t kCopyHeaderBytes = 24;
inline constexpr size_t kNoCopyBytes = 8;

struct CopyHeader {
  uint64_t size_bytes = 0;  // never kNoCopy
  uint64_t xxh3 = 0;
  uint64_t applied_index = 0;
};

// Whether a request line (without its '\n') asks for a copy.
bool is_copy_request(std::string_view line);

// The header announcing a copy. REQUIRES header.size_bytes != kNoCopy.
std::string encode_copy_header(const CopyHeader& header);
// The refusal: kNoCopy alone.
std::string encode_no_copy();

// Parses what the server sent first: kNoCopyBytes bytes holding kNoCopy
// (NotFound "made no copy"), or a whole header of kCopyHeaderBytes.
// InvalidArgument naming the problem for fewer than 8 bytes, a header cut
// short after its first field, or bytes past the header's end. Safe on any
// bytes.
Result<CopyHeader> decode_copy_header(std::string_view bytes);

}  // namespace ordo::replica
