// The data of the linkbench workload (docs/BENCHMARKS.md) and the in-memory
// model it is checked against.
//
// Table "nodes": node ID (16-byte UUIDv7) -> 64-byte record (rows.h
// row_value: the node's index, a version, padding). Table "links": key
// id1 (16 bytes) + link type (8 bytes, big-endian) + id2 (16 bytes), so
// the links of one (id1, type) are one key range; value 32 bytes: id2's
// index, a version, padding.
//
// The preloaded links are a function of the seed: node i has 1 to 9 links
// (mean 5), link j of type j % kLinkTypes to node mix(seed, i, j) % (i + 1)
// (an older node or itself), the same (type, id2) at most once. So the
// model only keeps the (id1, type) groups the timed operations touched.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ordo/uuid.h"

namespace ordo::bench {

inline constexpr uint64_t kLinkTypes = 2;
inline constexpr size_t kLinkValueBytes = 32;
inline constexpr size_t kLinkPrefixBytes = 24;  // id1 + type

// id1 + type: the prefix of every link of that group.
std::string link_prefix(const Uuid& id1, uint64_t type);
// id1 + type + id2.
std::string link_key(const Uuid& id1, uint64_t type, const Uuid& id2);
// id2's index, version, zero padding.
std::array<char, kLinkValueBytes> link_value(uint64_t id2, uint64_t version);

// One group of links: the links of node id1 with one type.
struct LinkGroup {
  uint64_t id1 = 0;
  uint64_t type = 0;
  auto operator<=>(const LinkGroup&) const = default;
};

// The links the store should hold: the preloaded ones, changed by adds and
// deletes. Node indices: 0..preloaded-1 preloaded, then the added ones.
class LinkModel {
 public:
  LinkModel(uint64_t seed, uint64_t preloaded) : seed_(seed), preloaded_(preloaded) {}

  // The preloaded links of node i as (type, id2), sorted, without repeats.
  std::vector<std::pair<uint64_t, uint64_t>> preload_links(uint64_t i) const;
  // The id2s of `group` now.
  std::set<uint64_t> links(LinkGroup group) const;
  void add(LinkGroup group, uint64_t id2);
  void remove(LinkGroup group, uint64_t id2);
  // Every group an add or remove changed, with its id2s now.
  const std::map<LinkGroup, std::set<uint64_t>>& touched() const { return touched_; }

 private:
  std::set<uint64_t>& touch(LinkGroup group);

  const uint64_t seed_;
  const uint64_t preloaded_;
  std::map<LinkGroup, std::set<uint64_t>> touched_;
};

}  // namespace ordo::bench
