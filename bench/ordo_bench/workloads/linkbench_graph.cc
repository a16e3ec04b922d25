#include "linkbench_graph.h"

#include <algorithm>

#include "rows.h"

namespace ordo::bench {
namespace {

constexpr uint64_t kMaxLinksPerNode = 9;

// splitmix64's finalizer.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

void append_uuid(std::string& out, const Uuid& id) {
  const ByteView v = id.view();
  out.append(v.char_data(), v.size());
}

}  // namespace

std::string link_prefix(const Uuid& id1, uint64_t type) {
  std::string key;
  key.reserve(kLinkPrefixBytes + 16);
  append_uuid(key, id1);
  char be[8];
  put_be64(be, type);
  key.append(be, sizeof(be));
  return key;
}

std::string link_key(const Uuid& id1, uint64_t type, const Uuid& id2) {
  std::string key = link_prefix(id1, type);
  append_uuid(key, id2);
  return key;
}

std::array<char, kLinkValueBytes> link_value(uint64_t id2, uint64_t version) {
  return indexed_value<kLinkValueBytes>(id2, version);
}

std::vector<std::pair<uint64_t, uint64_t>> LinkModel::preload_links(uint64_t i) const {
  const uint64_t base = mix(seed_ ^ mix(i));
  const uint64_t count = 1 + base % kMaxLinksPerNode;
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (uint64_t j = 0; j < count; ++j) out.emplace_back(j % kLinkTypes, mix(base + j) % (i + 1));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::set<uint64_t> LinkModel::links(LinkGroup group) const {
  if (const auto it = touched_.find(group); it != touched_.end()) return it->second;
  std::set<uint64_t> out;
  if (group.id1 >= preloaded_) return out;  // an added node: no links until added
  for (const auto& [type, id2] : preload_links(group.id1)) {
    if (type == group.type) out.insert(id2);
  }
  return out;
}

std::set<uint64_t>& LinkModel::touch(LinkGroup group) {
  auto it = touched_.find(group);
  if (it == touched_.end()) it = touched_.emplace(group, links(group)).first;
  return it->second;
}

void LinkModel::add(LinkGroup group, uint64_t id2) { touch(group).insert(id2); }

void LinkModel::remove(LinkGroup group, uint64_t id2) { touch(group).erase(id2); }

}  // namespace ordo::bench
