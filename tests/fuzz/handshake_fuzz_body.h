// The fuzzed operation of ordo-fuzz-handshake: `data` as the bytes a peer
// sends to the Raft port before Raft sees any (raft_handshake.h). Must never
// crash, hang or allocate without bound, whatever the bytes; refusals are
// fine. A hello that parses must encode back to the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ordo::fuzz {

void parse_raft_handshake(const uint8_t* data, size_t size);

}  // namespace ordo::fuzz
