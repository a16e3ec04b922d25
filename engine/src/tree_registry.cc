#include "tree_registry.h"

#include <atomic>

#include "ordo/assert.h"
#include "tree_handles.h"

namespace ordo::engine {

namespace {
uint64_t next_tag() {
  static std::atomic<uint64_t> tags{1};
  return tags.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

TreeRegistry::TreeRegistry() : tag_(next_tag()) {}

Tree TreeRegistry::handle(std::string_view name) {
  if (name.empty()) return Tree();
  base::MutexLock g(mu_);
  auto [it, inserted] = ids_.emplace(std::string(name), static_cast<uint32_t>(ids_.size() + 1));
  // Id 0 is the default tree's; named trees count from 1, one id per name.
  ORDO_ASSERT(it->second >= 1 && it->second <= ids_.size());
  return TreeHandles::make(tag_, it->second, std::string(name));
}

Status TreeRegistry::check(const Tree& tree) const {
  if (tree.is_default()) return Status::ok();
  if (TreeHandles::database_tag(tree) == tag_) {
    ORDO_ASSERT(!tree.name().empty());  // handle() makes named trees only
    return Status::ok();
  }
  return Status::invalid_argument("tree handle '" + tree.name() +
                                  "' was made by another Database (or another open of this "
                                  "file); open the tree again in this one");
}

}  // namespace ordo::engine
