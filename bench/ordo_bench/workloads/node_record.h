// The records of the nodes workload (docs/BENCHMARKS.md): a node's ID, its
// 64-byte record in tree "nodes", and its entry in tree "children".
#pragma once

#include <array>
#include <cstdint>
#include <random>
#include <string>

#include "ordo/uuid.h"

namespace ordo::bench {

inline constexpr size_t kNodeValueBytes = 64;

// A UUIDv4-like ID: 16 bytes from `rng`, version nibble 4, variant bits 10.
Uuid random_node_id(std::mt19937_64& rng);

// Node i's parent index: (i - 1) / fanout. REQUIRES: i > 0, fanout > 0.
inline uint64_t parent_index(uint64_t i, uint64_t fanout) { return (i - 1) / fanout; }

// "n<i>".
std::string node_name(uint64_t i);

// The "nodes" value: the parent ID (16 bytes), the name, zero padding to 64.
std::array<char, kNodeValueBytes> node_value(const Uuid& parent, std::string_view name);

// The "children" key: the parent ID (16 bytes) followed by the name.
std::string child_key(const Uuid& parent, std::string_view name);

}  // namespace ordo::bench
