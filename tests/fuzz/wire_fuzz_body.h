// The fuzzed parsers of bytes from the network. Each must never crash, hang
// or allocate without bound, whatever the bytes; errors are fine. What
// parses must encode back to what parses the same (bytes for the canonical
// formats): a mismatch aborts, naming it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ordo::fuzz {

// Inputs larger than this are ignored (keeps runs fast and memory bounded).
inline constexpr size_t kMaxWireInputBytes = 1 << 16;

// ordo-node's client protocol (tools/ordo-node/protocol.h): data[0] % 3
// picks decode_request (and, for a batch, WriteBatch::decode of it),
// decode_reply, or WriteBatch::decode of the rest.
void decode_client_protocol(const uint8_t* data, size_t size);

// The snapshot channel (replica/src/snapshot_wire.h) and the Raft
// snapshot's record (snapshot_record.h): data[0] % 3 picks the request
// line, the copy header or SnapshotRecord::decode of the rest.
void decode_snapshot_channel(const uint8_t* data, size_t size);

}  // namespace ordo::fuzz
